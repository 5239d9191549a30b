//! The server restarting for an update (A9): a room closed for a drain or a shutdown, or an ask
//! answered `server_draining`. The screen says so plainly and offers a new room (`n`) or the
//! pool (`p`); the connection task sends that ask on a new connection, which a balancer sends to
//! a server that stays.
//!
//! The restart's state is the [`Outside::Restarting`] screen; these are its decisions. The app
//! clears the rest of the screen around them (`on_server`, `on_key`).

use engine::Difficulty;
use protocol::{ErrorCode, RoomCode, ServerMsg, SettingsRequest};

use super::keys::Action;
use super::Outside;
use crate::net::Intent;

impl Outside {
    /// The restart screen, if `msg` is the server restarting; `prev_room` is the room we were
    /// in, and `difficulty` the one we last raced or asked for.
    pub(super) fn restart(
        msg: &ServerMsg,
        prev_room: Option<String>,
        difficulty: Difficulty,
    ) -> Option<Outside> {
        let room = match msg {
            ServerMsg::RoomClosed { room, .. } if crate::net::restarting(msg) => Some(room.clone()),
            ServerMsg::Error {
                code: ErrorCode::ServerDraining,
                ..
            } => prev_room.and_then(|r| RoomCode::try_from(r.as_str()).ok()),
            _ => return None,
        };
        Some(Outside::Restarting { room, difficulty })
    }

    /// `n` (a new room) or `p` (Play now) on the restart screen: what to ask for, under `name`,
    /// on a new connection.
    pub(super) fn again(&self, action: Action, name: &str) -> Option<Intent> {
        let Outside::Restarting { difficulty, .. } = *self else {
            return None;
        };
        let name = name.to_owned();
        Some(match action {
            Action::PlayNow => Intent::Quick { difficulty, name },
            _ => Intent::Create {
                name,
                settings: Some(SettingsRequest {
                    difficulty: Some(difficulty.as_str().to_owned()),
                    ..SettingsRequest::default()
                }),
            },
        })
    }
}
