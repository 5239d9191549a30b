//! Unique puzzles for every variant (A10: x, windoku, jigsaw, killer; classic goes to the
//! classic generator). Each puzzle is fresh all through: a new layout where the variant has one
//! (`layout`: jigsaw regions, killer cages), a new random complete grid of its rules (the
//! geometric solver with candidates in random order; killer's is a classic grid, its cages cut
//! over it), then givens removed in random order while a check for the level holds, then the
//! level confirmed by [`graded`]; a miss starts again with everything new.
//!
//! The check keeps the dug puzzle close to the level asked for: it stays solvable by the
//! propagation depth of that level (`levels`: singles, then intersections and cage sets, then
//! subsets), and for expert it keeps exactly one solution. Propagation that fills a grid is
//! sound, so every check keeps the puzzle unique. A killer's cages alone usually decide the
//! grid, so hard and expert killers end with no givens or nearly none; easy ones keep some.

use rand::Rng;

use crate::difficulty::{Difficulty, Level};
use crate::geometry::Geometry;
use crate::grader::{self, Grading};
use crate::grid::{Grid, N_CELLS};
use crate::solver::geometric::{Found, Reasoning, Solver};
use crate::solver::random_solution;
use crate::variant::Variant;

mod layout;

/// A freshly generated puzzle of some variant, with its rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantPuzzle {
    /// The puzzle's rules, its own layout included (jigsaw regions, killer cages).
    pub geometry: Geometry,
    /// The givens: exactly one solution under `geometry`.
    pub puzzle: Grid,
    /// That solution.
    pub solution: Grid,
    /// Its grade: `level` is the difficulty asked for; no step record.
    pub grading: Grading,
}

/// How many boards a random fill may visit before its layout is given up (a jigsaw layout
/// can have no solution at all; a good one fills in a few dozen).
const FILL_NODES: usize = 2_000;

/// A fresh `variant` puzzle at `difficulty` (see the module doc); reproducible from the state
/// of `rng`. Classic is the classic generator's, clues in symmetric pairs.
pub fn generate_in(rng: &mut impl Rng, variant: Variant, difficulty: Difficulty) -> VariantPuzzle {
    if variant == Variant::Classic {
        let g = super::generate(rng, difficulty, true);
        return VariantPuzzle {
            geometry: Geometry::classic().clone(),
            puzzle: g.puzzle,
            solution: g.solution,
            grading: g.grading,
        };
    }
    let level = Level::from(difficulty);
    loop {
        let (geometry, solver, solution) = fresh(rng, variant);
        let puzzle = if by_grader(variant, difficulty) {
            dig_graded(rng, &geometry, &solution, level)
        } else {
            dig(rng, &solver, &solution, difficulty)
        };
        if let Some(grading) = graded(&geometry, &puzzle, level) {
            if grading.level == level {
                return VariantPuzzle {
                    geometry,
                    puzzle,
                    solution,
                    grading,
                };
            }
        }
    }
}

/// A new geometry of `variant` (its own layout drawn where it has one), its solver, and a
/// random complete grid of it.
fn fresh(rng: &mut impl Rng, variant: Variant) -> (Geometry, Solver, Grid) {
    loop {
        let (geometry, solution) = match variant {
            Variant::Killer => {
                let solution = random_solution(rng);
                let cages = layout::random_cages(rng, &solution);
                let geometry = Geometry::killer(cages).expect("cages cut over a solution");
                (geometry, Some(solution))
            }
            Variant::Jigsaw => {
                let regions = layout::random_regions(rng);
                let geometry = Geometry::jigsaw(&regions).expect("regions traded connected");
                (geometry, None)
            }
            Variant::X => (Geometry::x(), None),
            Variant::Windoku => (Geometry::windoku(), None),
            Variant::Classic => (Geometry::classic().clone(), Some(random_solution(rng))),
        };
        let solver = Solver::new(&geometry);
        let solution = solution.or_else(|| solver.random_solution(rng, FILL_NODES));
        if let Some(solution) = solution {
            return (geometry, solver, solution);
        }
    }
}

/// The propagation depth a puzzle dug for `difficulty` must stay solvable at; `None` for
/// expert, which only keeps one solution.
fn depth_for(difficulty: Difficulty) -> Option<Reasoning> {
    match difficulty {
        Difficulty::Easy => Some(Reasoning::Singles),
        Difficulty::Medium => Some(Reasoning::Intersections),
        Difficulty::Hard => Some(Reasoning::Subsets),
        Difficulty::Expert => None,
    }
}

/// Remove givens from `solution` in random order while the check for `difficulty` holds (see
/// the module doc); the result has exactly one solution.
fn dig(rng: &mut impl Rng, solver: &Solver, solution: &Grid, difficulty: Difficulty) -> Grid {
    use rand::seq::SliceRandom;
    let depth = depth_for(difficulty);
    let mut bytes = *solution.as_bytes();
    let mut order: Vec<usize> = (0..N_CELLS).collect();
    order.shuffle(rng);
    for cell in order {
        let digit = bytes[cell];
        bytes[cell] = 0;
        let puzzle = Grid::from_bytes(bytes).expect("digits come from a solution");
        let fills = |depth| matches!(solver.propagated(&puzzle, depth), Some((_, Found::Solved)));
        let kept = match depth {
            Some(depth) => fills(depth),
            // Propagation that fills the grid proves it unique without a search.
            None => fills(Reasoning::Subsets) || solver.count(&puzzle, 2) == 1,
        };
        if !kept {
            bytes[cell] = digit;
        }
    }
    Grid::from_bytes(bytes).expect("digits come from a solution")
}

/// Whether `variant` puzzles at `difficulty` are dug by the grader itself rather than by a
/// propagation depth: killers but medium ones. An easy killer dug by the solver's cage sets
/// grades medium (they do more than the arithmetic an easy level allows), and hard and
/// expert ones kept by subsets or merely unique grade extreme far more often than not (a
/// killer's cages alone decide its grid); digging by the grader reaches them at once.
fn by_grader(variant: Variant, difficulty: Difficulty) -> bool {
    variant == Variant::Killer && difficulty != Difficulty::Medium
}

/// Remove givens from `solution` in random order while the grader solves the puzzle at
/// `level` or below (so it stays unique: the techniques are sound and assume nothing).
fn dig_graded(rng: &mut impl Rng, geometry: &Geometry, solution: &Grid, level: Level) -> Grid {
    use rand::seq::SliceRandom;
    let mut bytes = *solution.as_bytes();
    let mut order: Vec<usize> = (0..N_CELLS).collect();
    order.shuffle(rng);
    for cell in order {
        let digit = bytes[cell];
        bytes[cell] = 0;
        let puzzle = Grid::from_bytes(bytes).expect("digits come from a solution");
        if graded(geometry, &puzzle, level).is_none() {
            bytes[cell] = digit;
        }
    }
    Grid::from_bytes(bytes).expect("digits come from a solution")
}

/// The grade of `puzzle` under `geometry`, `None` above `max`: the one place the generator
/// asks for a level (the grader, which knows every variant's techniques).
fn graded(geometry: &Geometry, puzzle: &Grid, max: Level) -> Option<Grading> {
    grader::grade_max_in(geometry, puzzle, max)
}

#[cfg(test)]
mod tests;
