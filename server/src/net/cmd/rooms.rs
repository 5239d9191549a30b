//! `list_rooms`, `create_room`, `join_room`, `spectate` and `resume`: finding a room and
//! entering it. Rooms are found and opened through [`crate::room::rooms::Rooms`], on this node
//! or whichever node owns them.

use protocol::{ErrorCode, Role, ServerMsg, Settings, SettingsRequest};
use tokio::sync::oneshot;

use super::Session;
use crate::puzzles::SolvedPuzzle;
use crate::room::endpoint::Endpoint;
use crate::room::handle::{Identity, RoomCmd};
use crate::room::rules::GhostRun;
use crate::room::task::NewRoom;

impl Session {
    /// `list_rooms`: the public rooms (A5).
    pub(super) async fn list_rooms(&mut self) {
        let rooms = self.server.rooms.list_public().await;
        self.send(&ServerMsg::RoomList { rooms });
    }

    /// `create_room`: a new room with this connection as its host.
    pub(super) async fn create(
        &mut self,
        name: String,
        settings: Option<SettingsRequest>,
        who: Identity,
    ) {
        if self.already_in_room() {
            return;
        }
        let settings = match settings.unwrap_or_default().resolve() {
            Ok(s) => s,
            Err(e) => return self.error(ErrorCode::InvalidSettings, e.to_string()),
        };
        self.open_room(name, settings, who, None, None).await;
    }

    /// Open a room as its host; true once in it.
    pub(super) async fn open_room(
        &mut self,
        name: String,
        settings: Settings,
        who: Identity,
        daily: Option<(String, SolvedPuzzle)>,
        ghost: Option<Box<GhostRun>>,
    ) -> bool {
        let name = match protocol::PlayerName::try_from(name.as_str()) {
            Ok(n) => n.to_string(),
            Err(why) => {
                self.error(ErrorCode::InvalidName, why.to_string());
                return false;
            }
        };
        let generation = self.outbox.room_gen();
        let new = NewRoom {
            ip: self.client,
            settings,
            creator: Endpoint::Local(self.outbox.clone()),
            name,
            who,
            daily,
            ghost,
        };
        match self.server.rooms.open(new).await {
            Ok((room, answer)) => self.linked(room, generation, answer).await,
            Err(e) => {
                self.error(e.code(), e.to_string());
                false
            }
        }
    }

    /// `join_room` and `spectate`: take a seat or watch. Whether the connection is now in.
    pub(super) async fn enter(
        &mut self,
        code: &str,
        name: Option<String>,
        role: Role,
        who: Identity,
    ) -> bool {
        if self.already_in_room() {
            return false;
        }
        let found = match protocol::RoomCode::try_from(code) {
            Ok(c) => self.server.rooms.find(&c).await,
            Err(_) => None,
        };
        let Some(room) = found else {
            self.error(ErrorCode::UnknownRoom, format!("no room {code:?}"));
            return false;
        };
        let generation = self.outbox.room_gen();
        let (reply, answer) = oneshot::channel();
        let conn = Endpoint::Local(self.outbox.clone());
        let cmd = RoomCmd::join(conn, self.client, name, role, who, reply);
        if room.tx.send(cmd).await.is_err() {
            self.error(ErrorCode::UnknownRoom, format!("no room {code:?}"));
            return false;
        }
        self.linked(room, generation, answer).await
    }

    /// `resume`: back into the seat a token holds.
    pub(super) async fn resume(&mut self, token: String) {
        if self.already_in_room() {
            return;
        }
        let token = protocol::ResumeToken::from(token);
        let Some(room) = self.server.rooms.find_by_token(&token).await else {
            return self.error(ErrorCode::InvalidToken, "unknown or expired token");
        };
        let generation = self.outbox.room_gen();
        let (reply, answer) = oneshot::channel();
        let cmd = RoomCmd::resume(Endpoint::Local(self.outbox.clone()), token, reply);
        if room.tx.send(cmd).await.is_err() {
            return self.error(ErrorCode::InvalidToken, "unknown or expired token");
        }
        self.linked(room, generation, answer).await;
    }
}
