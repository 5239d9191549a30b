//! A geometry compiled for propagation: houses, peers (as lists and as bitboards) and cages
//! (cells, and the digit sets that make each cage's sum) in flat tables of cell indices, built
//! once per geometry and read at every node of a search.

use super::combos::combos;
use crate::geometry::{Constraint, Geometry};
use crate::grid::N_CELLS;

/// A killer cage, compiled.
#[derive(Clone, Debug)]
pub(crate) struct Cage {
    /// Its cells (the first `len`).
    pub(crate) cells: [u8; 9],
    pub(crate) len: usize,
    /// The digit sets of `len` distinct digits that make its sum.
    pub(crate) sets: &'static [u16],
}

impl Cage {
    pub(crate) fn cells(&self) -> &[u8] {
        &self.cells[..self.len]
    }
}

/// A geometry's rules as tables (see the module doc).
#[derive(Clone, Debug)]
pub(crate) struct Rules {
    pub(crate) houses: Vec<[u8; 9]>,
    /// Cell `c`'s peers are `peers[peer_start[c]..peer_start[c + 1]]`.
    peers: Vec<u8>,
    peer_start: [u16; N_CELLS + 1],
    /// Bit `p` of `peer_bits[c]`: `p` is a peer of `c`.
    pub(crate) peer_bits: [u128; N_CELLS],
    pub(crate) cages: Vec<Cage>,
}

impl Rules {
    pub(crate) fn new(geometry: &Geometry) -> Rules {
        let houses = geometry
            .houses()
            .iter()
            .map(|h| h.map(|c| c.get()))
            .collect();
        let mut peers = Vec::with_capacity(N_CELLS * 24);
        let mut peer_start = [0u16; N_CELLS + 1];
        let mut peer_bits = [0u128; N_CELLS];
        for cell in crate::grid::Cell::all() {
            for p in geometry.peers(cell) {
                peers.push(p.get());
                peer_bits[cell.idx()] |= 1 << p.idx();
            }
            // At most 80 peers a cell: the running count fits in u16.
            peer_start[cell.idx() + 1] = peers.len() as u16;
        }
        let cages = geometry
            .constraints()
            .iter()
            .map(|k| {
                let Constraint::Cage { cells, sum } = k;
                let mut flat = [0u8; 9];
                for (slot, c) in flat.iter_mut().zip(cells) {
                    *slot = c.get();
                }
                Cage {
                    cells: flat,
                    len: cells.len().min(9),
                    sets: combos(cells.len(), u16::from(*sum)),
                }
            })
            .collect();
        Rules {
            houses,
            peers,
            peer_start,
            peer_bits,
            cages,
        }
    }

    /// The peers of cell `c`.
    #[inline]
    pub(crate) fn peers(&self, c: usize) -> &[u8] {
        let (from, to) = (self.peer_start[c], self.peer_start[c + 1]);
        &self.peers[usize::from(from)..usize::from(to)]
    }
}
