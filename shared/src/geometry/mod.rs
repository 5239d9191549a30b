//! A puzzle's geometry: its houses (nine cells that hold 1 to 9 once each), the constraints
//! that are not houses (a killer cage's sum), and each cell's peers (the cells that must hold a
//! different digit), derived once. This is the one description of a puzzle's rules that the
//! validator (conflicts, placements, solution checks), the isomorphs (which transforms keep a
//! geometry) and the clients' clash and pencil-mark code read.
//!
//! Classic Sudoku is [`Geometry::classic`], a plain static of const tables built at compile
//! time from the grid's `UNITS` and `PEERS` (rows, columns, boxes, in that order; `classic.rs`).
//! The DPLL solver, the generator and the grader keep their own specialised classic tables;
//! the grader's are checked against this geometry's houses. The variants' geometries (A10: x,
//! windoku, jigsaw, killer) are built in `variants.rs`. Nothing here solves or generates puzzles
//! for a geometry.

use std::borrow::Cow;

use super::grid::{Cell, Grid, N_CELLS};

mod classic;
mod variants;

pub use variants::{Layout, LayoutError, RegionsError};

/// Nine cells that hold the digits 1 to 9 once each: a row, column, box, or a variant's extra
/// region (a diagonal, a window, a jigsaw piece).
pub type House = [Cell; 9];

/// A rule that is not a house.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Constraint {
    /// A killer cage: its cells hold distinct digits that add up to `sum`.
    Cage {
        /// The cage's cells (1 to 9 of them, distinct).
        cells: Vec<Cell>,
        /// What its digits add up to.
        sum: u8,
    },
}

impl Constraint {
    /// The cells the constraint reads.
    pub fn cells(&self) -> &[Cell] {
        match self {
            Constraint::Cage { cells, .. } => cells,
        }
    }

    /// Whether its cells must hold distinct digits (which makes them each other's peers).
    pub fn distinct(&self) -> bool {
        match self {
            Constraint::Cage { .. } => true,
        }
    }

    /// Whether relabelling the digits keeps it (a cage's sum does not survive relabelling).
    pub fn keeps_relabelling(&self) -> bool {
        match self {
            Constraint::Cage { .. } => false,
        }
    }

    /// Whether `grid` meets it, every one of its cells filled.
    pub fn holds(&self, grid: &Grid) -> bool {
        let bytes = grid.as_bytes();
        match self {
            Constraint::Cage { cells, sum } => {
                let mut seen = 0u16;
                let mut total = 0u16;
                for c in cells {
                    let d = bytes[c.idx()];
                    if d == 0 || seen & 1 << d != 0 {
                        return false;
                    }
                    seen |= 1 << d;
                    total += u16::from(d);
                }
                total == u16::from(*sum)
            }
        }
    }
}

/// Houses and constraints that do not describe a geometry.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    /// A house names a cell twice.
    #[error("house {house} holds {cell} twice")]
    HouseRepeat {
        /// Index of the house.
        house: usize,
        /// The repeated cell.
        cell: Cell,
    },
    /// A cell belongs to no house.
    #[error("{cell} is in no house")]
    Uncovered {
        /// The cell.
        cell: Cell,
    },
    /// A constraint names a cell twice.
    #[error("constraint {index} holds {cell} twice")]
    ConstraintRepeat {
        /// Index of the constraint.
        index: usize,
        /// The repeated cell.
        cell: Cell,
    },
    /// A cage's cells cannot hold distinct digits adding up to its sum (or it has no cells,
    /// or more than nine).
    #[error("cage {index} of {len} cells cannot add up to {sum}")]
    CageSum {
        /// Index of the constraint.
        index: usize,
        /// Its number of cells.
        len: usize,
        /// Its sum.
        sum: u8,
    },
}

/// The houses and other constraints of a puzzle, with each cell's peers and houses derived
/// once (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    // Borrowed for classic's const tables (a plain static), owned for any other geometry.
    houses: Cow<'static, [House]>,
    constraints: Cow<'static, [Constraint]>,
    /// The peers of every cell, cell after cell, each cell's in increasing order.
    peers: Cow<'static, [Cell]>,
    /// Cell `c`'s peers are `peers[peer_start[c]..peer_start[c + 1]]`.
    peer_start: [u16; N_CELLS + 1],
    /// The houses of every cell (indices into `houses`), cell after cell.
    cell_houses: Cow<'static, [usize]>,
    /// Cell `c`'s houses are `cell_houses[house_start[c]..house_start[c + 1]]`.
    house_start: Cow<'static, [usize]>,
    /// The houses are classic's rows, columns and boxes and there is nothing else.
    classic: bool,
}

/// The bitboard of `cells` (bit `c` for cell `c`).
fn bits(cells: &[Cell]) -> u128 {
    cells.iter().fold(0, |bb, c| bb | 1 << c.idx())
}

/// Whether `n` distinct digits can add up to `sum`.
fn cage_sum_possible(n: usize, sum: u8) -> bool {
    let (n, sum) = (n as u16, u16::from(sum));
    (1..=9).contains(&n) && (n * (n + 1) / 2..=n * (19 - n) / 2).contains(&sum)
}

impl Geometry {
    /// Classic Sudoku: rows, columns and boxes (in that order, as the grid's
    /// [`UNITS`](super::grid::UNITS)), no other constraint. A static of const tables.
    pub fn classic() -> &'static Geometry {
        &classic::CLASSIC
    }

    /// A geometry of `houses` and `constraints`; every cell must be in some house.
    pub fn new(
        houses: Vec<House>,
        constraints: Vec<Constraint>,
    ) -> Result<Geometry, GeometryError> {
        let mut covered = 0u128;
        for (h, house) in houses.iter().enumerate() {
            if let Some(cell) = first_repeat(house) {
                return Err(GeometryError::HouseRepeat { house: h, cell });
            }
            covered |= bits(house);
        }
        if let Some(cell) = Cell::all().find(|c| covered & 1 << c.idx() == 0) {
            return Err(GeometryError::Uncovered { cell });
        }
        for (index, constraint) in constraints.iter().enumerate() {
            if let Some(cell) = first_repeat(constraint.cells()) {
                return Err(GeometryError::ConstraintRepeat { index, cell });
            }
            let Constraint::Cage { cells, sum } = constraint;
            if !cage_sum_possible(cells.len(), *sum) {
                let (len, sum) = (cells.len(), *sum);
                return Err(GeometryError::CageSum { index, len, sum });
            }
        }
        Ok(Geometry::derive(houses, constraints))
    }

    /// The geometry with its derived tables, from parts already checked.
    fn derive(houses: Vec<House>, constraints: Vec<Constraint>) -> Geometry {
        let mut peer_bb = [0u128; N_CELLS];
        let mut cell_houses = vec![Vec::new(); N_CELLS];
        for (h, house) in houses.iter().enumerate() {
            let bb = bits(house);
            for c in house {
                peer_bb[c.idx()] |= bb;
                cell_houses[c.idx()].push(h);
            }
        }
        for constraint in constraints.iter().filter(|k| k.distinct()) {
            let bb = bits(constraint.cells());
            for c in constraint.cells() {
                peer_bb[c.idx()] |= bb;
            }
        }
        // At most 80 peers a cell: the running count (at most 81 * 80) fits in u16.
        let mut peers = Vec::new();
        let mut peer_start = [0u16; N_CELLS + 1];
        for (c, bb) in peer_bb.iter().enumerate() {
            let others = bb & !(1u128 << c);
            peers.extend(Cell::all().filter(|p| others & 1 << p.idx() != 0));
            peer_start[c + 1] = peers.len() as u16;
        }
        let mut house_start = vec![0];
        let mut flat = Vec::new();
        for own in cell_houses {
            flat.extend(own);
            house_start.push(flat.len());
        }
        let classic = constraints.is_empty() && same_houses(&houses, classic::houses());
        Geometry {
            houses: Cow::Owned(houses),
            constraints: Cow::Owned(constraints),
            peers: Cow::Owned(peers),
            peer_start,
            cell_houses: Cow::Owned(flat),
            house_start: Cow::Owned(house_start),
            classic,
        }
    }

    /// The houses, in the order given (classic: rows 0-8, columns 9-17, boxes 18-26).
    pub fn houses(&self) -> &[House] {
        &self.houses
    }

    /// The constraints that are not houses.
    pub fn constraints(&self) -> &[Constraint] {
        &self.constraints
    }

    /// The cells that share a house or a distinct-digit constraint with `cell`, in increasing
    /// order, without `cell` (classic: the 20 of [`Cell::peers`]).
    pub fn peers(&self, cell: Cell) -> &[Cell] {
        let (from, to) = (self.peer_start[cell.idx()], self.peer_start[cell.idx() + 1]);
        &self.peers[usize::from(from)..usize::from(to)]
    }

    /// The houses `cell` is in, in the order of [`Geometry::houses`].
    pub fn houses_of(&self, cell: Cell) -> impl Iterator<Item = &House> + '_ {
        self.cell_houses[self.house_start[cell.idx()]..self.house_start[cell.idx() + 1]]
            .iter()
            .map(|&h| &self.houses[h])
    }

    /// Whether this is classic Sudoku: its houses are the rows, columns and boxes (in any
    /// order) and there is no other constraint. Every transform keeps it.
    pub fn is_classic(&self) -> bool {
        self.classic
    }

    /// Whether `other` has the same rules: the same houses and the same constraints, each as
    /// a set of cells, in any order.
    pub fn same_rules(&self, other: &Geometry) -> bool {
        let key = |k: &Constraint| {
            let Constraint::Cage { cells, sum } = k;
            (bits(cells), *sum)
        };
        let mut mine: Vec<_> = self.constraints.iter().map(key).collect();
        let mut theirs: Vec<_> = other.constraints.iter().map(key).collect();
        mine.sort_unstable();
        theirs.sort_unstable();
        mine == theirs && same_houses(&self.houses, &other.houses)
    }

    /// The same rules with every cell `c` moved to `to[c]` (`to` must be a permutation of
    /// the cells): the geometry of a transformed puzzle. With `complement` the digits are
    /// relabelled `d -> 10 - d` too, so a cage of `n` cells and sum `S` sums to `10n - S`.
    pub(crate) fn relocated(&self, to: &[Cell; N_CELLS], complement: bool) -> Geometry {
        let houses = self.houses.iter().map(|h| h.map(|c| to[c.idx()])).collect();
        let constraints = self
            .constraints
            .iter()
            .map(|k| match k {
                Constraint::Cage { cells, sum } => Constraint::Cage {
                    cells: cells.iter().map(|c| to[c.idx()]).collect(),
                    // At most nine cells: 10n - S stays within a u8.
                    sum: if complement {
                        10 * cells.len() as u8 - sum
                    } else {
                        *sum
                    },
                },
            })
            .collect();
        Geometry::derive(houses, constraints)
    }
}

/// Whether `a` and `b` are the same houses as sets of cells, in any order.
fn same_houses(a: &[House], b: &[House]) -> bool {
    let sorted = |houses: &[House]| {
        let mut bbs: Vec<u128> = houses.iter().map(|h| bits(h)).collect();
        bbs.sort_unstable();
        bbs
    };
    sorted(a) == sorted(b)
}

/// The first cell `cells` names a second time.
fn first_repeat(cells: &[Cell]) -> Option<Cell> {
    let mut seen = 0u128;
    for c in cells {
        if seen & 1 << c.idx() != 0 {
            return Some(*c);
        }
        seen |= 1 << c.idx();
    }
    None
}

#[cfg(test)]
pub(crate) mod tests;
