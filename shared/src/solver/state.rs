//! The propagation state of the solver (see the design notes in the parent module): candidates
//! per (digit, band), the band and stack shrinks, singles, and the choice of a branching cell.

use super::tables::{BAND, PEER_MASK, ROW_OCC, SHRINK, SHRINK9, SPREAD};
use crate::grid::{Grid, N_CELLS};

/// [`State::propagate`] with singles only.
pub(super) const SINGLES: u8 = 0;
/// [`State::propagate`] with singles, the band shrink and the stack shrink (the solver's
/// propagation).
pub(super) const LOCKED: u8 = 1;

/// How many bivalue cells [`State::branch_cell`] compares. Scoring 8 rather than taking the first
/// cut the instructions spent on top1465 by 26% and on forum_hardest by 41% (callgrind); scoring
/// more costs more than it saves.
const BRANCH_LOOKS: u32 = 8;

/// The propagation state: candidates per (digit, band) and unsolved cells per band.
#[derive(Clone, Copy)]
pub(super) struct State {
    /// `cand[d * 3 + b]`: cells of band `b` where digit `d + 1` is still possible.
    pub(super) cand: [u32; 27],
    /// `cand` as it was when each digit-band was last processed.
    seen: [u32; 27],
    /// Cells of each band not yet solved.
    pub(super) unsolved: [u32; 3],
}

impl State {
    /// The state with the givens placed, or `None` if two givens clash.
    pub(super) fn from_grid(grid: &Grid) -> Option<State> {
        let mut state = State {
            cand: [BAND; 27],
            seen: [0; 27],
            unsolved: [BAND; 3],
        };
        for (cell, &d) in grid.as_bytes().iter().enumerate() {
            if d != 0 && !state.assign(usize::from(d - 1), cell) {
                return None;
            }
        }
        Some(state)
    }

    /// Place digit index `d` (0-based) in `cell`; `false` when it is not a candidate there.
    #[inline]
    pub(super) fn assign(&mut self, d: usize, cell: usize) -> bool {
        let band = cell / 27;
        let bit = 1u32 << (cell % 27);
        if self.cand[d * 3 + band] & bit == 0 {
            return false;
        }
        for e in 0..9 {
            self.cand[e * 3 + band] &= !bit;
        }
        let peers = &PEER_MASK[cell];
        self.cand[d * 3] &= !peers[0];
        self.cand[d * 3 + 1] &= !peers[1];
        self.cand[d * 3 + 2] &= !peers[2];
        self.cand[d * 3 + band] |= bit;
        self.unsolved[band] &= !bit;
        true
    }

    /// The digit-bands whose candidates changed since they were last looked at, one bit each.
    #[inline]
    fn changed(&self) -> u32 {
        let mut dirty = 0u32;
        for i in 0..27 {
            dirty |= u32::from(self.cand[i] != self.seen[i]) << i;
        }
        dirty
    }

    /// Band shrink and row singles until no digit-band changes; `false` on a contradiction.
    #[inline]
    fn update(&mut self) -> bool {
        loop {
            let mut dirty = self.changed();
            if dirty == 0 {
                return true;
            }
            while dirty != 0 {
                let i = dirty.trailing_zeros() as usize;
                dirty &= dirty - 1;
                let a = self.cand[i];
                let occ = u32::from(ROW_OCC[(a & 0x1ff) as usize])
                    | u32::from(ROW_OCC[((a >> 9) & 0x1ff) as usize]) << 3
                    | u32::from(ROW_OCC[(a >> 18) as usize]) << 6;
                let a = a & SHRINK[occ as usize];
                if a == 0 {
                    return false;
                }
                self.cand[i] = a;
                self.seen[i] = a;
                let band = i % 3;
                let mut solved = 0;
                for r in 0..3 {
                    let row = a & (0x1ff << (9 * r));
                    if row & (row - 1) == 0 {
                        solved |= row;
                    }
                }
                let newly = solved & self.unsolved[band];
                if newly != 0 {
                    self.unsolved[band] &= !newly;
                    let d = i / 3;
                    for e in 0..9 {
                        if e != d {
                            self.cand[e * 3 + band] &= !newly;
                        }
                    }
                    let cols = (newly | newly >> 9 | newly >> 18) & 0x1ff;
                    let cols = cols * SPREAD;
                    self.cand[d * 3 + (band + 1) % 3] &= !cols;
                    self.cand[d * 3 + (band + 2) % 3] &= !cols;
                }
            }
        }
    }

    /// Hidden singles of rows and boxes, digit-band by digit-band, until no digit-band changes;
    /// `false` on a contradiction (a row or box left without a place for a digit).
    fn update_singles(&mut self) -> bool {
        const BOX: u32 = 0b111 | 0b111 << 9 | 0b111 << 18;
        loop {
            let mut dirty = self.changed();
            if dirty == 0 {
                return true;
            }
            while dirty != 0 {
                let i = dirty.trailing_zeros() as usize;
                dirty &= dirty - 1;
                let a = self.cand[i];
                self.seen[i] = a;
                let band = i % 3;
                let mut solved = 0;
                for k in 0..3 {
                    let row = a & (0x1ff << (9 * k));
                    let bx = a & (BOX << (3 * k));
                    if row == 0 || bx == 0 {
                        return false;
                    }
                    if row & (row - 1) == 0 {
                        solved |= row;
                    }
                    if bx & (bx - 1) == 0 {
                        solved |= bx;
                    }
                }
                let mut newly = solved & self.unsolved[band];
                while newly != 0 {
                    let bit = newly.trailing_zeros() as usize;
                    newly &= newly - 1;
                    if !self.assign(i / 3, band * 27 + bit) {
                        return false;
                    }
                }
            }
        }
    }

    /// Place every naked single. `Some(true)` if any was placed, `None` on a contradiction.
    #[inline]
    fn naked_singles(&mut self) -> Option<bool> {
        let mut placed = false;
        for band in 0..3 {
            let unsolved = self.unsolved[band];
            if unsolved == 0 {
                continue;
            }
            let (mut once, mut twice) = (0u32, 0u32);
            for d in 0..9 {
                let x = self.cand[d * 3 + band];
                twice |= once & x;
                once |= x;
            }
            if unsolved & !once != 0 {
                return None;
            }
            let mut singles = unsolved & !twice;
            while singles != 0 {
                let bit = singles & singles.wrapping_neg();
                singles ^= bit;
                let cell = band * 27 + bit.trailing_zeros() as usize;
                let d = (0..9).find(|&d| self.cand[d * 3 + band] & bit != 0)?;
                if !self.assign(d, cell) {
                    return None;
                }
                placed = true;
            }
        }
        Some(placed)
    }

    /// Place every hidden single of a column. `Some(true)` if any was placed, `None` on a
    /// contradiction.
    #[inline]
    fn column_singles(&mut self) -> Option<bool> {
        let mut placed = false;
        for d in 0..9 {
            let (mut once, mut twice) = (0u32, 0u32);
            for band in 0..3 {
                let a = self.cand[d * 3 + band] & self.unsolved[band];
                for r in 0..3 {
                    let x = (a >> (9 * r)) & 0x1ff;
                    twice |= once & x;
                    once |= x;
                }
            }
            let singles = once & !twice;
            if singles == 0 {
                continue;
            }
            let cols = singles * SPREAD;
            for band in 0..3 {
                let mut hits = self.cand[d * 3 + band] & self.unsolved[band] & cols;
                while hits != 0 {
                    let bit = hits & hits.wrapping_neg();
                    hits ^= bit;
                    if !self.assign(d, band * 27 + bit.trailing_zeros() as usize) {
                        return None;
                    }
                    placed = true;
                }
            }
        }
        Some(placed)
    }

    /// Propagate to a fixpoint; `false` on a contradiction.
    ///
    /// `MODE` is [`SINGLES`] (naked singles, hidden singles in rows, boxes and columns) or
    /// [`LOCKED`] (also the band and stack shrinks: every pointing and claiming move).
    pub(super) fn propagate<const MODE: u8>(&mut self) -> bool {
        loop {
            let ok = if MODE == SINGLES {
                self.update_singles()
            } else {
                self.update()
            };
            if !ok {
                return false;
            }
            match self.naked_singles() {
                None => return false,
                Some(true) => continue,
                Some(false) => {}
            }
            if self.unsolved == [0; 3] {
                return true;
            }
            if MODE != SINGLES {
                match self.stack_shrink() {
                    None => return false,
                    Some(true) => continue,
                    Some(false) => {}
                }
            }
            match self.column_singles() {
                None => return false,
                Some(true) => continue,
                Some(false) => return true,
            }
        }
    }

    /// The band shrink turned sideways: within a stack a digit occupies one cell in each of the
    /// 3 columns and each of the 3 boxes, so the columns pick the bands by a permutation; a column
    /// of a band outside every valid permutation loses the digit. `Some(true)` when a candidate
    /// went, `None` on a contradiction.
    fn stack_shrink(&mut self) -> Option<bool> {
        // Three bits (columns of a stack) spread to bits 0, 3, 6.
        const SPREAD3: [usize; 8] = [0, 1, 8, 9, 64, 65, 72, 73];
        let mut changed = false;
        for d in 0..9 {
            let fold = |a: u32| (a | a >> 9 | a >> 18) & 0x1ff;
            let cols = [
                fold(self.cand[d * 3]),
                fold(self.cand[d * 3 + 1]),
                fold(self.cand[d * 3 + 2]),
            ];
            for stack in 0..3 {
                // Bit `3 * column_in_stack + band`: the mini-column holds a candidate.
                let sh = 3 * stack;
                let occ = SPREAD3[((cols[0] >> sh) & 7) as usize]
                    | SPREAD3[((cols[1] >> sh) & 7) as usize] << 1
                    | SPREAD3[((cols[2] >> sh) & 7) as usize] << 2;
                let allowed = SHRINK9[occ];
                if allowed == 0 {
                    return None;
                }
                let gone = occ & !usize::from(allowed);
                if gone != 0 {
                    changed = true;
                    for band in 0..3 {
                        let x = (gone >> band) & 0b001_001_001;
                        let c = ((x | x >> 2 | x >> 4) & 7) as u32;
                        self.cand[d * 3 + band] &= !((c << sh) * SPREAD);
                    }
                }
            }
        }
        Some(changed)
    }

    /// The unsolved cell to branch on: among the first [`BRANCH_LOOKS`] bivalue cells, the one
    /// with the most peers still holding one of its two digits (either branch then removes the
    /// most); with no bivalue cell, one with the fewest candidates.
    pub(super) fn branch_cell(&self) -> Option<usize> {
        let mut best: Option<(u32, usize)> = None;
        let mut looks = BRANCH_LOOKS;
        for band in 0..3 {
            let (mut once, mut twice, mut thrice) = (0u32, 0u32, 0u32);
            for d in 0..9 {
                let x = self.cand[d * 3 + band];
                thrice |= twice & x;
                twice |= once & x;
                once |= x;
            }
            let mut bivalue = self.unsolved[band] & twice & !thrice;
            while bivalue != 0 && looks > 0 {
                looks -= 1;
                let bit = bivalue & bivalue.wrapping_neg();
                bivalue ^= bit;
                let cell = band * 27 + bit.trailing_zeros() as usize;
                let peers = &PEER_MASK[cell];
                let mut both = [0u32; 3];
                for d in 0..9 {
                    if self.cand[d * 3 + band] & bit != 0 {
                        both[0] |= self.cand[d * 3] & peers[0];
                        both[1] |= self.cand[d * 3 + 1] & peers[1];
                        both[2] |= self.cand[d * 3 + 2] & peers[2];
                    }
                }
                let score = both[0].count_ones() + both[1].count_ones() + both[2].count_ones();
                if best.is_none_or(|(b, _)| score > b) {
                    best = Some((score, cell));
                }
            }
        }
        if let Some((_, cell)) = best {
            return Some(cell);
        }
        let mut fewest: Option<(u32, usize)> = None;
        for band in 0..3 {
            let mut left = self.unsolved[band];
            while left != 0 {
                let bit = left & left.wrapping_neg();
                left ^= bit;
                let n = (0..9)
                    .filter(|&d| self.cand[d * 3 + band] & bit != 0)
                    .count() as u32;
                if fewest.is_none_or(|(m, _)| n < m) {
                    fewest = Some((n, band * 27 + bit.trailing_zeros() as usize));
                    if n == 3 {
                        return Some(band * 27 + bit.trailing_zeros() as usize);
                    }
                }
            }
        }
        fewest.map(|(_, c)| c)
    }

    /// The solved grid (every cell must be solved).
    pub(super) fn to_grid(self) -> Grid {
        let mut bytes = [0u8; N_CELLS];
        for d in 0..9 {
            for band in 0..3 {
                let mut a = self.cand[d * 3 + band];
                while a != 0 {
                    let bit = a.trailing_zeros() as usize;
                    a &= a - 1;
                    bytes[band * 27 + bit] = d as u8 + 1;
                }
            }
        }
        Grid::from_bytes(bytes).expect("digits are 1..=9")
    }
}
