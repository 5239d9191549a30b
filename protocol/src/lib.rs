//! The wire contract (version 1) between the race server and its clients, as serde types.
//!
//! One JSON object per WebSocket text frame, tagged by `"type"`. [`ClientMsg`] is what clients
//! send, [`ServerMsg`] what the server sends. Unknown fields are ignored on both sides.
//! Optional fields serialize as `null`, never omitted, so clients can rely on every documented key.
//!
//! - [`client`]: [`ClientMsg`]. Numbers a client sends (cells, digits, settings) are parsed as wide
//!   integers and checked by the server, so that an out-of-range value gets its own error code.
//! - [`server`]: [`ServerMsg`] and its payloads.
//! - [`settings`]: room settings as requested and as resolved.
//! - [`encode`]: [`ServerMsg`] to JSON, the two per-placement messages written directly.
//! - [`error`]: the `error` message's codes.
//! - [`limits`]: the protocol version and the contract's size limits.
//! - [`ids`]: newtypes for room codes, player and race ids, resume tokens and names; their
//!   `TryFrom` carries the contract's rules (upper-casing, name rules).
//! - [`text`]: the A3 rules for names and chat, and the scrub for terminals.
//! - [`convert`]: the one place wire values become engine values (a puzzle is a
//!   [`engine::Grid`], a cell a [`engine::Cell`]).
#![warn(missing_docs)]

pub mod client;
pub mod convert;
pub mod encode;
pub mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod ids;
pub mod limits;
pub mod server;
pub mod settings;
pub mod text;
pub mod variant;

pub use client::ClientMsg;
pub use error::ErrorCode;
pub use ids::{
    IdentityKey, InvalidName, InvalidRoomCode, MsgId, PlayerId, PlayerName, RaceId, ResumeToken,
    RoomCode,
};
pub use limits::{MAX_CHAT_CHARS, MAX_MESSAGE_BYTES, MAX_NAME_CHARS, PROTOCOL_VERSION};
pub use server::{
    ArenaInfo, ArenaStanding, ArenaState, ClosedReason, FinishStatus, OverReason, Phase,
    PlaceReason, Player, PlayerStatus, Progress, RaceView, RatingChange, Role, RoomSummary,
    ServerMsg, Standing, You,
};
pub use settings::{InvalidSettings, Settings, SettingsRequest};

#[cfg(test)]
mod tests;

/// `as_str` (the wire name, the same as serde's) and `ALL` (every variant) for a wire enum.
/// A test checks each name against serde's, so the two spellings cannot drift apart.
macro_rules! wire_names {
    ($ty:ident { $($var:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$var),+];

            /// The wire name, as serde writes it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($ty::$var => $name),+
                }
            }
        }
    };
}
pub(crate) use wire_names;
