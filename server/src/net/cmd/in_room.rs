//! The room a connection is in ([`RoomLink`]), and what goes to it: `leave`, round-trip
//! samples, and the messages a room handles (read and checked by `room::command`, so a bad
//! message never reaches the room).

use protocol::ErrorCode;
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::oneshot;

use super::peer::Peer;
use crate::outbox::ConnId;
use crate::room::handle::{JoinOutcome, RoomCmd, RoomHandle, RoomMsg};

/// The room a connection is in, valid while the room has not let go of it: the room's handle
/// and the connection's room generation when it joined (a newer one means the room let go).
#[derive(Default)]
pub(super) struct RoomLink(Option<Link>);

struct Link {
    room: RoomHandle,
    generation: u64,
}

impl RoomLink {
    /// In `room` from now, joined at the connection's room generation `generation`.
    pub(super) fn set(&mut self, room: RoomHandle, generation: u64) {
        self.0 = Some(Link { room, generation });
    }

    /// Out of whatever room it was in.
    pub(super) fn clear(&mut self) {
        self.0 = None;
    }

    /// The room, if it still holds the connection, whose room generation is now `now_gen`.
    pub(super) fn current(&mut self, now_gen: u64) -> Option<RoomHandle> {
        match &self.0 {
            Some(l) if l.generation == now_gen && !l.room.tx.is_closed() => Some(l.room.clone()),
            Some(_) => {
                self.0 = None;
                None
            }
            None => None,
        }
    }

    /// `leave`: out of `room` (a seat mid-race is forfeited by the room).
    pub(super) async fn leave(&mut self, peer: &mut Peer, room: RoomHandle) {
        self.0 = None;
        let (reply, answer) = oneshot::channel();
        let cmd = RoomCmd::leave(peer.outbox.id, reply);
        if room.tx.send(cmd).await.is_err() {
            return peer.error(ErrorCode::NotInRoom, "not in a room");
        }
        if !matches!(answer.await, Ok(true)) {
            peer.error(ErrorCode::NotInRoom, "not in a room");
        }
    }

    /// A round trip measured to connection `id` (A8), for `room`.
    pub(super) async fn lag_sample(&mut self, id: ConnId, room: RoomHandle, rtt_ms: u32) {
        let cmd = RoomCmd::msg(id, RoomMsg::Lag { ms: rtt_ms });
        if !send(&room, cmd).await {
            self.0 = None;
        }
    }

    /// A message for `room` from the connection.
    pub(super) async fn forward(&mut self, peer: &mut Peer, room: RoomHandle, msg: RoomMsg) {
        let cmd = RoomCmd::msg(peer.outbox.id, msg);
        if !send(&room, cmd).await {
            self.0 = None;
            peer.error(ErrorCode::NotInRoom, "not in a room");
        }
    }

    /// Wait for the room's answer to a join, create or resume; linked on success.
    pub(super) async fn linked(
        &mut self,
        peer: &mut Peer,
        room: RoomHandle,
        generation: u64,
        answer: oneshot::Receiver<JoinOutcome>,
    ) -> bool {
        match answer.await {
            Ok(JoinOutcome::Refused) => false,
            Ok(JoinOutcome::Moving) => {
                peer.moving();
                false
            }
            Ok(joined) => {
                let span = tracing::Span::current();
                span.record("room", room.code.as_str());
                if let JoinOutcome::Player(pid) = &joined {
                    span.record("player_id", pid.as_str());
                }
                self.set(room, generation);
                true
            }
            Err(_) => {
                peer.error(ErrorCode::UnknownRoom, "the room has closed");
                false
            }
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
