//! `leave`, and the messages the connection's room handles: ready, start, forfeit, place, chat,
//! settings and kick. What can be checked without the room (a cell's range, a chat line's
//! text, settings' bounds) is checked here, so a bad message never reaches the room.

use protocol::{ErrorCode, MsgId, SettingsRequest};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::oneshot;

use super::Session;

/// Longest `report` reason, in characters (A8).
pub const MAX_REASON_CHARS: usize = 200;

/// A report's reason as A8 allows it: 1..=200 characters, none of them control characters
/// (a reason is shown to moderators as a line).
pub fn check_reason(reason: &str) -> Result<(), &'static str> {
    let n = reason.chars().count();
    if n == 0 || reason.trim().is_empty() {
        return Err("a report needs a reason");
    }
    if n > MAX_REASON_CHARS {
        return Err("a reason is at most 200 characters");
    }
    if reason.chars().any(char::is_control) {
        return Err("a reason has no control characters");
    }
    Ok(())
}
use crate::room::handle::{RoomCmd, RoomHandle, RoomMsg};

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

    /// `report` (A8): a reason of 1 to [`MAX_REASON_CHARS`] characters without control
    /// characters (else `bad_message`); the room checks who is reported.
    pub(super) async fn report(&mut self, player_id: String, reason: String) {
        if let Err(why) = check_reason(&reason) {
            return self.error(ErrorCode::BadMessage, why);
        }
        self.forward(RoomMsg::Report { player_id, reason }).await;
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
        if !send(&room, cmd).await {
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
        if !send(&room, cmd).await {
            self.link = None;
            self.error(ErrorCode::NotInRoom, "not in a room");
        }
    }
}

/// Send `cmd` to `room`; whether the room is still there. A queue with room takes it at once;
/// only a full one is waited for, boxed: `Sender::send`'s future holds the command (and its
/// wait), and inline it would be part of every connection's task, idle or not.
async fn send(room: &RoomHandle, cmd: RoomCmd) -> bool {
    match room.tx.try_send(cmd) {
        Ok(()) => true,
        Err(TrySendError::Closed(_)) => false,
        Err(TrySendError::Full(cmd)) => Box::pin(room.tx.send(cmd)).await.is_ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::check_reason;

    #[test]
    fn reasons_are_one_line_of_one_to_200_characters() {
        assert!(check_reason("typed faster than a human").is_ok());
        assert!(
            check_reason(&"é".repeat(200)).is_ok(),
            "characters, not bytes"
        );
        for bad in ["", "   ", "two\nlines", "bell\u{7}"] {
            assert!(check_reason(bad).is_err(), "{bad:?}");
        }
        assert!(check_reason(&"x".repeat(201)).is_err());
    }
}
