//! Basic fish on one digit: X-Wing (2 lines), Swordfish (3), Jellyfish (4). When a digit's places
//! in `n` base rows lie in `n` columns, it leaves those columns' other rows (and likewise with rows
//! and columns swapped).

use super::state::{Bits, State, UNIT_BB};
use super::Step;

/// The first fish of size `n` (2..=4) that removes something: digits in order, rows as base
/// before columns.
pub(crate) fn fish(s: &State, n: usize, step: &mut Step) -> bool {
    for d in 0..9 {
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
            let mut k = 0;
            for (l, m) in masks.iter().enumerate() {
                if (2..=n).contains(&(m.count_ones() as usize)) {
                    lines[k] = l;
                    k += 1;
                }
            }
            if k < n {
                continue;
            }
            let found = combinations(&lines[..k], n, &mut |chosen| {
                let cover: u16 = chosen.iter().fold(0, |a, &l| a | masks[l]);
                if cover.count_ones() as usize != n {
                    return false;
                }
                let base: u128 = chosen.iter().fold(0, |a, &l| a | UNIT_BB[base_off + l]);
                let cover_bb: u128 = Bits(cover as u128).fold(0, |a, l| a | UNIT_BB[cover_off + l]);
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
    }
    false
}

/// Calls `f(chosen)` for each `n`-subset of `items` (n <= 4), until `f` returns true.
fn combinations(items: &[usize], n: usize, f: &mut impl FnMut(&[usize]) -> bool) -> bool {
    fn go(
        items: &[usize],
        start: usize,
        n: usize,
        acc: &mut [usize; 4],
        k: usize,
        f: &mut impl FnMut(&[usize]) -> bool,
    ) -> bool {
        if k == n {
            return f(&acc[..n]);
        }
        for i in start..=items.len() - (n - k) {
            acc[k] = items[i];
            if go(items, i + 1, n, acc, k + 1, f) {
                return true;
            }
        }
        false
    }
    if n == 0 || n > 4 || items.len() < n {
        return false;
    }
    go(items, 0, n, &mut [0; 4], 0, f)
}
