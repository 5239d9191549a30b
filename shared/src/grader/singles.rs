//! Naked singles (the only candidate left in a cell) and hidden singles (the only place left for
//! a digit in a unit). These are most of every grading, so they are bitboard scans.

use super::state::{bit, cell, digit, Bits, State, UNIT_BB};
use super::step::{Step, Technique};

/// The first naked single: lowest cell with one candidate.
pub(crate) fn naked_single(s: &State, step: &mut Step) -> bool {
    let singles = s.single_cells();
    if singles == 0 {
        return false;
    }
    let c = singles.trailing_zeros() as usize;
    let d = s.cand[c].trailing_zeros() as usize;
    record(step, c, d);
    true
}

/// Per digit index, the cells where that digit is the only place left in one of `units`
/// (bit `u` for `UNIT_BB[u]`).
fn hidden_singles(s: &State, units: u32) -> [u128; 9] {
    let mut out = [0u128; 9];
    for (u, &unit) in UNIT_BB.iter().enumerate() {
        if units & (1 << u) == 0 {
            continue;
        }
        for (d, &p) in s.pos.iter().enumerate() {
            let m = p & unit;
            if m != 0 && m & (m - 1) == 0 {
                out[d] |= m;
            }
        }
    }
    out
}

/// Every unit's bit.
const ALL_UNITS: u32 = (1 << 27) - 1;

/// The lowest cell holding a hidden single, with its (lowest) digit.
fn first_hidden_single(hs: &[u128; 9]) -> Option<(usize, usize)> {
    let any = hs.iter().fold(0, |a, h| a | h);
    let c = Bits(any).next()?;
    let d = hs.iter().position(|h| h & bit(c) != 0)?;
    Some((c, d))
}

/// The first hidden single: lowest cell, then lowest digit.
pub(crate) fn hidden_single(s: &State, step: &mut Step) -> bool {
    match first_hidden_single(&hidden_singles(s, ALL_UNITS)) {
        Some((c, d)) => {
            record(step, c, d);
            true
        }
        None => false,
    }
}

fn record(step: &mut Step, c: usize, d: usize) {
    step.cells.push(cell(c));
    step.digits.push(digit(d));
    step.placements.push((cell(c), digit(d)));
}

/// One wave of singles: every naked single of the board, or when there is none every hidden
/// single, placed together in cell order. Taking whole waves makes the count of each kind (and
/// so the score) independent of the order of cells and digits: a relabelled or permuted puzzle
/// scores the same. Returns the technique and how many cells it filled (`None`: no single);
/// with `steps`, records one step per cell.
pub(crate) fn wave(s: &mut State, mut steps: Option<&mut Vec<Step>>) -> Option<(Technique, u32)> {
    let mut n = 0;
    let mut push = |c: usize, d: usize, t: Technique| {
        if let Some(steps) = steps.as_deref_mut() {
            let mut step = Step::empty();
            step.technique = t;
            record(&mut step, c, d);
            steps.push(step);
        }
    };
    let naked = s.single_cells();
    if naked != 0 {
        for c in Bits(naked) {
            // A candidate gone since the wave began means a board without solution.
            if s.cand[c] != 0 {
                let d = s.cand[c].trailing_zeros() as usize;
                s.place(c, d);
                push(c, d, Technique::NakedSingle);
                n += 1;
            }
        }
        return (n > 0).then_some((Technique::NakedSingle, n));
    }
    // Units that have not changed since the last look hold no hidden single.
    let units = s.take_unsettled();
    let hs = hidden_singles(s, units);
    let any = hs.iter().fold(0, |a, h| a | h);
    if any == 0 {
        return None;
    }
    for c in Bits(any) {
        if let Some(d) = (0..9).find(|&d| hs[d] & bit(c) != 0 && s.cand[c] & (1 << d) != 0) {
            s.place(c, d);
            push(c, d, Technique::HiddenSingle);
            n += 1;
        }
    }
    (n > 0).then_some((Technique::HiddenSingle, n))
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
