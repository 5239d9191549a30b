//! The unique-puzzle generator: a random complete grid, then clues removed one at a time (or in
//! symmetric pairs, for a 180-degree symmetric layout) while a check keeps holding, then the
//! grader confirms the level; a miss starts again from a new grid, so every puzzle is fresh.
//!
//! The check depends on the level asked for, so that the dug puzzle is already close to it:
//!
//! - `easy`: the puzzle stays solvable by naked and hidden singles alone (always graded easy);
//! - `medium`: it stays solvable by singles and locked candidates (the solver's bitboard
//!   propagation, [`solver::solves_by_locked_candidates`]), which keeps it at medium or below;
//!   about a quarter of these need more than singles, and those are kept;
//! - `hard`, `expert`: it keeps exactly one solution (the bitboard solver), which digs down to a
//!   minimal puzzle; about a sixth of them grade hard and a fifth expert.
//!
//! Before any check runs, a removal is accepted at once when the removed clue is a naked or
//! hidden single of the remaining givens: the first step gets it back, so nothing else changes.
//! Most early removals take this shortcut, which keeps digging cheap. The grader runs once per
//! candidate puzzle, through its fast path that gives up above the level asked for.

use rand::seq::SliceRandom;
use rand::Rng;

use super::difficulty::{Difficulty, Level};
use super::grader::{self, Grading};
use super::grid::{Grid, N_CELLS, UNITS};
use super::solver;

pub mod variant;

/// A freshly generated puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    /// The puzzle: exactly one solution.
    pub puzzle: Grid,
    /// Its solution.
    pub solution: Grid,
    /// Its grade: `level` is the difficulty asked for. `steps` is empty (the generator uses the
    /// grader's fast path); [`grader::grade`] gives the step record when it is wanted.
    pub grading: Grading,
}

/// A fresh puzzle at `difficulty`: a new random complete grid, clues removed while the check for
/// the level holds (symmetric pairs when `symmetric`), graded, and retried until the grade is
/// the one asked for. Reproducible from the state of `rng`.
pub fn generate(rng: &mut impl Rng, difficulty: Difficulty, symmetric: bool) -> Generated {
    let level = Level::from(difficulty);
    loop {
        let solution = solver::random_solution(rng);
        let mut dug = Dig::new(&solution);
        match difficulty {
            Difficulty::Easy => {
                dig_more(rng, &mut dug, &solution, symmetric, Keep::Singles);
            }
            Difficulty::Medium => {
                dig_more(rng, &mut dug, &solution, symmetric, Keep::LockedCandidates);
            }
            Difficulty::Hard | Difficulty::Expert => {
                dig_more(rng, &mut dug, &solution, symmetric, Keep::Unique);
            }
        }
        let puzzle = dug.grid();
        if let Some(grading) = grader::grade_max(&puzzle, level) {
            if grading.level == level {
                return Generated {
                    puzzle,
                    solution,
                    grading,
                };
            }
        }
    }
}

/// Which property a removal must keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Solvable by naked and hidden singles.
    Singles,
    /// Solvable by singles and locked candidates (pointing, claiming).
    LockedCandidates,
    /// Exactly one solution.
    Unique,
}

/// The cells `cell` shares a unit with, as indices into [`UNITS`].
fn units_of(cell: usize) -> [usize; 3] {
    [
        cell / 9,
        9 + cell % 9,
        18 + usize::from(super::grid::BOX_OF[cell]),
    ]
}

/// A puzzle being dug from its solution, with the digits each row, column and box holds.
struct Dig {
    bytes: [u8; N_CELLS],
    /// `rows[d]`: bit `r` set when digit `d` is in row `r` (likewise columns and boxes).
    rows: [u16; 10],
    cols: [u16; 10],
    boxes: [u16; 10],
}

impl Dig {
    fn new(solution: &Grid) -> Dig {
        let mut dig = Dig {
            bytes: [0; N_CELLS],
            rows: [0; 10],
            cols: [0; 10],
            boxes: [0; 10],
        };
        for (cell, &d) in solution.as_bytes().iter().enumerate() {
            dig.put(cell, d);
        }
        dig
    }

    fn put(&mut self, cell: usize, d: u8) {
        self.bytes[cell] = d;
        let [r, c, b] = units_of(cell);
        let d = usize::from(d);
        self.rows[d] |= 1 << r;
        self.cols[d] |= 1 << (c - 9);
        self.boxes[d] |= 1 << (b - 18);
    }

    fn take(&mut self, cell: usize) {
        let d = usize::from(self.bytes[cell]);
        self.bytes[cell] = 0;
        let [r, c, b] = units_of(cell);
        self.rows[d] &= !(1 << r);
        self.cols[d] &= !(1 << (c - 9));
        self.boxes[d] &= !(1 << (b - 18));
    }

    /// Whether a given in the row, column or box of `cell` is `d`.
    fn sees(&self, cell: usize, d: usize) -> bool {
        let [r, c, b] = units_of(cell);
        (self.rows[d] >> r | self.cols[d] >> (c - 9) | self.boxes[d] >> (b - 18)) & 1 != 0
    }

    /// Whether the empty `cell` must hold `d` by a naked or hidden single of the givens.
    fn forced(&self, cell: usize, d: u8) -> bool {
        let d = usize::from(d);
        if (1..=9).all(|e| e == d || self.sees(cell, e)) {
            return true;
        }
        units_of(cell).iter().any(|&u| {
            UNITS[u].iter().all(|&o| {
                let o = usize::from(o);
                o == cell || self.bytes[o] != 0 || self.sees(o, d)
            })
        })
    }

    fn grid(&self) -> Grid {
        Grid::from_bytes(self.bytes).expect("digits come from a valid grid")
    }
}

/// Remove clues from `solution` in random order (symmetric pairs `cell`, `80 - cell` when asked)
/// while `keep` holds; the result has exactly one solution.
pub fn dig(rng: &mut impl Rng, solution: &Grid, symmetric: bool, keep: Keep) -> Grid {
    let mut dig = Dig::new(solution);
    dig_more(rng, &mut dig, solution, symmetric, keep);
    dig.grid()
}

/// One pass of [`dig`] over the clues `dig` still holds, in a fresh random order. Returns how
/// many clues (or pairs) it removed.
fn dig_more(
    rng: &mut impl Rng,
    dig: &mut Dig,
    solution: &Grid,
    symmetric: bool,
    keep: Keep,
) -> usize {
    let sol = solution.as_bytes();
    let n_slots = if symmetric { N_CELLS / 2 + 1 } else { N_CELLS };
    let mut order = [0u8; N_CELLS];
    let mut n = 0;
    for cell in 0..n_slots {
        if dig.bytes[cell] != 0 {
            order[n] = cell as u8;
            n += 1;
        }
    }
    let order = &mut order[..n];
    order.shuffle(rng);
    let mut removed = 0;
    for &x in order.iter() {
        let x = usize::from(x);
        let y = N_CELLS - 1 - x;
        let pair = symmetric && y != x;
        dig.take(x);
        if pair {
            dig.take(y);
        }
        // With both removed, getting one back by a single and then the other keeps the puzzle.
        let shortcut = if pair {
            (dig.forced(x, sol[x]) && {
                dig.put(x, sol[x]);
                let ok = dig.forced(y, sol[y]);
                dig.take(x);
                ok
            }) || (dig.forced(y, sol[y]) && {
                dig.put(y, sol[y]);
                let ok = dig.forced(x, sol[x]);
                dig.take(y);
                ok
            })
        } else {
            dig.forced(x, sol[x])
        };
        let kept = shortcut || {
            let grid = dig.grid();
            match keep {
                Keep::Singles => solver::solves_by_singles(&grid),
                Keep::LockedCandidates => solver::solves_by_locked_candidates(&grid),
                Keep::Unique => solver::count_solutions(&grid, 2) == 1,
            }
        };
        if kept {
            removed += 1;
        } else {
            dig.put(x, sol[x]);
            if pair {
                dig.put(y, sol[y]);
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests;
