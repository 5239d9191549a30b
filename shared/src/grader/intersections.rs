//! Locked candidates: pointing (a digit confined to one line within a box is removed from the
//! rest of that line) and claiming (a digit confined to one box within a line is removed from the
//! rest of that box).
//!
//! `clean`: bit `u` marks unit `u` (a box for pointing, a line for claiming, numbered as in
//! `UNIT_BB`) known to give nothing until its candidates change; the search skips such units and
//! sets the bits of those it clears.

use super::state::{State, UNIT_BB};
use super::step::Step;

/// Record a locked-candidates step: `d` confined to `cells` in the base unit, removed from `elim`.
fn record(step: &mut Step, d: usize, cells: u128, elim: u128) {
    step.add_cells(cells);
    step.add_digits(1 << d);
    step.eliminate_all(elim, d);
}

/// Positions `0..9` in a box (row-major) of each of its rows and columns.
const BOX_ROWS: [u16; 3] = [0o007, 0o070, 0o700];
const BOX_COLS: [u16; 3] = [0o111, 0o222, 0o444];

/// The three positions a box takes in a line, by the box's index along that line.
const fn segment(k: usize) -> u16 {
    0o7 << (3 * k)
}

/// The first pointing step: boxes in order, digits in order, rows before columns.
/// `places` is [`State::unit_places`].
pub(crate) fn pointing(
    s: &State,
    places: &[[u16; 9]; 27],
    step: &mut Step,
    clean: &mut u32,
) -> bool {
    for b in 0..9 {
        if *clean & (1 << (18 + b)) != 0 {
            continue;
        }
        let (r0, c0) = (b / 3 * 3, b % 3 * 3);
        for (d, &m) in places[18 + b].iter().enumerate() {
            if m == 0 {
                continue;
            }
            // The line the digit is confined to, and the box's segment of that line.
            let line = if let Some(i) = BOX_ROWS.iter().position(|&r| m & !r == 0) {
                (r0 + i, segment(b % 3))
            } else if let Some(j) = BOX_COLS.iter().position(|&c| m & !c == 0) {
                (9 + c0 + j, segment(b / 3))
            } else {
                continue;
            };
            if places[line.0][d] & !line.1 != 0 {
                let bx = UNIT_BB[18 + b];
                let elim = s.pos[d] & UNIT_BB[line.0] & !bx;
                record(step, d, s.pos[d] & bx, elim);
                return true;
            }
        }
        *clean |= 1 << (18 + b);
    }
    false
}

/// The first claiming step: rows then columns, digits in order.
/// `places` is [`State::unit_places`].
pub(crate) fn claiming(
    s: &State,
    places: &[[u16; 9]; 27],
    step: &mut Step,
    clean: &mut u32,
) -> bool {
    for l in 0..18 {
        if *clean & (1 << l) != 0 {
            continue;
        }
        for (d, &m) in places[l].iter().enumerate() {
            if m == 0 {
                continue;
            }
            let Some(k) = (0..3).find(|&k| m & !segment(k) == 0) else {
                continue;
            };
            // The box, and the line's positions within it.
            let (b, own) = if l < 9 {
                (l / 3 * 3 + k, BOX_ROWS[l % 3])
            } else {
                (k * 3 + (l - 9) / 3, BOX_COLS[(l - 9) % 3])
            };
            if places[18 + b][d] & !own != 0 {
                let (ln, bx) = (UNIT_BB[l], UNIT_BB[18 + b]);
                record(step, d, s.pos[d] & ln, s.pos[d] & bx & !ln);
                return true;
            }
        }
        *clean |= 1 << l;
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
    fn pointing_clears_the_rest_of_the_line() {
        check_step(
            "...3.7...6.5..9....9...8.1....85.....597....62.....7..163.......8.6.2.5........7.",
            Technique::Pointing,
            "pointing: 2 in r3c7,r3c9 => r3c3 <> 2",
        );
    }

    #[test]
    fn claiming_clears_the_rest_of_the_box() {
        check_step(
            ".....3.8.3...5..67..68.7.9...9.82.36.6.......81.....7...79...1......6.........2.8",
            Technique::Claiming,
            "claiming: 5 in r7c1,r7c2 => r8c1 <> 5, r9c3 <> 5",
        );
    }
}
