//! Classic Sudoku's geometry as const tables, built at compile time from the grid's [`UNITS`]
//! and [`PEERS`]: [`Geometry::classic`] is a plain static (no first-use check, nothing built
//! at run time). A test checks it equals what [`Geometry::new`] derives from the rows, columns
//! and boxes.

use std::borrow::Cow;

use super::{Geometry, House};
use crate::grid::{Cell, BOX_OF, N_CELLS, PEERS, UNITS};

/// The cell at `idx`, at compile time (the tables hold indices below 81).
const fn cell(idx: u8) -> Cell {
    match Cell::new(idx) {
        Some(c) => c,
        None => panic!("table cells are below 81"),
    }
}

const HOUSES: [House; 27] = {
    let mut t = [cell(0); 9];
    let mut out = [t; 27];
    let mut u = 0;
    while u < 27 {
        let mut k = 0;
        while k < 9 {
            t[k] = cell(UNITS[u][k]);
            k += 1;
        }
        out[u] = t;
        u += 1;
    }
    out
};

const PEER_CELLS: [Cell; N_CELLS * 20] = {
    let mut t = [cell(0); N_CELLS * 20];
    let mut c = 0;
    while c < N_CELLS {
        let mut k = 0;
        while k < 20 {
            t[c * 20 + k] = cell(PEERS[c][k]);
            k += 1;
        }
        c += 1;
    }
    t
};

const PEER_START: [u16; N_CELLS + 1] = {
    let mut t = [0u16; N_CELLS + 1];
    let mut c = 0;
    while c <= N_CELLS {
        t[c] = (c * 20) as u16;
        c += 1;
    }
    t
};

/// Each cell's row, column and box, as indices into [`HOUSES`].
const CELL_HOUSES: [usize; N_CELLS * 3] = {
    let mut t = [0usize; N_CELLS * 3];
    let mut c = 0;
    while c < N_CELLS {
        t[c * 3] = c / 9;
        t[c * 3 + 1] = 9 + c % 9;
        t[c * 3 + 2] = 18 + BOX_OF[c] as usize;
        c += 1;
    }
    t
};

const HOUSE_START: [usize; N_CELLS + 1] = {
    let mut t = [0usize; N_CELLS + 1];
    let mut c = 0;
    while c <= N_CELLS {
        t[c] = c * 3;
        c += 1;
    }
    t
};

/// Classic Sudoku: rows, columns and boxes, nothing else.
pub(super) static CLASSIC: Geometry = Geometry {
    houses: Cow::Borrowed(&HOUSES),
    constraints: Cow::Borrowed(&[]),
    peers: Cow::Borrowed(&PEER_CELLS),
    peer_start: PEER_START,
    cell_houses: Cow::Borrowed(&CELL_HOUSES),
    house_start: Cow::Borrowed(&HOUSE_START),
    classic: true,
};

/// Classic's houses (for telling a classic geometry given in another order).
pub(super) fn houses() -> &'static [House] {
    &HOUSES
}
