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
use super::state::{bit, Bits, Digits, State, PEER_BB, UNIT_BB};
use super::step::Step;
use crate::grid::UNITS;

/// Whether bitboard `m` has more than `k` bits set.
#[inline]
fn more_than(mut m: u128, k: usize) -> bool {
    for _ in 0..k {
        m &= m.wrapping_sub(1);
    }
    m != 0
}

/// The first naked subset of size `n` (2..=4) that removes something: units in order.
pub(crate) fn naked(s: &State, n: usize, step: &mut Step, clean: &mut u32) -> bool {
    // Cells with 2..=n candidates, by a bit-sliced count over the digit bitboards.
    let mut at_least = [0u128; 6];
    for &p in &s.pos {
        for k in (1..=n + 1).rev() {
            at_least[k] |= at_least[k - 1] & p;
        }
        at_least[0] |= p;
    }
    let fit = at_least[1] & !at_least[n];
    for (u, &ubb) in UNIT_BB.iter().enumerate() {
        if *clean & (1 << u) != 0 {
            continue;
        }
        // At least n fitting cells and more than n empty cells, or nothing to find.
        if !more_than(fit & ubb, n - 1) || !more_than(s.unsolved & ubb, n) {
            *clean |= 1 << u;
            continue;
        }
        let mut cells = [0usize; 9];
        let mut masks = [0u16; 9];
        let mut k = 0;
        for c in Bits(fit & ubb) {
            cells[k] = c;
            masks[k] = s.cand[c];
            k += 1;
        }
        let mut try_subset = |idx: &[usize], digits: u16| {
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
        };
        let found = if n == 2 {
            // Pairs: two equal two-candidate cells, in the order `combos::find` gives.
            (0..k)
                .any(|i| (i + 1..k).any(|j| masks[i] == masks[j] && try_subset(&[i, j], masks[i])))
        } else {
            combos::find(&masks[..k], n, &mut try_subset)
        };
        if found {
            return true;
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
            let mut try_subset = |idx: &[usize], where_: u16| {
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
            };
            let found = if n == 2 {
                // Pairs: two digits with the same two places, in the order `combos::find` gives.
                (0..k).any(|i| {
                    (i + 1..k).any(|j| masks[i] == masks[j] && try_subset(&[i, j], masks[i]))
                })
            } else {
                combos::find(&masks[..k], n, &mut try_subset)
            };
            if found {
                return true;
            }
        }
        *clean |= 1 << u;
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
    fn naked_pair() {
        check_step(
            ".4..863...1......8....3.......4..681...........5....2...9.2..14.51.6..9..24.....5",
            Technique::NakedPair,
            "naked pair: 7,9 in r6c5,r6c9 => r6c2 <> 7, r6c4 <> 7, r6c6 <> 7, r6c2 <> 9, r6c4 <> 9, r6c6 <> 9",
        );
    }

    #[test]
    fn hidden_pair() {
        check_step(
            "87.....4..54.....21..2......2...97.8961.8...4....6.3..7.....15..9..1.......5.....",
            Technique::HiddenPair,
            "hidden pair: 1,5 in r1c6,r1c9 => r1c6 <> 3, r1c9 <> 3, r1c6 <> 6, r1c9 <> 6, r1c9 <> 9",
        );
    }

    #[test]
    fn naked_triple() {
        check_step(
            "..3.8.95.8...9.......7.3..1.3.....46..8.4..2.7....25....26.4......9..3..59.......",
            Technique::NakedTriple,
            "naked triple: 1,7,8 in r4c7,r5c7,r7c7 => r9c7 <> 1, r2c7 <> 7, r9c7 <> 7, r3c7 <> 8, r9c7 <> 8",
        );
    }

    #[test]
    fn hidden_triple() {
        check_step(
            "3.2.8...6....9.7.8.5.....2.78..4...9..4.......1...2...1...7.....4...637.5..4...9.",
            Technique::HiddenTriple,
            "hidden triple: 7,8,9 in r5c4,r5c6,r6c4 => r5c4 <> 1, r5c6 <> 1, r5c4 <> 3, r5c6 <> 3, r6c4 <> 3, r5c4 <> 5, r5c6 <> 5, r6c4 <> 5, r5c4 <> 6, r6c4 <> 6",
        );
    }

    #[test]
    fn naked_quad() {
        check_step(
            ".5.69.28.16.8..9..92.....14.....3......1.6......95............9..3...1....524.83.",
            Technique::NakedQuad,
            "naked quad: 1,2,6,9 in r4c1,r4c3,r5c3,r6c3 => r6c1 <> 6",
        );
    }

    #[test]
    fn hidden_quad() {
        check_step(
            ".237.8...9.....3.8...5.3...............127..6.52....8..69......278..9........21..",
            Technique::HiddenQuad,
            "hidden quad: 2,3,4,7 in r4c1,r4c7,r4c8,r4c9 => r4c1 <> 6, r4c7 <> 9, r4c8 <> 9, r4c9 <> 9",
        );
    }
}
