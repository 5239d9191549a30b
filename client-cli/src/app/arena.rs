//! Arenas (Amendment A7) on the app's side: `arena_joined` makes us a member (its screen shows
//! while we are in none of its rooms: before it starts, between its races, after it ended),
//! `arena_standings` after each race (and on joining) keeps the table the side panel and the
//! results show, and `left_arena` ends the membership. While the arena runs, a race's results
//! ask for the next race by themselves [`AUTO_REQUEUE_MS`] later (`r` at once); after its end
//! they do not. Quitting sends `leave_arena` (`App::leave`).
//!
//! Whether the arena runs is decided by the wall clock against its start and end, which the app
//! reads as [`App::unix_ms`] (the run loop's local clock on the wall-clock reading it began at),
//! so the update stays a pure function of its events.

use protocol::{ArenaInfo, ArenaStanding, ArenaState, Phase, Role, ServerMsg};

use super::{App, Effect, Outside, Play};

/// How long after an arena race's results the next race is asked for by itself, in ms.
pub const AUTO_REQUEUE_MS: u64 = 5000;

/// The arena we are a member of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arena {
    /// The arena as `arena_joined` described it.
    pub info: ArenaInfo,
    /// Its standings from the last `arena_standings`, best first.
    pub standings: Vec<ArenaStanding>,
    /// Local clock at which `requeue` goes out by itself (after a race's results, while the
    /// arena runs).
    pub requeue_at_ms: Option<u64>,
}

impl Arena {
    /// Upcoming, running or finished at wall-clock time `unix_ms` (a finished arena stays so).
    pub fn state_at(&self, unix_ms: i64) -> ArenaState {
        if self.info.state == ArenaState::Finished || unix_ms >= self.info.ends_unix_ms {
            ArenaState::Finished
        } else if unix_ms >= self.info.starts_unix_ms {
            ArenaState::Running
        } else {
            ArenaState::Upcoming
        }
    }
}

impl App {
    /// The wall clock (UTC ms) the run loop's local clock 0 stood at: arenas start and end by it.
    pub fn with_wall_clock(mut self, unix_ms_at_zero: i64) -> App {
        self.wall0_unix_ms = unix_ms_at_zero;
        self
    }

    /// The wall clock now (UTC ms), from the last tick.
    pub fn unix_ms(&self) -> i64 {
        self.wall0_unix_ms
            .saturating_add(i64::try_from(self.clock_ms).unwrap_or(i64::MAX))
    }

    /// Whether the room we are in is one of our arena's races.
    pub fn in_arena_room(&self) -> bool {
        match (self.room(), &self.arena) {
            (Some(room), Some(arena)) => room.settings.arena.as_ref() == Some(&arena.info.arena_id),
            _ => false,
        }
    }

    /// `arena_joined`, `arena_standings` or `left_arena`.
    pub(super) fn in_arena(&mut self, msg: &ServerMsg) {
        match msg {
            ServerMsg::ArenaJoined { arena } => {
                // Joined again after a drop: the table we had stays until the next one.
                let standings = self
                    .arena
                    .take()
                    .filter(|a| a.info.arena_id == arena.arena_id)
                    .map(|a| a.standings)
                    .unwrap_or_default();
                self.arena = Some(Arena {
                    info: arena.clone(),
                    standings,
                    requeue_at_ms: None,
                });
                if self.room().is_none() {
                    self.between_arena_races();
                }
            }
            ServerMsg::ArenaStandings {
                arena_id,
                standings,
            } => {
                if let Some(arena) = self.arena.as_mut().filter(|a| a.info.arena_id == *arena_id) {
                    arena.standings.clone_from(standings);
                }
            }
            ServerMsg::LeftArena { arena_id }
                if self
                    .arena
                    .as_ref()
                    .is_some_and(|a| a.info.arena_id == *arena_id) =>
            {
                let name = self.arena.take().map(|a| a.info.name).unwrap_or_default();
                self.notify(format!("you left the arena {name}"), false);
            }
            _ => {}
        }
    }

    /// In none of the arena's rooms: its screen, with nothing of the last room kept.
    pub(super) fn between_arena_races(&mut self) {
        self.tool = None;
        self.confirm = None;
        self.play = Play::default();
        self.chat.clear();
        self.outside = Outside::Arena;
    }

    /// `race_over` in one of our arena's rooms: while the arena runs, the next race is asked
    /// for by itself a moment later.
    pub(super) fn arena_race_over(&mut self) {
        let player = self.room().is_some_and(|r| r.role == Role::Player);
        if !player || !self.in_arena_room() {
            return;
        }
        let now = self.unix_ms();
        let at = self.clock_ms + AUTO_REQUEUE_MS;
        if let Some(arena) = self.arena.as_mut() {
            arena.requeue_at_ms = (arena.state_at(now) == ArenaState::Running).then_some(at);
        }
    }

    /// A tick: the arena's next race is asked for when its time has come, if we are still on
    /// the results of one of its races and it still runs.
    pub(super) fn arena_tick(&mut self) -> Vec<Effect> {
        let now = self.unix_ms();
        let finished = self.room().is_some_and(|r| r.phase == Phase::Finished);
        let in_arena_room = self.in_arena_room();
        let Some(arena) = self.arena.as_mut() else {
            return Vec::new();
        };
        let Some(at) = arena.requeue_at_ms else {
            return Vec::new();
        };
        if self.clock_ms < at {
            return Vec::new();
        }
        arena.requeue_at_ms = None;
        if finished && in_arena_room && arena.state_at(now) == ArenaState::Running {
            return self.requeue();
        }
        Vec::new()
    }
}
