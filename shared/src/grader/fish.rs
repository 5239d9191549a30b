//! Basic fish on one digit: X-Wing (2 lines), Swordfish (3), Jellyfish (4). When a digit's places
//! in `n` base rows lie in `n` columns, it leaves those columns' other rows (and likewise with rows
//! and columns swapped).

use super::combos;
use super::state::{Digits, State, UNIT_BB};
use super::step::Step;

/// The first fish of size `n` (2..=4) that removes something: digits in order, rows as base
/// before columns.
/// `places` is [`State::unit_places`].
pub(crate) fn fish(
    s: &State,
    places: &[[u16; 9]; 27],
    n: usize,
    step: &mut Step,
    clean: &mut u32,
) -> bool {
    for (d, &p) in s.pos.iter().enumerate() {
        if *clean & (1 << d) != 0 {
            continue;
        }
        if p == 0 {
            continue;
        }
        // For rows as base: each row's column mask; for columns as base: each column's row mask.
        let mut row_cols = [0u16; 9];
        let mut col_rows = [0u16; 9];
        for k in 0..9 {
            row_cols[k] = places[k][d];
            col_rows[k] = places[9 + k][d];
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

#[cfg(test)]
mod tests {
    use super::super::testing::check_step;
    use super::super::Technique;

    // Each puzzle is the one of the shared sets (qqwing, top1465) that needs the fewest
    // steps above singles while using the technique.

    #[test]
    fn x_wing() {
        check_step(
            "7......6.12..........28.31..4.6..8..9.5..42............5..4........75....7.3..4.8",
            Technique::XWing,
            "x-wing: 8 in r6c1,r6c6,r7c1,r7c6 => r6c2 <> 8, r6c3 <> 8, r6c4 <> 8, r7c3 <> 8, r7c4 <> 8",
        );
    }

    #[test]
    fn swordfish() {
        check_step(
            "5..7.........3..7...8..5..36..1..4...8..2..9...9..8..1...4..3...6..9..4...2..6..9",
            Technique::Swordfish,
            "swordfish: 4 in r3c1,r3c2,r3c5,r6c1,r6c2,r6c5,r9c1,r9c2 => r1c2 <> 4, r1c5 <> 4, r2c1 <> 4, r2c2 <> 4, r5c1 <> 4",
        );
    }

    #[test]
    fn jellyfish() {
        check_step(
            "...27...98...........4.8..132...69.......9.3.7..1....2..........948....6.789...2.",
            Technique::Jellyfish,
            "jellyfish: 5 in r3c2,r3c7,r3c8,r6c2,r6c7,r6c8,r7c2,r7c5,r9c5,r9c7 => r1c2 <> 5, r1c8 <> 5, r2c2 <> 5, r2c7 <> 5, r2c8 <> 5, r4c8 <> 5, r5c2 <> 5, r5c7 <> 5, r8c7 <> 5, r8c8 <> 5",
        );
    }
}
