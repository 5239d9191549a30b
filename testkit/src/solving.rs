//! Solving a dealt puzzle, and the cells a solver fills.

use engine::{solver, Grid};

/// The solution of a dealt puzzle line (`.` or `0` for an empty cell), as a line of digits.
/// Panics unless the puzzle has exactly one solution: the server deals only those.
pub fn solve(puzzle: &str) -> String {
    let grid = Grid::parse(puzzle).expect("a puzzle grid");
    solver::solve_unique(&grid)
        .expect("a unique solution")
        .to_line()
}

/// The empty cells of a puzzle line (`.` or `0`), each with its digit in `solution`.
pub fn to_fill(puzzle: &str, solution: &str) -> Vec<(usize, u8)> {
    puzzle
        .bytes()
        .zip(solution.bytes())
        .enumerate()
        .filter(|(_, (p, _))| *p == b'.' || *p == b'0')
        .map(|(i, (_, s))| (i, s - b'0'))
        .collect()
}
