//! A solver for any [`Geometry`] (the variants of A10): counts solutions up to a limit, the
//! uniqueness primitive a variant's generator needs. Plain and general rather than fast: one
//! candidate mask per cell, naked singles through each cell's peers, hidden singles in every
//! house, and a killer cage's digits kept to those of some set of distinct digits that makes up
//! its sum; then a search on the cell with the fewest candidates. Classic grids go to the DPLL
//! solver ([`super::count_solutions`]), which is far faster.

use crate::geometry::{Constraint, Geometry};
use crate::grid::{Cell, Digit, Grid, N_CELLS};

/// Every digit's bit (bit `d` for digit `d`).
const ALL: u16 = 0b11_1111_1110;

/// The sum of the digits in `mask`.
fn digit_sum(mask: u16) -> u16 {
    (1..=9).filter(|d| mask & 1 << d != 0).sum()
}

/// The digits that can complete a cage: `k` more distinct digits from `free` adding up to
/// `rest`, united over every such set.
fn cage_digits(k: u32, rest: u16, free: u16) -> u16 {
    let mut union = 0;
    // Sets of digits as 9-bit masks shifted into place (bit `d` for digit `d`).
    for set in (0u16..512).map(|s| s << 1) {
        if set & !free == 0 && set.count_ones() == k && digit_sum(set) == rest {
            union |= set;
        }
    }
    union
}

/// The search state: each cell's candidates (a single bit once solved).
#[derive(Clone)]
struct State {
    cand: [u16; N_CELLS],
}

/// What propagation found.
enum Found {
    /// Every cell holds one digit.
    Solved,
    /// Some cell or house has no way left.
    Contradiction,
    /// Neither: a search is needed.
    Open,
}

impl State {
    fn new(geometry: &Geometry, puzzle: &Grid) -> Option<State> {
        let mut s = State {
            cand: [ALL; N_CELLS],
        };
        for cell in Cell::all() {
            if let Some(d) = puzzle.get(cell) {
                // Bit `d` for digit `d` here (a `Digit::bit` is `d - 1`).
                let bit = 1u16 << d.get();
                if s.cand[cell.idx()] & bit == 0 {
                    return None;
                }
                s.cand[cell.idx()] = bit;
                for p in geometry.peers(cell) {
                    s.cand[p.idx()] &= !bit;
                }
            }
        }
        Some(s)
    }

    /// Apply singles and cage sums until nothing changes.
    fn propagate(&mut self, geometry: &Geometry) -> Found {
        loop {
            let before = self.cand;
            if !self.naked(geometry) || !self.hidden(geometry) || !self.cages(geometry) {
                return Found::Contradiction;
            }
            if self.cand == before {
                break;
            }
        }
        if self.cand.iter().all(|c| c.count_ones() == 1) {
            Found::Solved
        } else {
            Found::Open
        }
    }

    /// A solved cell's digit leaves its peers; false on an empty cell or two equal peers.
    fn naked(&mut self, geometry: &Geometry) -> bool {
        for cell in Cell::all() {
            let c = self.cand[cell.idx()];
            if c == 0 {
                return false;
            }
            if c.count_ones() == 1 {
                for p in geometry.peers(cell) {
                    let pc = &mut self.cand[p.idx()];
                    if *pc == c {
                        return false;
                    }
                    *pc &= !c;
                }
            }
        }
        true
    }

    /// A digit with one place left in a house goes there; false when it has none.
    fn hidden(&mut self, geometry: &Geometry) -> bool {
        for house in geometry.houses() {
            for d in 1..=9u16 {
                let bit = 1 << d;
                let mut places = house.iter().filter(|c| self.cand[c.idx()] & bit != 0);
                match (places.next(), places.next()) {
                    (None, _) => return false,
                    (Some(only), None) => self.cand[only.idx()] = bit,
                    _ => {}
                }
            }
        }
        true
    }

    /// Each cage's open cells keep only digits of some set that completes its sum.
    fn cages(&mut self, geometry: &Geometry) -> bool {
        for Constraint::Cage { cells, sum } in geometry.constraints() {
            let (mut placed, mut open) = (0u16, Vec::new());
            for c in cells {
                let cand = self.cand[c.idx()];
                if cand.count_ones() == 1 {
                    if placed & cand != 0 {
                        return false;
                    }
                    placed |= cand;
                } else {
                    open.push(*c);
                }
            }
            let Some(rest) = u16::from(*sum).checked_sub(digit_sum(placed)) else {
                return false;
            };
            let allowed = cage_digits(open.len() as u32, rest, ALL & !placed);
            if allowed == 0 && (rest != 0 || !open.is_empty()) {
                return false;
            }
            for c in open {
                self.cand[c.idx()] &= allowed;
            }
        }
        true
    }

    /// The open cell with the fewest candidates.
    fn branch_cell(&self) -> Option<usize> {
        (0..N_CELLS)
            .filter(|&i| self.cand[i].count_ones() > 1)
            .min_by_key(|&i| self.cand[i].count_ones())
    }

    fn grid(&self) -> Grid {
        let mut g = Grid::empty();
        for cell in Cell::all() {
            let c = self.cand[cell.idx()];
            g.set(cell, Digit::new(c.trailing_zeros() as u8));
        }
        g
    }
}

/// Search from `s`, adding each solution to `found` until there are `limit`.
fn search(geometry: &Geometry, mut s: State, limit: usize, found: &mut Vec<Grid>) {
    match s.propagate(geometry) {
        Found::Contradiction => return,
        Found::Solved => {
            // Singles fill cells without checking cage sums to the end: check the whole grid.
            let g = s.grid();
            if crate::validator::check_solution(geometry, &g).is_ok() {
                found.push(g);
            }
            return;
        }
        Found::Open => {}
    }
    let Some(i) = s.branch_cell() else { return };
    for d in (1..=9u16).filter(|d| s.cand[i] & 1 << d != 0) {
        if found.len() >= limit {
            return;
        }
        let mut next = s.clone();
        next.cand[i] = 1 << d;
        search(geometry, next, limit, found);
    }
}

/// The solutions of `puzzle` under `geometry`, at most `limit` of them.
pub fn solutions_in(geometry: &Geometry, puzzle: &Grid, limit: usize) -> Vec<Grid> {
    let mut found = Vec::new();
    if limit > 0 {
        if let Some(s) = State::new(geometry, puzzle) {
            search(geometry, s, limit, &mut found);
        }
    }
    found
}

/// How many solutions `puzzle` has under `geometry`, counted up to `limit`.
pub fn count_solutions_in(geometry: &Geometry, puzzle: &Grid, limit: usize) -> usize {
    solutions_in(geometry, puzzle, limit).len()
}

#[cfg(test)]
mod tests {
    use super::*;

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
