//! Basic fish on one digit: X-Wing (2 lines), Swordfish (3), Jellyfish (4). When a digit's places
//! in `n` base rows lie in `n` columns, it leaves those columns' other rows (and likewise with rows
//! and columns swapped).

use super::combos;
use super::state::{Bits, Digits, State, UNIT_BB};
use super::Step;

/// The first fish of size `n` (2..=4) that removes something: digits in order, rows as base
/// before columns.
pub(crate) fn fish(s: &State, n: usize, step: &mut Step, clean: &mut u32) -> bool {
    for d in 0..9 {
        if *clean & (1 << d) != 0 {
            continue;
        }
        let p = s.pos[d];
        if p == 0 {
            continue;
        }
        // For rows as base: each row's column mask; for columns as base: each column's row mask.
        let mut row_cols = [0u16; 9];
        let mut col_rows = [0u16; 9];
        for c in Bits(p) {
            row_cols[c / 9] |= 1 << (c % 9);
            col_rows[c % 9] |= 1 << (c / 9);
        }
        for (base_off, cover_off, masks) in [(0, 9, &row_cols), (9, 0, &col_rows)] {
            let mut lines = [0usize; 9];
            let mut line_masks = [0u16; 9];
            let mut k = 0;
            for (l, m) in masks.iter().enumerate() {
                if (2..=n).contains(&combos::pop9(*m)) {
                    lines[k] = l;
                    line_masks[k] = *m;
                    k += 1;
                }
            }
            if k < n {
                continue;
            }
            let found = combos::find(&line_masks[..k], n, &mut |chosen, cover| {
                let base: u128 = chosen
                    .iter()
                    .fold(0, |a, &i| a | UNIT_BB[base_off + lines[i]]);
                let cover_bb: u128 = Digits(cover).fold(0, |a, l| a | UNIT_BB[cover_off + l]);
                let elim = p & cover_bb & !base;
                if elim == 0 {
                    return false;
                }
                step.add_cells(p & base);
                step.add_digits(1 << d);
                step.eliminate_all(elim, d);
                true
            });
            if found {
                return true;
            }
        }
        *clean |= 1 << d;
    }
    false
}
