//! Locked candidates: pointing (a digit confined to one line within a box is removed from the
//! rest of that line) and claiming (a digit confined to one box within a line is removed from the
//! rest of that box).
//!
//! `clean`: bit `u` marks unit `u` (a box for pointing, a line for claiming, numbered as in
//! `UNIT_BB`) known to give nothing until its candidates change; the search skips such units and
//! sets the bits of those it clears.

use super::state::{State, UNIT_BB};
use super::Step;

/// Record a locked-candidates step: `d` confined to `cells` in the base unit, removed from `elim`.
fn record(step: &mut Step, d: usize, cells: u128, elim: u128) {
    step.add_cells(cells);
    step.add_digits(1 << d);
    step.eliminate_all(elim, d);
}

/// The first pointing step: boxes in order, digits in order, rows before columns.
pub(crate) fn pointing(s: &State, step: &mut Step, clean: &mut u32) -> bool {
    for b in 0..9 {
        if *clean & (1 << (18 + b)) != 0 {
            continue;
        }
        let bx = UNIT_BB[18 + b];
        for d in 0..9 {
            let m = s.pos[d] & bx;
            if m == 0 {
                continue;
            }
            let (r0, c0) = (b / 3 * 3, b % 3 * 3);
            for line in (r0..r0 + 3).chain(9 + c0..9 + c0 + 3) {
                let ln = UNIT_BB[line];
                if m & !ln == 0 {
                    let elim = s.pos[d] & ln & !bx;
                    if elim != 0 {
                        record(step, d, m, elim);
                        return true;
                    }
                    break;
                }
            }
        }
        *clean |= 1 << (18 + b);
    }
    false
}

/// The first claiming step: rows then columns, digits in order.
pub(crate) fn claiming(s: &State, step: &mut Step, clean: &mut u32) -> bool {
    for (l, &ln) in UNIT_BB[..18].iter().enumerate() {
        if *clean & (1 << l) != 0 {
            continue;
        }
        for d in 0..9 {
            let m = s.pos[d] & ln;
            if m == 0 {
                continue;
            }
            for &bx in &UNIT_BB[18..] {
                if m & !bx == 0 {
                    let elim = s.pos[d] & bx & !ln;
                    if elim != 0 {
                        record(step, d, m, elim);
                        return true;
                    }
                    break;
                }
            }
        }
        *clean |= 1 << l;
    }
    false
}
