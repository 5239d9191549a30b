//! Where races' puzzles come from: the [`stock`] of generated puzzles per difficulty (filled off
//! the async workers) and the [`daily`] challenge's puzzle of the day. Both hand out a
//! [`SolvedPuzzle`]; the room layer above decides which one a race is dealt.

pub mod daily;
pub mod stock;

use engine::transform::Transform;
use engine::{Difficulty, Geometry, Grid};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A puzzle together with its unique solution: what a race is dealt, and what the server
/// judges placements against (the solution never leaves before `race_over`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolvedPuzzle {
    /// The puzzle (givens only).
    pub puzzle: Grid,
    /// Its unique solution.
    pub solution: Grid,
}

impl SolvedPuzzle {
    /// The rules it is played by: its houses, for conflicts and for the transforms that keep
    /// them. Classic Sudoku until a puzzle carries a variant.
    pub fn geometry(&self) -> &'static Geometry {
        Geometry::classic()
    }

    /// The same puzzle under the transform that `seed` draws: the same seed, the same grid.
    pub fn transformed(&self, seed: u64) -> SolvedPuzzle {
        self.isomorph(&mut Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// The same puzzle under a random transform that keeps its geometry (any, for classic
    /// Sudoku), from one [`Transform::random`] draw of `rng`.
    pub fn isomorph(&self, rng: &mut impl Rng) -> SolvedPuzzle {
        self.transformed_by(Transform::random_keeping(rng, self.geometry()))
    }

    /// The same puzzle under `t`, applied to the puzzle and its solution alike.
    pub fn transformed_by(&self, t: Transform) -> SolvedPuzzle {
        SolvedPuzzle {
            puzzle: t.apply(&self.puzzle),
            solution: t.apply(&self.solution),
        }
    }
}

/// A difficulty's place in the arrays kept per difficulty (the stock's shelves, the pool's
/// queues), in [`Difficulty::ALL`]'s order.
pub(crate) fn slot(d: Difficulty) -> usize {
    match d {
        Difficulty::Easy => 0,
        Difficulty::Medium => 1,
        Difficulty::Hard => 2,
        Difficulty::Expert => 3,
    }
}
