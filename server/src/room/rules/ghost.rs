//! A ghost (A7 `race_ghost`): one solver of a stored race, replayed in a room by the room's
//! own clock. The ghost is a seat no connection holds: it is listed with `ghost: true`, its
//! accepted placements go through the race's verification at their original race times (so
//! its progress is broadcast like anyone's), and it finishes at its original `time_ms`. When
//! every human has finished, the ghost's result is known, so it finishes at once and the race
//! ends. A ghost room is never rated.

use engine::{Cell, Difficulty, Digit, Grid};
use protocol::{FinishStatus, Player, PlayerId, PlayerName, PlayerStatus, Progress, Settings};
use tokio::time::Instant;

use super::race::{Placed, Race};
use crate::puzzles::SolvedPuzzle;
use crate::store::GhostSource;

/// One accepted placement of the ghost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GhostStep {
    /// Race time of the placement, from the start.
    pub at_ms: u64,
    /// Where.
    pub cell: Cell,
    /// What.
    pub digit: Digit,
}

/// What a ghost room replays: the race it is the ghost of, the ghost's name, the puzzle and
/// the ghost's accepted placements and finish.
#[derive(Clone, Debug)]
pub struct GhostRun {
    /// The stored race replayed (the new race's `ghost_of`).
    pub of_race: String,
    /// "ghost of NAME".
    pub name: PlayerName,
    /// The stored race's difficulty.
    pub difficulty: Difficulty,
    /// The stored race's puzzle, dealt as it was.
    pub puzzle: SolvedPuzzle,
    /// The accepted placements, by race time.
    pub steps: Vec<GhostStep>,
    /// The ghost's solve time by the server's clock, penalties included (its stored
    /// `time_ms_raw`).
    pub time_ms: u64,
    /// The lag its time was compensated by (A8): a ghost keeps its stored figures, so it
    /// finishes at its stored `time_ms` in the standings.
    pub lag_ms: u32,
}

impl GhostRun {
    /// The run a stored ghost makes; `None` when the stored race does not read back as a
    /// solvable replay (a damaged row).
    pub fn from_source(src: GhostSource) -> Option<GhostRun> {
        let puzzle = SolvedPuzzle::classic(
            Grid::parse(&src.puzzle).ok()?,
            Grid::parse(&src.solution).ok()?,
        );
        let mut steps = src
            .moves
            .iter()
            .map(|m| {
                Some(GhostStep {
                    at_ms: m.at_ms,
                    cell: Cell::new(m.cell)?,
                    digit: Digit::new(m.digit)?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        steps.sort_by_key(|s| s.at_ms);
        Some(GhostRun {
            of_race: src.race_id,
            name: ghost_name(&src.name),
            difficulty: src.difficulty,
            puzzle,
            steps,
            time_ms: src.time_ms,
            lag_ms: src.lag_ms,
        })
    }
}

/// "ghost of NAME", the name cut short to fit the name limit.
pub fn ghost_name(name: &str) -> PlayerName {
    let prefix = "ghost of ";
    let room = protocol::MAX_NAME_CHARS - prefix.chars().count();
    let short: String = name.chars().take(room).collect();
    PlayerName::try_from(format!("{prefix}{}", short.trim()).as_str())
        .or_else(|_| PlayerName::try_from("ghost"))
        .unwrap_or_else(|_| unreachable!("\"ghost\" is a valid name"))
}

/// The ghost seat of a room: the run and how far this race has replayed it.
#[derive(Debug)]
pub(super) struct Ghost {
    run: GhostRun,
    player_id: PlayerId,
    next: usize,
    status: PlayerStatus,
}

impl Ghost {
    pub(super) fn new(run: GhostRun) -> Ghost {
        Ghost {
            run,
            player_id: PlayerId::from("ghost".to_owned()),
            next: 0,
            status: PlayerStatus::Waiting,
        }
    }

    pub(super) fn of_race(&self) -> &str {
        &self.run.of_race
    }

    pub(super) fn puzzle(&self) -> SolvedPuzzle {
        self.run.puzzle.clone()
    }

    /// The seat on the wire.
    pub(super) fn player(&self) -> Player {
        Player {
            player_id: self.player_id.clone(),
            name: self.run.name.clone(),
            ready: true,
            connected: true,
            status: self.status,
            handle: None,
            bot: false,
            ghost: true,
        }
    }

    /// The ghost's extra time over its last placement: its penalties, kept as one sum so it
    /// finishes at its original time.
    pub(super) fn handicap_ms(&self) -> u64 {
        let last = self.run.steps.last().map_or(0, |s| s.at_ms);
        self.run.time_ms.saturating_sub(last)
    }

    /// Back to the start, for a new race (`status`).
    pub(super) fn restart(&mut self, status: PlayerStatus) {
        self.next = 0;
        self.status = status;
    }

    /// The race time of its next placement while it races.
    fn due_ms(&self) -> Option<u64> {
        if self.status != PlayerStatus::Racing {
            return None;
        }
        self.run.steps.get(self.next).map(|s| s.at_ms)
    }

    /// Its entry for a new race.
    pub(super) fn join_race(&mut self, race: &mut Race) {
        self.restart(PlayerStatus::Racing);
        race.add_racer(
            self.player_id.clone(),
            self.run.name.clone(),
            self.handicap_ms(),
            self.run.lag_ms,
        );
    }

    /// When its next placement is due in `race`, while it races.
    pub(super) fn deadline(&self, race: &Race) -> Option<Instant> {
        Some(race.at(self.due_ms()?))
    }

    /// Its next placement due by `now`, judged by `race` at its own race time (one the race
    /// does not judge is skipped): its id and the outcome; `None` when none is due.
    pub(super) fn play_due(
        &mut self,
        race: &mut Race,
        settings: &Settings,
        now: Instant,
    ) -> Option<(PlayerId, Placed)> {
        loop {
            let at = race.at(self.due_ms()?);
            if at > now {
                return None;
            }
            let step = self.run.steps[self.next];
            self.next += 1;
            let Some(p) = race.place(&self.player_id, step.cell, step.digit, None, settings, at)
            else {
                continue;
            };
            if let Some((status, _)) = p.finished {
                self.status = status.into();
            }
            return Some((self.player_id.clone(), p));
        }
    }

    /// Every human in `race` has finished: the ghost's result is known, so it finishes now (as
    /// it would have) and the race can end. Its id, last progress, status and time.
    pub(super) fn finish_early(
        &mut self,
        race: &mut Race,
    ) -> Option<(PlayerId, Progress, FinishStatus, Option<u64>)> {
        if self.status != PlayerStatus::Racing || !race.all_done_but(&self.player_id) {
            return None;
        }
        let (progress, status, time_ms) =
            race.finish_as_solved(&self.player_id, self.run.time_ms)?;
        self.status = PlayerStatus::Solved;
        Some((self.player_id.clone(), progress, status, time_ms))
    }
}
