//! The grader's candidate state: per-cell candidate masks kept in step with per-digit
//! bitboards (one `u128` per digit, bit `c` set when cell `c` may hold that digit), plus the
//! unit and peer bitboard tables every technique uses.
//!
//! The classic grader's techniques walk the houses of
//! [`Geometry::classic`](crate::geometry::Geometry::classic) (rows, columns, boxes, in
//! that order), kept here as const bitboards for speed ([`UNIT_BB`], [`CELL_UNITS`],
//! [`PEER_BB`]; a test checks them against the geometry). The variant grader builds its own
//! from a geometry and hands them to the techniques that read [`Tables`]; its candidates start
//! from [`State::with_peers`] and its placements go through [`State::place_among`].
//!
//! Digits are indices `0..9` inside this module and the technique modules (bit `d` of a
//! candidate mask is digit `d + 1`); they become [`Digit`]s only in step records.

use crate::grid::{Cell, Digit, Grid, BOX_OF, N_CELLS, PEERS, UNITS};

/// All nine digit bits.
pub(crate) const ALL_DIGITS: u16 = 0x1ff;

/// Bitboard of each of the 27 units (rows 0-8, columns 9-17, boxes 18-26).
pub(crate) const UNIT_BB: [u128; 27] = {
    let mut t = [0u128; 27];
    let mut u = 0;
    while u < 27 {
        let mut k = 0;
        while k < 9 {
            t[u] |= 1u128 << UNITS[u][k];
            k += 1;
        }
        u += 1;
    }
    t
};

/// Bitboard of the 20 peers of each cell.
pub(crate) const PEER_BB: [u128; N_CELLS] = {
    let mut t = [0u128; N_CELLS];
    let mut c = 0;
    while c < N_CELLS {
        let mut k = 0;
        while k < 20 {
            t[c] |= 1u128 << PEERS[c][k];
            k += 1;
        }
        c += 1;
    }
    t
};

/// The three units (row, column, box) of each cell, as indices into [`UNIT_BB`].
pub(crate) const CELL_UNITS: [[u8; 3]; N_CELLS] = {
    let mut t = [[0u8; 3]; N_CELLS];
    let mut c = 0;
    while c < N_CELLS {
        t[c] = [(c / 9) as u8, (9 + c % 9) as u8, 18 + BOX_OF[c]];
        c += 1;
    }
    t
};

/// Most houses a geometry may have for the techniques that walk [`Tables`].
pub(crate) const MAX_UNITS: usize = 32;

/// Most houses a cell may be in for the techniques that walk [`Tables`].
pub(crate) const MAX_CELL_UNITS: usize = 7;

/// The house tables that wings, single-digit patterns and chains read: classic's consts
/// ([`Classic`], which the compiler folds in as before) or a variant's (the variant grader's
/// rules). An implementation keeps rows and columns as houses, at most [`MAX_UNITS`] houses and
/// [`MAX_CELL_UNITS`] per cell.
pub(crate) trait Tables {
    /// Every house's bitboard.
    fn units(&self) -> &[u128];
    /// The cells that must differ from cell `c` (its houses' cells, and a killer's cage).
    fn peers(&self, c: usize) -> u128;
    /// The houses of cell `c`, as indices into [`Tables::units`].
    fn cell_units(&self, c: usize) -> &[u8];
    /// Whether cells `a` and `b` share a house that is not a row or column (the 2-string
    /// kite's box).
    fn same_block(&self, a: usize, b: usize) -> bool;
}

/// Classic Sudoku's tables.
pub(crate) struct Classic;

impl Tables for Classic {
    #[inline]
    fn units(&self) -> &[u128] {
        &UNIT_BB
    }
    #[inline]
    fn peers(&self, c: usize) -> u128 {
        PEER_BB[c]
    }
    #[inline]
    fn cell_units(&self, c: usize) -> &[u8] {
        &CELL_UNITS[c]
    }
    #[inline]
    fn same_block(&self, a: usize, b: usize) -> bool {
        CELL_UNITS[a][2] == CELL_UNITS[b][2]
    }
}

/// The bit of cell `c`.
#[inline]
pub(crate) const fn bit(c: usize) -> u128 {
    1u128 << c
}

/// Whether a bitboard has exactly two bits set (cheaper than a software popcount).
#[inline]
pub(crate) const fn is_two(m: u128) -> bool {
    let r = m & m.wrapping_sub(1);
    r != 0 && r & r.wrapping_sub(1) == 0
}

/// Iterator over the set bits of a bitboard, lowest first.
#[derive(Clone, Copy)]
pub(crate) struct Bits(pub(crate) u128);

impl Iterator for Bits {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            None
        } else {
            let c = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            Some(c)
        }
    }
}

/// Iterator over the set bits of a digit mask, lowest first.
#[derive(Clone, Copy)]
pub(crate) struct Digits(pub(crate) u16);

impl Iterator for Digits {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            None
        } else {
            let d = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            Some(d)
        }
    }
}

/// The public cell for an index known to be below 81.
#[inline]
pub(crate) fn cell(c: usize) -> Cell {
    Cell::new(c as u8).expect("bitboard indices are below 81")
}

/// The public digit for an index known to be below 9.
#[inline]
pub(crate) fn digit(d: usize) -> Digit {
    Digit::new(d as u8 + 1).expect("digit indices are below 9")
}

/// The units (bit `u` for `UNIT_BB[u]`) holding any of `cells`.
fn units_touching(cells: u128) -> u32 {
    let mut units = 0u32;
    if cells != 0 {
        for (u, &ubb) in UNIT_BB.iter().enumerate() {
            if ubb & cells != 0 {
                units |= 1 << u;
            }
        }
    }
    units
}

/// Candidates of a board being solved.
#[derive(Clone, Debug)]
pub(crate) struct State {
    /// Candidate mask of each cell; `0` once the cell holds a digit.
    pub(crate) cand: [u16; N_CELLS],
    /// Digit in each cell, `0` for empty.
    pub(crate) value: [u8; N_CELLS],
    /// Per digit index: the empty cells where that digit is still a candidate.
    pub(crate) pos: [u128; 9],
    /// The empty cells.
    pub(crate) unsolved: u128,
    /// Cells whose candidates changed since the last [`State::take_dirty`].
    dirty_cells: u128,
    /// Cells whose candidates changed since the last [`State::take_unsettled`].
    unsettled: u128,
    /// Digits whose places changed since the last [`State::take_dirty`].
    dirty_digits: u16,
}

impl State {
    /// Candidates derived from the digits of `grid`: every digit not already in a peer.
    pub(crate) fn new(grid: &Grid) -> State {
        let bytes = grid.as_bytes();
        let mut s = State {
            cand: [0; N_CELLS],
            value: *bytes,
            pos: [0; 9],
            unsolved: 0,
            dirty_cells: 0,
            unsettled: 0,
            dirty_digits: 0,
        };
        // Digits present in each unit.
        let mut seen = [0u16; 27];
        for (c, &v) in bytes.iter().enumerate() {
            if v != 0 {
                for &u in &CELL_UNITS[c] {
                    seen[u as usize] |= 1 << (v - 1);
                }
            }
        }
        for (c, &v) in bytes.iter().enumerate() {
            if v == 0 {
                let [r, col, b] = CELL_UNITS[c];
                let m = ALL_DIGITS & !(seen[r as usize] | seen[col as usize] | seen[b as usize]);
                s.cand[c] = m;
                s.unsolved |= bit(c);
                s.unsettled |= bit(c);
                for d in Digits(m) {
                    s.pos[d] |= bit(c);
                }
            }
        }
        s
    }

    /// Candidates derived from the digits of `grid` under the peers `peers` (a variant's
    /// geometry): every digit not already in a peer. `None` when two peers hold the same digit.
    pub(crate) fn with_peers(grid: &Grid, peers: &[u128; N_CELLS]) -> Option<State> {
        let all = (1u128 << N_CELLS) - 1;
        let mut s = State {
            cand: [ALL_DIGITS; N_CELLS],
            value: [0; N_CELLS],
            pos: [all; 9],
            unsolved: all,
            dirty_cells: 0,
            unsettled: 0,
            dirty_digits: 0,
        };
        for (c, &v) in grid.as_bytes().iter().enumerate() {
            if let Some(d) = v.checked_sub(1) {
                if s.cand[c] & 1 << d == 0 {
                    return None;
                }
                s.place_among(c, usize::from(d), peers[c]);
            }
        }
        s.dirty_cells = 0;
        s.dirty_digits = 0;
        s.unsettled = s.unsolved;
        Some(s)
    }

    /// Put digit index `d` in empty cell `c` and remove it from the peers' candidates.
    #[inline]
    pub(crate) fn place(&mut self, c: usize, d: usize) {
        self.place_among(c, d, PEER_BB[c]);
    }

    /// [`State::place`] with the peers of `c` given (a variant's geometry).
    #[inline]
    pub(crate) fn place_among(&mut self, c: usize, d: usize, peers: u128) {
        self.dirty_digits |= self.cand[c] | 1 << d;
        for e in Digits(self.cand[c]) {
            self.pos[e] &= !bit(c);
        }
        self.cand[c] = 0;
        self.value[c] = d as u8 + 1;
        self.unsolved &= !bit(c);
        let hit = self.pos[d] & peers;
        for p in Bits(hit) {
            self.cand[p] &= !(1 << d);
        }
        self.pos[d] &= !hit;
        self.dirty_cells |= hit | bit(c);
        self.unsettled |= hit | bit(c);
    }

    /// Remove candidate `d` from cell `c`.
    #[inline]
    pub(crate) fn eliminate(&mut self, c: usize, d: usize) {
        self.cand[c] &= !(1 << d);
        self.pos[d] &= !bit(c);
        self.dirty_cells |= bit(c);
        self.unsettled |= bit(c);
        self.dirty_digits |= 1 << d;
    }

    /// The units (bit `u` for `UNIT_BB[u]`) whose candidates changed since the last call (all of
    /// them at the first call); resets the record. The hidden-single search looks only there: a
    /// unit without a hidden single that has not changed still has none.
    pub(crate) fn take_unsettled(&mut self) -> u32 {
        let cells = std::mem::replace(&mut self.unsettled, 0);
        units_touching(cells)
    }

    /// The units (bit `u` for `UNIT_BB[u]`) and digits whose candidates changed since the last
    /// call; resets the record.
    pub(crate) fn take_dirty(&mut self) -> (u32, u16) {
        let units = units_touching(self.dirty_cells);
        let digits = self.dirty_digits;
        self.dirty_cells = 0;
        self.dirty_digits = 0;
        (units, digits)
    }

    /// The cells whose candidates changed since the last call (or [`State::take_dirty`]);
    /// resets the record.
    pub(crate) fn take_dirty_cells(&mut self) -> u128 {
        self.dirty_digits = 0;
        std::mem::replace(&mut self.dirty_cells, 0)
    }

    /// Whether every cell holds a digit.
    #[inline]
    pub(crate) fn is_solved(&self) -> bool {
        self.unsolved == 0
    }

    /// Whether the board shows a contradiction: an empty cell without candidates, a digit placed
    /// twice in a unit, or a unit in which some digit is neither placed nor possible. Full check,
    /// for a fresh board; [`State::has_dead_cell`] is the cheap check while solving.
    pub(crate) fn is_broken(&self) -> bool {
        if self.has_dead_cell() {
            return true;
        }
        for unit in &UNITS {
            let mut have = 0u16;
            let mut placed = 0u16;
            for &c in unit {
                let c = c as usize;
                have |= self.cand[c];
                if let Some(v) = self.value[c].checked_sub(1) {
                    if placed & (1 << v) != 0 {
                        return true;
                    }
                    placed |= 1 << v;
                }
            }
            if have | placed != ALL_DIGITS {
                return true;
            }
        }
        false
    }

    /// Whether some empty cell has no candidate left.
    #[inline]
    pub(crate) fn has_dead_cell(&self) -> bool {
        let any = self.pos.iter().fold(0, |a, p| a | p);
        self.unsolved & !any != 0
    }

    /// Each unit's places for each digit: bit `k` of `[u][d]` when the unit's `k`-th cell
    /// (in `UNITS` order) may hold digit index `d`.
    #[inline(always)]
    pub(crate) fn unit_places(&self) -> [[u16; 9]; 27] {
        let mut t = [[0u16; 9]; 27];
        for (d, &p) in self.pos.iter().enumerate() {
            // A row's places are its nine bits of the bitboard; boxes take three bits of three
            // rows; columns gather a bit of each row.
            let mut rows = [0u16; 9];
            let mut cols = [0u16; 9];
            for (r, row) in rows.iter_mut().enumerate() {
                *row = ((p >> (9 * r)) & 0x1ff) as u16;
                t[r][d] = *row;
                for c in Digits(*row) {
                    cols[c] |= 1 << r;
                }
            }
            for (c, &col) in cols.iter().enumerate() {
                t[9 + c][d] = col;
            }
            for b in 0..9 {
                let (r0, c0) = (b / 3 * 3, b % 3 * 3);
                let part = |r: usize| (rows[r] >> c0) & 0o7;
                t[18 + b][d] = part(r0) | part(r0 + 1) << 3 | part(r0 + 2) << 6;
            }
        }
        t
    }

    /// The cells with exactly one candidate (bit-sliced count over the digit bitboards).
    #[inline]
    pub(crate) fn single_cells(&self) -> u128 {
        let mut ones = 0u128;
        let mut twos = 0u128;
        for &p in &self.pos {
            twos |= ones & p;
            ones |= p;
        }
        ones & !twos
    }

    /// The cells with exactly two candidates.
    pub(crate) fn bivalue_cells(&self) -> u128 {
        let mut ones = 0u128;
        let mut twos = 0u128;
        let mut threes = 0u128;
        for &p in &self.pos {
            threes |= twos & p;
            twos |= ones & p;
            ones |= p;
        }
        twos & !threes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_match_the_grid_tables() {
        for c in 0..N_CELLS {
            assert_eq!(PEER_BB[c].count_ones(), 20);
            for &u in &CELL_UNITS[c] {
                assert!(UNIT_BB[u as usize] & bit(c) != 0);
            }
        }
        assert_eq!(UNIT_BB.iter().fold(0, |a, b| a | b), (1u128 << N_CELLS) - 1);
    }

    #[test]
    fn tables_are_the_classic_geometry() {
        use crate::geometry::Geometry;
        let geometry = Geometry::classic();
        let bb = |cells: &[Cell]| cells.iter().fold(0u128, |a, c| a | bit(c.idx()));
        assert_eq!(geometry.houses().len(), UNIT_BB.len());
        for (house, &ubb) in geometry.houses().iter().zip(&UNIT_BB) {
            assert_eq!(bb(house), ubb);
        }
        for c in Cell::all() {
            assert_eq!(bb(geometry.peers(c)), PEER_BB[c.idx()]);
            let own: Vec<u128> = geometry.houses_of(c).map(|h| bb(h)).collect();
            let table: Vec<u128> = CELL_UNITS[c.idx()]
                .iter()
                .map(|&u| UNIT_BB[usize::from(u)])
                .collect();
            assert_eq!(own, table);
        }
    }

    #[test]
    fn place_updates_both_views() {
        let g = Grid::empty();
        let mut s = State::new(&g);
        assert_eq!(s.single_cells(), 0);
        s.place(0, 4);
        assert_eq!(s.value[0], 5);
        assert_eq!(s.cand[1], ALL_DIGITS & !(1 << 4));
        assert_eq!(s.pos[4] & PEER_BB[0], 0);
        assert!(!s.is_broken());
        for c in Bits(s.unsolved) {
            for d in 0..9 {
                assert_eq!(s.cand[c] & (1 << d) != 0, s.pos[d] & bit(c) != 0);
            }
        }
    }
}
