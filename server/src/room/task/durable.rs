//! What a journaling room sends waits for its log (write-ahead): a client is never told of a
//! command that a replay — on another node after a takeover, or here after a crash — would
//! not have. While the log's store cannot be reached the room is frozen: what comes is
//! answered `room_moving` (A12: not accepted, try again) and not applied; once the store
//! answers, the room goes on, or, when another server holds the room now (the log's fence
//! refused it), the room is given up here.

use std::time::Duration;

use protocol::ServerMsg;
use tokio::sync::mpsc;

use super::{endpoint, now, JoinOutcome, Link, Reply, RoomCmd, Task};
use crate::outbox::{encode, CloseCode};
use crate::room::command::Command;
use crate::room::directory::LogError;
use crate::room::endpoint::Endpoint;

/// When a client told `room_moving` should try again.
const MOVING_RETRY_MS: u64 = 250;

/// `error` `room_moving` (A12): the room's command was not taken, and its sender tries again
/// after `retry_ms`. Said by the room, by a connection whose join waits, and by the relay.
pub fn room_moving(message: &str) -> ServerMsg {
    ServerMsg::Error {
        code: protocol::ErrorCode::RoomMoving,
        message: message.into(),
        retry_ms: Some(MOVING_RETRY_MS),
    }
}

/// How long a frozen room waits before giving its unkept entries again.
const RETRY: Duration = Duration::from_millis(100);

impl Task {
    /// Wait until the log keeps every entry given so far; `false`: the room is given up here
    /// (its effects are not sent).
    pub(super) async fn settled(&mut self, rx: &mut mpsc::Receiver<RoomCmd>) -> bool {
        if self.abandoned.is_some() {
            return false;
        }
        let mut frozen_at = None;
        loop {
            let Some(ask) = self
                .journal
                .as_ref()
                .filter(|j| j.pending())
                .and_then(|j| j.sync())
            else {
                return true;
            };
            match ask.await.unwrap_or(Err(LogError::Fenced)) {
                Ok(()) => {
                    if let Some(j) = &self.journal {
                        j.synced();
                    }
                    if let Some(at) = frozen_at {
                        let frozen_ms = now().saturating_duration_since(at).as_millis();
                        tracing::info!(frozen_ms, "the room's log is reachable again");
                    }
                    return true;
                }
                Err(LogError::Unavailable) => {
                    if frozen_at.is_none() {
                        tracing::warn!("the room's log cannot be reached: frozen");
                        frozen_at = Some(now());
                    }
                    self.refuse_until(rx, now() + RETRY).await;
                    if let Some(j) = &self.journal {
                        j.resend();
                    }
                }
                Err(why) => {
                    self.abandoned = Some(why);
                    return false;
                }
            }
        }
    }

    /// Frozen until `until`: each command that comes is answered `room_moving` and not
    /// applied; a dropped connection and the room's own commands wait for the thaw.
    async fn refuse_until(
        &mut self,
        rx: &mut mpsc::Receiver<RoomCmd>,
        until: tokio::time::Instant,
    ) {
        loop {
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(cmd) => self.refuse(cmd),
                    None => return tokio::time::sleep_until(until).await,
                },
                () = tokio::time::sleep_until(until) => return,
            }
        }
    }

    /// A command that came while frozen. A member on another node is not answered: its
    /// command came through Redis, which every subscriber of the room's channel heard — a
    /// room's new owner too, if this one lost it — so it waits for the thaw (and is dropped
    /// if the room is given up). A member here is told `room_moving`.
    fn refuse(&mut self, cmd: RoomCmd) {
        let RoomCmd::Member { conn, cmd, link } = cmd else {
            self.deferred.push(cmd);
            return;
        };
        let remote = match &link {
            Link::Enter(endpoint, _) => matches!(endpoint, Endpoint::Remote(_)),
            _ => matches!(self.conns.get(&conn), Some(Endpoint::Remote(_))),
        };
        if remote || matches!(cmd, Command::Dropped) {
            self.deferred.push(RoomCmd::Member { conn, cmd, link });
            return;
        }
        match link {
            Link::Enter(_, reply) => drop(reply.send(JoinOutcome::Moving)),
            Link::Leave(reply) => drop(reply.send(false)),
            Link::Requeue(reply) => drop(reply.send(None)),
            Link::None => {
                let why = "the race's server cannot keep it right now: trying again";
                let bytes = encode(&room_moving(why));
                let to = self.conns.get(&conn).into_iter();
                endpoint::deliver(to, &bytes, &self.env.metrics);
            }
        }
    }

    /// Stop running the room here (another server holds it now): its members here are told
    /// the race is moving and closed, to resume wherever it runs; members on other servers
    /// hear from its new owner. Nothing it keeps elsewhere (keys, tokens, log) is touched.
    pub(super) fn abandon(&mut self, why: LogError, rx: &mut mpsc::Receiver<RoomCmd>) {
        tracing::warn!(error = %why, "the room is given up here");
        let bytes = encode(&room_moving(
            "the race moved to another server: reconnect and resume",
        ));
        for c in self.conns.values() {
            if let Endpoint::Local(o) = c {
                o.push_text(bytes.clone(), &self.env.metrics);
                c.close(CloseCode::ServiceRestart);
            }
        }
        self.conns.clear();
        for reply in self.replies.drain(..) {
            if let Reply::Join(tx, _) = reply {
                let _ = tx.send(JoinOutcome::Moving);
            }
        }
        // What waited for the thaw is dropped: a member here that wanted in hears the room
        // moved; one on another node hears from the room's new owner, which heard it too.
        for cmd in std::mem::take(&mut self.deferred) {
            if let RoomCmd::Member {
                link: Link::Enter(Endpoint::Local(_), reply),
                ..
            } = cmd
            {
                let _ = reply.send(JoinOutcome::Moving);
            }
        }
        // Whoever waits to get in here is told to try again: the room runs elsewhere now.
        while let Ok(cmd) = rx.try_recv() {
            if let RoomCmd::Member {
                link: Link::Enter(Endpoint::Local(_), reply),
                ..
            } = cmd
            {
                let _ = reply.send(JoinOutcome::Moving);
            }
        }
        self.unregistered = true;
        self.env.directory.abandon(self.room.code(), self.ip);
        self.env.metrics.rooms.dec();
    }
}
