//! The end of a room when the server stops (A5, A9): at once on shutdown, or, on a drain, once
//! no race runs in it. A drain closes a room between races at once and a room racing after its
//! `race_over` and [`DRAIN_READ`] for its players to read the results; until then its race runs
//! as usual and is stored as usual.

use std::time::Duration;

use protocol::{ClosedReason, ErrorCode, RoomCode, ServerMsg};
use tokio::time::Instant;

use super::effect::Effects;
use super::Effect;
use crate::outbox::{CloseCode, ConnId};

/// How long a room whose race ends during a drain stays open, so its players read the results
/// before `room_closed` (`drain`) replaces them.
pub const DRAIN_READ: Duration = Duration::from_secs(5);

/// What the server is telling a room whose end it wants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Ending {
    /// Nothing: the room lives.
    #[default]
    No,
    /// Draining: no new race and no new seat; it closes at the instant given, or once its race
    /// ends (`None` while a race counts down or runs).
    Draining(Option<Instant>),
    /// Closed: `room_closed` is sent and its connections are closing; the task ends.
    Closed,
}

/// Where a room is in its end: living, draining or closed.
#[derive(Debug, Default)]
pub(super) struct Drain {
    ending: Ending,
}

impl Drain {
    /// The server drains: whether that is news (a room already draining or closed stays so).
    pub(super) fn start(&mut self) -> bool {
        if self.ending != Ending::No {
            return false;
        }
        self.ending = Ending::Draining(None);
        true
    }

    /// Whether the room is draining (it takes no new race or seat).
    pub(super) fn draining(&self) -> bool {
        matches!(self.ending, Ending::Draining(_))
    }

    /// Whether the room has said `room_closed` to everyone and is over.
    pub(super) fn is_closed(&self) -> bool {
        self.ending == Ending::Closed
    }

    /// A draining room's race ended at `now`: it closes [`DRAIN_READ`] later.
    pub(super) fn after_race(&mut self, now: Instant) {
        if self.ending == Ending::Draining(None) {
            self.ending = Ending::Draining(Some(now + DRAIN_READ));
        }
    }

    /// When a draining room whose race is over closes.
    pub(super) fn deadline(&self) -> Option<Instant> {
        match self.ending {
            Ending::Draining(at) => at,
            _ => None,
        }
    }

    /// Whether a draining room's results have been read by `now`: it closes.
    pub(super) fn due(&self, now: Instant) -> bool {
        self.deadline().is_some_and(|at| now >= at)
    }

    /// The error a draining room answers what would begin something new; whether it did.
    pub(super) fn refuse(&self, conn: ConnId, fx: &mut Effects) -> bool {
        if !self.draining() {
            return false;
        }
        fx.error(
            conn,
            ErrorCode::ServerDraining,
            "the server is restarting for an update",
        );
        true
    }

    /// `room_closed` with `reason` to `everyone` in `room`, then each closed with 1001.
    pub(super) fn close(
        &mut self,
        room: RoomCode,
        everyone: Vec<ConnId>,
        reason: ClosedReason,
        fx: &mut Effects,
    ) {
        self.ending = Ending::Closed;
        let msg = ServerMsg::RoomClosed {
            room,
            reason: Some(reason),
        };
        fx.push(Effect::Send(everyone.clone(), msg));
        for c in everyone {
            fx.push(Effect::Close(c, CloseCode::GoingAway));
        }
    }
}
