//! The variant grader's house techniques over any geometry's houses: singles (by waves, as
//! the classic grader takes them), locked candidates between any two houses that share two
//! cells or more, and naked and hidden subsets in every house (naked ones in killer cages too).

use super::super::combos::{self, pop9};
use super::super::state::{bit, cell, digit, Bits, Digits, State};
use super::super::step::{Area, Step, Technique};
use super::cages;
use super::rules::Rules;

/// Per digit index, the cells that are the only place for it in some house.
fn hidden_singles(rules: &Rules, s: &State) -> [u128; 9] {
    let mut out = [0u128; 9];
    for &house in &rules.houses {
        for (d, &p) in s.pos.iter().enumerate() {
            let m = p & house;
            if m != 0 && m & (m - 1) == 0 {
                out[d] |= m;
            }
        }
    }
    out
}

/// The first house in which cell `c` is the only place of digit index `d`.
fn hidden_area(rules: &Rules, s: &State, c: usize, d: usize) -> Option<Area> {
    let i = rules.houses.iter().position(|&h| s.pos[d] & h == bit(c))?;
    Some(rules.areas[i])
}

/// The first hidden single: lowest cell, then lowest digit.
pub(super) fn hidden_single(rules: &Rules, s: &State, step: &mut Step) -> bool {
    let hs = hidden_singles(rules, s);
    let any = hs.iter().fold(0, |a, h| a | h);
    let Some(c) = Bits(any).next() else {
        return false;
    };
    let Some(d) = hs.iter().position(|h| h & bit(c) != 0) else {
        return false;
    };
    step.record_single(c, d, hidden_area(rules, s, c, d));
    true
}

/// One wave of singles: every naked single, else every cage sum (killer), else every hidden
/// single, placed together in cell order (so counts, and the score, do not depend on the order
/// of cells and digits). Returns the technique and how many cells it filled; with `steps`,
/// records one step per cell.
pub(super) fn wave(
    rules: &Rules,
    s: &mut State,
    mut steps: Option<&mut Vec<Step>>,
) -> Option<(Technique, u32)> {
    let mut found: Vec<(usize, usize)> = Vec::new();
    let naked = s.single_cells();
    let t = if naked != 0 {
        found.extend(Bits(naked).map(|c| (c, s.cand[c].trailing_zeros() as usize)));
        Technique::NakedSingle
    } else if cages::cage_sums(rules, s, &mut found) {
        Technique::CageSum
    } else {
        let hs = hidden_singles(rules, s);
        let any = hs.iter().fold(0, |a, h| a | h);
        for c in Bits(any) {
            if let Some(d) = (0..9).find(|&d| hs[d] & bit(c) != 0) {
                found.push((c, d));
            }
        }
        Technique::HiddenSingle
    };
    let mut n = 0;
    for (c, d) in found {
        // A candidate gone since the wave began means a board without solution.
        if s.cand[c] & 1 << d == 0 {
            continue;
        }
        if let Some(steps) = steps.as_deref_mut() {
            let mut step = Step::empty();
            step.technique = t;
            let area = match t {
                Technique::HiddenSingle => hidden_area(rules, s, c, d),
                Technique::CageSum => rules.cage_of(c),
                _ => None,
            };
            step.record_single(c, d, area);
            steps.push(step);
        }
        s.place_among(c, d, rules.peers[c]);
        n += 1;
    }
    (n > 0).then_some((t, n))
}

/// The first locked candidates: a digit whose places in a house all lie in a second house
/// leaves the rest of the second. `from_lines`: the first house is a row or column
/// (claiming), else any other house (pointing).
pub(super) fn locked(rules: &Rules, s: &State, from_lines: bool, step: &mut Step) -> bool {
    for &(a, b) in &rules.pairs {
        if rules.areas[a].is_line() != from_lines {
            continue;
        }
        let (ha, hb) = (rules.houses[a], rules.houses[b]);
        for (d, &p) in s.pos.iter().enumerate() {
            let here = p & ha;
            if here == 0 || here & !hb != 0 {
                continue;
            }
            let elim = p & hb & !ha;
            if elim != 0 {
                step.add_cells(here);
                step.add_digits(1 << d);
                step.eliminate_all(elim, d);
                step.area = Some(rules.areas[a]);
                return true;
            }
        }
    }
    false
}

/// The first naked subset of `n` (2..=4) cells that removes something, houses then cages.
pub(super) fn naked(rules: &Rules, s: &State, n: usize, step: &mut Step) -> bool {
    // Cells with 2..=n candidates, by a bit-sliced count over the digit bitboards.
    let mut at_least = [0u128; 6];
    for &p in &s.pos {
        for k in (1..=n + 1).rev() {
            at_least[k] |= at_least[k - 1] & p;
        }
        at_least[0] |= p;
    }
    let fit = at_least[1] & !at_least[n];
    let mut cells = [0usize; 9];
    let mut masks = [0u16; 9];
    for &(group, area) in &rules.groups {
        if ((fit & group).count_ones() as usize) < n {
            continue;
        }
        let mut k = 0;
        for c in Bits(fit & group) {
            cells[k] = c;
            masks[k] = s.cand[c];
            k += 1;
        }
        let mut try_subset = |idx: &[usize], digits: u16| {
            let pattern = idx.iter().fold(0u128, |m, &i| m | bit(cells[i]));
            let seen = rules.common_peers(pattern);
            let mut any = false;
            for d in Digits(digits) {
                let elim = s.pos[d] & seen;
                if elim != 0 {
                    if !any {
                        step.add_cells(pattern);
                        step.add_digits(digits);
                        step.area = Some(area);
                        any = true;
                    }
                    step.eliminate_all(elim, d);
                }
            }
            any
        };
        if combos::find(&masks[..k], n, &mut try_subset) {
            return true;
        }
    }
    false
}

/// The first hidden subset of `n` (2..=4) digits that removes something, houses in order.
pub(super) fn hidden(rules: &Rules, s: &State, n: usize, step: &mut Step) -> bool {
    let mut digits = [0usize; 9];
    let mut masks = [0u16; 9];
    for (h, (&house, cells)) in rules.houses.iter().zip(&rules.house_cells).enumerate() {
        if (s.unsolved & house).count_ones() as usize <= n {
            continue;
        }
        let (mut k, mut free) = (0, 0);
        for (d, &p) in s.pos.iter().enumerate() {
            let mut m = 0u16;
            for (i, &c) in cells.iter().enumerate() {
                m |= (((p >> c) & 1) as u16) << i;
            }
            free += usize::from(m != 0);
            if (2..=n).contains(&pop9(m)) {
                digits[k] = d;
                masks[k] = m;
                k += 1;
            }
        }
        // A hidden subset of all the house's free digits would remove nothing.
        if k < n || free <= n {
            continue;
        }
        let mut try_subset = |idx: &[usize], where_: u16| {
            let keep = idx.iter().fold(0u16, |m, &i| m | 1 << digits[i]);
            let pattern = (0..9)
                .filter(|k| where_ & 1 << k != 0)
                .fold(0u128, |m, k| m | bit(usize::from(cells[k])));
            let mut any = false;
            for c in Bits(pattern) {
                for d in Digits(s.cand[c] & !keep) {
                    step.eliminations.push((cell(c), digit(d)));
                    any = true;
                }
            }
            if any {
                step.add_cells(pattern);
                step.add_digits(keep);
                step.area = Some(rules.areas[h]);
            }
            any
        };
        if combos::find(&masks[..k], n, &mut try_subset) {
            return true;
        }
    }
    false
}
