//! `list_rooms`, `create_room`, `join_room`, `spectate` and `resume`: finding a room and
//! entering it. Rooms are found and opened through [`crate::room::rooms::Rooms`], on this node
//! or whichever node owns them; the room entered becomes the connection's [`RoomLink`]. The
//! caller has checked that the connection is in no room and in no pool.

use protocol::variant::Draws;
use protocol::{ErrorCode, Role, ServerMsg, Settings, SettingsRequest};
use tokio::sync::oneshot;

use super::in_room::RoomLink;
use super::peer::Peer;
use crate::puzzles::SolvedPuzzle;
use crate::room::endpoint::Endpoint;
use crate::room::handle::{Identity, RoomCmd};
use crate::room::rules::GhostRun;
use crate::room::task::NewRoom;

/// `list_rooms`: the public rooms (A5).
pub(super) async fn list_rooms(peer: &Peer) {
    let rooms = peer.server.play.rooms.list_public().await;
    peer.send(&ServerMsg::RoomList { rooms });
}

/// `create_room`: a new room with this connection as its host.
pub(super) async fn create(
    peer: &mut Peer,
    link: &mut RoomLink,
    name: String,
    settings: Option<SettingsRequest>,
    who: Identity,
) {
    let settings = match settings.unwrap_or_default().resolve() {
        Ok(s) => s,
        Err(e) => return peer.error(ErrorCode::InvalidSettings, e.to_string()),
    };
    if !who.draws.has(settings.variant) {
        let v = settings.variant;
        let why = format!("your client cannot draw {v} sudoku: send it in `variants`");
        return peer.error(ErrorCode::UnsupportedVariant, why);
    }
    open_room(peer, link, name, settings, who, None, None).await;
}

/// Open a room as its host; true once in it.
pub(super) async fn open_room(
    peer: &mut Peer,
    link: &mut RoomLink,
    name: String,
    settings: Settings,
    who: Identity,
    daily: Option<(String, SolvedPuzzle)>,
    ghost: Option<Box<GhostRun>>,
) -> bool {
    let name = match protocol::PlayerName::try_from(name.as_str()) {
        Ok(n) => n.to_string(),
        Err(why) => {
            peer.error(ErrorCode::InvalidName, why.to_string());
            return false;
        }
    };
    let generation = peer.outbox.room_gen();
    let new = NewRoom {
        ip: peer.client,
        settings,
        creator: Endpoint::Local(peer.outbox.clone()),
        name,
        who,
        daily,
        ghost,
    };
    match peer.server.play.rooms.open(new).await {
        Ok((room, answer)) => link.linked(peer, room, generation, answer).await,
        Err(e) => {
            peer.error(e.code(), e.to_string());
            false
        }
    }
}

/// `join_room` and `spectate`: take a seat or watch. Whether the connection is now in.
pub(super) async fn enter(
    peer: &mut Peer,
    link: &mut RoomLink,
    code: &str,
    name: Option<String>,
    role: Role,
    who: Identity,
) -> bool {
    let found = match protocol::RoomCode::try_from(code) {
        Ok(c) => peer.server.play.rooms.find(&c).await,
        Err(_) => None,
    };
    let Some(room) = found else {
        peer.error(ErrorCode::UnknownRoom, format!("no room {code:?}"));
        return false;
    };
    let generation = peer.outbox.room_gen();
    let (reply, answer) = oneshot::channel();
    let conn = Endpoint::Local(peer.outbox.clone());
    let cmd = RoomCmd::join(conn, peer.client, name, role, who, reply);
    if room.tx.send(cmd).await.is_err() {
        peer.error(ErrorCode::UnknownRoom, format!("no room {code:?}"));
        return false;
    }
    link.linked(peer, room, generation, answer).await
}

/// `resume`: back into the seat a token holds, from a client that draws `draws` (A10).
pub(super) async fn resume(peer: &mut Peer, link: &mut RoomLink, token: String, draws: Draws) {
    let token = protocol::ResumeToken::from(token);
    let Some(room) = peer.server.play.rooms.find_by_token(&token).await else {
        return peer.error(ErrorCode::InvalidToken, "unknown or expired token");
    };
    let generation = peer.outbox.room_gen();
    let (reply, answer) = oneshot::channel();
    let cmd = RoomCmd::resume(Endpoint::Local(peer.outbox.clone()), token, draws, reply);
    if room.tx.send(cmd).await.is_err() {
        return peer.error(ErrorCode::InvalidToken, "unknown or expired token");
    }
    link.linked(peer, room, generation, answer).await;
}
