//! What a room deals as it is instead of a puzzle drawn for each race: the daily challenge's
//! (A6, one attempt on the day's puzzle), or a ghost room's stored race (A7), with the ghost
//! that races it again.

use super::ghost::{Ghost, GhostRun};
use crate::puzzles::SolvedPuzzle;

/// A daily challenge's day or a ghost room's ghost; neither in any other room.
#[derive(Debug, Default)]
pub(super) struct Fixed {
    /// The day's date and puzzle.
    daily: Option<(String, SolvedPuzzle)>,
    /// The ghost that races here.
    ghost: Option<Ghost>,
}

impl Fixed {
    /// Races here are the daily challenge of `date`, on `puzzle`.
    pub(super) fn make_daily(&mut self, date: String, puzzle: SolvedPuzzle) {
        self.daily = Some((date, puzzle));
    }

    /// Races here replay `run`, whose ghost races in them.
    pub(super) fn race_ghost(&mut self, run: GhostRun) {
        self.ghost = Some(Ghost::new(run));
    }

    /// The puzzle every race deals as it is: the day's, or the replayed race's.
    pub(super) fn puzzle(&self) -> Option<SolvedPuzzle> {
        let ghost = self.ghost.as_ref().map(Ghost::puzzle);
        self.daily.as_ref().map(|(_, d)| d.clone()).or(ghost)
    }

    /// The daily challenge's date, in a daily room.
    pub(super) fn daily_date(&self) -> Option<String> {
        self.daily.as_ref().map(|(date, _)| date.clone())
    }

    /// Whether this is a daily challenge room.
    pub(super) fn is_daily(&self) -> bool {
        self.daily.is_some()
    }

    /// The ghost, in a ghost room.
    pub(super) fn ghost(&self) -> Option<&Ghost> {
        self.ghost.as_ref()
    }

    /// The ghost, in a ghost room.
    pub(super) fn ghost_mut(&mut self) -> Option<&mut Ghost> {
        self.ghost.as_mut()
    }
}
