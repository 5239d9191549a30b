//! A ghost (A7 `race_ghost`): one solver of a stored race, replayed in a room by the room's
//! own clock. The ghost is a seat no connection holds: it is listed with `ghost: true`, its
//! accepted placements go through the race's verification at their original race times (so
//! its progress is broadcast like anyone's), and it finishes at its original `time_ms`. When
//! every human has finished, the ghost's result is known, so it finishes at once and the race
//! ends. A ghost room is never rated.

use protocol::{Player, PlayerId, PlayerName, PlayerStatus, ServerMsg};
use shared::engine::{Cell, Difficulty, Digit, Grid};
use tokio::time::Instant;

use super::race::Race;
use super::{Room, State};
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
        let puzzle = SolvedPuzzle {
            puzzle: Grid::parse(&src.puzzle).ok()?,
            solution: Grid::parse(&src.solution).ok()?,
        };
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
        self.run.puzzle
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
    pub(super) fn due_ms(&self) -> Option<u64> {
        if self.status != PlayerStatus::Racing {
            return None;
        }
        self.run.steps.get(self.next).map(|s| s.at_ms)
    }
}

impl Room {
    /// Make this a ghost room: its races deal the run's puzzle, and the ghost races in them.
    pub fn race_ghost(&mut self, run: GhostRun) {
        self.ghost = Some(Ghost::new(run));
        self.no_isomorphs();
    }

    /// Every seat on the wire, the ghost's last.
    pub(super) fn players(&self) -> Vec<Player> {
        let mut players = self.seats.players();
        players.extend(self.ghost.as_ref().map(Ghost::player));
        players
    }

    /// When the ghost's next placement is due, while a race runs.
    pub(super) fn ghost_deadline(&self) -> Option<Instant> {
        let race = self.race.as_ref()?;
        let due = self.ghost.as_ref()?.due_ms()?;
        matches!(self.state, State::Racing).then(|| race.at(due))
    }

    /// Replay every placement of the ghost due by `now`, each at its own race time.
    pub(super) fn ghost_tick(&mut self, now: Instant) {
        while matches!(self.state, State::Racing) {
            let (Some(ghost), Some(race)) = (self.ghost.as_mut(), self.race.as_mut()) else {
                return;
            };
            let Some(due) = ghost.due_ms() else { return };
            let at = race.at(due);
            if at > now {
                return;
            }
            let step = ghost.run.steps[ghost.next];
            ghost.next += 1;
            let id = ghost.player_id.clone();
            let Some(p) = race.place(&id, step.cell, step.digit, None, &self.settings, at) else {
                continue;
            };
            if let Some((status, _)) = p.finished {
                ghost.status = status.into();
            }
            if let Some(progress) = p.progress {
                self.send_all(ServerMsg::Progress(progress));
            }
            if let Some((status, time_ms)) = p.finished {
                self.player_finished(id, status, time_ms);
                self.check_race_end(now);
            }
        }
    }

    /// Every human has finished: the ghost's result is known, so it finishes now (as it would
    /// have) and the race can end.
    pub(super) fn ghost_finish_early(&mut self) {
        let (Some(ghost), Some(race)) = (self.ghost.as_mut(), self.race.as_mut()) else {
            return;
        };
        if ghost.status != PlayerStatus::Racing || !race.all_done_but(&ghost.player_id) {
            return;
        }
        let id = ghost.player_id.clone();
        if let Some((progress, status, time_ms)) = race.finish_as_solved(&id, ghost.run.time_ms) {
            ghost.status = PlayerStatus::Solved;
            self.send_all(ServerMsg::Progress(progress));
            self.player_finished(id, status, time_ms);
        }
    }
}

/// The ghost's entry for a new race.
pub(super) fn join_race(ghost: &mut Ghost, race: &mut Race) {
    ghost.restart(PlayerStatus::Racing);
    race.add_racer(
        ghost.player_id.clone(),
        ghost.run.name.clone(),
        ghost.handicap_ms(),
        ghost.run.lag_ms,
    );
}
