//! What a session asks for right after `welcome` ([`Intent`]), and the A7 requests it and the
//! rejoin path build alike (the session stamps the identity key on them).

use protocol::{ClientMsg, SettingsRequest};

/// What the session does right after its first `welcome`.
#[derive(Clone, Debug, PartialEq)]
pub enum Intent {
    /// Open a room and become its host.
    Create {
        /// Display name.
        name: String,
        /// Room settings (server defaults where absent).
        settings: Option<SettingsRequest>,
    },
    /// Join a room as a player.
    Join {
        /// Room code.
        room: String,
        /// Display name.
        name: String,
    },
    /// Watch a room.
    Spectate {
        /// Room code.
        room: String,
        /// Display name.
        name: String,
        /// Ask for the players' delayed boards (A8).
        boards: bool,
    },
    /// Play today's daily challenge (A6): needs the session's identity key.
    Daily {
        /// Which of the day's four puzzles.
        difficulty: engine::Difficulty,
        /// Of which variant (A10: a day has its puzzles per variant).
        variant: engine::Variant,
        /// Display name (the room shows the handle).
        name: String,
    },
    /// Race strangers (A7): join the pool of a difficulty and wait to be seated.
    Quick {
        /// The pool's difficulty.
        difficulty: engine::Difficulty,
        /// The pool's variant (A10: pools are per variant and difficulty).
        variant: engine::Variant,
        /// Display name.
        name: String,
    },
    /// Race a stored race's ghost (A7 `race_ghost`) in a private room of our own.
    Ghost {
        /// A race id, `best` (our own best at `difficulty`: needs the identity key) or `daily`
        /// (today's daily winner at `difficulty`).
        ghost: String,
        /// For `best` and `daily` (the server's default is medium).
        difficulty: Option<engine::Difficulty>,
        /// For `best` and `daily`: of which variant (A10).
        variant: engine::Variant,
        /// Display name.
        name: String,
    },
    /// Join an arena (A7 `join_arena`: needs the identity key) and race its members back to
    /// back while it runs.
    Arena {
        /// The arena, as `/api/arenas` lists it.
        arena_id: String,
        /// Display name.
        name: String,
    },
    /// Enter no room (e.g. to list rooms).
    Nothing,
}

impl Intent {
    /// The message that asks the server for what the intent wants.
    pub fn first_message(&self) -> Option<ClientMsg> {
        match self {
            Intent::Create { name, settings } => Some(ClientMsg::CreateRoom {
                name: name.clone(),
                settings: settings.clone(),
                key: None,
                bot: false,
                variants: crate::net::drawn(),
            }),
            Intent::Join { room, name } => Some(ClientMsg::JoinRoom {
                room: room.clone(),
                name: name.clone(),
                key: None,
                bot: false,
                variants: crate::net::drawn(),
            }),
            Intent::Spectate { room, name, boards } => Some(ClientMsg::Spectate {
                room: room.clone(),
                name: Some(name.clone()),
                key: None,
                boards: *boards,
                variants: crate::net::drawn(),
            }),
            Intent::Quick {
                difficulty,
                variant,
                name,
            } => Some(quick_race(*difficulty, *variant, name)),
            Intent::Ghost {
                ghost,
                difficulty,
                variant,
                name,
            } => Some(race_ghost(ghost, *difficulty, *variant, name)),
            Intent::Arena { arena_id, name } => Some(join_arena(arena_id, name)),
            // The daily is asked with the identity key, which only the session holds.
            Intent::Daily { .. } | Intent::Nothing => None,
        }
    }
}

/// The variants this client draws, for every hello (A10 `variants`): all of them, so the
/// server deals any room's or pool's puzzle.
pub fn drawn() -> Option<Vec<String>> {
    Some(protocol::variant::all_names())
}

/// A request's `variant` (A10): absent for classic, as a server from before variants expects.
pub fn wire_variant(variant: engine::Variant) -> Option<String> {
    (variant != engine::Variant::Classic).then(|| variant.as_str().to_owned())
}

/// `quick_race` for the pool of `difficulty` and `variant` (the session stamps the key on it).
pub(crate) fn quick_race(
    difficulty: engine::Difficulty,
    variant: engine::Variant,
    name: &str,
) -> ClientMsg {
    ClientMsg::QuickRace {
        difficulty: difficulty.as_str().to_owned(),
        name: name.to_owned(),
        key: None,
        bot: false,
        variant: wire_variant(variant),
        variants: crate::net::drawn(),
    }
}

/// `race_ghost` for `ghost` (the session stamps the key on it).
pub(crate) fn race_ghost(
    ghost: &str,
    difficulty: Option<engine::Difficulty>,
    variant: engine::Variant,
    name: &str,
) -> ClientMsg {
    ClientMsg::RaceGhost {
        ghost: ghost.to_owned(),
        difficulty: difficulty.map(|d| d.as_str().to_owned()),
        name: name.to_owned(),
        key: None,
        variant: wire_variant(variant),
        variants: crate::net::drawn(),
    }
}

/// `join_arena` for `arena_id` (the session stamps the key on it).
pub(crate) fn join_arena(arena_id: &str, name: &str) -> ClientMsg {
    ClientMsg::JoinArena {
        arena_id: arena_id.to_owned(),
        name: name.to_owned(),
        key: None,
        variant: None,
        variants: crate::net::drawn(),
    }
}
