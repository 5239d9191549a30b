//! A solver for any [`Geometry`] (the variants of A10): counts solutions up to a limit (the
//! uniqueness primitive a variant's generator needs), and fills random complete grids.
//!
//! One candidate mask per cell; at each node naked singles through each cell's peers, hidden
//! singles in every house, and each killer cage kept to the digit sets (precomputed per size
//! and sum, `combos`) that its cells can still hold; then a search on the cell with the fewest
//! candidates. [`Solver`] compiles a geometry's tables once (`rules`) for many calls; the free
//! functions compile per call. Classic grids are faster on the DPLL solver
//! ([`super::count_solutions`]).
//!
//! The board and its deeper reasoning ([`Reasoning`]: intersections, subsets) live in `board`;
//! the variant generator digs puzzles that stay solvable at a level's depth.

use rand::seq::SliceRandom;
use rand::Rng;

use crate::geometry::Geometry;
use crate::grid::Grid;

mod board;
mod combos;
mod rules;

pub(crate) use board::Board;
pub use board::{Found, Reasoning};
pub use combos::combos;
use rules::Rules;

/// A geometry compiled for solving: build once, then count or fill many grids.
#[derive(Clone, Debug)]
pub struct Solver {
    rules: Rules,
}

impl Solver {
    /// The solver of `geometry`'s rules.
    pub fn new(geometry: &Geometry) -> Solver {
        Solver {
            rules: Rules::new(geometry),
        }
    }

    /// The solutions of `puzzle`, at most `limit` of them.
    pub fn solutions(&self, puzzle: &Grid, limit: usize) -> Vec<Grid> {
        let mut found = Vec::new();
        if limit > 0 {
            if let Some(b) = Board::new(&self.rules, puzzle) {
                self.search(b, limit, &mut found);
            }
        }
        found
    }

    /// How many solutions `puzzle` has, counted up to `limit`.
    pub fn count(&self, puzzle: &Grid, limit: usize) -> usize {
        self.solutions(puzzle, limit).len()
    }

    /// Search from `b`, adding each solution to `found` until there are `limit`.
    fn search(&self, mut b: Board, limit: usize, found: &mut Vec<Grid>) {
        match b.propagate(&self.rules, Reasoning::Singles) {
            Found::Contradiction => return,
            Found::Solved => {
                found.push(b.grid());
                return;
            }
            Found::Open => {}
        }
        let Some(i) = b.branch_cell() else { return };
        let mut digits = b.cand[i];
        while digits != 0 && found.len() < limit {
            let d = digits.trailing_zeros() as u16;
            digits &= digits - 1;
            let mut next = b;
            next.place(i, d);
            self.search(next, limit, found);
        }
    }

    /// A random complete grid of the rules (candidates tried in random order), or `None` when
    /// there is none or the search visits more than `max_nodes` boards without finding one
    /// (a jigsaw layout can have no solution, which a full search may take long to show).
    pub fn random_solution(&self, rng: &mut impl Rng, max_nodes: usize) -> Option<Grid> {
        let b = Board::new(&self.rules, &Grid::empty())?;
        let mut nodes = 0;
        self.fill(rng, b, &mut nodes, max_nodes)
    }

    fn fill(
        &self,
        rng: &mut impl Rng,
        mut b: Board,
        nodes: &mut usize,
        max: usize,
    ) -> Option<Grid> {
        *nodes += 1;
        if *nodes > max {
            return None;
        }
        match b.propagate(&self.rules, Reasoning::Singles) {
            Found::Contradiction => return None,
            Found::Solved => return Some(b.grid()),
            Found::Open => {}
        }
        let i = b.branch_cell()?;
        let mut digits: Vec<u16> = (1..=9).filter(|d| b.cand[i] & 1 << d != 0).collect();
        digits.shuffle(rng);
        for d in digits {
            let mut next = b;
            next.place(i, d);
            if let Some(g) = self.fill(rng, next, nodes, max) {
                return Some(g);
            }
            if *nodes > max {
                return None;
            }
        }
        None
    }

    /// The board of `puzzle` after propagation at `depth`, and what it found; `None` when
    /// the givens clash.
    pub(crate) fn propagated(&self, puzzle: &Grid, depth: Reasoning) -> Option<(Board, Found)> {
        let mut b = Board::new(&self.rules, puzzle)?;
        let found = b.propagate(&self.rules, depth);
        Some((b, found))
    }
}

/// The solutions of `puzzle` under `geometry`, at most `limit` of them.
pub fn solutions_in(geometry: &Geometry, puzzle: &Grid, limit: usize) -> Vec<Grid> {
    Solver::new(geometry).solutions(puzzle, limit)
}

/// How many solutions `puzzle` has under `geometry`, counted up to `limit`.
pub fn count_solutions_in(geometry: &Geometry, puzzle: &Grid, limit: usize) -> usize {
    solutions_in(geometry, puzzle, limit).len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{Cell, Digit};

    /// A classic puzzle with one solution (the DPLL solver's answer is the reference).
    const PUZZLE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

    fn grid(line: &str) -> Grid {
        line.parse().expect("grid")
    }

    #[test]
    fn on_classic_it_agrees_with_the_dpll_solver() {
        let p = grid(PUZZLE);
        let ours = solutions_in(Geometry::classic(), &p, 2);
        assert_eq!(ours.len(), 1);
        assert_eq!(Some(ours[0]), crate::solver::solve_one(&p));
        // Emptied, a grid has many solutions; counting stops at the limit.
        assert_eq!(
            count_solutions_in(Geometry::classic(), &Grid::empty(), 5),
            5
        );
    }

    #[test]
    fn every_solution_it_finds_keeps_the_variants_rules() {
        for g in [Geometry::x(), Geometry::windoku()] {
            let found = solutions_in(&g, &Grid::empty(), 3);
            assert_eq!(found.len(), 3);
            for s in &found {
                assert!(crate::validator::check_solution(&g, s).is_ok());
            }
        }
    }

    #[test]
    fn a_solution_given_back_as_givens_less_one_cell_is_unique_and_a_clash_has_none() {
        let x = Geometry::x();
        let solved = solutions_in(&x, &Grid::empty(), 1)[0];
        let mut p = solved;
        let first = Cell::new(0).expect("cell");
        p.set(first, None);
        assert_eq!(solutions_in(&x, &p, 2), vec![solved]);
        // The same digit twice on a diagonal: no solution.
        let mut clash = Grid::empty();
        let d = Digit::new(4);
        clash.set(first, d);
        clash.set(Cell::at(8, 8).expect("cell"), d);
        assert_eq!(count_solutions_in(&x, &clash, 2), 0);
    }

    #[test]
    fn killer_cages_decide_what_givens_cannot() {
        // The whole grid in two-cell cages of a known solution, no givens: the cages alone.
        let solved = grid(
            &crate::solver::solve_one(&grid(PUZZLE))
                .expect("solved")
                .to_line(),
        );
        let cages: Vec<(Vec<Cell>, u8)> = (0..81u8)
            .step_by(2)
            .map(|i| {
                let cells: Vec<Cell> = [i, i + 1]
                    .iter()
                    .filter_map(|&c| Cell::new(c))
                    .filter(|c| c.row() == Cell::new(i).map_or(9, |f| f.row()))
                    .collect();
                let sum = cells
                    .iter()
                    .filter_map(|c| solved.get(*c))
                    .map(|d| d.get())
                    .sum();
                (cells, sum)
            })
            .collect();
        let killer = Geometry::killer(cages).expect("cages");
        let found = solutions_in(&killer, &Grid::empty(), 2);
        assert!(found.contains(&solved), "the grid the cages were cut from");
        for s in &found {
            assert!(crate::validator::check_solution(&killer, s).is_ok());
        }
    }
}
