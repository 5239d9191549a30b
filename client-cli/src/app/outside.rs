//! Where we stand while in no room: asking for a seat, waiting in the pool for a race with
//! strangers (A7) or in an arena for its next race, refused one, typing another name, offered to watch a race that is on, removed
//! by the host, or left by a room that closed.
//!
//! [`Outside`] is what the screen shows in place of a room. The app asks the server for a seat
//! as the [`Intent`] says (the connection task sends the first ask; a retry with another name
//! or a seat after watching is sent from here), so a refusal can be answered in place.

use engine::Difficulty;
use protocol::{ErrorCode, RoomCode};

use crate::net::Intent;

/// The screen shown in place of a room.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Outside {
    /// Waiting for the server's answer (or for the connection).
    #[default]
    Entering,
    /// Waiting in the pool for a race with strangers (A7), from `queued` to `room_joined`.
    Queued {
        /// The pool's difficulty.
        difficulty: Difficulty,
        /// Players waiting in it, us included (from the last `queued`).
        waiting: u32,
        /// Local clock when we began waiting.
        since_ms: u64,
        /// `pool_alone` came: nobody else is waiting right now.
        alone: bool,
        /// The ghost `pool_alone` offered instead (a race id), to race with `g`.
        ghost: Option<String>,
    },
    /// A member of an arena (A7) in none of its rooms: before it starts, between its races, or
    /// after it ended (the app's `arena` says which).
    Arena,
    /// Refused, for a reason another try would not change.
    Refused {
        /// The server's code.
        code: ErrorCode,
        /// The server's words.
        message: String,
    },
    /// The name was taken or refused: another is being typed.
    Rename {
        /// `name_taken` or `invalid_name`.
        code: ErrorCode,
        /// The server's words.
        message: String,
        /// The name typed so far.
        input: String,
    },
    /// Refused a seat because a race is on: watching is offered.
    RaceOn {
        /// The room.
        room: String,
    },
    /// The host removed us (or we were removed less than 10 minutes ago).
    Kicked {
        /// The room.
        room: String,
    },
    /// The room was removed: the host quit, or its server was lost.
    Closed {
        /// The room.
        room: RoomCode,
    },
    /// The server is restarting for an update (A9): a new room or the pool is offered, on a new
    /// connection.
    Restarting {
        /// The room it closed, if we were in one.
        room: Option<RoomCode>,
        /// The difficulty a new room or the pool is asked at.
        difficulty: Difficulty,
        /// And the variant (A10).
        variant: engine::Variant,
    },
}

impl Outside {
    /// A screen that ends the session: only quitting is left.
    pub fn is_final(&self) -> bool {
        matches!(self, Outside::Kicked { .. } | Outside::Closed { .. })
    }
}

/// The room an intent names, if any.
pub fn intent_room(intent: Option<&Intent>) -> Option<&str> {
    match intent? {
        Intent::Join { room, .. } | Intent::Spectate { room, .. } => Some(room),
        Intent::Create { .. }
        | Intent::Daily { .. }
        | Intent::Quick { .. }
        | Intent::Ghost { .. }
        | Intent::Arena { .. }
        | Intent::Nothing => None,
    }
}

/// The intent asked again under another name.
pub fn renamed(intent: &Intent, new_name: &str) -> Intent {
    let name = new_name.to_owned();
    match intent {
        Intent::Create { settings, .. } => Intent::Create {
            name,
            settings: settings.clone(),
        },
        Intent::Join { room, .. } => Intent::Join {
            room: room.clone(),
            name,
        },
        Intent::Spectate { room, boards, .. } => Intent::Spectate {
            room: room.clone(),
            name,
            boards: *boards,
        },
        Intent::Daily {
            difficulty,
            variant,
            ..
        } => Intent::Daily {
            difficulty: *difficulty,
            variant: *variant,
            name,
        },
        Intent::Quick {
            difficulty,
            variant,
            ..
        } => Intent::Quick {
            difficulty: *difficulty,
            variant: *variant,
            name,
        },
        Intent::Ghost {
            ghost,
            difficulty,
            variant,
            ..
        } => Intent::Ghost {
            ghost: ghost.clone(),
            difficulty: *difficulty,
            variant: *variant,
            name,
        },
        Intent::Arena { arena_id, .. } => Intent::Arena {
            arena_id: arena_id.clone(),
            name,
        },
        Intent::Nothing => Intent::Nothing,
    }
}

/// What a refused ask says first: `could not join room K7QX`.
pub fn refused_what(intent: Option<&Intent>) -> String {
    match intent {
        Some(Intent::Join { room, .. }) => format!("could not join room {room}"),
        Some(Intent::Spectate { room, .. }) => format!("could not watch room {room}"),
        Some(Intent::Create { .. }) => "could not create a room".to_owned(),
        Some(Intent::Daily { .. }) => "could not start the daily challenge".to_owned(),
        Some(Intent::Quick { difficulty, .. }) => format!("could not join the {difficulty} pool"),
        Some(Intent::Ghost { ghost, .. }) => format!("could not race the ghost of {ghost}"),
        Some(Intent::Arena { arena_id, .. }) => format!("could not join the arena {arena_id}"),
        Some(Intent::Nothing) | None => "refused".to_owned(),
    }
}

/// The outside screen a refused ask leads to.
pub fn answer(intent: Option<&Intent>, code: ErrorCode, message: &str) -> Outside {
    let room = intent_room(intent).unwrap_or("?").to_owned();
    match code {
        ErrorCode::NameTaken | ErrorCode::InvalidName => Outside::Rename {
            code,
            message: message.to_owned(),
            input: String::new(),
        },
        ErrorCode::RaceInProgress => Outside::RaceOn { room },
        ErrorCode::Kicked => Outside::Kicked { room },
        _ => Outside::Refused {
            code,
            message: message.to_owned(),
        },
    }
}
