//! The codes of the `error` message.

use serde::{Deserialize, Serialize};

/// Error codes of the `error` message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Not JSON, not an object, unknown type, missing or mistyped field, out-of-range cell or
    /// digit, bad chat length, a binary frame.
    BadMessage,
    /// No room with that code.
    UnknownRoom,
    /// The room has `max_players` players.
    RoomFull,
    /// Joining as a player during countdown or racing.
    RaceInProgress,
    /// A room message from a connection in no room.
    NotInRoom,
    /// A second room for one connection.
    AlreadyInRoom,
    /// A host-only message from someone else.
    NotHost,
    /// A player's message from a spectator.
    NotPlayer,
    /// Right role, wrong moment.
    WrongPhase,
    /// A setting out of range.
    InvalidSettings,
    /// An empty, too long or control-character name.
    InvalidName,
    /// The name is already in the room.
    NameTaken,
    /// An unknown or expired resume token.
    InvalidToken,
    /// Over the message rate limit.
    RateLimited,
    /// A server-wide limit is reached.
    ServerFull,
    /// The host removed you from the room, or you were removed less than 10 minutes ago (A5).
    Kicked,
    /// A `key` the server does not know (A6).
    InvalidKey,
    /// This key already played today's daily challenge at that difficulty (A6).
    AlreadyPlayed,
    /// No stored race to race as a ghost (A7).
    UnknownRace,
    /// No arena by that id (A7).
    UnknownArena,
    /// The arena is not running (A7).
    ArenaNotRunning,
    /// `leave_queue` from a connection not in the pool (A7).
    NotInQueue,
    /// The server is draining for a deploy and takes no new rooms or pool entries (A9).
    ServerDraining,
    /// The room's server was lost and another is taking the room over: try again after
    /// `retry_ms` (A12). A `place` answered so was not accepted.
    RoomMoving,
    /// The room, pool, ghost, daily or arena is of a variant the client did not list in its
    /// `variants` (A10; a client that lists none draws `classic` only).
    UnsupportedVariant,
}

crate::wire_names!(ErrorCode {
    BadMessage => "bad_message",
    UnknownRoom => "unknown_room",
    RoomFull => "room_full",
    RaceInProgress => "race_in_progress",
    NotInRoom => "not_in_room",
    AlreadyInRoom => "already_in_room",
    NotHost => "not_host",
    NotPlayer => "not_player",
    WrongPhase => "wrong_phase",
    InvalidSettings => "invalid_settings",
    InvalidName => "invalid_name",
    NameTaken => "name_taken",
    InvalidToken => "invalid_token",
    RateLimited => "rate_limited",
    ServerFull => "server_full",
    Kicked => "kicked",
    InvalidKey => "invalid_key",
    AlreadyPlayed => "already_played",
    UnknownRace => "unknown_race",
    UnknownArena => "unknown_arena",
    ArenaNotRunning => "arena_not_running",
    NotInQueue => "not_in_queue",
    ServerDraining => "server_draining",
    RoomMoving => "room_moving",
    UnsupportedVariant => "unsupported_variant",
});
