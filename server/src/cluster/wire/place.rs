//! The placement frame (`P`), the one command sent at race speed: binary, decoded without
//! allocating the sender's node id; its `id` travels exactly as the client sent it.

use protocol::MsgId;

use super::{head, FrameError, HEAD, PLACE};

/// A relayed `place`, decoded without allocating the sender's node id.
#[derive(Clone, Debug, PartialEq)]
pub struct Place<'a> {
    /// The member's node.
    pub from: &'a str,
    /// Its connection there.
    pub conn: u64,
    /// 0..=80 (checked again by the owner).
    pub cell: u8,
    /// 1..=9 (checked again by the owner).
    pub digit: u8,
    /// Echoed back.
    pub id: Option<MsgId>,
}

/// How a placement's id travels: absent, a whole number, or its JSON (`ID_JSON`, up to the
/// frame's end, is still read from older nodes; `ID_JSON_LEN` carries its length first, so a
/// cut frame cannot pass for a shorter number such as `1e40` for `1e400`).
const ID_NONE: u8 = 0;
const ID_U64: u8 = 1;
const ID_JSON: u8 = 2;
const ID_JSON_LEN: u8 = 3;

/// Encode a `place` from connection `conn` of node `from` (an id of at most 255 bytes; ours
/// are 8 hex digits): `P`, clock, the node id's length and bytes, the connection, cell, digit,
/// and the id.
pub fn encode_place(place: &Place<'_>, at_us: i64) -> Vec<u8> {
    let from = place.from.as_bytes();
    let from = &from[..from.len().min(255)];
    let mut out = head(PLACE, at_us, 1 + from.len() + 8 + 3 + 8);
    out.push(from.len() as u8);
    out.extend_from_slice(from);
    out.extend_from_slice(&place.conn.to_le_bytes());
    out.push(place.cell);
    out.push(place.digit);
    match &place.id {
        None => out.push(ID_NONE),
        Some(MsgId::Number(n)) if n.is_u64() => {
            out.push(ID_U64);
            out.extend_from_slice(&n.as_u64().unwrap_or(0).to_le_bytes());
        }
        Some(id) => {
            // An id came in a message of at most 4096 bytes: its JSON fits a u16.
            let json = serde_json::to_vec(id).unwrap_or_default();
            let len = u16::try_from(json.len()).unwrap_or(0);
            out.push(ID_JSON_LEN);
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&json[..usize::from(len)]);
        }
    }
    out
}

/// Whether a frame up is a [`Place`].
pub fn is_place(frame: &[u8]) -> bool {
    frame.first() == Some(&PLACE)
}

/// Decode a [`Place`].
pub fn decode_place(frame: &[u8]) -> Result<Place<'_>, FrameError> {
    match frame.first() {
        Some(&PLACE) => {}
        Some(&t) => return Err(FrameError::Tag(t)),
        None => return Err(FrameError::Short),
    }
    let body = frame.get(HEAD..).ok_or(FrameError::Short)?;
    let (&n, body) = body.split_first().ok_or(FrameError::Short)?;
    let from = body.get(..usize::from(n)).ok_or(FrameError::Short)?;
    let from = std::str::from_utf8(from).map_err(|_| FrameError::Utf8)?;
    let body = &body[usize::from(n)..];
    let (conn, body) = body.split_first_chunk::<8>().ok_or(FrameError::Short)?;
    let [cell, digit, kind, id @ ..] = body else {
        return Err(FrameError::Short);
    };
    let id = match *kind {
        ID_NONE => None,
        ID_U64 => {
            let b: [u8; 8] = id.try_into().map_err(|_| FrameError::Short)?;
            Some(MsgId::Number(u64::from_le_bytes(b).into()))
        }
        ID_JSON => Some(MsgId::from_json(
            std::str::from_utf8(id).map_err(|_| FrameError::Utf8)?,
        )?),
        ID_JSON_LEN => {
            let (len, json) = id.split_first_chunk::<2>().ok_or(FrameError::Short)?;
            if json.len() != usize::from(u16::from_le_bytes(*len)) {
                return Err(FrameError::Short);
            }
            let json = std::str::from_utf8(json).map_err(|_| FrameError::Utf8)?;
            Some(MsgId::from_json(json)?)
        }
        t => return Err(FrameError::Tag(t)),
    };
    Ok(Place {
        from,
        conn: u64::from_le_bytes(*conn),
        cell: *cell,
        digit: *digit,
        id,
    })
}
