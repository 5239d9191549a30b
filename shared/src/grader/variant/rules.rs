//! A geometry as the variant grader reads it: house and cage bitboards, each cell's peers, the
//! pairs of houses that share cells (locked candidates), and for killer the regions of the 45
//! rule (every row, column and box, bands of two and three adjacent rows or columns, and pairs
//! of adjacent boxes) with the cages each one covers whole, cuts, or leaves out.

use super::super::state::{bit, Bits, State, Tables, MAX_CELL_UNITS, MAX_UNITS, UNIT_BB};
use super::super::step::Area;
use crate::geometry::{Constraint, Geometry};
use crate::grid::N_CELLS;

/// A killer cage.
pub(crate) struct Cage {
    /// Its cells.
    pub(crate) cells: u128,
    /// What its digits add up to.
    pub(crate) sum: u8,
}

/// A region of the 45 rule: whole houses, so its digits add up to 45 per house.
pub(crate) struct Region {
    pub(crate) area: Area,
    pub(crate) cells: u128,
    /// 45 per house.
    pub(crate) total: i32,
    /// What the cages inside it add up to.
    pub(crate) full_sum: i32,
    /// Its cells outside those cages.
    pub(crate) innies: u128,
    /// The cells of the cages it cuts that lie outside it.
    pub(crate) outies: u128,
    /// What the cages it cuts add up to.
    pub(crate) partial_sum: i32,
    /// Its cells in no cage.
    pub(crate) uncaged: u128,
    /// The one cage it cuts, when it cuts exactly one and has no cell outside every cage.
    pub(crate) crossing: Option<usize>,
}

/// See the module doc.
pub(crate) struct Rules {
    pub(crate) houses: Vec<u128>,
    pub(crate) areas: Vec<Area>,
    pub(crate) peers: [u128; N_CELLS],
    /// Ordered pairs of houses sharing two cells or more.
    pub(crate) pairs: Vec<(usize, usize)>,
    /// Where naked subsets look: every house, then every cage.
    pub(crate) groups: Vec<(u128, Area)>,
    pub(crate) cages: Vec<Cage>,
    /// Each cell's cage (`u8::MAX` for none).
    cage_index: [u8; N_CELLS],
    pub(crate) regions: Vec<Region>,
    /// Each house's cells, in increasing order.
    pub(crate) house_cells: Vec<[u8; 9]>,
    /// The houses of each cell, as indices into `houses` (the first `MAX_CELL_UNITS`).
    cell_houses: [[u8; MAX_CELL_UNITS]; N_CELLS],
    /// How many houses each cell is in.
    n_cell_houses: [u8; N_CELLS],
    /// Rows and columns are houses and the counts fit [`Tables`]: wings, single-digit patterns
    /// and chains can walk these houses.
    pub(crate) tables_fit: bool,
}

impl Rules {
    pub(crate) fn new(geometry: &Geometry) -> Rules {
        let houses: Vec<u128> = geometry.houses().iter().map(|h| bits(h)).collect();
        let areas: Vec<Area> = houses
            .iter()
            .enumerate()
            .map(|(i, &h)| area_of(geometry, i, h))
            .collect();
        let mut pairs = Vec::new();
        for (a, &ha) in houses.iter().enumerate() {
            for (b, &hb) in houses.iter().enumerate() {
                if a != b && (ha & hb).count_ones() >= 2 {
                    pairs.push((a, b));
                }
            }
        }
        let cages = cages_of(geometry);
        let mut cage_index = [u8::MAX; N_CELLS];
        let mut groups: Vec<(u128, Area)> = houses.iter().copied().zip(areas.clone()).collect();
        for (i, cage) in cages.iter().enumerate() {
            Bits(cage.cells).for_each(|c| cage_index[c] = i as u8);
            groups.push((cage.cells, Area::Cage(i as u8)));
        }
        let mut cell_houses = [[0u8; MAX_CELL_UNITS]; N_CELLS];
        let mut n_cell_houses = [0u8; N_CELLS];
        let mut house_cells = Vec::with_capacity(houses.len());
        for (i, &h) in houses.iter().enumerate() {
            let mut cells = [0u8; 9];
            for (k, c) in Bits(h).enumerate() {
                cells[k] = c as u8;
                let n = usize::from(n_cell_houses[c]);
                if n < MAX_CELL_UNITS {
                    cell_houses[c][n] = i as u8;
                }
                n_cell_houses[c] = n_cell_houses[c].saturating_add(1);
            }
            house_cells.push(cells);
        }
        let tables_fit = UNIT_BB[..18].iter().all(|u| houses.contains(u))
            && houses.len() <= MAX_UNITS
            && n_cell_houses
                .iter()
                .all(|&n| usize::from(n) <= MAX_CELL_UNITS);
        // The 45 rule counts each cell's cage once: cages that overlap get none.
        let caged: u32 = cages.iter().map(|k| k.cells.count_ones()).sum();
        let disjoint = caged == cages.iter().fold(0u128, |m, k| m | k.cells).count_ones();
        let regions = if cages.is_empty() || !disjoint {
            Vec::new()
        } else {
            regions(&houses, &cages)
        };
        Rules {
            houses,
            areas,
            peers: peers_of(geometry),
            pairs,
            groups,
            cages,
            cage_index,
            regions,
            house_cells,
            cell_houses,
            n_cell_houses,
            tables_fit,
        }
    }

    /// The cells that see every cell of `cells`.
    pub(crate) fn common_peers(&self, cells: u128) -> u128 {
        Bits(cells).fold(!0, |m, c| m & self.peers[c])
    }

    /// The cages (bit `i` for cage `i`) with a cell in `cells`.
    pub(crate) fn cages_touching(&self, cells: u128) -> u128 {
        let mut out = 0u128;
        for c in Bits(cells) {
            let i = self.cage_index[c];
            if i != u8::MAX {
                out |= cage_bit(usize::from(i));
            }
        }
        out
    }

    /// The cage of cell `c`, as an area.
    pub(crate) fn cage_of(&self, c: usize) -> Option<Area> {
        let i = self.cage_index[c];
        (i != u8::MAX).then_some(Area::Cage(i))
    }

    /// Whether a fresh board shows a contradiction: an empty cell without candidates, a house
    /// in which some digit is neither placed nor possible, or a cage past its sum or whose
    /// filled cells miss it.
    pub(crate) fn is_broken(&self, s: &State) -> bool {
        if s.has_dead_cell() {
            return true;
        }
        for &house in &self.houses {
            let mut have = 0u16;
            for c in Bits(house) {
                have |= s.cand[c];
                if let Some(v) = s.value[c].checked_sub(1) {
                    have |= 1 << v;
                }
            }
            if have != 0x1ff {
                return true;
            }
        }
        self.cages.iter().any(|cage| {
            let placed: u32 = Bits(cage.cells & !s.unsolved)
                .map(|c| u32::from(s.value[c]))
                .sum();
            let full = cage.cells & s.unsolved == 0;
            placed > u32::from(cage.sum) || (full && placed != u32::from(cage.sum))
        })
    }
}

impl Tables for Rules {
    fn units(&self) -> &[u128] {
        &self.houses
    }
    fn peers(&self, c: usize) -> u128 {
        self.peers[c]
    }
    fn cell_units(&self, c: usize) -> &[u8] {
        &self.cell_houses[c][..usize::from(self.n_cell_houses[c])]
    }
    fn same_block(&self, a: usize, b: usize) -> bool {
        let of_b = self.cell_units(b);
        self.cell_units(a)
            .iter()
            .any(|u| !self.areas[usize::from(*u)].is_line() && of_b.contains(u))
    }
}

/// The bitboard of a house or cage.
fn bits(cells: &[crate::grid::Cell]) -> u128 {
    cells.iter().fold(0, |m, c| m | bit(c.idx()))
}

/// The bitboard of each classic house (rows, columns, boxes).
const fn classic_unit(u: usize) -> u128 {
    UNIT_BB[u]
}

/// Each killer cage's cells and sum.
fn cages_of(geometry: &Geometry) -> Vec<Cage> {
    geometry
        .constraints()
        .iter()
        .map(|k| {
            let Constraint::Cage { cells, sum } = k;
            Cage {
                cells: bits(cells),
                sum: *sum,
            }
        })
        .collect()
}

/// Every cell's peers under `geometry`.
fn peers_of(geometry: &Geometry) -> [u128; N_CELLS] {
    std::array::from_fn(|c| {
        let cell = crate::grid::Cell::new(c as u8).expect("below 81");
        bits(geometry.peers(cell))
    })
}

/// The area a house is.
fn area_of(geometry: &Geometry, index: usize, house: u128) -> Area {
    let i = index as u8;
    if let Some(u) = (0..27).find(|&u| classic_unit(u) == house) {
        let k = (u % 9) as u8;
        return [Area::Row(k), Area::Column(k), Area::Box(k)][u / 9];
    }
    let diagonal = |f: fn(usize) -> usize| (0..9).fold(0u128, |m, r| m | bit(9 * r + f(r)));
    if house == diagonal(|r| r) {
        return Area::Diagonal(0);
    }
    if house == diagonal(|r| 8 - r) {
        return Area::Diagonal(1);
    }
    let window =
        |r0: usize, c0: usize| (0..9).fold(0u128, |m, k| m | bit(9 * (r0 + k / 3) + c0 + k % 3));
    if let Some(w) = [(1, 1), (1, 5), (5, 1), (5, 5)]
        .iter()
        .position(|&(r, c)| window(r, c) == house)
    {
        return Area::Window(w as u8);
    }
    if geometry.variant() == crate::variant::Variant::Jigsaw && index >= 18 {
        return Area::Region(i - 18);
    }
    Area::House(i)
}

/// Cage `i`'s bit in a set of cages (none past the 128th: such a cage is never skipped).
pub(crate) fn cage_bit(i: usize) -> u128 {
    1u128.checked_shl(i as u32).unwrap_or(0)
}

/// The regions of the 45 rule whose rows, columns and boxes are all houses here, smallest
/// first.
fn regions(houses: &[u128], cages: &[Cage]) -> Vec<Region> {
    // Each region as the classic units (indices into `UNIT_BB`) it is the union of.
    let mut out: Vec<(Area, Vec<usize>)> = Vec::new();
    for n in 1..=3u8 {
        for first in 0..=(9 - n) {
            let (f, l) = (first, first + n - 1);
            let (row, col) = if n == 1 {
                (Area::Row(f), Area::Column(f))
            } else {
                (Area::Rows(f, l), Area::Columns(f, l))
            };
            let lines = usize::from(f)..=usize::from(l);
            out.push((row, lines.clone().collect()));
            out.push((col, lines.map(|k| 9 + k).collect()));
        }
        for b in 0..9u8 {
            let u = 18 + usize::from(b);
            match n {
                1 => out.push((Area::Box(b), vec![u])),
                2 if b % 3 < 2 => out.push((Area::Boxes(b, b + 1), vec![u, u + 1])),
                _ => {}
            }
            if n == 2 && b < 6 {
                out.push((Area::Boxes(b, b + 3), vec![u, u + 3]));
            }
        }
    }
    out.sort_by_key(|r| r.1.len());
    out.into_iter()
        .filter(|(_, units)| units.iter().all(|&u| houses.contains(&UNIT_BB[u])))
        .map(|(area, units)| {
            let cells = units.iter().fold(0u128, |m, &u| m | UNIT_BB[u]);
            region(area, cells, units.len(), cages)
        })
        .collect()
}

/// A region with what the cages cover of it.
fn region(area: Area, cells: u128, n: usize, cages: &[Cage]) -> Region {
    let (mut full, mut full_sum, mut partial, mut partial_sum) = (0u128, 0, 0u128, 0);
    let mut cut = Vec::new();
    for (i, cage) in cages.iter().enumerate() {
        if cage.cells & !cells == 0 {
            full |= cage.cells;
            full_sum += i32::from(cage.sum);
        } else if cage.cells & cells != 0 {
            partial |= cage.cells;
            partial_sum += i32::from(cage.sum);
            cut.push(i);
        }
    }
    let caged = cages.iter().fold(0u128, |m, k| m | k.cells);
    let uncaged = cells & !caged;
    Region {
        area,
        cells,
        total: 45 * n as i32,
        full_sum,
        innies: cells & !full,
        outies: partial & !cells,
        partial_sum,
        uncaged,
        crossing: (cut.len() == 1 && uncaged == 0).then(|| cut[0]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn killer_regions_cover_bands_and_box_pairs() {
        let cages: Vec<(Vec<crate::grid::Cell>, u8)> =
            crate::grid::Cell::all().map(|c| (vec![c], 5)).collect();
        let g = Geometry::killer(cages).expect("cages");
        let rules = Rules::new(&g);
        // 9 + 9 + 9 single houses, 8 + 8 two-line bands and 12 box pairs, 7 + 7 three-line bands.
        assert_eq!(rules.regions.len(), 27 + 16 + 12 + 14);
        assert!(rules
            .regions
            .iter()
            .all(|r| r.innies == 0 && r.uncaged == 0));
        assert!(rules.tables_fit);
        assert_eq!(rules.peers[0], super::super::super::state::PEER_BB[0]);
    }
}
