//! `leave`, and the messages the connection's room handles: ready, start, forfeit, place, chat,
//! settings and kick. What can be checked without the room (a cell's range, a chat line's
//! text, settings' bounds) is checked here, so a bad message never reaches the room.

use protocol::{ErrorCode, MsgId, SettingsRequest};
use tokio::sync::oneshot;

use super::Session;
use crate::room::handle::{RoomCmd, RoomMsg};

impl Session {
    /// `leave`: out of the room (a seat mid-race is forfeited by the room).
    pub(super) async fn leave(&mut self) {
        let Some(room) = self.current() else {
            return self.not_in_room();
        };
        self.link = None;
        let (reply, answer) = oneshot::channel();
        let cmd = RoomCmd::Leave {
            conn: self.outbox.id,
            reply,
        };
        if room.tx.send(cmd).await.is_err() {
            return self.error(ErrorCode::NotInRoom, "not in a room");
        }
        if !matches!(answer.await, Ok(true)) {
            self.error(ErrorCode::NotInRoom, "not in a room");
        }
    }

    /// `place`: a digit, checked against the board's ranges here and the solution by the room.
    pub(super) async fn place(&mut self, cell: i64, digit: i64, id: Option<MsgId>) {
        let (cell, digit) = match protocol::convert::place_target(cell, digit) {
            Ok(t) => t,
            Err(e) => return self.error(ErrorCode::BadMessage, e.to_string()),
        };
        self.forward(RoomMsg::Place { cell, digit, id }).await;
    }

    /// `chat`: a line that keeps to A3's rules.
    pub(super) async fn chat(&mut self, text: String) {
        if let Err(why) = protocol::text::check_chat(&text) {
            return self.error(ErrorCode::BadMessage, why.to_string());
        }
        self.forward(RoomMsg::Chat(text)).await;
    }

    /// `set_settings`: settings within the contract's bounds; the room decides whether the
    /// sender may change them.
    pub(super) async fn set_settings(&mut self, settings: SettingsRequest) {
        match settings.resolve() {
            Ok(s) => self.forward(RoomMsg::SetSettings(s)).await,
            Err(e) => self.error(ErrorCode::InvalidSettings, e.to_string()),
        }
    }

    /// A round trip measured to this connection (A8), for its room; nothing to say if it has
    /// none (the probe outlived its room).
    pub(crate) async fn lag_sample(&mut self, rtt_ms: u32) {
        let Some(room) = self.current() else {
            return;
        };
        let cmd = RoomCmd::Msg {
            conn: self.outbox.id,
            msg: RoomMsg::Lag(rtt_ms),
        };
        if room.tx.send(cmd).await.is_err() {
            self.link = None;
        }
    }

    /// A message for the connection's room.
    pub(super) async fn forward(&mut self, msg: RoomMsg) {
        let Some(room) = self.current() else {
            return self.not_in_room();
        };
        let cmd = RoomCmd::Msg {
            conn: self.outbox.id,
            msg,
        };
        if room.tx.send(cmd).await.is_err() {
            self.link = None;
            self.error(ErrorCode::NotInRoom, "not in a room");
        }
    }
}
