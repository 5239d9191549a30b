//! The frames nodes exchange over Redis pub/sub. Commands go up to a room's owner on the
//! room's channel ([`Up`]); messages and answers come down to a member's node on the node's
//! channel ([`Down`]). Every frame is one tag byte, the sender's wall clock in microseconds
//! (for the relay-latency metric), then its body: JSON for the commands and answers, and for
//! a delivery the connection ids and then the server message's bytes exactly as the room
//! serialized them once, so that no node re-encodes a broadcast. A placement, the one command
//! sent at race speed, has its own binary frame ([`Place`]); what comes down is cut from the
//! published bytes without copying them.

use serde::{Deserialize, Serialize};
use tokio_tungstenite::tungstenite::{Bytes, Utf8Bytes};

use crate::room::handle::{Command, Identity, JoinOutcome, Requeued};

/// A command relayed to a room's owner, from connection `conn` on node `from`: the room's
/// own [`Command`], flattened beside them (`{"t":"join","from":…,"conn":…,"seq":…,…}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Up {
    /// The member's node.
    pub from: String,
    /// Its connection there.
    pub conn: u64,
    /// A request's number, which its answer carries back (a join, resume, leave or
    /// requeue); none for a message or a dropped connection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// The command.
    #[serde(flatten)]
    pub cmd: Command,
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
        who: Identity,
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
            // Only in-process: an owner giving a room up answers nothing over the relay.
            JoinOutcome::Refused | JoinOutcome::Moving => Outcome::Refused,
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
                who: r.who,
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
    /// sends the measured time up as `RoomMsg::Lag`.
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
