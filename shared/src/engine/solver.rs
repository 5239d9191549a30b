//! The bitboard solver: counts solutions up to a limit (the uniqueness primitive), returns the
//! solution when it is unique, and fills random complete grids for the generator.
//!
//! # Design
//!
//! The state is one candidate bitboard per (digit, band): `cand[d * 3 + b]` holds 27 bits, one per
//! cell of band `b` (rows `3b..3b+3`), bit `9 * row_in_band + col`. A second mask per band marks
//! the cells not yet solved. Propagation works a whole digit-band at a time with bit operations:
//!
//! - **Band shrink.** Within a band a digit occupies exactly one cell in each of the 3 rows and
//!   each of the 3 boxes, so the rows pick the boxes by a permutation. From the 9-bit occupancy of
//!   the band's "mini-rows" (row x box), a 512-entry table gives the mini-rows that take part in some
//!   valid permutation; everything else is removed. This is box/line locked candidates inside the
//!   band, and it finds hidden singles in boxes (a box with one cell forces that cell's row).
//! - **Row singles.** A row of the band left with one cell solves it: the cell is removed from the
//!   other digits, and its column from the digit's other two bands.
//! - **Naked singles** come from bit-sliced counting over the nine digits of a band (cells seen
//!   once, twice, three times); a cell with no candidate is a contradiction.
//! - **Stack shrink.** When those stall, the band shrink turned sideways: within a stack the
//!   columns pick the bands by a permutation, from the same table. With both shrinks every
//!   pointing and claiming move is found; it pays for itself (13-15% fewer instructions on
//!   top1465 and the 17-clue set).
//! - **Column hidden singles** last, with the same counting over the nine rows of a digit.
//!
//! Only digit-bands that changed since they were last looked at are revisited. When nothing more
//! follows, the solver branches on a bivalue cell, preferring (among the first few) the one with
//! the most peers still holding one of its digits, so that either branch propagates far; a cell
//! with the fewest candidates when there is no bivalue cell. The small state (27 + 27 + 3 words)
//! is copied for all but the last branch. The design follows the well-known
//! band-oriented fast solvers (JCZSolve and its descendants); this is an independent implementation.

use rand::seq::SliceRandom;
use rand::{Rng, RngCore};

use super::grid::{Grid, N_CELLS};

/// Why a grid has no unique solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// The givens admit no solution (including givens that clash).
    #[error("the puzzle has no solution")]
    NoSolution,
    /// The givens admit two or more solutions.
    #[error("the puzzle has more than one solution")]
    Multiple,
}

/// The number of solutions of `grid`, counting stops at `limit` (so the result is `<= limit`).
///
/// `count_solutions(g, 2) == 1` is the uniqueness test. Clashing givens give `0`.
pub fn count_solutions(grid: &Grid, limit: usize) -> usize {
    if limit == 0 {
        return 0;
    }
    let Some(mut state) = State::from_grid(grid) else {
        return 0;
    };
    let mut search = Search {
        limit,
        count: 0,
        first: None,
        rng: None,
    };
    search.run(&mut state);
    search.count
}

/// The solution of `grid` when it has exactly one.
pub fn solve_unique(grid: &Grid) -> Result<Grid, SolveError> {
    let Some(mut state) = State::from_grid(grid) else {
        return Err(SolveError::NoSolution);
    };
    let mut search = Search {
        limit: 2,
        count: 0,
        first: None,
        rng: None,
    };
    search.run(&mut state);
    match (search.count, search.first) {
        (1, Some(solution)) => Ok(solution),
        (0, _) => Err(SolveError::NoSolution),
        _ => Err(SolveError::Multiple),
    }
}

/// One solution of `grid` (the first found), or `None` when it has none.
pub fn solve_one(grid: &Grid) -> Option<Grid> {
    let mut state = State::from_grid(grid)?;
    let mut search = Search {
        limit: 1,
        count: 0,
        first: None,
        rng: None,
    };
    search.run(&mut state);
    search.first
}

/// Whether singles and locked candidates (pointing and claiming, along rows and columns) solve
/// `grid`: a puzzle graded easy or medium. Such a puzzle has exactly one solution.
pub fn solves_by_locked_candidates(grid: &Grid) -> bool {
    match State::from_grid(grid) {
        Some(mut state) => state.propagate::<LOCKED>() && state.unsolved == [0; 3],
        None => false,
    }
}

/// Whether naked and hidden singles alone solve `grid`. Such a puzzle has exactly one solution.
pub fn solves_by_singles(grid: &Grid) -> bool {
    match State::from_grid(grid) {
        Some(mut state) => state.propagate::<SINGLES>() && state.unsolved == [0; 3],
        None => false,
    }
}

/// A random complete grid: the three diagonal boxes get random permutations, the rest is solved
/// with candidates tried in random order.
pub fn random_solution(rng: &mut impl Rng) -> Grid {
    let mut bytes = [0u8; N_CELLS];
    let mut digits: [u8; 9] = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    for bx in [0usize, 4, 8] {
        digits.shuffle(rng);
        let top = (bx / 3) * 27 + (bx % 3) * 3;
        for (k, &d) in digits.iter().enumerate() {
            bytes[top + (k / 3) * 9 + k % 3] = d;
        }
    }
    let start = Grid::from_bytes(bytes).expect("digits are 1..=9");
    let mut state = State::from_grid(&start).expect("diagonal boxes never clash");
    let mut search = Search {
        limit: 1,
        count: 0,
        first: None,
        rng: Some(rng),
    };
    search.run(&mut state);
    search
        .first
        .expect("a grid with only its diagonal boxes filled always has a solution")
}

/// [`State::propagate`] with singles only.
const SINGLES: u8 = 0;
/// [`State::propagate`] with singles, the band shrink and the stack shrink (the solver's
/// propagation).
const LOCKED: u8 = 1;

/// How many bivalue cells [`State::branch_cell`] compares. Scoring 8 rather than taking the first
/// cut the instructions spent on top1465 by 26% and on forum_hardest by 41% (callgrind); scoring
/// more costs more than it saves.
const BRANCH_LOOKS: u32 = 8;

/// The 27 bits of a band.
const BAND: u32 = (1 << 27) - 1;
/// Spreads a 9-bit column set over the three rows of a band.
const SPREAD: u32 = 1 | 1 << 9 | 1 << 18;

/// For a 9-bit row: bit `k` set when the mini-row in box `k` holds a candidate.
const ROW_OCC: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut x = 0;
    while x < 512 {
        let mut occ = 0u8;
        let mut k = 0;
        while k < 3 {
            if (x >> (3 * k)) & 7 != 0 {
                occ |= 1 << k;
            }
            k += 1;
        }
        t[x] = occ;
        x += 1;
    }
    t
};

/// For a 9-bit mini-row occupancy (bit `3 * row + box`): the 27-bit mask of the mini-rows that
/// belong to some valid row -> box permutation; `0` when there is none.
const SHRINK: [u32; 512] = {
    const PERMS: [[usize; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut t = [0u32; 512];
    let mut m = 0;
    while m < 512 {
        let mut allowed = 0u32;
        let mut p = 0;
        while p < 6 {
            let perm = PERMS[p];
            let mut ok = true;
            let mut mask = 0u32;
            let mut r = 0;
            while r < 3 {
                let bit = 3 * r + perm[r];
                if (m >> bit) & 1 == 0 {
                    ok = false;
                }
                mask |= 7 << (9 * r + 3 * perm[r]);
                r += 1;
            }
            if ok {
                allowed |= mask;
            }
            p += 1;
        }
        t[m] = allowed;
        m += 1;
    }
    t
};

/// [`SHRINK`] in the 9-bit mini-row form: bit `3 * row + box` kept.
const SHRINK9: [u16; 512] = {
    let mut t = [0u16; 512];
    let mut m = 0;
    while m < 512 {
        let mut r = 0;
        while r < 3 {
            let mut k = 0;
            while k < 3 {
                if SHRINK[m] & (1 << (9 * r + 3 * k)) != 0 {
                    t[m] |= 1 << (3 * r + k);
                }
                k += 1;
            }
            r += 1;
        }
        m += 1;
    }
    t
};

/// For each cell, its peers as three band masks.
const PEER_MASK: [[u32; 3]; N_CELLS] = {
    let mut t = [[0u32; 3]; N_CELLS];
    let mut c = 0;
    while c < N_CELLS {
        let mut o = 0;
        while o < N_CELLS {
            let same_box = (o / 27 == c / 27) && ((o % 9) / 3 == (c % 9) / 3);
            if o != c && (o / 9 == c / 9 || o % 9 == c % 9 || same_box) {
                t[c][o / 27] |= 1 << (o % 27);
            }
            o += 1;
        }
        c += 1;
    }
    t
};

/// The propagation state: candidates per (digit, band) and unsolved cells per band.
#[derive(Clone, Copy)]
struct State {
    /// `cand[d * 3 + b]`: cells of band `b` where digit `d + 1` is still possible.
    cand: [u32; 27],
    /// `cand` as it was when each digit-band was last processed.
    seen: [u32; 27],
    /// Cells of each band not yet solved.
    unsolved: [u32; 3],
}

impl State {
    /// The state with the givens placed, or `None` if two givens clash.
    fn from_grid(grid: &Grid) -> Option<State> {
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
    fn assign(&mut self, d: usize, cell: usize) -> bool {
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
    fn propagate<const MODE: u8>(&mut self) -> bool {
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
    fn branch_cell(&self) -> Option<usize> {
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
    fn to_grid(self) -> Grid {
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

/// A depth-first search that counts solutions up to `limit` and keeps the first.
struct Search<'r> {
    limit: usize,
    count: usize,
    first: Option<Grid>,
    /// When set, candidates are tried in random order (for random grids).
    rng: Option<&'r mut dyn RngCore>,
}

impl Search<'_> {
    fn run(&mut self, state: &mut State) {
        if !state.propagate::<LOCKED>() {
            return;
        }
        if state.unsolved == [0; 3] {
            self.count += 1;
            if self.first.is_none() {
                self.first = Some(state.to_grid());
            }
            return;
        }
        let Some(cell) = state.branch_cell() else {
            return;
        };
        let band = cell / 27;
        let bit = 1u32 << (cell % 27);
        let mut digits = [0usize; 9];
        let mut n = 0;
        for d in 0..9 {
            if state.cand[d * 3 + band] & bit != 0 {
                digits[n] = d;
                n += 1;
            }
        }
        if let Some(rng) = self.rng.as_mut() {
            digits[..n].shuffle(rng);
        }
        for (k, &d) in digits[..n].iter().enumerate() {
            if k + 1 == n {
                if state.assign(d, cell) {
                    self.run(state);
                }
            } else {
                let mut branch = *state;
                if branch.assign(d, cell) {
                    self.run(&mut branch);
                }
            }
            if self.count >= self.limit {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(puzzle: &str, solution: Result<&str, SolveError>) {
        let grid = Grid::parse(puzzle).expect("test puzzle parses");
        let got = solve_unique(&grid).map(|g| g.to_line());
        assert_eq!(got, solution.map(str::to_owned), "puzzle {puzzle}");
    }

    #[test]
    fn solves_unique_puzzles() {
        check(
            "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79",
            Ok("534678912672195348198342567859761423426853791713924856961537284287419635345286179"),
        );
        check(
            "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9",
            Ok("987654321246173985351928746128537694634892157795461832519286473472319568863745219"),
        );
    }

    #[test]
    fn reports_multiple_and_none() {
        check(&".".repeat(81), Err(SolveError::Multiple));
        // Two 5s in the first row.
        check(
            "55...............................................................................",
            Err(SolveError::NoSolution),
        );
        // Consistent givens, but r1c9 can hold nothing.
        check(
            "12345678.........9...............................................................",
            Err(SolveError::NoSolution),
        );
    }

    #[test]
    fn counts_up_to_the_limit() {
        let empty = Grid::empty();
        assert_eq!(count_solutions(&empty, 0), 0);
        assert_eq!(count_solutions(&empty, 1), 1);
        assert_eq!(count_solutions(&empty, 50), 50);
        let solved = Grid::parse(
            "534678912672195348198342567859761423426853791713924856961537284287419635345286179",
        )
        .expect("parses");
        assert_eq!(count_solutions(&solved, 10), 1);
    }

    #[test]
    fn random_solutions_are_valid_and_differ() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let a = random_solution(&mut rng);
        let b = random_solution(&mut rng);
        assert_ne!(a, b);
        for g in [a, b] {
            assert!(g.is_full());
            assert_eq!(count_solutions(&g, 2), 1);
        }
    }
}
