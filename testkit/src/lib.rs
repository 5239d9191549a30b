//! The helpers every sudoku-race test suite uses, once: [`solve`] and [`to_fill`] for a dealt
//! puzzle, and [`JsonWs`], a WebSocket client speaking JSON text frames whose every receive is
//! bounded by a timeout. Suites take it as a dev-dependency; what only one suite needs (its
//! way of starting a server, its protocol checks) stays in that suite's own `support` module.
#![warn(missing_docs)]

mod ws;

pub use ws::JsonWs;

use shared::engine::{solver, Grid};

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

#[cfg(test)]
mod tests {
    use super::*;

    const PUZZLE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

    #[test]
    fn dots_and_zeros_are_both_empty() {
        let solution = solve(PUZZLE);
        let zeros = PUZZLE.replace('.', "0");
        assert_eq!(solve(&zeros), solution);
        let fill = to_fill(PUZZLE, &solution);
        assert_eq!(fill, to_fill(&zeros, &solution));
        assert_eq!(fill.len(), PUZZLE.bytes().filter(|&b| b == b'.').count());
        assert_eq!(fill[0], (2, 4));
    }
}
