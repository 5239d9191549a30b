//! The solver's lookup tables, computed at compile time: band masks, the mini-row occupancy of a
//! row, the band-shrink table (which mini-rows take part in a valid row -> box permutation), and
//! each cell's peers as band masks.

use crate::grid::N_CELLS;

/// The 27 bits of a band.
pub(super) const BAND: u32 = (1 << 27) - 1;
/// Spreads a 9-bit column set over the three rows of a band.
pub(super) const SPREAD: u32 = 1 | 1 << 9 | 1 << 18;

/// For a 9-bit row: bit `k` set when the mini-row in box `k` holds a candidate.
pub(super) const ROW_OCC: [u8; 512] = {
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
pub(super) const SHRINK: [u32; 512] = {
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
pub(super) const SHRINK9: [u16; 512] = {
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
pub(super) const PEER_MASK: [[u32; 3]; N_CELLS] = {
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
