//! What a run of a technique ladder gives (the classic one and the variants'), and the scores
//! of a puzzle the ladder cannot solve.

use super::step::Step;
use crate::difficulty::Level;
use crate::grid::Grid;

/// Outcome of a run of the technique ladder.
pub(crate) struct Outcome {
    pub(crate) level: Level,
    pub(crate) score: u32,
    pub(crate) steps: Vec<Step>,
    pub(crate) filled: Option<Grid>,
}

/// Above every score a puzzle the techniques solve can reach: each step removes at least one
/// of the 729 candidates and weighs at most 280 (an AIC), so no expert grade scores this much.
pub const EXTREME_FLOOR: u32 = 729 * 280;

/// What each cell still unsolved adds to an extreme score (the weight of a guess).
pub const STUCK_CELL_WEIGHT: u32 = 300;

/// The ladder is stuck with `unsolved` cells left: the grade is extreme, and its score sits
/// above every expert score (the floor), then grows with the steps taken and the cells left.
pub(crate) fn stuck_at(out: &mut Outcome, unsolved: usize) {
    out.level = Level::Extreme;
    out.score += EXTREME_FLOOR + STUCK_CELL_WEIGHT * unsolved as u32;
}

/// The level just above `l`.
pub(crate) fn next_level(l: Level) -> Level {
    match l {
        Level::Easy => Level::Medium,
        Level::Medium => Level::Hard,
        Level::Hard => Level::Expert,
        Level::Expert | Level::Extreme => Level::Extreme,
    }
}
