//! Bots: players that race at a human-like pace, with no screen. A fill-in opponent
//! (`sudoku-race bot CODE`), a demo, and the computer players of the end-to-end tests.
//!
//! [`Brain`] (in `brain`) is the decision logic and does no IO: it reads server messages and
//! says what to send next. [`pace`] is how it plays: the fill order and the wait before each
//! placement (from the grader's techniques), pauses and slips, per [`Level`]. [`run`] here drives
//! a brain over a [`crate::net`] session (so a bot reconnects and resumes like any client, and
//! rides through its room moving to another server: A12), sleeping the brain's waits and
//! re-sending a placement after `rate_limited` or `room_moving`. This module owns
//! the bot's configuration, report and errors.

mod brain;
pub mod pace;

use std::future::Future;
use std::time::Duration;

use protocol::{ClientMsg, FinishStatus, PlayerId, RaceId, RoomCode, SettingsRequest, Standing};
use tokio::time::Instant;

pub use brain::Brain;
pub use pace::{Level, Style};

use crate::net::{self, Endpoint, Intent, NetEvent};

/// Pause before re-sending a placement refused with `rate_limited`.
pub const RATE_LIMIT_PAUSE: Duration = Duration::from_millis(1000);

/// Pause before a room-host bot starts the next race (a rematch).
pub const REMATCH_PAUSE: Duration = Duration::from_millis(1500);

/// How a bot plays.
#[derive(Clone, Debug)]
pub struct BotConfig {
    /// Display name.
    pub name: String,
    /// Think times, pauses and mistakes: a [`Level`]'s style, or [`Style::flat`].
    pub style: Style,
    /// RNG seed (cell order, waits, mistakes).
    pub seed: u64,
    /// Races to play before leaving; `None` plays until the room closes.
    pub races: Option<u32>,
}

impl Default for BotConfig {
    fn default() -> Self {
        BotConfig {
            name: "bot".into(),
            style: Style::default(),
            seed: 0,
            races: Some(1),
        }
    }
}

/// Which room the bot enters, and how.
#[derive(Clone, Debug)]
pub enum BotRole {
    /// Join an existing room as a player.
    Join {
        /// Room code.
        room: String,
    },
    /// Create a room, wait for `start_at` players (itself included), then start each race.
    RoomHost {
        /// Room settings.
        settings: Option<SettingsRequest>,
        /// Players seated before the first race starts.
        start_at: usize,
    },
}

/// How one race went for the bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceResult {
    /// The race's id.
    pub race_id: RaceId,
    /// The bot's status at the end.
    pub status: Option<FinishStatus>,
    /// The bot's time (solved only).
    pub time_ms: Option<u64>,
    /// Final standings.
    pub standings: Vec<Standing>,
}

/// What a bot did, returned when it stops.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BotReport {
    /// Room code.
    pub room: Option<RoomCode>,
    /// The bot's player id.
    pub player_id: Option<PlayerId>,
    /// One entry per finished race.
    pub races: Vec<RaceResult>,
    /// Placements the server judged: accepted, or refused as a mistake. Counted from its
    /// answers, so a re-send after `rate_limited` or `room_moving`, or a placement planned again
    /// from the board of a room that moved (A12), counts once.
    pub placements: u32,
    /// Placements the server refused as mistakes.
    pub mistakes: u32,
    /// `rate_limited` errors received.
    pub rate_limited: u32,
    /// `room_moving` errors received (A12: the room's server was lost and another took it over).
    pub room_moving: u32,
}

/// Why a bot stopped early.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// The connection ended (or could not be made).
    #[error("connection ended: {0}")]
    Connection(String),
    /// The server refused the bot's entry.
    #[error("refused by the server: {code}: {message}")]
    Refused {
        /// The error code's wire name.
        code: &'static str,
        /// The server's message.
        message: String,
    },
    /// The room was closed.
    #[error("room closed")]
    RoomClosed,
}

/// Run one bot against the server `to` (a `ServerUrl`, or an `Endpoint` with its TLS trust) until it has played `config.races` races, or
/// `shutdown` completes (then it sends `leave`), or the room closes, or the connection is lost
/// for good.
pub async fn run(
    to: impl Into<Endpoint>,
    config: BotConfig,
    role: BotRole,
    shutdown: impl Future<Output = ()>,
) -> Result<BotReport, BotError> {
    let name = config.name.clone();
    let (intent, start_at) = match role {
        BotRole::Join { room } => (Intent::Join { room, name }, None),
        BotRole::RoomHost { settings, start_at } => {
            (Intent::Create { name, settings }, Some(start_at))
        }
    };
    // A6: a bot says it is one, so it is never rated.
    let who = net::Identity {
        key: None,
        bot: true,
    };
    let (session, mut events) = net::connect_as(to, intent, who);
    let mut brain = Brain::new(config, start_at);
    let mut wake_at: Option<Instant> = None;
    tokio::pin!(shutdown);
    let mut stopping = false;
    loop {
        let sleep = async {
            match wake_at {
                Some(t) => tokio::time::sleep_until(t).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            ev = events.recv() => match ev {
                None => return Err(BotError::Connection("connection task ended".into())),
                Some(NetEvent::Message(m)) => {
                    for out in brain.on_msg(&m) {
                        session.send(out);
                    }
                }
                Some(NetEvent::Closed { error }) => {
                    if brain.done() {
                        return Ok(brain.report);
                    }
                    return Err(BotError::Connection(error.unwrap_or_else(|| "closed".into())));
                }
                // The session comes back and resumes by itself; `room_joined` then says where
                // the race stands.
                Some(NetEvent::Connected { .. } | NetEvent::Reconnecting { .. } | NetEvent::Moving { .. }) => {}
            },
            _ = sleep => {
                wake_at = None;
                if let Some(m) = brain.next_move() {
                    session.send(m);
                }
            }
            _ = &mut shutdown, if !stopping => stopping = true,
        }
        if let Some(e) = brain.take_error() {
            session.send(ClientMsg::Leave);
            return Err(e);
        }
        if brain.done() || stopping {
            session.send(ClientMsg::Leave);
            // Wait for the socket to close after the leave, so the server sees a clean quit.
            let _ = tokio::time::timeout(Duration::from_secs(2), async {
                while let Some(ev) = events.recv().await {
                    if matches!(ev, NetEvent::Closed { .. }) {
                        break;
                    }
                }
            })
            .await;
            return Ok(brain.report);
        }
        if let Some(d) = brain.take_wake() {
            wake_at = Some(Instant::now() + d);
        }
    }
}

#[cfg(test)]
mod tests;
