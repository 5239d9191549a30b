//! Naked and hidden subsets (pairs, triples, quads) within a unit.
//!
//! Naked: `n` cells of a unit whose candidates together are `n` digits; those digits leave every
//! cell that sees all `n` cells. Hidden: `n` digits whose places in a unit are the same `n`
//! cells; every other candidate leaves those cells.

use super::state::{Bits, State, PEER_BB, UNIT_BB};
use super::Step;
use crate::engine::grid::UNITS;

/// Calls `f(chosen indices)` for each `n`-combination of `0..len`, until `f` returns true.
fn combinations(len: usize, n: usize, f: &mut impl FnMut(&[usize]) -> bool) -> bool {
    fn go(
        start: usize,
        len: usize,
        n: usize,
        acc: &mut [usize; 4],
        k: usize,
        f: &mut impl FnMut(&[usize]) -> bool,
    ) -> bool {
        if k == n {
            return f(&acc[..n]);
        }
        for i in start..=len - (n - k) {
            acc[k] = i;
            if go(i + 1, len, n, acc, k + 1, f) {
                return true;
            }
        }
        false
    }
    if n == 0 || n > 4 || len < n {
        return false;
    }
    go(0, len, n, &mut [0; 4], 0, f)
}

/// The first naked subset of size `n` (2..=4) that removes something: units in order.
pub(crate) fn naked(s: &State, n: usize, step: &mut Step) -> bool {
    for unit in &UNITS {
        let mut cells = [0usize; 9];
        let mut k = 0;
        let mut empty = 0;
        for &c in unit {
            let c = c as usize;
            let cnt = s.cand[c].count_ones() as usize;
            if cnt > 0 {
                empty += 1;
            }
            if (2..=n).contains(&cnt) {
                cells[k] = c;
                k += 1;
            }
        }
        // A subset must leave at least one other empty cell to eliminate from.
        if k < n || empty <= n {
            continue;
        }
        let found = combinations(k, n, &mut |idx| {
            let mut digits = 0u16;
            let mut area = !0u128;
            let mut pattern = 0u128;
            for &i in idx {
                digits |= s.cand[cells[i]];
                area &= PEER_BB[cells[i]];
                pattern |= 1u128 << cells[i];
            }
            if digits.count_ones() as usize != n {
                return false;
            }
            let mut any = false;
            for d in Bits(digits as u128) {
                let elim = s.pos[d] & area;
                if elim != 0 {
                    if !any {
                        step.add_cells(pattern);
                        step.add_digits(digits);
                        any = true;
                    }
                    step.eliminate_all(elim, d);
                }
            }
            any
        });
        if found {
            return true;
        }
    }
    false
}

/// The first hidden subset of size `n` (2..=4) that removes something: units in order.
pub(crate) fn hidden(s: &State, n: usize, step: &mut Step) -> bool {
    for &ubb in &UNIT_BB {
        let mut digits = [0usize; 9];
        let mut places = [0u128; 9];
        let mut k = 0;
        let mut free = 0;
        for d in 0..9 {
            let m = s.pos[d] & ubb;
            let cnt = m.count_ones() as usize;
            if cnt > 0 {
                free += 1;
            }
            if (2..=n).contains(&cnt) {
                digits[k] = d;
                places[k] = m;
                k += 1;
            }
        }
        // A hidden subset of all the unit's free digits would remove nothing.
        if k < n || free <= n {
            continue;
        }
        let found = combinations(k, n, &mut |idx| {
            let mut cells = 0u128;
            let mut mask = 0u16;
            for &i in idx {
                cells |= places[i];
                mask |= 1 << digits[i];
            }
            if cells.count_ones() as usize != n {
                return false;
            }
            let others: u16 = Bits(cells).fold(0, |a, c| a | s.cand[c]) & !mask;
            if others == 0 {
                return false;
            }
            step.add_cells(cells);
            step.add_digits(mask);
            for d in Bits(others as u128) {
                step.eliminate_all(s.pos[d] & cells, d);
            }
            true
        });
        if found {
            return true;
        }
    }
    false
}
