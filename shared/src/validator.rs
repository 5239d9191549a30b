//! Checks by the rules of a [`Geometry`]: the cells that clash on a board, the clashes a
//! placement would make, and whether a grid is a complete valid solution (of a given puzzle).
//! The `*_in` functions take the geometry; the others are classic Sudoku's
//! ([`Geometry::classic`]). A classic geometry takes fast paths over the grid's const unit and
//! peer tables (the same answers as the general path; a test compares them). Nothing here
//! compares with a stored answer: a race accepts any grid that keeps the givens and obeys the
//! rules.

use super::geometry::{Constraint, Geometry, House};
use super::grid::{Cell, Digit, Grid, N_CELLS, UNITS};

/// Why a grid is not a complete valid solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Violation {
    /// A house misses a digit (it is empty somewhere or repeats one).
    #[error("house {house} does not hold each digit once")]
    House {
        /// Index into [`Geometry::houses`].
        house: usize,
    },
    /// A constraint that is not a house is not met (a cage has an empty cell, repeats a
    /// digit or adds up to another sum).
    #[error("constraint {index} is not met")]
    Constraint {
        /// Index into [`Geometry::constraints`].
        index: usize,
    },
}

/// Every filled cell that shares a row, column or box with another cell holding the same digit,
/// in increasing order (the cells a client highlights).
pub fn conflicts(grid: &Grid) -> Vec<Cell> {
    conflicts_in(Geometry::classic(), grid)
}

/// Every filled cell that shares a house (or a cage) of `geometry` with another cell holding
/// the same digit, and every filled cell of a cage whose digits add up to more than its sum
/// or fill it to another sum (A10), in increasing order.
pub fn conflicts_in(geometry: &Geometry, grid: &Grid) -> Vec<Cell> {
    let bytes = grid.as_bytes();
    let mut clash = [false; N_CELLS];
    if geometry.is_classic() {
        // Classic's fast path: the same houses from the const unit table.
        for unit in &UNITS {
            mark_repeats(unit, usize::from, bytes, &mut clash);
        }
    } else {
        for house in geometry.houses() {
            mark_repeats(house, Cell::idx, bytes, &mut clash);
        }
        for constraint in geometry.constraints().iter().filter(|k| k.distinct()) {
            mark_repeats(constraint.cells(), Cell::idx, bytes, &mut clash);
        }
        for Constraint::Cage { cells, sum } in geometry.constraints() {
            if cage_breaks(cells, *sum, bytes) {
                cells
                    .iter()
                    .filter(|c| bytes[c.idx()] != 0)
                    .for_each(|c| clash[c.idx()] = true);
            }
        }
    }
    Cell::all().filter(|c| clash[c.idx()]).collect()
}

/// Whether a cage's filled digits add up to more than `sum`, or fill it to another sum.
fn cage_breaks(cells: &[Cell], sum: u8, bytes: &[u8; N_CELLS]) -> bool {
    let digits = cells.iter().map(|c| u16::from(bytes[c.idx()]));
    let total: u16 = digits.clone().sum();
    let full = digits.clone().all(|d| d != 0);
    total > u16::from(sum) || (full && total != u16::from(sum))
}

/// Mark in `clash` every filled cell of `group` (cell `idx(c)` of the grid) whose digit
/// another cell of it holds.
#[inline]
fn mark_repeats<C: Copy>(
    group: &[C],
    idx: impl Fn(C) -> usize,
    bytes: &[u8; N_CELLS],
    clash: &mut [bool; N_CELLS],
) {
    // For each digit, the first cell of the group holding it.
    let mut first: [Option<C>; 10] = [None; 10];
    for &c in group {
        let d = usize::from(bytes[idx(c)]);
        if d == 0 {
            continue;
        }
        match first[d] {
            None => first[d] = Some(c),
            Some(f) => {
                clash[idx(f)] = true;
                clash[idx(c)] = true;
            }
        }
    }
}

/// The cells in the row, column or box of `cell` (other than `cell` itself) that hold `digit`:
/// empty when placing `digit` at `cell` breaks no rule.
pub fn placement_conflicts(board: &Grid, cell: Cell, digit: Digit) -> Vec<Cell> {
    placement_conflicts_in(Geometry::classic(), board, cell, digit)
}

/// The peers of `cell` in `geometry` that hold `digit`, in increasing order: empty when
/// placing `digit` at `cell` repeats no digit in a house or cage.
pub fn placement_conflicts_in(
    geometry: &Geometry,
    board: &Grid,
    cell: Cell,
    digit: Digit,
) -> Vec<Cell> {
    let bytes = board.as_bytes();
    if geometry.is_classic() {
        // Classic's fast path: the same peers from the fixed-length const table.
        return cell
            .peers()
            .iter()
            .filter(|&&p| bytes[usize::from(p)] == digit.get())
            .filter_map(|&p| Cell::new(p))
            .collect();
    }
    let holds = |p: &Cell| bytes[p.idx()] == digit.get();
    let mut out: Vec<Cell> = geometry.peers(cell).iter().copied().filter(holds).collect();
    // A10: a cage the digit takes past its sum, or fills to another sum, clashes with the
    // cage's other filled cells.
    let mut after = *bytes;
    after[cell.idx()] = digit.get();
    for Constraint::Cage { cells, sum } in geometry.constraints() {
        if cells.contains(&cell) && cage_breaks(cells, *sum, &after) {
            out.extend(cells.iter().filter(|&&c| c != cell && bytes[c.idx()] != 0));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether every cell is filled and every row, column and box holds each digit once.
pub fn is_complete_solution(grid: &Grid) -> bool {
    is_complete_solution_in(Geometry::classic(), grid)
}

/// Whether `grid` meets every rule of `geometry`: each house holds each digit once (so every
/// cell is filled) and every other constraint is met.
pub fn is_complete_solution_in(geometry: &Geometry, grid: &Grid) -> bool {
    if geometry.is_classic() {
        // Classic's fast path: the same houses from the const unit table.
        let bytes = grid.as_bytes();
        return UNITS
            .iter()
            .all(|unit| full_house(bytes, unit.iter().map(|&c| usize::from(c))));
    }
    check_solution(geometry, grid).is_ok()
}

/// Whether the cells at `idx` hold the digits 1 to 9 once each.
#[inline]
fn full_house(bytes: &[u8; N_CELLS], idx: impl Iterator<Item = usize>) -> bool {
    let seen = idx.fold(0u16, |seen, i| seen | 1 << bytes[i]);
    seen == 0b11_1111_1110
}

/// The first rule of `geometry` that `grid` breaks as a complete solution (houses first, in
/// order, then the other constraints), or `Ok` when it meets them all.
pub fn check_solution(geometry: &Geometry, grid: &Grid) -> Result<(), Violation> {
    let bytes = grid.as_bytes();
    let full = |house: &House| full_house(bytes, house.iter().map(|c| c.idx()));
    if let Some(house) = geometry.houses().iter().position(|h| !full(h)) {
        return Err(Violation::House { house });
    }
    match geometry.constraints().iter().position(|k| !k.holds(grid)) {
        Some(index) => Err(Violation::Constraint { index }),
        None => Ok(()),
    }
}

/// Whether `grid` keeps every given of `puzzle` and is a complete valid solution.
pub fn is_solution_of(puzzle: &Grid, grid: &Grid) -> bool {
    is_solution_of_in(Geometry::classic(), puzzle, grid)
}

/// Whether `grid` keeps every given of `puzzle` and meets every rule of `geometry`.
pub fn is_solution_of_in(geometry: &Geometry, puzzle: &Grid, grid: &Grid) -> bool {
    let givens_kept = puzzle
        .as_bytes()
        .iter()
        .zip(grid.as_bytes())
        .all(|(&p, &g)| p == 0 || p == g);
    givens_kept && is_complete_solution_in(geometry, grid)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUZZLE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    const SOLUTION: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    fn grid(line: &str) -> Grid {
        Grid::parse(line).expect("test grid parses")
    }

    fn cells(idx: &[u8]) -> Vec<Cell> {
        idx.iter().filter_map(|&i| Cell::new(i)).collect()
    }

    #[track_caller]
    fn check_conflicts(line: &str, expected: &[u8]) {
        assert_eq!(conflicts(&grid(line)), cells(expected));
    }

    #[test]
    fn conflicts_list_every_clashing_cell() {
        check_conflicts(PUZZLE, &[]);
        check_conflicts(SOLUTION, &[]);
        // r1c3 = 5 clashes with r1c1 (row and box).
        let mut bad = PUZZLE.to_owned();
        bad.replace_range(2..3, "5");
        check_conflicts(&bad, &[0, 2]);
        // r9c1 = 5 clashes with r1c1 (column) only.
        let mut bad = ".".repeat(81);
        bad.replace_range(0..1, "5");
        bad.replace_range(72..73, "5");
        check_conflicts(&bad, &[0, 72]);
    }

    #[test]
    fn placement_conflicts_name_the_peers() {
        let board = grid(PUZZLE);
        let cell = Cell::at(0, 2).expect("in range");
        let five = Digit::new(5).expect("digit");
        assert_eq!(placement_conflicts(&board, cell, five), cells(&[0]));
        let four = Digit::new(4).expect("digit");
        assert_eq!(placement_conflicts(&board, cell, four), vec![]);
    }

    #[test]
    fn complete_solutions_by_the_rules() {
        assert!(is_complete_solution(&grid(SOLUTION)));
        assert!(!is_complete_solution(&grid(PUZZLE)));
        assert!(is_solution_of(&grid(PUZZLE), &grid(SOLUTION)));
        // A valid grid that does not keep the givens.
        let mut swapped: Vec<u8> = SOLUTION.bytes().collect();
        for b in &mut swapped {
            *b = match *b {
                b'1' => b'2',
                b'2' => b'1',
                other => other,
            };
        }
        let swapped = grid(std::str::from_utf8(&swapped).expect("ascii"));
        assert!(is_complete_solution(&swapped));
        assert!(!is_solution_of(&grid(PUZZLE), &swapped));
        // Two digits swapped inside a row: full but invalid.
        let mut bad = SOLUTION.to_owned();
        bad.replace_range(0..2, "35");
        assert!(!is_complete_solution(&grid(&bad)));
    }

    #[test]
    fn x_diagonals_are_checked_through_the_geometry() {
        use crate::geometry::tests::{x_geometry, X_SOLUTION};
        let x = x_geometry();
        let classic = Geometry::classic();
        let sol = grid(SOLUTION);
        assert!(is_complete_solution_in(classic, &sol));
        // SOLUTION repeats digits on its main diagonal (house 27).
        assert_eq!(
            check_solution(&x, &sol),
            Err(Violation::House { house: 27 })
        );
        let xs = grid(X_SOLUTION);
        assert_eq!(check_solution(&x, &xs), Ok(()));
        assert!(is_complete_solution(&xs));
        // r1c1 = 5 and r5c5 = 5 clash on the diagonal only.
        let mut board = ".".repeat(81);
        board.replace_range(0..1, "5");
        board.replace_range(40..41, "5");
        assert_eq!(conflicts_in(classic, &grid(&board)), vec![]);
        assert_eq!(conflicts_in(&x, &grid(&board)), cells(&[0, 40]));
        let five = Digit::new(5).expect("digit");
        let r9c9 = Cell::new(80).expect("cell");
        assert_eq!(
            placement_conflicts_in(&x, &grid(&board), r9c9, five),
            cells(&[0, 40])
        );
        assert_eq!(placement_conflicts(&grid(&board), r9c9, five), vec![]);
        let puzzle = Grid::from_bytes(std::array::from_fn(|i| {
            if i % 7 == 0 {
                xs.as_bytes()[i]
            } else {
                0
            }
        }))
        .expect("digits");
        assert!(is_solution_of_in(&x, &puzzle, &xs));
        assert!(!is_solution_of_in(&x, &grid(PUZZLE), &xs));
    }

    #[test]
    fn cages_are_checked_through_the_geometry() {
        use crate::geometry::Constraint;
        let sol = grid(SOLUTION);
        // r1c9 = 2 and r2c1 = 6: a cage of 8 over them holds; one of 9 does not.
        let caged = |idx: &[u8], sum| {
            let cage = Constraint::Cage {
                cells: cells(idx),
                sum,
            };
            let houses = Geometry::classic().houses().to_vec();
            Geometry::new(houses, vec![cage]).expect("valid geometry")
        };
        assert_eq!(check_solution(&caged(&[8, 9], 8), &sol), Ok(()));
        assert_eq!(
            check_solution(&caged(&[8, 9], 9), &sol),
            Err(Violation::Constraint { index: 0 })
        );
        // r1c1 = 5 and r2c6 = 5 share no house but a cage: a repeat, though 5 + 5 = 10.
        let pair = caged(&[0, 14], 10);
        assert_eq!(
            check_solution(&pair, &sol),
            Err(Violation::Constraint { index: 0 })
        );
        assert_eq!(conflicts_in(&pair, &sol), cells(&[0, 14]));
        assert_eq!(conflicts(&sol), vec![]);
        let five = Digit::new(5).expect("digit");
        let mut board = sol;
        board.set(Cell::new(14).expect("cell"), None);
        let r2c6 = Cell::new(14).expect("cell");
        assert_eq!(
            placement_conflicts_in(&pair, &board, r2c6, five),
            cells(&[0])
        );
        assert_eq!(placement_conflicts(&board, r2c6, five), vec![]);
        // An empty cell in a cage breaks it (and its houses, which come first).
        assert_eq!(
            check_solution(&caged(&[8, 9], 8), &board),
            Err(Violation::House { house: 1 })
        );
    }

    #[test]
    fn the_general_path_agrees_with_classics_fast_path() {
        use crate::geometry::Constraint;
        // Classic's rules plus a cage over row 1 summing to 45: the same rules, but not
        // flagged classic, so every check takes the general path.
        let row = Geometry::classic().houses()[0].to_vec();
        let cage = Constraint::Cage {
            cells: row,
            sum: 45,
        };
        let same = Geometry::new(Geometry::classic().houses().to_vec(), vec![cage])
            .expect("valid geometry");
        assert!(!same.is_classic());
        let mut clashing = PUZZLE.to_owned();
        clashing.replace_range(2..3, "5");
        for line in [PUZZLE, SOLUTION, &clashing] {
            let g = grid(line);
            assert_eq!(conflicts_in(&same, &g), conflicts(&g));
            assert_eq!(is_complete_solution_in(&same, &g), is_complete_solution(&g));
            // A digit that takes row 1 past 45 (its repeated 5) clashes with the cage too.
            if line == clashing {
                continue;
            }
            // Only on empty cells, as in a race (replacing a digit changes a full cage's sum).
            for c in Cell::all().filter(|&c| g.get(c).is_none()) {
                for d in Digit::all() {
                    assert_eq!(
                        placement_conflicts_in(&same, &g, c, d),
                        placement_conflicts(&g, c, d)
                    );
                }
            }
        }
    }

    /// A10: a killer cage clashes when a digit takes it past its sum or fills it to another
    /// sum (the cage's other filled cells are the clash), as well as on a repeated digit.
    #[test]
    fn a_cage_clashes_past_its_sum_or_filled_to_another() {
        let at = |i: u8| Cell::new(i).expect("cell");
        let cages = Cell::all()
            .filter(|c| c.idx() > 2)
            .map(|c| (vec![c], 1 + (c.get() % 9)))
            .chain([(vec![at(0), at(1), at(2)], 8)])
            .collect();
        let g = Geometry::killer(cages).expect("cages");
        let mut board = [0u8; N_CELLS];
        board[0] = 1;
        let board = Grid::from_bytes(board).expect("grid");
        let d = |n: u8| Digit::new(n).expect("digit");
        // 1 + 7 leaves nothing for the last cell: impossible, but no clash yet.
        assert!(placement_conflicts_in(&g, &board, at(1), d(7)).is_empty());
        assert_eq!(placement_conflicts_in(&g, &board, at(1), d(8)), vec![at(0)]);
        assert_eq!(placement_conflicts_in(&g, &board, at(1), d(1)), vec![at(0)]);
        let mut two = *board.as_bytes();
        two[1] = 2;
        let two = Grid::from_bytes(two).expect("grid");
        // 1 + 2 + 4 = 7: full, and not 8.
        assert_eq!(
            placement_conflicts_in(&g, &two, at(2), d(4)),
            vec![at(0), at(1)]
        );
        assert!(placement_conflicts_in(&g, &two, at(2), d(5)).is_empty());
        let mut wrong = *two.as_bytes();
        wrong[2] = 4;
        let wrong = Grid::from_bytes(wrong).expect("grid");
        assert_eq!(conflicts_in(&g, &wrong), vec![at(0), at(1), at(2)]);
    }
}
