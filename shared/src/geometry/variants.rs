//! The variants' geometries (A10), built on classic's houses: `x` adds both main diagonals,
//! `windoku` the four extra 3×3 windows, `jigsaw` replaces the boxes with nine regions (an
//! 81-character string of `0`..`8`, as the wire carries it), `killer` keeps the boxes and adds
//! cages. Each is checked by [`Geometry::new`]; what a variant's puzzles are (a solver and a
//! generator for it) is not here.

use super::{Constraint, Geometry, GeometryError, House};
use crate::grid::Cell;
use crate::variant::Variant;

/// The cell at row `r`, column `c` (both below 9).
fn at(r: usize, c: usize) -> Cell {
    Cell::at(r as u8, c as u8).expect("row and column below 9")
}

/// Classic's rows and columns (its first 18 houses).
fn rows_and_columns() -> Vec<House> {
    Geometry::classic().houses()[..18].to_vec()
}

/// Classic's houses (rows, columns, boxes).
fn classic_houses() -> Vec<House> {
    Geometry::classic().houses().to_vec()
}

/// Why a jigsaw layout is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegionsError {
    /// Not 81 characters of `0`..`8`.
    #[error("regions must be 81 characters 0-8")]
    Format,
    /// A region without nine cells.
    #[error("region {region} has {cells} cells, not 9")]
    Size {
        /// The region.
        region: u8,
        /// Its cells.
        cells: usize,
    },
    /// A region in pieces.
    #[error("region {region} is not orthogonally connected")]
    Disconnected {
        /// The region.
        region: u8,
    },
}

/// What a variant's puzzle brings beside its grid (A10): a jigsaw's regions (each cell's,
/// `0`..`8`), a killer's cages (cells and sum). Empty for the other variants.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// Jigsaw: the region of each cell, 81 characters `0`..`8`.
    pub regions: Option<String>,
    /// Killer: every cage's cells and sum, every cell in exactly one cage.
    pub cages: Vec<(Vec<Cell>, u8)>,
}

/// Why a variant and a layout do not make a geometry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// The jigsaw's regions are not nine connected regions of nine.
    #[error(transparent)]
    Regions(#[from] RegionsError),
    /// A cage repeats a cell or cannot make its sum.
    #[error(transparent)]
    Cages(#[from] GeometryError),
    /// A killer cell in no cage, or in two.
    #[error("every cell must be in exactly one cage ({cell} is in {cages})")]
    Cover {
        /// The cell.
        cell: Cell,
        /// The cages it is in.
        cages: usize,
    },
    /// The variant needs a layout part that is missing, or has one it cannot use.
    #[error("a {variant} puzzle {what}")]
    Shape {
        /// The variant.
        variant: Variant,
        /// What is wrong.
        what: &'static str,
    },
}

/// Whether `cells` are orthogonally connected.
fn connected(cells: &[Cell]) -> bool {
    let Some(&first) = cells.first() else {
        return true;
    };
    let mut seen = vec![first];
    let mut todo = vec![first];
    while let Some(c) = todo.pop() {
        for &n in cells {
            let (dr, dc) = (c.row().abs_diff(n.row()), c.col().abs_diff(n.col()));
            if dr + dc == 1 && !seen.contains(&n) {
                seen.push(n);
                todo.push(n);
            }
        }
    }
    seen.len() == cells.len()
}

impl Geometry {
    /// The geometry of a `variant` puzzle with `layout` (regions for jigsaw, cages covering
    /// every cell once for killer, nothing for the others), as the wire or a file gives it.
    pub fn of(variant: Variant, layout: &Layout) -> Result<Geometry, LayoutError> {
        let shape = |what| LayoutError::Shape { variant, what };
        let regions = layout.regions.as_deref();
        let cages = &layout.cages;
        match variant {
            Variant::Jigsaw => {
                let regions = regions.ok_or_else(|| shape("needs its regions"))?;
                if !cages.is_empty() {
                    return Err(shape("has no cages"));
                }
                Ok(Geometry::jigsaw(regions)?)
            }
            Variant::Killer => {
                if regions.is_some() {
                    return Err(shape("has no regions"));
                }
                let mut count = [0usize; 81];
                for (cells, _) in cages {
                    cells.iter().for_each(|c| count[c.idx()] += 1);
                }
                if let Some(cell) = Cell::all().find(|c| count[c.idx()] != 1) {
                    let cages = count[cell.idx()];
                    return Err(LayoutError::Cover { cell, cages });
                }
                Ok(Geometry::killer(cages.clone())?)
            }
            _ if regions.is_some() => Err(shape("has no regions")),
            _ if !cages.is_empty() => Err(shape("has no cages")),
            Variant::Classic => Ok(Geometry::classic().clone()),
            Variant::X => Ok(Geometry::x()),
            Variant::Windoku => Ok(Geometry::windoku()),
        }
    }

    /// Which variant's rules these are: cages make a killer, two houses beyond classic's an
    /// x, four a windoku, boxes that are not boxes a jigsaw.
    pub fn variant(&self) -> Variant {
        if !self.constraints().is_empty() {
            return Variant::Killer;
        }
        match self.houses().len() {
            29 => Variant::X,
            31 => Variant::Windoku,
            _ if self.is_classic() => Variant::Classic,
            _ => Variant::Jigsaw,
        }
    }

    /// What a client is given beside the grid to draw these rules (A10): a jigsaw's regions
    /// (the houses after the rows and columns, in order), a killer's cages.
    pub fn layout(&self) -> Layout {
        match self.variant() {
            Variant::Jigsaw => {
                let mut labels = [b'0'; 81];
                for (r, house) in self.houses()[18..].iter().enumerate() {
                    house.iter().for_each(|c| labels[c.idx()] = b'0' + r as u8);
                }
                Layout {
                    regions: Some(labels.iter().map(|&b| char::from(b)).collect()),
                    cages: Vec::new(),
                }
            }
            Variant::Killer => Layout {
                regions: None,
                cages: self
                    .constraints()
                    .iter()
                    .map(|k| {
                        let Constraint::Cage { cells, sum } = k;
                        (cells.clone(), *sum)
                    })
                    .collect(),
            },
            _ => Layout::default(),
        }
    }

    /// `x`: classic, and both main diagonals hold 1 to 9 once.
    pub fn x() -> Geometry {
        let mut houses = classic_houses();
        houses.push(std::array::from_fn(|i| at(i, i)));
        houses.push(std::array::from_fn(|i| at(i, 8 - i)));
        Geometry::new(houses, Vec::new()).expect("x's houses cover the grid")
    }

    /// `windoku`: classic, and the four windows whose top-left cells are r2c2, r2c6, r6c2 and
    /// r6c6 (cells 10, 14, 46, 50) hold 1 to 9 once.
    pub fn windoku() -> Geometry {
        let mut houses = classic_houses();
        for (r0, c0) in [(1, 1), (1, 5), (5, 1), (5, 5)] {
            houses.push(std::array::from_fn(|i| at(r0 + i / 3, c0 + i % 3)));
        }
        Geometry::new(houses, Vec::new()).expect("windoku's houses cover the grid")
    }

    /// `jigsaw`: rows, columns and the nine regions of `regions` (each cell's region, `0`..`8`:
    /// nine orthogonally connected cells each).
    pub fn jigsaw(regions: &str) -> Result<Geometry, RegionsError> {
        let labels: Vec<u8> = regions.bytes().map(|b| b.wrapping_sub(b'0')).collect();
        if labels.len() != 81 || labels.iter().any(|&l| l > 8) {
            return Err(RegionsError::Format);
        }
        let mut houses = rows_and_columns();
        for region in 0..9u8 {
            let cells: Vec<Cell> = Cell::all().filter(|c| labels[c.idx()] == region).collect();
            let house: House = cells.clone().try_into().map_err(|_| RegionsError::Size {
                region,
                cells: cells.len(),
            })?;
            if !connected(&cells) {
                return Err(RegionsError::Disconnected { region });
            }
            houses.push(house);
        }
        Ok(Geometry::new(houses, Vec::new()).expect("nine regions of nine cover the grid"))
    }

    /// `killer`: classic, and `cages` (cells and sums; every cell in one cage at most).
    pub fn killer(cages: Vec<(Vec<Cell>, u8)>) -> Result<Geometry, GeometryError> {
        let constraints = cages
            .into_iter()
            .map(|(cells, sum)| Constraint::Cage { cells, sum })
            .collect();
        Geometry::new(classic_houses(), constraints)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Grid;

    /// A solved grid whose diagonals and windows happen not to matter: classic only.
    const SOLVED: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    fn boxes_as_regions() -> String {
        Cell::all()
            .map(|c| char::from(b'0' + ((c.row() / 3) * 3 + c.col() / 3) as u8))
            .collect()
    }

    #[test]
    fn x_and_windoku_add_their_houses_to_classics() {
        let x = Geometry::x();
        assert_eq!(x.houses().len(), 29);
        // r1c1's peers: its row, column and box (20), and the rest of its diagonal (6 more).
        assert_eq!(x.peers(at(0, 0)).len(), 26);
        // The centre is on both diagonals.
        assert_eq!(x.houses_of(at(4, 4)).count(), 5);
        let w = Geometry::windoku();
        assert_eq!(w.houses().len(), 31);
        let windows: Vec<usize> = w.houses()[27..].iter().map(|h| h[0].idx()).collect();
        assert_eq!(windows, [10, 14, 46, 50]);
        assert!(!x.is_classic() && !w.is_classic());
    }

    #[test]
    fn a_classic_solution_breaks_the_diagonal_where_it_repeats() {
        let grid: Grid = SOLVED.parse().expect("grid");
        assert!(crate::validator::check_solution(Geometry::classic(), &grid).is_ok());
        // Its main diagonal is 5,7,8,7,…: a repeat, so not an x solution.
        assert!(crate::validator::check_solution(&Geometry::x(), &grid).is_err());
    }

    #[test]
    fn jigsaw_with_the_boxes_as_regions_is_classic() {
        let g = Geometry::jigsaw(&boxes_as_regions()).expect("layout");
        assert!(g.is_classic());
    }

    #[test]
    fn jigsaw_layouts_that_are_not_one_are_refused() {
        assert_eq!(Geometry::jigsaw("0123"), Err(RegionsError::Format));
        let mut nine = boxes_as_regions().into_bytes();
        nine[0] = b'9';
        let nine = String::from_utf8(nine).expect("ascii");
        assert_eq!(Geometry::jigsaw(&nine), Err(RegionsError::Format));
        // Swap one cell of box 0 with one of box 8: both still nine cells, both in pieces.
        let mut swapped = boxes_as_regions().into_bytes();
        swapped.swap(0, 80);
        let swapped = String::from_utf8(swapped).expect("ascii");
        assert!(matches!(
            Geometry::jigsaw(&swapped),
            Err(RegionsError::Disconnected { .. })
        ));
        // Give box 0's corner to box 1: ten cells and eight.
        let mut uneven = boxes_as_regions().into_bytes();
        uneven[0] = b'1';
        let uneven = String::from_utf8(uneven).expect("ascii");
        assert!(matches!(
            Geometry::jigsaw(&uneven),
            Err(RegionsError::Size { .. })
        ));
    }

    #[test]
    fn each_variant_is_known_by_its_rules_and_comes_back_from_its_layout() {
        let mut regions = boxes_as_regions().into_bytes();
        // Box 0 gives r3c3 to box 1 and takes r1c4: both stay nine connected cells.
        regions.swap(3, 20);
        let regions = String::from_utf8(regions).expect("ascii");
        let jigsaw = Geometry::jigsaw(&regions).expect("layout");
        // Every cell its own one-cell cage, its solution digit the sum.
        let grid: Grid = SOLVED.parse().expect("grid");
        let cages = Cell::all()
            .map(|c| (vec![c], grid.as_bytes()[c.idx()]))
            .collect();
        let killer = Geometry::killer(cages).expect("cages");
        let all = [
            Geometry::classic().clone(),
            Geometry::x(),
            Geometry::windoku(),
            jigsaw,
            killer,
        ];
        for (g, v) in all.iter().zip(Variant::ALL) {
            assert_eq!(g.variant(), v);
            let back = Geometry::of(v, &g.layout()).expect("its own layout");
            assert!(back.same_rules(g), "{v}");
        }
        assert_eq!(all[3].layout().regions.as_deref(), Some(regions.as_str()));
        // A killer whose cages leave a cell out, and layouts on the wrong variant.
        let mut short = all[4].layout();
        short.cages.pop();
        assert!(matches!(
            Geometry::of(Variant::Killer, &short),
            Err(LayoutError::Cover { cages: 0, .. })
        ));
        assert!(Geometry::of(Variant::X, &all[3].layout()).is_err());
        assert!(Geometry::of(Variant::Jigsaw, &Layout::default()).is_err());
    }

    #[test]
    fn killer_cages_join_the_peers_and_bad_sums_are_refused() {
        let cage = vec![at(0, 0), at(1, 0), at(2, 1)];
        let g = Geometry::killer(vec![(cage.clone(), 6)]).expect("cage");
        assert_eq!(g.constraints().len(), 1);
        // r3c2 is r1c1's box-mate already: the cage adds no peer there.
        assert_eq!(g.peers(at(0, 0)).len(), 20);
        assert!(
            Geometry::killer(vec![(cage, 5)]).is_err(),
            "three digits add up to 6 at least"
        );
    }
}
