//! Naked singles (the only candidate left in a cell) and hidden singles (the only place left for
//! a digit in a unit). These are most of every grading, so they are bitboard scans.

use super::state::{bit, cell, digit, State, UNIT_BB};
use super::Step;

/// The first naked single: lowest cell with one candidate.
pub(crate) fn naked_single(s: &State, step: &mut Step) -> bool {
    let singles = s.single_cells();
    if singles == 0 {
        return false;
    }
    let c = singles.trailing_zeros() as usize;
    let d = s.cand[c].trailing_zeros() as usize;
    step.cells.push(cell(c));
    step.digits.push(digit(d));
    step.placements.push((cell(c), digit(d)));
    true
}

/// The first hidden single, as (cell, digit index): units in order (rows, columns, boxes),
/// digits in order within a unit.
pub(crate) fn find_hidden_single(s: &State) -> Option<(usize, usize)> {
    for &unit in &UNIT_BB {
        for (d, &p) in s.pos.iter().enumerate() {
            let m = p & unit;
            if m != 0 && m & (m - 1) == 0 {
                return Some((m.trailing_zeros() as usize, d));
            }
        }
    }
    None
}

/// The first hidden single (see [`find_hidden_single`]); the step's cell is the cell placed.
pub(crate) fn hidden_single(s: &State, step: &mut Step) -> bool {
    match find_hidden_single(s) {
        Some((c, d)) => {
            debug_assert!(s.pos[d] & bit(c) != 0);
            step.cells.push(cell(c));
            step.digits.push(digit(d));
            step.placements.push((cell(c), digit(d)));
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::check_first_step;
    use super::super::Technique;

    #[test]
    fn naked_single_in_a_row() {
        // r1c9 can only be 9: row 1 holds 1-8.
        check_first_step(
            "12345678.........................................................................",
            Technique::NakedSingle,
            "naked single: r1c9 = 9",
        );
    }

    #[test]
    fn hidden_single_in_a_box() {
        // 1 is in rows 2 and 3 and columns 1 and 2 outside box 1... only r1c3 left in box 1.
        check_first_step(
            ".........\
             ...1.....\
             ......1..\
             .1.......\
             .........\
             .........\
             1........\
             .........\
             .........",
            Technique::HiddenSingle,
            "hidden single: r1c3 = 1",
        );
    }
}
