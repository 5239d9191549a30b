//! The server restarting for an update (A9): a room closed for a drain or a shutdown, or an ask
//! answered `server_draining`. The screen says so plainly and offers a new room (`n`) or the
//! pool (`p`); the connection task sends that ask on a new connection, which a balancer sends to
//! a server that stays.

use protocol::{ErrorCode, RoomCode, ServerMsg, SettingsRequest};
use shared::engine::Difficulty;

use super::keys::Action;
use super::{App, Effect, Outside};
use crate::net::Intent;

impl App {
    /// Whether `msg` is the server restarting; if so the restart screen replaces whatever was
    /// shown. `prev_room` is the room we were in, if any.
    pub(super) fn restarted(&mut self, msg: &ServerMsg, prev_room: Option<String>) -> bool {
        let room = match msg {
            ServerMsg::RoomClosed { room, .. } if crate::net::restarting(msg) => Some(room.clone()),
            ServerMsg::Error {
                code: ErrorCode::ServerDraining,
                ..
            } => prev_room.and_then(|r| RoomCode::try_from(r.as_str()).ok()),
            _ => return false,
        };
        let difficulty = self.last_difficulty();
        self.tool = None;
        self.confirm = None;
        self.notice = None;
        self.seat_after_race = false;
        self.mirror.room = None;
        self.outside = Outside::Restarting { room, difficulty };
        true
    }

    /// The difficulty we last raced or asked for (medium if none).
    fn last_difficulty(&self) -> Difficulty {
        if let Some(room) = self.room() {
            return room.settings.difficulty;
        }
        match &self.intent {
            Some(Intent::Quick { difficulty, .. } | Intent::Daily { difficulty, .. }) => {
                *difficulty
            }
            Some(Intent::Ghost {
                difficulty: Some(d),
                ..
            }) => *d,
            Some(Intent::Create {
                settings: Some(s), ..
            }) => s
                .difficulty
                .as_deref()
                .and_then(|d| d.parse().ok())
                .unwrap_or(Difficulty::Medium),
            _ => Difficulty::Medium,
        }
    }

    /// `n` (a new room) or `p` (Play now) on the restart screen: the ask, for a new connection.
    pub(super) fn again(&mut self, action: Action) -> Vec<Effect> {
        let Outside::Restarting { difficulty, .. } = self.outside else {
            return Vec::new();
        };
        let name = self.name.clone();
        let intent = match action {
            Action::PlayNow => Intent::Quick { difficulty, name },
            _ => Intent::Create {
                name,
                settings: Some(SettingsRequest {
                    difficulty: Some(difficulty.as_str().to_owned()),
                    ..SettingsRequest::default()
                }),
            },
        };
        let ask = intent.first_message();
        self.intent = Some(intent);
        self.arena = None;
        self.outside = Outside::Entering;
        self.notify("reconnecting…", false);
        ask.map(Effect::Send).into_iter().collect()
    }
}
