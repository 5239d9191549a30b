use super::*;
use crate::grid::{PEERS, UNITS};

fn cell(idx: u8) -> Cell {
    Cell::new(idx).expect("test cells are below 81")
}

fn cells(idx: &[u8]) -> Vec<Cell> {
    idx.iter().map(|&i| cell(i)).collect()
}

/// A solution of [`x_geometry`] (both main diagonals hold 1 to 9).
pub(crate) const X_SOLUTION: &str =
    "683295417421867359795341862572189634946532781138674295854716923319428576267953148";

/// Classic plus both main diagonals as houses (the X variant's rules, for testing the seam).
pub(crate) fn x_geometry() -> Geometry {
    let mut houses = Geometry::classic().houses().to_vec();
    houses.push(std::array::from_fn(|k| cell(k as u8 * 10)));
    houses.push(std::array::from_fn(|k| cell(k as u8 * 8 + 8)));
    Geometry::new(houses, Vec::new()).expect("classic plus diagonals")
}

#[test]
fn classic_is_the_unit_and_peer_tables() {
    let g = Geometry::classic();
    assert!(g.is_classic());
    assert!(g.constraints().is_empty());
    for (house, unit) in g.houses().iter().zip(UNITS) {
        assert_eq!(house.to_vec(), cells(&unit));
    }
    for c in Cell::all() {
        assert_eq!(g.peers(c), cells(c.peers()));
        assert_eq!(g.peers(c), cells(&PEERS[c.idx()]));
        let houses: Vec<&House> = g.houses_of(c).collect();
        let own = [c.row(), 9 + c.col(), 18 + c.box_idx()];
        assert_eq!(houses, own.map(|u| &g.houses()[u]));
    }
    assert!(std::ptr::eq(g, Geometry::classic()), "one shared static");
    // The const tables are what the rows, columns and boxes derive.
    let houses = UNITS.iter().map(|unit| unit.map(cell)).collect();
    assert_eq!(Geometry::new(houses, Vec::new()).as_ref(), Ok(g));
}

#[test]
fn diagonals_and_cages_add_peers() {
    let x = x_geometry();
    assert!(!x.is_classic());
    // r1c1 sees the rest of the main diagonal too (6 cells outside its box).
    assert_eq!(x.peers(cell(0)).len(), 26);
    // r5c5 is on both diagonals: 6 more of each outside its box.
    assert_eq!(x.peers(cell(40)).len(), 32);
    // r1c2 is on neither.
    assert_eq!(x.peers(cell(1)), Geometry::classic().peers(cell(1)));
    assert_eq!(x.houses_of(cell(40)).count(), 5);

    // A cage over r1c9 and r2c1: each the other's peer, though they share no house.
    let cage = Constraint::Cage {
        cells: cells(&[8, 9]),
        sum: 3,
    };
    let caged = Geometry::new(Geometry::classic().houses().to_vec(), vec![cage]).expect("valid");
    assert!(!caged.is_classic());
    assert!(caged.peers(cell(8)).contains(&cell(9)));
    assert_eq!(caged.peers(cell(8)).len(), 21);
    assert!(!Geometry::classic().peers(cell(8)).contains(&cell(9)));
}

#[test]
fn bad_geometries_are_refused() {
    let rows: Vec<House> = Geometry::classic().houses()[..9].to_vec();
    let mut twice = rows.clone();
    twice[2][5] = cell(18);
    assert_eq!(
        Geometry::new(twice, Vec::new()),
        Err(GeometryError::HouseRepeat {
            house: 2,
            cell: cell(18)
        })
    );
    assert_eq!(
        Geometry::new(rows[1..].to_vec(), Vec::new()),
        Err(GeometryError::Uncovered { cell: cell(0) })
    );
    let cage = |idx: &[u8], sum| Constraint::Cage {
        cells: cells(idx),
        sum,
    };
    let with = |k| Geometry::new(rows.clone(), vec![cage(&[0, 1], 3), k]);
    assert_eq!(
        with(cage(&[4, 4], 3)),
        Err(GeometryError::ConstraintRepeat {
            index: 1,
            cell: cell(4)
        })
    );
    // Two distinct digits add up to 3..=17.
    for sum in [2, 18] {
        let err = GeometryError::CageSum {
            index: 1,
            len: 2,
            sum,
        };
        assert_eq!(with(cage(&[4, 5], sum)), Err(err));
    }
    assert!(with(cage(&[4, 5], 17)).is_ok());
    assert!(with(cage(&[], 0)).is_err());
    // Rows alone are a geometry (they cover every cell), just not classic.
    assert!(!Geometry::new(rows, Vec::new()).expect("rows").is_classic());
}

#[test]
fn same_rules_ignores_order() {
    let classic = Geometry::classic();
    let mut reversed = classic.houses().to_vec();
    reversed.reverse();
    let reversed = Geometry::new(reversed, Vec::new()).expect("valid");
    assert!(reversed.is_classic());
    assert!(reversed.same_rules(classic));
    assert!(!x_geometry().same_rules(classic));
    let cage = |sum| {
        let k = Constraint::Cage {
            cells: cells(&[0, 1]),
            sum,
        };
        Geometry::new(classic.houses().to_vec(), vec![k]).expect("valid")
    };
    assert!(cage(3).same_rules(&cage(3)));
    assert!(!cage(3).same_rules(&cage(4)));
}
