//! Naked and hidden subsets (pairs, triples, quads) within a unit.
//!
//! Naked: `n` cells of a unit whose candidates together are `n` digits; those digits leave every
//! cell that sees all `n` cells. Hidden: `n` digits whose places in a unit are the same `n`
//! cells; every other candidate leaves those cells.
//!
//! `clean`: a set bit marks a unit known to give nothing until its candidates change (candidates
//! only ever go, so a unit that gave nothing still gives nothing); the search skips it and sets
//! the bits of the units it clears.

use super::combos::{self, pop9};
use super::state::{bit, Digits, State, PEER_BB};
use super::Step;
use crate::engine::grid::UNITS;

/// The first naked subset of size `n` (2..=4) that removes something: units in order.
pub(crate) fn naked(s: &State, n: usize, step: &mut Step, clean: &mut u32) -> bool {
    for (u, unit) in UNITS.iter().enumerate() {
        if *clean & (1 << u) != 0 {
            continue;
        }
        let mut cells = [0usize; 9];
        let mut masks = [0u16; 9];
        let mut k = 0;
        let mut empty = 0;
        for &c in unit {
            let c = c as usize;
            let cnt = pop9(s.cand[c]);
            if cnt > 0 {
                empty += 1;
            }
            if (2..=n).contains(&cnt) {
                cells[k] = c;
                masks[k] = s.cand[c];
                k += 1;
            }
        }
        // A subset must leave at least one other empty cell to eliminate from.
        if k >= n && empty > n {
            let found = combos::find(&masks[..k], n, &mut |idx, digits| {
                let mut area = !0u128;
                let mut pattern = 0u128;
                for &i in idx {
                    area &= PEER_BB[cells[i]];
                    pattern |= bit(cells[i]);
                }
                let mut any = false;
                for d in Digits(digits) {
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
        *clean |= 1 << u;
    }
    false
}

/// The first hidden subset of size `n` (2..=4) that removes something: units in order.
pub(crate) fn hidden(
    s: &State,
    places: &[[u16; 9]; 27],
    n: usize,
    step: &mut Step,
    clean: &mut u32,
) -> bool {
    for (u, unit) in UNITS.iter().enumerate() {
        if *clean & (1 << u) != 0 {
            continue;
        }
        let mut digits = [0usize; 9];
        let mut masks = [0u16; 9];
        let mut k = 0;
        let mut free = 0;
        for (d, &m) in places[u].iter().enumerate() {
            let cnt = pop9(m);
            if cnt > 0 {
                free += 1;
            }
            if (2..=n).contains(&cnt) {
                digits[k] = d;
                masks[k] = m;
                k += 1;
            }
        }
        // A hidden subset of all the unit's free digits would remove nothing.
        if k >= n && free > n {
            let found = combos::find(&masks[..k], n, &mut |idx, where_| {
                let mask = idx.iter().fold(0u16, |m, &i| m | 1 << digits[i]);
                let mut cells = 0u128;
                let mut others = 0u16;
                for i in Digits(where_) {
                    let c = unit[i] as usize;
                    cells |= bit(c);
                    others |= s.cand[c];
                }
                others &= !mask;
                if others == 0 {
                    return false;
                }
                step.add_cells(cells);
                step.add_digits(mask);
                for d in Digits(others) {
                    step.eliminate_all(s.pos[d] & cells, d);
                }
                true
            });
            if found {
                return true;
            }
        }
        *clean |= 1 << u;
    }
    false
}
