//! The stand-in grading of a variant puzzle, until the variant grader
//! (`grader::grade_max_in`) lands: the geometric solver's propagation climbed depth by depth
//! ([`Reasoning`]), the level being the first depth that fills the grid.
//!
//! - `easy`: naked and hidden singles in every house (rows, columns, boxes or regions,
//!   diagonals, windows), with each killer cage kept to the digit sets that make its sum;
//! - `medium`: also pointing and claiming along any two houses, and the digits a cage must hold
//!   (by all its sets) cleared from the cells that see all of their places;
//! - `hard`: also naked pairs, triples and quads (the hidden ones come with them);
//! - `expert`: exactly one solution, and none of the above fills it. This stand-in cannot tell
//!   expert from what the grader would call extreme: both are expert here.
//!
//! The score is rough (each cell weighed by the depth that filled it, in the spirit of the
//! grader's weights) and not comparable with the classic grader's.

use crate::difficulty::Level;
use crate::grader::Grading;
use crate::grid::Grid;
use crate::solver::geometric::{Found, Reasoning, Solver};

/// The levels the depths stand for, and the weight of a cell each fills.
const LADDER: [(Reasoning, Level, u32); 3] = [
    (Reasoning::Singles, Level::Easy, 4),
    (Reasoning::Intersections, Level::Medium, 50),
    (Reasoning::Subsets, Level::Hard, 60),
];

/// The weight of a cell left to the search (expert).
const SEARCHED: u32 = 260;

/// The stand-in grade of `puzzle` under `solver`'s rules, `None` as soon as a level above `max`
/// would be needed, or when the puzzle has no solution or several.
pub(super) fn stand_in(solver: &Solver, puzzle: &Grid, max: Level) -> Option<Grading> {
    let (mut board, mut found) = solver.propagated(puzzle, Reasoning::Singles)?;
    let mut solved = puzzle.n_filled() as u32;
    let mut score = 0;
    for (depth, level, weight) in LADDER {
        if level > max {
            return None;
        }
        if depth > Reasoning::Singles {
            found = solver.deepen(&mut board, depth);
        }
        let now = board.n_solved();
        score += weight * (now - solved);
        solved = now;
        match found {
            Found::Contradiction => return None,
            Found::Solved => {
                return Some(Grading {
                    level,
                    score,
                    steps: Vec::new(),
                    filled: Some(board.grid()),
                });
            }
            Found::Open => {}
        }
    }
    if max < Level::Expert || solver.count(puzzle, 2) != 1 {
        return None;
    }
    Some(Grading {
        level: Level::Expert,
        score: score + SEARCHED * (81 - solved),
        steps: Vec::new(),
        filled: None,
    })
}
