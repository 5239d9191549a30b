//! Where races' puzzles come from: the [`stock`] of generated puzzles per difficulty (filled off
//! the async workers) and the [`daily`] challenge's puzzle of the day. Both hand out a
//! [`SolvedPuzzle`]; the room layer above decides which one a race is dealt.

pub mod daily;
pub mod stock;

use engine::transform::Transform;
use std::sync::{Arc, OnceLock};

use engine::{Difficulty, Geometry, Grid, Variant};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A puzzle together with its unique solution and its rules: what a race is dealt, and what
/// the server judges placements against (the solution never leaves before `race_over`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolvedPuzzle {
    /// The puzzle (givens only).
    pub puzzle: Grid,
    /// Its unique solution.
    pub solution: Grid,
    /// Its rules (A10): classic, or a variant's houses and cages. Shared: every seat of a
    /// classic, x or windoku race has the same; a jigsaw's or killer's isomorph its own.
    pub geometry: Arc<Geometry>,
}

impl SolvedPuzzle {
    /// A classic puzzle and its solution.
    pub fn classic(puzzle: Grid, solution: Grid) -> SolvedPuzzle {
        SolvedPuzzle {
            puzzle,
            solution,
            geometry: classic(),
        }
    }

    /// The rules it is played by: its houses (and cages), for conflicts, for the transforms
    /// that keep them, and for the layout a client draws.
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// Its variant (A10).
    pub fn variant(&self) -> Variant {
        self.geometry.variant()
    }

    /// The same puzzle under the transform that `seed` draws: the same seed, the same grid.
    pub fn transformed(&self, seed: u64) -> SolvedPuzzle {
        self.isomorph(&mut Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// The same puzzle under a random transform that keeps its variant (any, for classic
    /// Sudoku, drawn as [`Transform::random`] draws it; a jigsaw's or killer's layout is
    /// carried along), from one [`Transform::for_geometry`] draw of `rng`.
    pub fn isomorph(&self, rng: &mut impl Rng) -> SolvedPuzzle {
        let t = Transform::for_geometry(rng, self.geometry());
        if self.variant().has_layout() {
            return self.transformed_by(t);
        }
        // Classic's, x's and windoku's transforms here map their houses onto themselves: the
        // same rules, shared (rebuilding their tables per seat was most of a race's start).
        SolvedPuzzle {
            puzzle: t.apply(&self.puzzle),
            solution: t.apply(&self.solution),
            geometry: self.geometry.clone(),
        }
    }

    /// The same puzzle under `t`, applied to the puzzle, its solution and its rules alike.
    pub fn transformed_by(&self, t: Transform) -> SolvedPuzzle {
        let geometry = if self.geometry.is_classic() {
            self.geometry.clone()
        } else {
            Arc::new(t.apply_geometry(&self.geometry))
        };
        SolvedPuzzle {
            puzzle: t.apply(&self.puzzle),
            solution: t.apply(&self.solution),
            geometry,
        }
    }
}

/// Classic Sudoku's rules, made once and shared by every classic puzzle.
pub fn classic() -> Arc<Geometry> {
    static CLASSIC: OnceLock<Arc<Geometry>> = OnceLock::new();
    CLASSIC
        .get_or_init(|| Arc::new(Geometry::classic().clone()))
        .clone()
}

/// A (variant, difficulty) shelf's place in the stock: classic's four first, in
/// [`Difficulty::ALL`]'s order, then each other variant's.
pub(crate) fn shelf(variant: Variant, difficulty: Difficulty) -> usize {
    let v = Variant::ALL.iter().position(|&x| x == variant).unwrap_or(0);
    v * Difficulty::ALL.len() + slot(difficulty)
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
