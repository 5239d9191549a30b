//! `leave`, and the way to the connection's room for the messages it handles (read and
//! checked by `room::command`, so a bad message never reaches the room).

use protocol::ErrorCode;
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::oneshot;

use super::Session;

use crate::room::handle::{RoomCmd, RoomHandle, RoomMsg};

impl Session {
    /// `leave`: out of the room (a seat mid-race is forfeited by the room).
    pub(super) async fn leave(&mut self) {
        let Some(room) = self.current() else {
            return self.not_in_room();
        };
        self.link = None;
        let (reply, answer) = oneshot::channel();
        let cmd = RoomCmd::leave(self.outbox.id, reply);
        if room.tx.send(cmd).await.is_err() {
            return self.error(ErrorCode::NotInRoom, "not in a room");
        }
        if !matches!(answer.await, Ok(true)) {
            self.error(ErrorCode::NotInRoom, "not in a room");
        }
    }

    /// A round trip measured to this connection (A8), for its room; nothing to say if it has
    /// none (the probe outlived its room).
    pub(crate) async fn lag_sample(&mut self, rtt_ms: u32) {
        let Some(room) = self.current() else {
            return;
        };
        let cmd = RoomCmd::msg(self.outbox.id, RoomMsg::Lag { ms: rtt_ms });
        if !send(&room, cmd).await {
            self.link = None;
        }
    }

    /// A message for the connection's room.
    pub(super) async fn forward(&mut self, msg: RoomMsg) {
        let Some(room) = self.current() else {
            return self.not_in_room();
        };
        let cmd = RoomCmd::msg(self.outbox.id, msg);
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
