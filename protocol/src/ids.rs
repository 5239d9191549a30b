//! Newtypes for the contract's identifiers, so a bad one cannot travel past the edge.
//!
//! [`RoomCode`] and [`PlayerName`] come from clients: their `TryFrom` carries the contract's
//! rules (a code is upper-cased and 4 to 8 of `A-Z`, `2-9`; a name follows Amendment A3, see
//! [`crate::text`]). [`PlayerId`], [`RaceId`] and [`ResumeToken`] are
//! minted by the server and opaque to clients. A [`ResumeToken`] is a secret: its `Debug`
//! hides it, so it cannot reach a log by accident.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

use crate::limits::MAX_NAME_CHARS;

/// A client's message id: any JSON number or string, echoed back verbatim.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MsgId {
    /// A JSON number.
    Number(serde_json::Number),
    /// A JSON string.
    String(String),
    /// A number kept as the exact text the client sent (a float, or an integer beyond 64 bits,
    /// that would not print back digit for digit). Made by [`crate::ClientMsg::from_json`];
    /// never read from a server message.
    #[serde(skip_deserializing)]
    Raw(Box<serde_json::value::RawValue>),
}

impl PartialEq for MsgId {
    fn eq(&self, other: &MsgId) -> bool {
        match (self, other) {
            (MsgId::Number(a), MsgId::Number(b)) => a == b,
            (MsgId::String(a), MsgId::String(b)) => a == b,
            (MsgId::Raw(a), MsgId::Raw(b)) => a.get() == b.get(),
            _ => false,
        }
    }
}

impl MsgId {
    /// Read an id from its JSON text (a string or a number), keeping a number's exact digits: a
    /// number beyond 64 bits, a float or one beyond `f64` (`1e400`) is kept as its text. What
    /// carries an id between nodes reads it back with this, not with serde (which would round it).
    pub fn from_json(text: &str) -> serde_json::Result<MsgId> {
        let raw: &serde_json::value::RawValue = serde_json::from_str(text)?;
        let json = raw.get();
        if json.starts_with('"') {
            return serde_json::from_str(json).map(MsgId::String);
        }
        if !json.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
            // Not a number either: serde's own error for it.
            return serde_json::from_str(json);
        }
        match serde_json::from_str::<serde_json::Number>(json) {
            Ok(n) if n.is_u64() || n.is_i64() => Ok(MsgId::Number(n)),
            _ => Ok(MsgId::Raw(raw.to_owned())),
        }
    }

    /// The id as a whole number, when it is one (clients that number their messages).
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            MsgId::Number(n) => n.as_u64(),
            MsgId::String(_) => None,
            MsgId::Raw(r) => r.get().parse().ok(),
        }
    }
}

/// The string-like surface every id shares: `&str` views, comparison with strings, `Display`.
macro_rules! str_newtype {
    ($ty:ident) => {
        impl $ty {
            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }
        impl Deref for $ty {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }
        impl AsRef<str> for $ty {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
        impl Borrow<str> for $ty {
            fn borrow(&self) -> &str {
                &self.0
            }
        }
        impl PartialEq<str> for $ty {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }
        impl PartialEq<&str> for $ty {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }
        impl PartialEq<String> for $ty {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }
        impl From<$ty> for String {
            fn from(v: $ty) -> String {
                v.0
            }
        }
    };
}

/// An opaque id minted by the server: any string converts.
macro_rules! opaque_id {
    ($(#[$doc:meta])* $ty:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $ty(String);
        str_newtype!($ty);
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.pad(&self.0)
            }
        }
        impl From<String> for $ty {
            fn from(s: String) -> $ty {
                $ty(s)
            }
        }
        impl From<&str> for $ty {
            fn from(s: &str) -> $ty {
                $ty(s.to_owned())
            }
        }
    };
}

opaque_id!(
    /// A player's id within a room (`p1`, `p2`, …), opaque to clients.
    PlayerId
);
opaque_id!(
    /// A race's id, opaque to clients.
    RaceId
);

/// A seat's resume token: a secret bearer string. `Debug` does not show it.
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ResumeToken(String);
str_newtype!(ResumeToken);

impl fmt::Debug for ResumeToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ResumeToken(…)")
    }
}

impl From<String> for ResumeToken {
    fn from(s: String) -> ResumeToken {
        ResumeToken(s)
    }
}

impl From<&str> for ResumeToken {
    fn from(s: &str) -> ResumeToken {
        ResumeToken(s.to_owned())
    }
}

/// A player's identity key (A6): a secret bearer string. `Debug` does not show it, so a
/// logged message never carries it.
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct IdentityKey(String);
str_newtype!(IdentityKey);

impl fmt::Debug for IdentityKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("IdentityKey(…)")
    }
}

impl From<String> for IdentityKey {
    fn from(s: String) -> IdentityKey {
        IdentityKey(s)
    }
}

/// A room code: 4 to 8 characters from `A-Z` and `2-9`, upper-cased from what a client sent.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RoomCode(String);
str_newtype!(RoomCode);

impl fmt::Display for RoomCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.0)
    }
}

/// A string that is not a room code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a room code is 4 to 8 letters and digits")]
pub struct InvalidRoomCode;

impl TryFrom<&str> for RoomCode {
    type Error = InvalidRoomCode;
    /// Trimmed and upper-cased, then checked.
    fn try_from(raw: &str) -> Result<RoomCode, InvalidRoomCode> {
        let code = raw.trim().to_ascii_uppercase();
        let ok = (4..=8).contains(&code.len())
            && code
                .bytes()
                .all(|b| b.is_ascii_uppercase() || (b'2'..=b'9').contains(&b));
        if ok {
            Ok(RoomCode(code))
        } else {
            Err(InvalidRoomCode)
        }
    }
}

impl TryFrom<String> for RoomCode {
    type Error = InvalidRoomCode;
    fn try_from(raw: String) -> Result<RoomCode, InvalidRoomCode> {
        RoomCode::try_from(raw.as_str())
    }
}

/// A display name that follows the contract's rules (Amendment A3): NFC, trimmed, 1 to 24
/// characters, at least one visible character, no control, format or private-use characters.
/// Two names are the same name when their [`PlayerName::key`]s are equal.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct PlayerName(String);
str_newtype!(PlayerName);

impl PlayerName {
    /// The key for uniqueness in a room: case-folded confusable skeleton (Unicode TS #39).
    pub fn key(&self) -> String {
        crate::text::name_key(&self.0)
    }
}

impl fmt::Display for PlayerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.0)
    }
}

/// Why a name is refused (`invalid_name`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InvalidName {
    /// Nothing but white space.
    #[error("name is empty")]
    Empty,
    /// Over [`MAX_NAME_CHARS`] characters after trimming.
    #[error("name is longer than 24 characters")]
    TooLong,
    /// A control (Cc), format (Cf), private-use (Co) or unassigned character, or a line or
    /// paragraph separator.
    #[error("name has control, format or private-use characters")]
    Control,
    /// Only combining marks or other characters that show nothing by themselves.
    #[error("name has no visible character")]
    Invisible,
}

impl TryFrom<&str> for PlayerName {
    type Error = InvalidName;
    fn try_from(raw: &str) -> Result<PlayerName, InvalidName> {
        let name = crate::text::normalize_name(raw);
        let n = name.chars().count();
        if n == 0 {
            Err(InvalidName::Empty)
        } else if n > MAX_NAME_CHARS {
            Err(InvalidName::TooLong)
        } else if name.chars().any(crate::text::is_forbidden_in_name) {
            Err(InvalidName::Control)
        } else if !name.chars().any(crate::text::is_visible) {
            Err(InvalidName::Invisible)
        } else {
            Ok(PlayerName(name))
        }
    }
}

impl TryFrom<String> for PlayerName {
    type Error = InvalidName;
    fn try_from(raw: String) -> Result<PlayerName, InvalidName> {
        PlayerName::try_from(raw.as_str())
    }
}
