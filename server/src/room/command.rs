//! A room command, defined once: what a member asks of its room ([`Command`], the in-room
//! messages among them as [`RoomMsg`]). The same value is what the room task hands the rules
//! ([`Command::apply`]), what the room's command log keeps ([`Command::logged`], replayed by
//! [`Command::replay`], A9) and what the cluster's relay carries to a room's owner
//! (`cluster::wire::Up`), in one serialization.
//!
//! Adding a command is its variant here, its arm in `apply`, and its rule in `rules/`; a
//! client message that becomes one is mapped in `net::cmd`.

use std::net::IpAddr;

use engine::{Cell, Digit};
use protocol::convert::place_target;
use protocol::text::check_chat;
use protocol::variant::Draws;
use protocol::{ClientMsg, ErrorCode, MsgId, ResumeToken, Role, Settings};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::rules::{Identity, Requeued, Room};
use crate::outbox::ConnId;

/// What a member asks of its room.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Command {
    /// `create`'s second half and `join_room`/`spectate`: take a seat or watch.
    Join {
        /// The client's address (a kick bars it).
        addr: IpAddr,
        /// The requested name (`None`: a spectator's default).
        name: Option<String>,
        /// Player or spectator.
        role: Role,
        /// The identity behind the connection (its handle; never a key).
        who: Identity,
    },
    /// `resume`: take back a held seat. In the log, `token` holds the token's SHA-256 (hex).
    Resume {
        /// The seat's token.
        token: ResumeToken,
        /// The variants the client draws (A10); absent from an older node: classic only.
        #[serde(default, skip_serializing_if = "Draws::is_classic_only")]
        draws: Draws,
    },
    /// `leave`.
    Leave,
    /// `requeue` (A7): out of a finished pool room, back to the pool.
    Requeue,
    /// The connection's transport is gone.
    Dropped,
    /// A message for the room.
    Msg {
        /// What.
        msg: RoomMsg,
    },
}

/// A member's message to the room it is in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "m", rename_all = "snake_case")]
pub enum RoomMsg {
    /// `set_ready`.
    SetReady {
        /// Ready or not.
        ready: bool,
    },
    /// `start_race`.
    StartRace,
    /// `place`, with cell and digit already checked.
    Place {
        /// The cell (0..=80 on the relay and in the log).
        #[serde(with = "cell_number")]
        cell: Cell,
        /// The digit (1..=9).
        #[serde(with = "digit_number")]
        digit: Digit,
        /// Echoed back.
        id: Option<MsgId>,
    },
    /// `forfeit`.
    Forfeit,
    /// `chat` (checked again by the room).
    Chat {
        /// The text.
        text: String,
    },
    /// `set_settings`, already resolved (in range).
    SetSettings {
        /// The settings.
        settings: Settings,
    },
    /// `kick`.
    Kick {
        /// Whom.
        player_id: String,
    },
    /// `report` (A8), its reason already checked.
    Report {
        /// Whom.
        player_id: String,
        /// Why.
        reason: String,
    },
    /// A round trip the connection's own node measured, in milliseconds (A8): no client
    /// message, the answer to the room's probe.
    Lag {
        /// Milliseconds.
        ms: u32,
    },
    /// `spectate` with `boards` (A8): sent once the spectator is in; ignored from a player.
    WatchBoards,
    /// No client message: the member's node (cluster mode) missed some of the room's messages
    /// to it; the member gets a fresh view, as `resume` sends.
    Resync,
}

/// A client message as its room reads it ([`RoomMsg::from_client`]).
#[derive(Debug)]
pub enum FromClient {
    /// A message for the connection's room.
    Room(RoomMsg),
    /// A room message that breaks the contract: its error, and the room never sees it.
    Bad(ErrorCode, String),
    /// Not a room message.
    Other(ClientMsg),
}

/// Longest `report` reason, in characters (A8).
pub const MAX_REASON_CHARS: usize = 200;

/// A report's reason as A8 allows it: 1..=200 characters, none of them control characters
/// (a reason is shown to moderators as a line).
pub fn check_reason(reason: &str) -> Result<(), &'static str> {
    let n = reason.chars().count();
    if n == 0 || reason.trim().is_empty() {
        return Err("a report needs a reason");
    }
    if n > MAX_REASON_CHARS {
        return Err("a reason is at most 200 characters");
    }
    if reason.chars().any(char::is_control) {
        return Err("a reason has no control characters");
    }
    Ok(())
}

/// What the rules answered a command with.
#[derive(Debug)]
pub enum Answer {
    /// A join or resume: whether the connection is now in the room.
    Entered(bool),
    /// A leave: whether the connection was in the room.
    Left(bool),
    /// A requeue: who left for the pool (`None`: refused).
    Requeued(Option<Requeued>),
    /// Nothing to answer.
    Done,
}

impl Command {
    /// Hand the command from connection `conn` to the rules at `now`.
    pub fn apply(self, room: &mut Room, conn: ConnId, now: Instant) -> Answer {
        match self {
            Command::Join {
                addr,
                name,
                role,
                who,
            } => Answer::Entered(room.join(conn, addr, name.as_deref(), role, who, now)),
            Command::Resume { token, draws } => {
                Answer::Entered(room.resume(conn, &token, draws, now))
            }
            Command::Leave => Answer::Left(room.leave(conn, now)),
            Command::Requeue => Answer::Requeued(room.requeue(conn, now)),
            Command::Dropped => {
                room.dropped(conn, now);
                Answer::Done
            }
            Command::Msg { msg } => {
                msg.apply(room, conn, now);
                Answer::Done
            }
        }
    }

    /// Give the rules a command read back from the log (a resume names its token's hash).
    pub fn replay(self, room: &mut Room, conn: ConnId, now: Instant) {
        match self {
            Command::Resume { token, .. } => {
                room.resume_rebuilt(conn, token.as_str(), now);
            }
            cmd => {
                cmd.apply(room, conn, now);
            }
        }
    }

    /// What the command log keeps of the command (`None`: nothing the rules' state depends
    /// on). A resume keeps its token's hash, like every key in Redis; a placement drops the
    /// id it echoes.
    pub fn logged(&self) -> Option<Command> {
        Some(match self {
            Command::Resume { token, draws } => Command::Resume {
                token: ResumeToken::from(super::rules::takeover::token_hash(token.as_str())),
                draws: *draws,
            },
            Command::Msg {
                msg: RoomMsg::Place { cell, digit, .. },
            } => Command::Msg {
                msg: RoomMsg::Place {
                    cell: *cell,
                    digit: *digit,
                    id: None,
                },
            },
            // Chat changes nothing a race depends on, and its text stays out of Redis; a
            // report is kept by the store on its own; a resync only sends views again.
            Command::Msg {
                msg: RoomMsg::Chat { .. } | RoomMsg::Report { .. } | RoomMsg::Resync,
            } => return None,
            cmd => cmd.clone(),
        })
    }
}

impl RoomMsg {
    /// Read a client message: what can be checked without the room (a cell's range, a chat
    /// line's text, settings' bounds, a report's reason) is checked here.
    pub fn from_client(msg: ClientMsg) -> FromClient {
        let bad = |code, why: &dyn std::fmt::Display| FromClient::Bad(code, why.to_string());
        FromClient::Room(match msg {
            ClientMsg::SetReady { ready } => RoomMsg::SetReady { ready },
            ClientMsg::StartRace => RoomMsg::StartRace,
            ClientMsg::Forfeit => RoomMsg::Forfeit,
            ClientMsg::Place { cell, digit, id } => match place_target(cell, digit) {
                Ok((cell, digit)) => RoomMsg::Place { cell, digit, id },
                Err(e) => return bad(ErrorCode::BadMessage, &e),
            },
            ClientMsg::Chat { text } => match check_chat(&text) {
                Ok(()) => RoomMsg::Chat { text },
                Err(why) => return bad(ErrorCode::BadMessage, &why),
            },
            ClientMsg::SetSettings { settings } => match settings.resolve() {
                Ok(settings) => RoomMsg::SetSettings { settings },
                Err(e) => return bad(ErrorCode::InvalidSettings, &e),
            },
            ClientMsg::Kick { player_id } => RoomMsg::Kick { player_id },
            ClientMsg::Report { player_id, reason } => match check_reason(&reason) {
                Ok(()) => RoomMsg::Report { player_id, reason },
                Err(why) => return bad(ErrorCode::BadMessage, &why),
            },
            other => return FromClient::Other(other),
        })
    }

    /// Hand the message from member `conn` to the rules at `now`.
    pub fn apply(self, room: &mut Room, conn: ConnId, now: Instant) {
        match self {
            RoomMsg::SetReady { ready } => room.set_ready(conn, ready),
            RoomMsg::StartRace => room.start_race(conn, now),
            RoomMsg::Place { cell, digit, id } => room.place(conn, cell, digit, id, now),
            RoomMsg::Forfeit => room.forfeit(conn, now),
            RoomMsg::Chat { text } => room.chat(conn, text, now),
            RoomMsg::SetSettings { settings } => room.set_settings(conn, settings),
            RoomMsg::Kick { player_id } => room.kick(conn, &player_id, now),
            RoomMsg::Report { player_id, reason } => {
                room.report(conn, &player_id, reason, crate::clock::unix_ms());
            }
            RoomMsg::Lag { ms } => room.lag_sample(conn, ms),
            RoomMsg::WatchBoards => room.watch_boards(conn, now),
            RoomMsg::Resync => room.resync(conn, now),
        }
    }
}

/// A number read as `make` checks it (a cell, a digit); another number does not decode.
fn checked<'de, D, T>(d: D, make: fn(u8) -> Option<T>, what: &str) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
{
    use serde::de::Error as _;
    let n = u8::deserialize(d)?;
    make(n).ok_or_else(|| D::Error::custom(format_args!("{what} {n} out of range")))
}

/// A cell as its number, 0..=80.
mod cell_number {
    use engine::Cell;
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(cell: &Cell, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(cell.get())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Cell, D::Error> {
        super::checked(d, Cell::new, "cell")
    }
}

/// A digit as its number, 1..=9.
mod digit_number {
    use engine::Digit;
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(digit: &Digit, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(digit.get())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Digit, D::Error> {
        super::checked(d, Digit::new, "digit")
    }
}

#[cfg(test)]
mod tests {
    use super::check_reason;

    #[test]
    fn reasons_are_one_line_of_one_to_200_characters() {
        assert!(check_reason("typed faster than a human").is_ok());
        assert!(
            check_reason(&"é".repeat(200)).is_ok(),
            "characters, not bytes"
        );
        for bad in ["", "   ", "two\nlines", "bell\u{7}"] {
            assert!(check_reason(bad).is_err(), "{bad:?}");
        }
        assert!(check_reason(&"x".repeat(201)).is_err());
    }
}
