//! Checks by the rules: the cells that clash on a board, the clashes a placement would make, and
//! whether a grid is a complete valid solution (of a given puzzle). Nothing here compares with a
//! stored answer: a race accepts any grid that keeps the givens and obeys the rules.

use super::grid::{Cell, Digit, Grid, N_CELLS, UNITS};

/// Every filled cell that shares a row, column or box with another cell holding the same digit,
/// in increasing order (the cells a client highlights).
pub fn conflicts(grid: &Grid) -> Vec<Cell> {
    let bytes = grid.as_bytes();
    let mut clash = [false; N_CELLS];
    for unit in &UNITS {
        // For each digit, the first cell of the unit holding it.
        let mut first: [Option<u8>; 10] = [None; 10];
        for &c in unit {
            let d = usize::from(bytes[usize::from(c)]);
            if d == 0 {
                continue;
            }
            match first[d] {
                None => first[d] = Some(c),
                Some(f) => {
                    clash[usize::from(f)] = true;
                    clash[usize::from(c)] = true;
                }
            }
        }
    }
    Cell::all().filter(|c| clash[c.idx()]).collect()
}

/// The cells in the row, column or box of `cell` (other than `cell` itself) that hold `digit`:
/// empty when placing `digit` at `cell` breaks no rule.
pub fn placement_conflicts(board: &Grid, cell: Cell, digit: Digit) -> Vec<Cell> {
    cell.peers()
        .iter()
        .filter(|&&p| board.as_bytes()[usize::from(p)] == digit.get())
        .filter_map(|&p| Cell::new(p))
        .collect()
}

/// Whether every cell is filled and every row, column and box holds each digit once.
pub fn is_complete_solution(grid: &Grid) -> bool {
    let bytes = grid.as_bytes();
    UNITS.iter().all(|unit| {
        let seen = unit
            .iter()
            .fold(0u16, |seen, &c| seen | 1 << bytes[usize::from(c)]);
        seen == 0b11_1111_1110
    })
}

/// Whether `grid` keeps every given of `puzzle` and is a complete valid solution.
pub fn is_solution_of(puzzle: &Grid, grid: &Grid) -> bool {
    let givens_kept = puzzle
        .as_bytes()
        .iter()
        .zip(grid.as_bytes())
        .all(|(&p, &g)| p == 0 || p == g);
    givens_kept && is_complete_solution(grid)
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
}
