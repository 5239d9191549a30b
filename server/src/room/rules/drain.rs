//! The end of a room when the server stops (A5, A9): at once on shutdown, or, on a drain, once
//! no race runs in it. A drain closes a room between races at once and a room racing after its
//! `race_over` and [`DRAIN_READ`] for its players to read the results; until then its race runs
//! as usual and is stored as usual.

use std::time::Duration;

use protocol::{ClosedReason, ErrorCode, ServerMsg};
use tokio::time::Instant;

use super::race::EndReason;
use super::{Effect, Room, State};
use crate::outbox::CloseCode;

/// How long a room whose race ends during a drain stays open, so its players read the results
/// before `room_closed` (`drain`) replaces them.
pub const DRAIN_READ: Duration = Duration::from_secs(5);

/// What the server is telling a room whose end it wants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Ending {
    /// Nothing: the room lives.
    #[default]
    No,
    /// Draining: no new race and no new seat; it closes at the instant given, or once its race
    /// ends (`None` while a race counts down or runs).
    Draining(Option<Instant>),
    /// Closed: `room_closed` is sent and its connections are closing; the task ends.
    Closed,
}

impl Room {
    /// The server drains (A9): a room between races closes now (`room_closed` `drain`, 1001);
    /// a race counting down or running goes on, and the room closes [`DRAIN_READ`] after its
    /// `race_over`. Nothing changes for a room already draining or closed.
    pub fn drain(&mut self) {
        if self.ending != Ending::No {
            return;
        }
        self.ending = Ending::Draining(None);
        if matches!(self.state, State::Lobby | State::Finished) {
            self.close_with(ClosedReason::Drain);
        }
    }

    /// Whether the room is draining (it takes no new race or seat).
    pub fn draining(&self) -> bool {
        matches!(self.ending, Ending::Draining(_))
    }

    /// Whether the room has said `room_closed` to everyone and is over.
    pub fn is_closed(&self) -> bool {
        self.ending == Ending::Closed
    }

    /// A draining room's race ended at `now`: it closes [`DRAIN_READ`] later.
    pub(super) fn drain_after_race(&mut self, now: Instant) {
        if self.ending == Ending::Draining(None) {
            self.ending = Ending::Draining(Some(now + DRAIN_READ));
        }
    }

    /// When a draining room whose race is over closes.
    pub(super) fn drain_deadline(&self) -> Option<Instant> {
        match self.ending {
            Ending::Draining(at) => at,
            _ => None,
        }
    }

    /// Close a draining room whose results have been read.
    pub(super) fn drain_tick(&mut self, now: Instant) {
        if self.drain_deadline().is_some_and(|at| now >= at) {
            self.close_with(ClosedReason::Drain);
        }
    }

    /// The error a draining room answers what would begin something new.
    pub(super) fn refuse_draining(&mut self, conn: crate::outbox::ConnId) -> bool {
        if !self.draining() {
            return false;
        }
        self.fx.error(
            conn,
            ErrorCode::ServerDraining,
            "the server is restarting for an update",
        );
        true
    }

    /// The server is stopping: everyone connected gets `room_closed` (`shutdown`) and is
    /// closed with 1001 (A5: not a silent drop); a running race is stored (reason `shutdown`,
    /// still-racing players as `timed_out`) without announcement.
    pub fn shutdown(&mut self, now: Instant) {
        if self.is_closed() {
            return;
        }
        self.close_with(self.opts.shutdown_reason);
        if matches!(self.state, State::Racing) {
            self.end_race(EndReason::Shutdown, now);
        }
    }

    /// `room_closed` with `reason` to everyone connected, then each closed with 1001.
    fn close_with(&mut self, reason: ClosedReason) {
        self.ending = Ending::Closed;
        let everyone = self.seats.audience();
        let room = self.code.clone();
        let msg = ServerMsg::RoomClosed {
            room,
            reason: Some(reason),
        };
        self.fx.push(Effect::Send(everyone.clone(), msg));
        for c in everyone {
            self.fx.push(Effect::Close(c, CloseCode::GoingAway));
        }
    }
}
