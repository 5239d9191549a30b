//! What clients send: [`ClientMsg`].
//!
//! Room codes and names stay strings here: the server checks them ([`crate::RoomCode`],
//! [`crate::PlayerName`]) so that a bad one gets its own error code, not `bad_message`.

use serde::{Deserialize, Serialize};

use crate::ids::{IdentityKey, MsgId};
use crate::settings::SettingsRequest;

mod place;

/// A message from a client to the server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// Open a room; the sender becomes its host and a player.
    CreateRoom {
        /// The creator's display name.
        name: String,
        /// Room settings; defaults where absent.
        #[serde(default)]
        settings: Option<SettingsRequest>,
        /// The sender's identity key from `registered` (A6); absent = anonymous.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<IdentityKey>,
        /// Whether the sender is a program (A6: bots must say so).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        bot: bool,
        /// The variants the client can draw (A10); absent = `classic` only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        variants: Option<Vec<String>>,
    },
    /// Join a room as a player (lobby or between races).
    JoinRoom {
        /// Room code (upper-cased by the server).
        room: String,
        /// Display name.
        name: String,
        /// The sender's identity key from `registered` (A6); absent = anonymous.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<IdentityKey>,
        /// Whether the sender is a program (A6: bots must say so).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        bot: bool,
        /// The variants the client can draw (A10); absent = `classic` only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        variants: Option<Vec<String>>,
    },
    /// Watch a room, any phase.
    Spectate {
        /// Room code.
        room: String,
        /// Display name (default `spectator`).
        #[serde(default)]
        name: Option<String>,
        /// The sender's identity key (A6); absent = anonymous.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<IdentityKey>,
        /// Receive every player's board, delayed by `--spectator-delay-s` (A8).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        boards: bool,
        /// The variants the client can draw (A10); absent = `classic` only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        variants: Option<Vec<String>>,
    },
    /// Take back a held seat.
    Resume {
        /// The seat's token from `room_joined`.
        token: String,
        /// The variants the client can draw (A10); absent = `classic` only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        variants: Option<Vec<String>>,
    },
    /// Ask for an identity (A6): answered with `registered` {`key`, `handle`}.
    Register {
        /// The display name to keep with the identity.
        name: String,
    },
    /// Play today's daily challenge at a difficulty, alone, at once (A6).
    StartDaily {
        /// `easy` .. `expert` (checked by the server).
        difficulty: String,
        /// The identity key: one ranked attempt per key, day and difficulty.
        key: IdentityKey,
        /// The variants the client can draw (A10); absent = `classic` only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        variants: Option<Vec<String>>,
        /// Which variant's pool, best or daily (A10) [classic]; checked by the server.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        variant: Option<String>,
    },
    /// Ask for the public rooms in the lobby.
    ListRooms,
    /// Mark oneself ready (or not) in the lobby.
    SetReady {
        /// Ready or not.
        ready: bool,
    },
    /// Host: start the countdown (from the lobby, or a rematch from `finished`).
    StartRace,
    /// Place a digit while racing.
    Place {
        /// Cell 0..=80 (checked by the server).
        cell: i64,
        /// Digit 1..=9 (checked by the server).
        digit: i64,
        /// Echoed back in `placement`.
        #[serde(default)]
        id: Option<MsgId>,
    },
    /// Give up the race; the solution is sent to the forfeiter at once.
    Forfeit,
    /// Say something to the room.
    Chat {
        /// 1..=200 characters.
        text: String,
    },
    /// Leave the room (a deliberate quit; no seat is held).
    Leave,
    /// Host, lobby or finished: settings for the next race (validated like `create_room`'s);
    /// everyone gets `settings_changed` (Amendment A5).
    SetSettings {
        /// The new settings; absent fields take the defaults.
        settings: SettingsRequest,
    },
    /// Host, lobby or finished: remove a player, who may not come back for 10 minutes (A5).
    Kick {
        /// Whom.
        player_id: String,
    },
    /// Join the pool of a difficulty (A7): answered with `queued`; a race forms with strangers.
    QuickRace {
        /// `easy` .. `expert` (checked by the server).
        difficulty: String,
        /// Display name.
        name: String,
        /// The sender's identity key (A6); absent = anonymous (matched without a rating).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<IdentityKey>,
        /// Whether the sender is a program (A6: bots must say so).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        bot: bool,
        /// The variants the client can draw (A10); absent = `classic` only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        variants: Option<Vec<String>>,
        /// Which variant's pool, best or daily (A10) [classic]; checked by the server.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        variant: Option<String>,
    },
    /// Leave the pool (A7): answered with `left_queue`.
    LeaveQueue,
    /// From a finished pool room: back into the pool of its difficulty, seated first with those
    /// of the room who requeue within `--pool-wait-ms` (A7).
    Requeue,
    /// Race a stored replay (A7): a private room with you and the ghost; `unknown_race` when
    /// there is nothing to race.
    RaceGhost {
        /// A race id, `"best"` (the key's own best at `difficulty`) or `"daily"` (today's
        /// daily winner at `difficulty`).
        ghost: String,
        /// For `best` and `daily`: which difficulty (default `medium`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        difficulty: Option<String>,
        /// Display name.
        name: String,
        /// The sender's identity key (A6); `best` needs it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<IdentityKey>,
        /// The variants the client can draw (A10); absent = `classic` only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        variants: Option<Vec<String>>,
        /// Which variant's pool, best or daily (A10) [classic]; checked by the server.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        variant: Option<String>,
    },
    /// Join an arena (A7): identified players only; answered with `arena_joined`.
    JoinArena {
        /// The arena, from `/api/arenas`.
        arena_id: String,
        /// Display name.
        name: String,
        /// The sender's identity key (required).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<IdentityKey>,
        /// The variants the client can draw (A10); absent = `classic` only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        variants: Option<Vec<String>>,
        /// Which variant's pool, best or daily (A10) [classic]; checked by the server.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        variant: Option<String>,
    },
    /// Leave the arena you joined (A7): answered with `left_arena`.
    LeaveArena,
    /// Report a player of your room to the moderators (A8); answered with `reported`.
    Report {
        /// Whom.
        player_id: String,
        /// Why, 1..=200 characters.
        reason: String,
    },
    /// Liveness check; answered with `pong`.
    Ping {
        /// Echoed back.
        #[serde(default)]
        id: Option<MsgId>,
    },
}

impl ClientMsg {
    /// Parse one text frame. An `id` that serde_json would print back differently (a float such
    /// as `1.50`, an integer beyond 64 bits) is kept as the exact text sent, so it is echoed
    /// byte for byte (Amendment A3); the common small integer ids cost no second look.
    ///
    /// A number that no `f64` holds (`1e400`) fails serde_json's parse of the whole message:
    /// then the id's text is kept aside and the message parsed again with `0` in its place.
    pub fn from_json(text: &str) -> serde_json::Result<ClientMsg> {
        // A race is mostly `place`: read it as a plain struct first (serde's internally
        // tagged enum buffers every field before it reads the tag). Anything it does not take
        // whole goes the general way, errors included, so the two cannot disagree.
        let parsed = match place::parse(text) {
            Some(msg) => Ok(msg),
            None => serde_json::from_str(text),
        };
        let mut msg: ClientMsg = match parsed {
            Ok(msg) => msg,
            Err(e) => return with_raw_number_id(text).ok_or(e),
        };
        if let ClientMsg::Place { id: Some(id), .. } | ClientMsg::Ping { id: Some(id) } = &mut msg {
            if let MsgId::Number(n) = id {
                if n.as_u64().is_none() && n.as_i64().is_none() {
                    #[derive(Deserialize)]
                    struct RawId<'a> {
                        #[serde(borrow)]
                        id: &'a serde_json::value::RawValue,
                    }
                    if let Ok(raw) = serde_json::from_str::<RawId<'_>>(text) {
                        *id = MsgId::Raw(raw.id.to_owned());
                    }
                }
            }
        }
        Ok(msg)
    }
}

/// `text` parsed with its top-level numeric `id` replaced by `0`, and that id put back as the
/// exact text sent; `None` when there is no such id or the message is bad for another reason.
fn with_raw_number_id(text: &str) -> Option<ClientMsg> {
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(borrow)]
        id: Option<&'a serde_json::value::RawValue>,
    }
    // A plain struct straight from the text: other fields are skipped unread, numbers included.
    let raw = serde_json::from_str::<Head<'_>>(text).ok()?.id?;
    let digits = raw.get();
    if !digits.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        return None;
    }
    // The raw value borrows from `text`: its place there is its address less the text's.
    let start = (digits.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let end = start + digits.len();
    if text.get(start..end) != Some(digits) {
        return None;
    }
    let patched = format!("{}0{}", text.get(..start)?, text.get(end..)?);
    let mut msg: ClientMsg = serde_json::from_str(&patched).ok()?;
    if let ClientMsg::Place { id: Some(id), .. } | ClientMsg::Ping { id: Some(id) } = &mut msg {
        *id = MsgId::Raw(raw.to_owned());
    }
    Some(msg)
}
