//! Arenas (Amendment A7) on the app's side: `arena_joined` makes us a member (its screen shows
//! while we are in none of its rooms: before it starts, between its races, after it ended),
//! `arena_standings` after each race (and on joining) keeps the table the side panel and the
//! results show, and `left_arena` ends the membership. While the arena runs, a race's results
//! ask for the next race by themselves [`AUTO_REQUEUE_MS`] later (`r` at once); after its end
//! they do not. Quitting sends `leave_arena` (`App::leave`).
//!
//! Whether the arena runs is decided by the wall clock against its start and end, which the app
//! reads as [`App::unix_ms`](super::App::unix_ms) (the run loop's local clock on the wall-clock
//! reading it began at), so the update stays a pure function of its events. [`Arena`] owns the
//! membership and decides when the next race is asked for; the app composes it with the room.

use protocol::{ArenaInfo, ArenaStanding, ArenaState};

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
    requeue_at_ms: Option<u64>,
}

impl Arena {
    /// Membership of the arena `arena_joined` describes; `prev` is the one we had, whose table
    /// stays until the next one when it is the same arena (joined again after a drop).
    pub(super) fn joined(info: &ArenaInfo, prev: Option<Arena>) -> Arena {
        let standings = prev
            .filter(|a| a.info.arena_id == info.arena_id)
            .map(|a| a.standings)
            .unwrap_or_default();
        Arena {
            info: info.clone(),
            standings,
            requeue_at_ms: None,
        }
    }

    /// Whether this is the arena `arena_id`.
    pub(super) fn is(&self, arena_id: &str) -> bool {
        self.info.arena_id == *arena_id
    }

    /// Local clock at which `requeue` goes out by itself, if it will.
    pub fn requeue_at_ms(&self) -> Option<u64> {
        self.requeue_at_ms
    }

    /// `requeue` went out (by `r`): it need not go out by itself.
    pub(super) fn requeued(&mut self) {
        self.requeue_at_ms = None;
    }

    /// One of its races is over for us at local time `now_ms`, wall clock `unix_ms`: while the
    /// arena runs, the next race is asked for by itself [`AUTO_REQUEUE_MS`] later.
    pub(super) fn race_over(&mut self, now_ms: u64, unix_ms: i64) {
        self.requeue_at_ms =
            (self.state_at(unix_ms) == ArenaState::Running).then_some(now_ms + AUTO_REQUEUE_MS);
    }

    /// A tick at local time `now_ms`, wall clock `unix_ms`: true once the time to ask for the
    /// next race has come (once) and the arena still runs.
    pub(super) fn requeue_due(&mut self, now_ms: u64, unix_ms: i64) -> bool {
        match self.requeue_at_ms {
            Some(at) if now_ms >= at => {
                self.requeue_at_ms = None;
                self.state_at(unix_ms) == ArenaState::Running
            }
            _ => false,
        }
    }

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
