//! The helpers every sudoku-race test suite uses, once: [`solve`] and [`to_fill`] for a dealt
//! puzzle, and [`JsonWs`], a WebSocket client speaking JSON text frames whose every receive is
//! bounded by a timeout; [`lag`], a delaying proxy and a paced racer for lag compensation;
//! [`wait`], bounded waits on the real clock for processes and files.
//! Suites take it as a dev-dependency; what only one suite needs (its
//! way of starting a server, its protocol checks) stays in that suite's own `support` module.
#![warn(missing_docs)]

pub mod lag;
mod solving;
pub mod wait;
mod ws;

pub use solving::{solve, to_fill};
pub use ws::JsonWs;

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
