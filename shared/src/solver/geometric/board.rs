//! The candidates of a board under a geometry's rules, and propagation at three depths of
//! reasoning ([`Reasoning`]): what the solver runs at each node of its search, and what the
//! variant generator keeps a puzzle solvable at while it digs.
//!
//! Candidates are a `u16` per cell with bit `d` for digit `d` (unlike [`Digit::bit`], which
//! is `d - 1`), so a cage's digit sets from the combos table apply as they are.
//!
//! [`Digit::bit`]: crate::grid::Digit::bit

use super::rules::Rules;
use crate::grid::{Cell, Digit, Grid, N_CELLS};

/// Every digit's bit (bit `d` for digit `d`).
pub(crate) const ALL: u16 = 0b11_1111_1110;

/// Every cell's bit.
const CELLS: u128 = (1 << N_CELLS) - 1;

/// How far propagation reasons; each depth does everything the one before does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reasoning {
    /// Naked and hidden singles in every house, and each cage kept to the digits of its sets
    /// that its cells can still hold.
    Singles,
    /// Also: a digit a house (or a cage, by all its sets) must hold, left only in cells that
    /// share some other house or cage, leaves every cell that sees all of them (pointing and
    /// claiming, along any houses, and a cage's forced digits).
    Intersections,
    /// Also: naked pairs, triples and quads in every house (which covers the hidden ones).
    Subsets,
}

/// What propagation found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// Every cell holds one digit, and every rule holds.
    Solved,
    /// Some cell, house or cage has no way left.
    Contradiction,
    /// Neither: a search (or deeper reasoning) is needed.
    Open,
}

/// Each cell's candidates, and which solved cells have cleared their digit from their peers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Board {
    pub(crate) cand: [u16; N_CELLS],
    cleared: u128,
}

impl Board {
    /// The board of `puzzle`'s givens; `None` when two givens clash.
    pub(crate) fn new(rules: &Rules, puzzle: &Grid) -> Option<Board> {
        let mut b = Board {
            cand: [ALL; N_CELLS],
            cleared: 0,
        };
        for (i, &d) in puzzle.as_bytes().iter().enumerate() {
            if d != 0 {
                b.cand[i] = 1 << d;
            }
        }
        b.naked(rules).then_some(b)
    }

    /// Place `d` in cell `i` (a branch of the search).
    pub(crate) fn place(&mut self, i: usize, d: u16) {
        self.cand[i] = 1 << d;
    }

    /// Propagate at `depth` until nothing changes.
    pub(crate) fn propagate(&mut self, rules: &Rules, depth: Reasoning) -> Found {
        loop {
            if !self.naked(rules) {
                return Found::Contradiction;
            }
            let Some(changed) = self.hidden(rules) else {
                return Found::Contradiction;
            };
            if changed {
                continue;
            }
            let Some(changed) = self.cages(rules) else {
                return Found::Contradiction;
            };
            if changed {
                continue;
            }
            if depth >= Reasoning::Intersections && self.intersections(rules) {
                continue;
            }
            if depth >= Reasoning::Subsets && self.subsets(rules) {
                continue;
            }
            break;
        }
        if self.cleared == CELLS {
            Found::Solved
        } else {
            Found::Open
        }
    }

    /// Every solved cell clears its digit from its peers, until none is left to clear; false
    /// when a cell loses its last candidate.
    fn naked(&mut self, rules: &Rules) -> bool {
        loop {
            let mut todo = CELLS & !self.cleared;
            let mut progressed = false;
            while todo != 0 {
                let i = todo.trailing_zeros() as usize;
                todo &= todo - 1;
                let c = self.cand[i];
                if c == 0 {
                    return false;
                }
                if !c.is_power_of_two() {
                    continue;
                }
                for &p in rules.peers(i) {
                    let pc = &mut self.cand[usize::from(p)];
                    *pc &= !c;
                    if *pc == 0 {
                        return false;
                    }
                }
                self.cleared |= 1 << i;
                progressed = true;
            }
            if !progressed {
                return true;
            }
        }
    }

    /// A digit with one place left in a house goes there. `None` when a house has no place
    /// left for a digit (or one cell would need two); else whether anything changed.
    fn hidden(&mut self, rules: &Rules) -> Option<bool> {
        let mut changed = false;
        for house in &rules.houses {
            let (mut once, mut twice, mut fixed) = (0u16, 0u16, 0u16);
            for &c in house {
                let cand = self.cand[usize::from(c)];
                twice |= once & cand;
                once |= cand;
                if cand.is_power_of_two() {
                    fixed |= cand;
                }
            }
            if once != ALL {
                return None;
            }
            let mut hidden = once & !twice & !fixed;
            while hidden != 0 {
                let bit = hidden & hidden.wrapping_neg();
                hidden &= hidden - 1;
                let i = house
                    .iter()
                    .map(|&c| usize::from(c))
                    .find(|&i| self.cand[i] & bit != 0)?;
                self.cand[i] = bit;
                changed = true;
            }
        }
        Some(changed)
    }

    /// Over the digit sets of a cage that its cells can still hold (each cell keeps one of
    /// the set's digits and together they hold all of them): their union (the digits the
    /// cells may keep) and their intersection (the digits the cage must hold). `(0, ALL)` when
    /// none fits.
    fn fitting(&self, sets: &[u16], cells: &[u8]) -> (u16, u16) {
        let (mut any, mut every) = (0, ALL);
        'sets: for &set in sets {
            let mut union = 0;
            for &c in cells {
                let here = self.cand[usize::from(c)] & set;
                if here == 0 {
                    continue 'sets;
                }
                union |= here;
            }
            if union == set {
                any |= set;
                every &= set;
            }
        }
        (any, every)
    }

    /// Each cage's cells keep only the digits of the sets that still fit. `None` when no set
    /// fits; else whether anything changed.
    fn cages(&mut self, rules: &Rules) -> Option<bool> {
        let mut changed = false;
        for cage in &rules.cages {
            let (allowed, _) = self.fitting(cage.sets, cage.cells());
            if allowed == 0 {
                return None;
            }
            for &c in cage.cells() {
                let cand = &mut self.cand[usize::from(c)];
                if *cand & !allowed != 0 {
                    *cand &= allowed;
                    changed = true;
                }
            }
        }
        Some(changed)
    }

    /// `d` leaves every cell that sees all of `cells`' places for it (see
    /// [`Reasoning::Intersections`]); whether anything changed.
    fn point(&mut self, rules: &Rules, cells: &[u8], d: u16) -> bool {
        let bit = 1 << d;
        let mut seen_by_all = CELLS;
        let mut places = 0;
        for &c in cells {
            if self.cand[usize::from(c)] & bit != 0 {
                seen_by_all &= rules.peer_bits[usize::from(c)];
                places += 1;
            }
        }
        if places < 2 {
            return false;
        }
        let mut changed = false;
        while seen_by_all != 0 {
            let i = seen_by_all.trailing_zeros() as usize;
            seen_by_all &= seen_by_all - 1;
            if self.cand[i] & bit != 0 {
                self.cand[i] &= !bit;
                changed = true;
            }
        }
        changed
    }

    /// Pointing and claiming along every house, and each cage's forced digits.
    fn intersections(&mut self, rules: &Rules) -> bool {
        let mut changed = false;
        for house in &rules.houses {
            for d in 1..=9 {
                changed |= self.point(rules, house, d);
            }
        }
        for cage in &rules.cages {
            let (any, forced) = self.fitting(cage.sets, cage.cells());
            if any == 0 {
                continue;
            }
            for d in (1..=9).filter(|d| forced & 1 << d != 0) {
                changed |= self.point(rules, cage.cells(), d);
            }
        }
        changed
    }

    /// Naked pairs, triples and quads in every house; whether anything changed.
    fn subsets(&mut self, rules: &Rules) -> bool {
        let mut changed = false;
        for house in &rules.houses {
            let open: Vec<usize> = house
                .iter()
                .map(|&c| usize::from(c))
                .filter(|&i| !self.cand[i].is_power_of_two())
                .collect();
            let n = open.len();
            for pick in 1u16..(1 << n) {
                let k = pick.count_ones();
                if !(2..=4).contains(&k) || k as usize >= n {
                    continue;
                }
                let union = (0..n)
                    .filter(|j| pick & 1 << j != 0)
                    .fold(0, |u, j| u | self.cand[open[j]]);
                if union.count_ones() != k {
                    continue;
                }
                for (j, &i) in open.iter().enumerate() {
                    if pick & 1 << j == 0 && self.cand[i] & union != 0 {
                        self.cand[i] &= !union;
                        changed = true;
                    }
                }
            }
        }
        changed
    }

    /// The open cell with the fewest candidates.
    pub(crate) fn branch_cell(&self) -> Option<usize> {
        let mut best: Option<(u32, usize)> = None;
        let mut todo = CELLS & !self.cleared;
        while todo != 0 {
            let i = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            let n = self.cand[i].count_ones();
            if n > 1 && best.is_none_or(|(m, _)| n < m) {
                best = Some((n, i));
                if n == 2 {
                    break;
                }
            }
        }
        best.map(|(_, i)| i)
    }

    /// The grid of the solved cells (the others empty).
    pub(crate) fn grid(&self) -> Grid {
        let mut g = Grid::empty();
        for cell in Cell::all() {
            let c = self.cand[cell.idx()];
            if c.is_power_of_two() {
                g.set(cell, Digit::new(c.trailing_zeros() as u8));
            }
        }
        g
    }
}
