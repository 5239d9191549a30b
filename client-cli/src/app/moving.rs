//! Our room moving to another server while we are in it (A12), as the screen sees it: the
//! connection task's reports (a drop and its reconnects, a `resume` answered `room_moving`),
//! and `room_moving` answered to our own commands while our socket stays (the room's server was
//! lost and another is taking the room over). The race goes on: the board and pencil marks
//! stay; placements the room could not take are held ([`Play`](super::Play)) and go again after
//! the server's `retry_ms` (with backoff and jitter) or as soon as the room answers; the screen
//! counts down to the next try. A room that has not come back [`GIVE_UP_AFTER`] after it began
//! moving has closed.

use std::time::Duration;

use super::{App, Conn, Effect};
use crate::net::{Backoff, GIVE_UP_AFTER};

/// Our room being taken over by another server while our socket stays (A12): since when, the
/// tries so far, and when the held placements go again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moving {
    /// Local clock of the first `room_moving`.
    since_ms: u64,
    /// The tries since.
    tries: Backoff,
    /// Local clock of the next try.
    retry_at_ms: u64,
}

/// A wait in ms of the local clock.
fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl App {
    /// Whether the room takes our commands now: connected, and not moving.
    pub(super) fn room_answers(&self) -> bool {
        self.conn == Conn::Online && self.moving.is_none()
    }

    /// The connection task is away (`conn`: reconnecting, or resuming a room that moves) and
    /// tries again by itself: what is unanswered is held for the room to answer again.
    pub(super) fn away(&mut self, conn: Conn) {
        self.moving = None;
        self.play.hold_pending();
        self.conn = conn;
    }

    /// `error` `room_moving` to one of our commands in a room (A12): it was not taken. Held
    /// placements go again after `retry_ms` at the soonest (with backoff and jitter); a try
    /// already due later stays (several answers to one round of re-sends move it once).
    pub(super) fn room_moving(&mut self, retry_ms: Option<u64>) {
        self.play.hold_pending();
        let now = self.clock_ms;
        let m = self.moving.get_or_insert_with(|| Moving {
            since_ms: now,
            tries: Backoff::default(),
            retry_at_ms: now,
        });
        if m.retry_at_ms > now {
            m.retry_at_ms = m.retry_at_ms.max(now + retry_ms.unwrap_or(0));
        } else {
            m.retry_at_ms = now + ms(m.tries.next(retry_ms, now));
        }
        self.conn = Conn::Moving {
            attempt: m.tries.attempt(),
            retry_at_ms: m.retry_at_ms,
        };
    }

    /// A tick while our room moves: the held placements go again when their time has come;
    /// a room that has not come back in time has closed.
    pub(super) fn moving_tick(&mut self) -> Vec<Effect> {
        let now = self.clock_ms;
        let Some(m) = self.moving.as_mut() else {
            return Vec::new();
        };
        if now.saturating_sub(m.since_ms) >= ms(GIVE_UP_AFTER) {
            self.moving = None;
            let why = format!(
                "the room has closed: it did not come back on another server within {} s",
                GIVE_UP_AFTER.as_secs()
            );
            self.status.alert(format!("{why}; press q to quit"));
            self.conn = Conn::Closed(Some(why));
            return Vec::new();
        }
        if m.retry_at_ms > now {
            return Vec::new();
        }
        m.retry_at_ms = now + ms(m.tries.next(None, now));
        self.conn = Conn::Moving {
            attempt: m.tries.attempt(),
            retry_at_ms: m.retry_at_ms,
        };
        self.play
            .send_held()
            .into_iter()
            .map(Effect::Send)
            .collect()
    }

    /// The room answers again (its `room_joined` from the new server, or an answer to one of our
    /// placements): the held placements go now.
    pub(super) fn room_back(&mut self) -> Vec<Effect> {
        self.moving = None;
        if matches!(self.conn, Conn::Moving { .. }) {
            self.conn = Conn::Online;
        }
        if !self.room_answers() {
            return Vec::new();
        }
        self.play
            .send_held()
            .into_iter()
            .map(Effect::Send)
            .collect()
    }
}
