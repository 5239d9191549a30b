//! The killer techniques: the cage sum (a cage's last open cell), cage combinations (each open
//! cell keeps the digits of the sets of distinct digits that complete the cage's sum given the
//! other cells' candidates; a digit every set holds is locked in the cage), the 45 rule
//! (innies and outies of a house or a union of adjacent houses pin one cell or a pair's sum)
//! and the cage split (a cage cut by such a region into two parts of known sums).
//!
//! Digits are indices here as in the rest of the grader (bit `d` is digit `d + 1`); sums are
//! of the digits themselves.

use super::super::state::{bit, cell, digit, Bits, Digits, State};
use super::super::step::Step;
use super::rules::{cage_bit, Rules};

/// The digits' sum of each 9-bit mask.
const SUM9: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut m = 1;
    while m < 512 {
        t[m] = t[m & (m - 1)] + m.trailing_zeros() as u8 + 1;
        m += 1;
    }
    t
};

/// A set of 9-bit masks.
#[derive(Clone, Copy, Default)]
struct MaskSet([u64; 8]);

impl MaskSet {
    fn insert(&mut self, m: u16) {
        self.0[usize::from(m >> 6)] |= 1 << (m & 63);
    }
    fn contains(&self, m: u16) -> bool {
        self.0[usize::from(m >> 6)] & 1 << (m & 63) != 0
    }
    fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        (0..8u16).flat_map(move |w| {
            let word = self.0[usize::from(w)];
            Digits16(word).map(move |b| w << 6 | b)
        })
    }
}

/// The set bits of a word.
struct Digits16(u64);

impl Iterator for Digits16 {
    type Item = u16;
    fn next(&mut self) -> Option<u16> {
        (self.0 != 0).then(|| {
            let b = self.0.trailing_zeros() as u16;
            self.0 &= self.0 - 1;
            b
        })
    }
}

/// What completing cells of distinct digits to a sum allows.
pub(super) struct Support {
    /// Per cell (in the order given), the digits it holds in some completion.
    pub(super) allowed: Vec<u16>,
    /// The digits some completion uses.
    pub(super) any: u16,
    /// The digits every completion uses.
    pub(super) all: u16,
}

/// The completions of cells with candidates `cands` (distinct digits, one per cell) adding up
/// to `rest`; `None` when there is none. Layered sets of the digits used so far: forward what
/// the first cells can take, backward what can still finish.
pub(super) fn support(cands: &[u16], rest: i32) -> Option<Support> {
    let k = cands.len();
    if k > 9 {
        return None;
    }
    let mut fwd = [MaskSet::default(); 10];
    fwd[0].insert(0);
    for (i, &cand) in cands.iter().enumerate() {
        let (done, next) = fwd.split_at_mut(i + 1);
        for m in done[i].iter() {
            for d in Digits(cand & !m) {
                let n = m | 1 << d;
                if i32::from(SUM9[usize::from(n)]) <= rest {
                    next[0].insert(n);
                }
            }
        }
    }
    let mut bwd = [MaskSet::default(); 10];
    let (mut any, mut all) = (0u16, 0x1ffu16);
    for m in fwd[k].iter() {
        if i32::from(SUM9[usize::from(m)]) == rest {
            bwd[k].insert(m);
            any |= m;
            all &= m;
        }
    }
    if any == 0 && k > 0 {
        return None;
    }
    let mut allowed = vec![0u16; k];
    for i in (0..k).rev() {
        for m in fwd[i].iter() {
            for d in Digits(cands[i] & !m) {
                if bwd[i + 1].contains(m | 1 << d) {
                    bwd[i].insert(m);
                    allowed[i] |= 1 << d;
                }
            }
        }
    }
    Some(Support { allowed, any, all })
}

/// The sum of the digits placed in `cells`.
fn placed_sum(s: &State, cells: u128) -> i32 {
    Bits(cells & !s.unsolved)
        .map(|c| i32::from(s.value[c]))
        .sum()
}

/// Every cage with one open cell and the digit that completes its sum, added to `found`;
/// whether there was any.
pub(super) fn cage_sums(rules: &Rules, s: &State, found: &mut Vec<(usize, usize)>) -> bool {
    let before = found.len();
    for cage in &rules.cages {
        let open = cage.cells & s.unsolved;
        if open == 0 || open & (open - 1) != 0 {
            continue;
        }
        let c = open.trailing_zeros() as usize;
        let v = i32::from(cage.sum) - placed_sum(s, cage.cells);
        if (1..=9).contains(&v) && s.cand[c] & 1 << (v - 1) != 0 {
            found.push((c, (v - 1) as usize));
        }
    }
    found.sort_unstable();
    found.len() > before
}

/// The first cage sum: the lowest cell that is the last open cell of its cage.
pub(super) fn cage_sum(rules: &Rules, s: &State, step: &mut Step) -> bool {
    let mut found = Vec::new();
    cage_sums(rules, s, &mut found);
    let Some(&(c, d)) = found.first() else {
        return false;
    };
    step.record_single(c, d, rules.cage_of(c));
    true
}

/// Keep `cells` (distinct digits) to what completes `rest`: record the eliminations.
fn restrict(s: &State, cells: u128, rest: i32, step: &mut Step) -> Option<Support> {
    let list: Vec<usize> = Bits(cells).collect();
    let cands: Vec<u16> = list.iter().map(|&c| s.cand[c]).collect();
    let sup = support(&cands, rest)?;
    for (k, &c) in list.iter().enumerate() {
        for d in Digits(cands[k] & !sup.allowed[k]) {
            step.eliminations.push((cell(c), digit(d)));
        }
    }
    Some(sup)
}

/// The first cage combination that removes something: cages in order, skipping the `clean`
/// ones (bit `i` for cage `i`) and marking those that give nothing.
pub(super) fn combination(rules: &Rules, s: &State, step: &mut Step, clean: &mut u128) -> bool {
    for (i, cage) in rules.cages.iter().enumerate() {
        let open = cage.cells & s.unsolved;
        if open == 0 || *clean & cage_bit(i) != 0 {
            continue;
        }
        let rest = i32::from(cage.sum) - placed_sum(s, cage.cells);
        let Some(sup) = restrict(s, open, rest, step) else {
            continue;
        };
        let mut found = step.makes_progress();
        if !found {
            // A digit every completion holds leaves what sees all its places in the cage.
            for d in Digits(sup.all) {
                let places = s.pos[d] & open;
                let elim = s.pos[d] & rules.common_peers(places) & !cage.cells;
                if places != 0 && elim != 0 {
                    step.eliminate_all(elim, d);
                    found = true;
                    break;
                }
            }
        }
        if found {
            step.add_cells(open);
            step.add_digits(sup.any);
            step.sum = u8::try_from(rest).ok();
            step.area = rules.cage_of(open.trailing_zeros() as usize);
            return true;
        }
        *clean |= cage_bit(i);
    }
    false
}

/// One or two open cells of known total: place the one, or keep each of the two to digits the
/// other can complete.
fn pin(rules: &Rules, s: &State, open: u128, total: i32, step: &mut Step) -> bool {
    let mut cells = Bits(open);
    match (cells.next(), cells.next(), cells.next()) {
        (Some(c), None, _) => {
            if (1..=9).contains(&total) && s.cand[c] & 1 << (total - 1) != 0 {
                step.placements.push((cell(c), digit((total - 1) as usize)));
            }
        }
        (Some(a), Some(b), None) => {
            let distinct = rules.peers[a] & bit(b) != 0;
            for (x, y) in [(a, b), (b, a)] {
                for d in Digits(s.cand[x]) {
                    let e = total - d as i32 - 2;
                    let fits = (0..9).contains(&e)
                        && s.cand[y] & 1 << e != 0
                        && !(distinct && e == d as i32);
                    if !fits {
                        step.eliminations.push((cell(x), digit(d)));
                    }
                }
            }
        }
        _ => return false,
    }
    step.makes_progress()
}

/// The first 45-rule step: regions in order, innies before outies.
pub(super) fn innie_outie(rules: &Rules, s: &State, step: &mut Step) -> bool {
    for region in &rules.regions {
        let inside = region.total - region.full_sum;
        let mut sides = vec![(region.innies, inside)];
        if region.uncaged == 0 {
            sides.push((region.outies, region.partial_sum - inside));
        }
        for (cells, total) in sides {
            let open = cells & s.unsolved;
            let rest = total - placed_sum(s, cells);
            if open != 0 && pin(rules, s, open, rest, step) {
                step.add_cells(open);
                step.sum = u8::try_from(rest).ok();
                step.area = Some(region.area);
                return true;
            }
        }
    }
    false
}

/// The first cage split that removes something: regions in order, each with one cage that
/// crosses its edge; the part inside, then the part outside.
pub(super) fn split(rules: &Rules, s: &State, step: &mut Step) -> bool {
    for region in &rules.regions {
        let Some(i) = region.crossing else {
            continue;
        };
        let cage = &rules.cages[i];
        let inside = region.total - region.full_sum;
        let parts = [
            (cage.cells & region.cells, inside),
            (cage.cells & !region.cells, i32::from(cage.sum) - inside),
        ];
        for (part, total) in parts {
            let open = part & s.unsolved;
            if open.count_ones() < 2 {
                continue;
            }
            let rest = total - placed_sum(s, part);
            match restrict(s, open, rest, step) {
                Some(sup) if step.makes_progress() => {
                    step.add_cells(open);
                    step.add_digits(sup.any);
                    step.sum = u8::try_from(rest).ok();
                    step.area = Some(region.area);
                    return true;
                }
                _ => step.eliminations.clear(),
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(cands: &[u16], rest: i32, allowed: Option<&[u16]>) {
        let got = support(cands, rest).map(|s| s.allowed);
        assert_eq!(got.as_deref(), allowed);
    }

    #[test]
    fn support_keeps_the_digits_of_completing_sets() {
        // Two cells to 3: {1,2} only (bits 0 and 1).
        check(&[0x1ff, 0x1ff], 3, Some(&[0b11, 0b11]));
        // Two cells to 10 where the first can only be 1 or 2: 1+9 or 2+8.
        check(&[0b11, 0x1ff], 10, Some(&[0b11, 0b1_1000_0000]));
        // Three cells to 6 is {1,2,3}; one cell cannot hold 4 then.
        check(&[0x1ff, 0x1ff, 0b1000], 6, None);
        assert_eq!(SUM9[0x1ff], 45);
    }
}
