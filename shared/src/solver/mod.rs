//! The solver: counts solutions up to a limit (the uniqueness primitive), returns the solution
//! when it is unique, and fills random complete grids for the generator.
//!
//! Counting (`count_solutions`, `solve_unique`, `solve_one`) runs on [`dpll`], a port of tdoku's
//! SIMD DPLL solver, the fastest on hard puzzles. The bitboard solver described below fills
//! random grids (it can try candidates in random order) and answers whether singles or locked
//! candidates alone solve a grid (the generator's easy levels).
//!
//! # Design of the bitboard solver
//!
//! The state is one candidate bitboard per (digit, band): `cand[d * 3 + b]` holds 27 bits, one per
//! cell of band `b` (rows `3b..3b+3`), bit `9 * row_in_band + col`. A second mask per band marks
//! the cells not yet solved. Propagation works a whole digit-band at a time with bit operations:
//!
//! - **Band shrink.** Within a band a digit occupies exactly one cell in each of the 3 rows and
//!   each of the 3 boxes, so the rows pick the boxes by a permutation. From the 9-bit occupancy of
//!   the band's "mini-rows" (row x box), a 512-entry table gives the mini-rows that take part in some
//!   valid permutation; everything else is removed. This is box/line locked candidates inside the
//!   band, and it finds hidden singles in boxes (a box with one cell forces that cell's row).
//! - **Row singles.** A row of the band left with one cell solves it: the cell is removed from the
//!   other digits, and its column from the digit's other two bands.
//! - **Naked singles** come from bit-sliced counting over the nine digits of a band (cells seen
//!   once, twice, three times); a cell with no candidate is a contradiction.
//! - **Stack shrink.** When those stall, the band shrink turned sideways: within a stack the
//!   columns pick the bands by a permutation, from the same table. With both shrinks every
//!   pointing and claiming move is found; it pays for itself (13-15% fewer instructions on
//!   top1465 and the 17-clue set).
//! - **Column hidden singles** last, with the same counting over the nine rows of a digit.
//!
//! Only digit-bands that changed since they were last looked at are revisited. When nothing more
//! follows, the solver branches on a bivalue cell, preferring (among the first few) the one with
//! the most peers still holding one of its digits, so that either branch propagates far; a cell
//! with the fewest candidates when there is no bivalue cell. The small state (27 + 27 + 3 words)
//! is copied for all but the last branch. The design follows the well-known
//! band-oriented fast solvers (JCZSolve and its descendants); this is an independent implementation.

use rand::seq::SliceRandom;
use rand::{Rng, RngCore};

use super::grid::{Grid, N_CELLS};

mod dpll;
pub mod geometric;
mod state;
mod tables;

use state::{State, LOCKED, SINGLES};

/// Why a grid has no unique solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// The givens admit no solution (including givens that clash).
    #[error("the puzzle has no solution")]
    NoSolution,
    /// The givens admit two or more solutions.
    #[error("the puzzle has more than one solution")]
    Multiple,
}

/// The number of solutions of `grid`, counting stops at `limit` (so the result is `<= limit`).
///
/// `count_solutions(g, 2) == 1` is the uniqueness test. Clashing givens give `0`.
pub fn count_solutions(grid: &Grid, limit: usize) -> usize {
    dpll::count(grid.as_bytes(), limit, false).count
}

/// The solution of `grid` when it has exactly one.
pub fn solve_unique(grid: &Grid) -> Result<Grid, SolveError> {
    let outcome = dpll::count(grid.as_bytes(), 2, true);
    match outcome.count {
        0 => Err(SolveError::NoSolution),
        1 => Ok(full_grid(outcome.first).unwrap_or_else(|| bitboard_first(grid, 2))),
        _ => Err(SolveError::Multiple),
    }
}

/// One solution of `grid` (the first found), or `None` when it has none.
pub fn solve_one(grid: &Grid) -> Option<Grid> {
    let outcome = dpll::count(grid.as_bytes(), 1, true);
    match outcome.count {
        0 => None,
        _ => Some(full_grid(outcome.first).unwrap_or_else(|| bitboard_first(grid, 1))),
    }
}

/// The grid of a solution found by [`dpll`], when every cell holds a digit.
fn full_grid(cells: Option<[u8; N_CELLS]>) -> Option<Grid> {
    let grid = Grid::from_bytes(cells?)?;
    grid.is_full().then_some(grid)
}

/// The first solution the bitboard search finds: a second opinion, should the DPLL search ever
/// report a solution it cannot spell out (its tests show it always can).
fn bitboard_first(grid: &Grid, limit: usize) -> Grid {
    let mut search = Search {
        limit,
        count: 0,
        first: None,
        rng: None,
    };
    if let Some(mut state) = State::from_grid(grid) {
        search.run(&mut state);
    }
    search.first.unwrap_or(*grid)
}

/// Whether singles and locked candidates (pointing and claiming, along rows and columns) solve
/// `grid`: a puzzle graded easy or medium. Such a puzzle has exactly one solution.
pub fn solves_by_locked_candidates(grid: &Grid) -> bool {
    match State::from_grid(grid) {
        Some(mut state) => state.propagate::<LOCKED>() && state.unsolved == [0; 3],
        None => false,
    }
}

/// Whether naked and hidden singles alone solve `grid`. Such a puzzle has exactly one solution.
pub fn solves_by_singles(grid: &Grid) -> bool {
    match State::from_grid(grid) {
        Some(mut state) => state.propagate::<SINGLES>() && state.unsolved == [0; 3],
        None => false,
    }
}

/// A random complete grid: the three diagonal boxes get random permutations, the rest is solved
/// with candidates tried in random order.
pub fn random_solution(rng: &mut impl Rng) -> Grid {
    let mut bytes = [0u8; N_CELLS];
    let mut digits: [u8; 9] = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    for bx in [0usize, 4, 8] {
        digits.shuffle(rng);
        let top = (bx / 3) * 27 + (bx % 3) * 3;
        for (k, &d) in digits.iter().enumerate() {
            bytes[top + (k / 3) * 9 + k % 3] = d;
        }
    }
    let start = Grid::from_bytes(bytes).expect("digits are 1..=9");
    let mut state = State::from_grid(&start).expect("diagonal boxes never clash");
    let mut search = Search {
        limit: 1,
        count: 0,
        first: None,
        rng: Some(rng),
    };
    search.run(&mut state);
    search
        .first
        .expect("a grid with only its diagonal boxes filled always has a solution")
}

/// A depth-first search that counts solutions up to `limit` and keeps the first.
struct Search<'r> {
    limit: usize,
    count: usize,
    first: Option<Grid>,
    /// When set, candidates are tried in random order (for random grids).
    rng: Option<&'r mut dyn RngCore>,
}

impl Search<'_> {
    fn run(&mut self, state: &mut State) {
        if !state.propagate::<LOCKED>() {
            return;
        }
        if state.unsolved == [0; 3] {
            self.count += 1;
            if self.first.is_none() {
                self.first = Some(state.to_grid());
            }
            return;
        }
        let Some(cell) = state.branch_cell() else {
            return;
        };
        let band = cell / 27;
        let bit = 1u32 << (cell % 27);
        let mut digits = [0usize; 9];
        let mut n = 0;
        for d in 0..9 {
            if state.cand[d * 3 + band] & bit != 0 {
                digits[n] = d;
                n += 1;
            }
        }
        if let Some(rng) = self.rng.as_mut() {
            digits[..n].shuffle(rng);
        }
        for (k, &d) in digits[..n].iter().enumerate() {
            if k + 1 == n {
                if state.assign(d, cell) {
                    self.run(state);
                }
            } else {
                let mut branch = *state;
                if branch.assign(d, cell) {
                    self.run(&mut branch);
                }
            }
            if self.count >= self.limit {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(puzzle: &str, solution: Result<&str, SolveError>) {
        let grid = Grid::parse(puzzle).expect("test puzzle parses");
        let got = solve_unique(&grid).map(|g| g.to_line());
        assert_eq!(got, solution.map(str::to_owned), "puzzle {puzzle}");
    }

    #[test]
    fn solves_unique_puzzles() {
        check(
            "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79",
            Ok("534678912672195348198342567859761423426853791713924856961537284287419635345286179"),
        );
        check(
            "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9",
            Ok("987654321246173985351928746128537694634892157795461832519286473472319568863745219"),
        );
    }

    #[test]
    fn reports_multiple_and_none() {
        check(&".".repeat(81), Err(SolveError::Multiple));
        // Two 5s in the first row.
        check(
            "55...............................................................................",
            Err(SolveError::NoSolution),
        );
        // Consistent givens, but r1c9 can hold nothing.
        check(
            "12345678.........9...............................................................",
            Err(SolveError::NoSolution),
        );
    }

    #[test]
    fn counts_up_to_the_limit() {
        let empty = Grid::empty();
        assert_eq!(count_solutions(&empty, 0), 0);
        assert_eq!(count_solutions(&empty, 1), 1);
        assert_eq!(count_solutions(&empty, 50), 50);
        let solved = Grid::parse(
            "534678912672195348198342567859761423426853791713924856961537284287419635345286179",
        )
        .expect("parses");
        assert_eq!(count_solutions(&solved, 10), 1);
    }

    #[test]
    fn random_solutions_are_valid_and_differ() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let a = random_solution(&mut rng);
        let b = random_solution(&mut rng);
        assert_ne!(a, b);
        for g in [a, b] {
            assert!(g.is_full());
            assert_eq!(count_solutions(&g, 2), 1);
        }
    }
}
