//! The frames nodes exchange over Redis pub/sub. Commands go up to a room's owner on the
//! room's channel ([`Up`]); messages and answers come down to a member's node on the node's
//! channel ([`Down`]). Every frame is one tag byte, the sender's wall clock in microseconds
//! (for the relay-latency metric), then its body: JSON for the commands and answers, and for
//! a delivery the connection ids and then the server message's bytes exactly as the room
//! serialized them once, so that no node re-encodes a broadcast. A placement, the one command
//! sent at race speed, has its own binary frame ([`Place`]); what comes down is cut from the
//! published bytes without copying them.

use std::net::IpAddr;

use protocol::{MsgId, Role, Settings};
use serde::{Deserialize, Serialize};
use shared::engine::{Cell, Digit};
use tokio_tungstenite::tungstenite::{Bytes, Utf8Bytes};

use crate::room::handle::{Identity, JoinOutcome, Requeued, RoomMsg};

/// [`Identity`] on the relay: the same fields, so the room layer's type needs no serde of its own.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireIdentity {
    /// The public handle; `None` is anonymous.
    pub handle: Option<String>,
    /// The client said `bot: true`.
    pub bot: bool,
    /// Banned (A8); absent from a node that predates bans: not banned.
    #[serde(default)]
    pub banned: bool,
}

impl From<Identity> for WireIdentity {
    fn from(
        Identity {
            handle,
            bot,
            banned,
        }: Identity,
    ) -> WireIdentity {
        WireIdentity {
            handle,
            bot,
            banned,
        }
    }
}

impl From<WireIdentity> for Identity {
    fn from(
        WireIdentity {
            handle,
            bot,
            banned,
        }: WireIdentity,
    ) -> Identity {
        Identity {
            handle,
            bot,
            banned,
        }
    }
}

/// A command relayed to a room's owner, from connection `conn` on node `from`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Up {
    /// `create`'s second half and `join_room`/`spectate`: take a seat or watch.
    Join {
        /// The member's node.
        from: String,
        /// Its connection there.
        conn: u64,
        /// Matches the answer to the request.
        seq: u64,
        /// The client's address (a kick bars it).
        addr: IpAddr,
        /// The requested name.
        name: Option<String>,
        /// Player or spectator.
        role: Role,
        /// The identity behind the connection (its handle; never a key).
        who: WireIdentity,
    },
    /// `resume`.
    Resume {
        /// The member's node.
        from: String,
        /// Its connection there.
        conn: u64,
        /// Matches the answer.
        seq: u64,
        /// The seat's token.
        token: String,
    },
    /// `leave`.
    Leave {
        /// The member's node.
        from: String,
        /// Its connection there.
        conn: u64,
        /// Matches the answer.
        seq: u64,
    },
    /// `requeue` (A7): out of a finished pool room, back to the pool.
    Requeue {
        /// The member's node.
        from: String,
        /// Its connection there.
        conn: u64,
        /// Matches the answer.
        seq: u64,
    },
    /// The member's connection is gone.
    Dropped {
        /// The member's node.
        from: String,
        /// Its connection there.
        conn: u64,
    },
    /// A message for the room.
    Msg {
        /// The member's node.
        from: String,
        /// Its connection there.
        conn: u64,
        /// What.
        msg: Msg,
    },
}

/// [`RoomMsg`] on the relay: the same messages, with cells and digits as numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "m", rename_all = "snake_case")]
pub enum Msg {
    /// `set_ready`.
    SetReady {
        /// Ready or not.
        ready: bool,
    },
    /// `start_race`.
    StartRace,
    /// `place`.
    Place {
        /// 0..=80.
        cell: u8,
        /// 1..=9.
        digit: u8,
        /// Echoed back.
        id: Option<MsgId>,
    },
    /// `forfeit`.
    Forfeit,
    /// `chat`.
    Chat {
        /// The text.
        text: String,
    },
    /// `set_settings`, resolved.
    SetSettings {
        /// The settings.
        settings: Settings,
    },
    /// `kick`.
    Kick {
        /// Whom.
        player_id: String,
    },
    /// `report` (A8).
    Report {
        /// Whom.
        player_id: String,
        /// Why (checked by the member's node).
        reason: String,
    },
    /// A round trip the member's node measured to its connection (A8).
    Lag {
        /// Milliseconds.
        ms: u32,
    },
    /// `spectate` with `boards` (A8), once the spectator is in.
    WatchBoards,
    /// The member's node missed some of the room's deliveries (a gap in their numbers, or its
    /// subscription reconnected): send the member a fresh view, as `resume` does.
    Resync,
}

impl From<RoomMsg> for Msg {
    fn from(m: RoomMsg) -> Msg {
        match m {
            RoomMsg::SetReady(ready) => Msg::SetReady { ready },
            RoomMsg::StartRace => Msg::StartRace,
            RoomMsg::Place { cell, digit, id } => Msg::Place {
                cell: cell.get(),
                digit: digit.get(),
                id,
            },
            RoomMsg::Forfeit => Msg::Forfeit,
            RoomMsg::Chat(text) => Msg::Chat { text },
            RoomMsg::SetSettings(settings) => Msg::SetSettings { settings },
            RoomMsg::Kick(player_id) => Msg::Kick { player_id },
            RoomMsg::Report { player_id, reason } => Msg::Report { player_id, reason },
            RoomMsg::Lag(ms) => Msg::Lag { ms },
            RoomMsg::WatchBoards => Msg::WatchBoards,
            RoomMsg::Resync => Msg::Resync,
        }
    }
}

impl Msg {
    /// Back to the room's message; `None` for a cell or digit out of range (only a broken or
    /// hostile node sends one: the member's node checked them).
    pub fn into_room(self) -> Option<RoomMsg> {
        Some(match self {
            Msg::SetReady { ready } => RoomMsg::SetReady(ready),
            Msg::StartRace => RoomMsg::StartRace,
            Msg::Place { cell, digit, id } => RoomMsg::Place {
                cell: Cell::new(cell)?,
                digit: Digit::new(digit)?,
                id,
            },
            Msg::Forfeit => RoomMsg::Forfeit,
            Msg::Chat { text } => RoomMsg::Chat(text),
            Msg::SetSettings { settings } => RoomMsg::SetSettings(settings),
            Msg::Kick { player_id } => RoomMsg::Kick(player_id),
            Msg::Report { player_id, reason } => RoomMsg::Report { player_id, reason },
            Msg::Lag { ms } => RoomMsg::Lag(ms),
            Msg::WatchBoards => RoomMsg::WatchBoards,
            Msg::Resync => RoomMsg::Resync,
        })
    }
}

/// A room's answer to a relayed join, resume or leave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "o", rename_all = "snake_case")]
pub enum Outcome {
    /// Not let in (the error went to the connection first).
    Refused,
    /// In, holding this seat.
    Player {
        /// The seat.
        id: String,
    },
    /// In, watching.
    Spectator,
    /// The leave's answer.
    Left {
        /// Whether the connection was in the room.
        ok: bool,
    },
    /// The requeue's answer: out of the room, for the pool of `difficulty`.
    Requeued {
        /// The name it raced under.
        name: String,
        /// The identity behind it.
        who: WireIdentity,
        /// The room's difficulty (its name).
        difficulty: String,
        /// The arena whose room it was (A7), if any: back to that arena's pool.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arena: Option<String>,
    },
}

impl From<JoinOutcome> for Outcome {
    fn from(j: JoinOutcome) -> Outcome {
        match j {
            JoinOutcome::Refused => Outcome::Refused,
            JoinOutcome::Player(id) => Outcome::Player {
                id: id.as_str().to_owned(),
            },
            JoinOutcome::Spectator => Outcome::Spectator,
        }
    }
}

impl Outcome {
    /// A requeue's answer.
    pub fn requeued(left: Option<Requeued>) -> Outcome {
        match left {
            Some(r) => Outcome::Requeued {
                name: r.name,
                who: r.who.into(),
                difficulty: r.difficulty.to_string(),
                arena: r.arena,
            },
            None => Outcome::Refused,
        }
    }
}

/// The connection ids of a delivery, as they came (little-endian u64s).
#[derive(Clone, Debug, PartialEq)]
pub struct Ids(Bytes);

impl Ids {
    /// Each id in order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.0
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
    }
}

/// What comes down to a member's node.
#[derive(Clone, Debug, PartialEq)]
pub enum Down {
    /// One server message for these connections.
    Deliver {
        /// Connection ids on the receiving node.
        conns: Ids,
        /// The message, as the room serialized it.
        bytes: Utf8Bytes,
        /// Its number among the room's deliveries to this node (1, 2, …; 0: not numbered), so
        /// the node sees a gap.
        seq: u64,
    },
    /// Anything else.
    Ctl(Ctl),
}

/// The small messages down.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Ctl {
    /// The answer to request `seq` of connection `conn`.
    Reply {
        /// The connection.
        conn: u64,
        /// Its request.
        seq: u64,
        /// The answer.
        outcome: Outcome,
    },
    /// The room let go of the connection.
    Detach {
        /// The connection.
        conn: u64,
    },
    /// The room closes the connection with this WebSocket close code.
    Close {
        /// The connection.
        conn: u64,
        /// The close code.
        code: u16,
    },
    /// The room asks the connection for a round trip (A8): the member's node pings it and
    /// sends the measured time up as [`Msg::Lag`].
    Probe {
        /// The connection.
        conn: u64,
    },
}

const UP: u8 = b'U';
const PLACE: u8 = b'P';
const DELIVER: u8 = b'D';
/// A delivery with its number: `N`, clock, the number (u64), then as `D`.
const DELIVER_SEQ: u8 = b'N';
const CTL: u8 = b'C';
const BUNDLE: u8 = b'B';
/// The pool's frames down a node's channel (`cluster::pool`).
pub const POOL: u8 = b'Q';
/// Tag and clock.
pub const HEAD: usize = 9;
/// More connection ids than a room can hold are not a delivery.
const MAX_IDS: usize = 4096;

/// Why a frame did not decode (only a broken or foreign publisher sends one).
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// Shorter than its header or its id list.
    #[error("short frame")]
    Short,
    /// Not one of the tags.
    #[error("unknown frame tag {0}")]
    Tag(u8),
    /// The JSON body did not parse.
    #[error("bad frame body: {0}")]
    Json(#[from] serde_json::Error),
    /// A delivery's text, or a node id, is not UTF-8.
    #[error("not UTF-8")]
    Utf8,
}

/// A frame's tag and clock, with room for `cap` more bytes.
pub fn head(tag: u8, at_us: i64, cap: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEAD + cap);
    out.push(tag);
    out.extend_from_slice(&at_us.to_le_bytes());
    out
}

/// Encode a command.
pub fn encode_up(up: &Up, at_us: i64) -> Vec<u8> {
    let mut out = head(UP, at_us, 128);
    // Serializing these plain structs cannot fail.
    let _ = serde_json::to_writer(&mut out, up);
    out
}

/// Encode a delivery.
pub fn encode_deliver(conns: &[u64], bytes: &[u8], at_us: i64) -> Vec<u8> {
    encode_numbered(conns, bytes, 0, at_us)
}

/// Encode a delivery numbered `seq` among its room's deliveries to the node (0: unnumbered).
pub fn encode_numbered(conns: &[u64], bytes: &[u8], seq: u64, at_us: i64) -> Vec<u8> {
    let tag = if seq == 0 { DELIVER } else { DELIVER_SEQ };
    let mut out = head(tag, at_us, 10 + conns.len() * 8 + bytes.len());
    if seq != 0 {
        out.extend_from_slice(&seq.to_le_bytes());
    }
    out.extend_from_slice(&(conns.len() as u16).to_le_bytes());
    for c in conns {
        out.extend_from_slice(&c.to_le_bytes());
    }
    out.extend_from_slice(bytes);
    out
}

/// Encode a small message down.
pub fn encode_ctl(ctl: &Ctl, at_us: i64) -> Vec<u8> {
    let mut out = head(CTL, at_us, 64);
    let _ = serde_json::to_writer(&mut out, ctl);
    out
}

/// Several frames for one channel in one publish: `B`, then each frame as a little-endian u32
/// length and its bytes. A busy node sends fewer, larger messages through Redis.
pub fn encode_bundle(frames: &[Vec<u8>]) -> Vec<u8> {
    let len = frames.iter().map(|f| 4 + f.len()).sum::<usize>();
    let mut out = Vec::with_capacity(1 + len);
    out.push(BUNDLE);
    for f in frames {
        out.extend_from_slice(&(f.len() as u32).to_le_bytes());
        out.extend_from_slice(f);
    }
    out
}

/// The frames a published message carries: itself, or a bundle's frames in order, each a
/// view of the same bytes. A bundle cut short yields the frames before the cut.
pub fn split_bundle(payload: Bytes) -> Vec<Bytes> {
    if payload.first() != Some(&BUNDLE) {
        return vec![payload];
    }
    let mut out = Vec::new();
    let mut at = 1;
    while let Some(len) = payload.get(at..at + 4) {
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let start = at + 4;
        if payload.len() - start < len {
            break;
        }
        out.push(payload.slice(start..start + len));
        at = start + len;
    }
    out
}

/// The sender's clock of any frame.
pub fn sent_at(frame: &[u8]) -> Option<i64> {
    let b: [u8; 8] = frame.get(1..HEAD)?.try_into().ok()?;
    Some(i64::from_le_bytes(b))
}

/// Decode a command.
pub fn decode_up(frame: &[u8]) -> Result<Up, FrameError> {
    match frame.first() {
        Some(&UP) => Ok(serde_json::from_slice(
            frame.get(HEAD..).ok_or(FrameError::Short)?,
        )?),
        Some(&t) => Err(FrameError::Tag(t)),
        None => Err(FrameError::Short),
    }
}

/// Decode what came down (the delivery's text stays in `frame`'s bytes).
pub fn decode_down(frame: Bytes) -> Result<Down, FrameError> {
    match frame.first() {
        Some(&CTL) => Ok(Down::Ctl(serde_json::from_slice(
            frame.get(HEAD..).ok_or(FrameError::Short)?,
        )?)),
        Some(&t @ (DELIVER | DELIVER_SEQ)) => {
            let (seq, at) = match t {
                DELIVER_SEQ => {
                    let b = frame.get(HEAD..HEAD + 8).ok_or(FrameError::Short)?;
                    let seq = u64::from_le_bytes(b.try_into().map_err(|_| FrameError::Short)?);
                    (seq, HEAD + 8)
                }
                _ => (0, HEAD),
            };
            let n = frame.get(at..at + 2).ok_or(FrameError::Short)?;
            let n = usize::from(u16::from_le_bytes([n[0], n[1]]));
            if n > MAX_IDS {
                return Err(FrameError::Short);
            }
            let ids_end = at + 2 + n * 8;
            if frame.len() < ids_end {
                return Err(FrameError::Short);
            }
            let conns = Ids(frame.slice(at + 2..ids_end));
            let bytes =
                Utf8Bytes::try_from(frame.slice(ids_end..)).map_err(|_| FrameError::Utf8)?;
            Ok(Down::Deliver { conns, bytes, seq })
        }
        Some(&t) => Err(FrameError::Tag(t)),
        None => Err(FrameError::Short),
    }
}

mod place;
pub use place::{decode_place, encode_place, is_place, Place};

#[cfg(test)]
mod tests;
