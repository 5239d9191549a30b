//! What the rules exchange with the room task: the [`RoomOpts`] it gives them, and the
//! [`Effect`]s they hand back, collected in order.

use std::time::Duration;

use protocol::{ErrorCode, PlaceReason, RaceId, ResumeToken, ServerMsg};

use crate::config::Config;
use crate::outbox::{CloseCode, ConnId};
use crate::store::{RaceRecord, ReportRecord};

/// Something the room task must do, in order.
// `Send` is by far the most common effect; boxing its message would add an allocation to
// every broadcast to shrink the rare ones.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Effect {
    /// Send `msg` to these connections (serialized once).
    Send(Vec<ConnId>, ServerMsg),
    /// The connection is no longer in this room.
    Detach(ConnId),
    /// The connection is no longer in this room: close it with this code.
    Close(ConnId, CloseCode),
    /// Ask the puzzle pool for a puzzle of the room's difficulty for this race, dealt under
    /// the transform `seed` draws ([`crate::puzzles::SolvedPuzzle::transformed`]).
    NeedPuzzle {
        /// The race it is for.
        race_id: RaceId,
        /// The race's seed.
        seed: u64,
    },
    /// Store a finished race before carrying out any later effect.
    Store(Box<RaceRecord>),
    /// Keep a player's report for the moderators (A8), without holding up the room.
    Report(Box<ReportRecord>),
    /// A seat's resume token no longer works.
    TokenRevoked(ResumeToken),
    /// A race started (for the metrics).
    RaceStarted,
    /// A placement was judged: `None` accepted (for the metrics).
    Placed(Option<PlaceReason>),
    /// Ask these connections for a round trip (A8): a WebSocket Ping whose Pong the
    /// connection turns into [`super::Room::lag_sample`].
    Probe(Vec<ConnId>),
}

/// Timers and caps the room needs from the server config.
#[derive(Clone, Debug)]
pub struct RoomOpts {
    /// How long `start_race` counts down.
    pub countdown: Duration,
    /// How long a dropped seat is held.
    pub resume_grace: Duration,
    /// Most spectators at once (A4).
    pub max_spectators: usize,
    /// Chat messages per second the room passes on, over all senders (A4).
    pub chat_rate: u32,
    /// Chat messages the room passes on in a burst (A4).
    pub chat_burst: u32,
    /// How long a kicked player's name and address cannot come back (A5).
    pub kick_bar: Duration,
    /// Whether finished races get fair-play flags.
    pub fair_play: bool,
    /// The most lag a race time is compensated by (A8 `--lag-cap-ms`).
    pub lag_cap_ms: u32,
    /// How far behind the race boards-spectators see the boards (A8).
    pub spectator_delay: Duration,
    /// The `room_closed` reason of a shutdown (A9).
    pub shutdown_reason: protocol::ClosedReason,
}

impl RoomOpts {
    /// The room's share of the server config.
    pub fn from_config(config: &Config) -> RoomOpts {
        RoomOpts {
            countdown: config.countdown,
            resume_grace: config.resume_grace,
            max_spectators: config.limits.max_spectators,
            chat_rate: config.limits.chat_rate,
            chat_burst: config.limits.chat_burst,
            kick_bar: config.kick_bar,
            fair_play: config.fair_play,
            lag_cap_ms: config.lag_cap_ms,
            spectator_delay: config.spectator_delay,
            shutdown_reason: config.shutdown_reason,
        }
    }
}

/// The effects pushed since the task last took them.
#[derive(Debug, Default)]
pub(super) struct Effects(Vec<Effect>);

impl Effects {
    pub(super) fn push(&mut self, fx: Effect) {
        self.0.push(fx);
    }

    /// An `error` message to `conn`.
    pub(super) fn error(&mut self, conn: ConnId, code: ErrorCode, message: impl Into<String>) {
        let message = message.into();
        self.push(Effect::Send(
            vec![conn],
            ServerMsg::Error {
                code,
                message,
                retry_ms: None,
            },
        ));
    }

    pub(super) fn take(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.0)
    }
}
