//! The room task: the one owner of a room's [`Room`] state. It receives [`RoomCmd`]s, drives
//! the state machine's timers, and carries out its effects in order: each broadcast is
//! serialized once and the same bytes are queued to every recipient; a finished race is
//! stored (on a blocking thread) before anything after it is sent.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use protocol::{ServerMsg, Settings};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tracing::Instrument;

use super::race::{ConnId, Effect, Room, RoomOpts};
use super::{JoinReply, RoomCmd, RoomInfo, RoomMsg};
use crate::net::{encode, ConnHandle};
use crate::Server;

/// Start the task for a new room.
pub(crate) fn spawn(
    server: Arc<Server>,
    code: protocol::RoomCode,
    settings: Settings,
    rx: mpsc::Receiver<RoomCmd>,
    tx: mpsc::WeakSender<RoomCmd>,
    info: Arc<Mutex<RoomInfo>>,
    ip: IpAddr,
) {
    let opts = RoomOpts {
        countdown: server.config.countdown,
        resume_grace: server.config.resume_grace,
    };
    let room = Room::new(code.clone(), settings, opts, server.metrics.clone());
    let span = tracing::info_span!("room", room = %code);
    let tracker = server.room_tasks.clone();
    tracker.spawn(run(server, room, rx, tx, info, ip).instrument(span));
}

enum Reply {
    Join(oneshot::Sender<JoinReply>, JoinReply),
    Leave(oneshot::Sender<bool>, bool),
}

struct Task {
    server: Arc<Server>,
    room: Room,
    conns: HashMap<ConnId, ConnHandle>,
    tx: mpsc::WeakSender<RoomCmd>,
    /// Answers to send once the command's effects are queued, so that the connection's own
    /// later output (a pong, an error) never overtakes them.
    replies: Vec<Reply>,
    /// Connections that failed to join: forgotten once their error is queued.
    forget: Vec<ConnId>,
    /// The address that created the room (its rooms-per-address count).
    ip: IpAddr,
    /// Whether the room is out of the registry already.
    unregistered: bool,
}

async fn run(
    server: Arc<Server>,
    room: Room,
    mut rx: mpsc::Receiver<RoomCmd>,
    tx: mpsc::WeakSender<RoomCmd>,
    info: Arc<Mutex<RoomInfo>>,
    ip: IpAddr,
) {
    tracing::info!(settings = ?room.settings(), "room opened");
    let shutdown = server.shutdown.clone();
    let mut t = Task {
        server,
        room,
        conns: HashMap::new(),
        tx,
        replies: Vec::new(),
        forget: Vec::new(),
        ip,
        unregistered: false,
    };
    loop {
        let deadline = t.room.next_deadline();
        tokio::select! {
            cmd = rx.recv() => match cmd {
                Some(cmd) => t.command(cmd),
                None => break,
            },
            () = sleep_until(deadline) => t.room.tick(Instant::now()),
            () = shutdown.cancelled() => {
                t.room.shutdown(Instant::now());
                t.apply().await;
                break;
            }
        }
        t.apply().await;
        if let Ok(mut i) = info.lock() {
            i.phase = t.room.phase();
            i.players = t.room.n_players() as u32;
        }
        if t.room.is_empty() {
            break;
        }
    }
    t.unregister();
    // Commands still queued are dropped with the receiver: a pending join's reply channel
    // closes, and its connection answers `unknown_room`.
    rx.close();
    tracing::info!("room closed");
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

impl Task {
    fn command(&mut self, cmd: RoomCmd) {
        let now = Instant::now();
        match cmd {
            RoomCmd::Join {
                conn,
                name,
                role,
                reply,
            } => {
                let id = conn.id;
                self.conns.insert(id, conn);
                let ok = self.room.join(id, name.as_deref(), role, now);
                self.joined(id, ok, reply);
            }
            RoomCmd::Resume { conn, token, reply } => {
                let id = conn.id;
                self.conns.insert(id, conn);
                let ok = self.room.resume(id, &token, now);
                self.joined(id, ok, reply);
            }
            RoomCmd::Leave { conn, reply } => {
                let ok = self.room.leave(conn, now);
                self.replies.push(Reply::Leave(reply, ok));
            }
            RoomCmd::Dropped { conn } => {
                self.room.dropped(conn, now);
                self.conns.remove(&conn);
            }
            RoomCmd::Msg { conn, msg } => match msg {
                RoomMsg::SetReady(r) => self.room.set_ready(conn, r),
                RoomMsg::StartRace => self.room.start_race(conn, now),
                RoomMsg::Place { cell, digit, id } => self.room.place(conn, cell, digit, id, now),
                RoomMsg::Forfeit => self.room.forfeit(conn, now),
                RoomMsg::Chat(text) => self.room.chat(conn, text),
            },
            RoomCmd::PuzzleReady { race_id, dealt } => self.room.puzzle_ready(&race_id, dealt, now),
        }
    }

    fn joined(&mut self, id: ConnId, ok: bool, reply: oneshot::Sender<JoinReply>) {
        let answer = if ok {
            Some(self.room.player_id_of(id).map(str::to_owned))
        } else {
            self.forget.push(id);
            None
        };
        self.replies.push(Reply::Join(reply, answer));
    }

    fn deliver(&self, to: &[ConnId], msg: &ServerMsg) {
        if to.is_empty() {
            return;
        }
        let bytes = encode(msg);
        for id in to {
            if let Some(c) = self.conns.get(id) {
                c.send_text(bytes.clone(), &self.server.metrics);
            }
        }
    }

    /// Take the room out of the registry: nobody can find it any more, and it no longer
    /// counts against the server's or its creator's room limits.
    fn unregister(&mut self) {
        if std::mem::replace(&mut self.unregistered, true) {
            return;
        }
        self.server.rooms.remove(self.room.code());
        // Every seat is gone by now, and each seat's token was revoked as it went.
        self.server.release_ip(self.ip);
        self.server.metrics.rooms.dec();
    }

    /// Carry out the state machine's effects, in order.
    async fn apply(&mut self) {
        if self.room.is_empty() {
            // Before anyone hears of it (`player_left`, the leave's answer): a client that
            // reacts by creating a room must find the limits already freed.
            self.unregister();
        }
        loop {
            let effects = self.room.take_effects();
            if effects.is_empty() {
                break;
            }
            self.apply_batch(effects).await;
        }
        for id in self.forget.drain(..) {
            if !self.room.has_conn(id) {
                self.conns.remove(&id);
            }
        }
        for reply in self.replies.drain(..) {
            match reply {
                Reply::Join(tx, answer) => {
                    let _ = tx.send(answer);
                }
                Reply::Leave(tx, ok) => {
                    let _ = tx.send(ok);
                }
            }
        }
    }

    async fn apply_batch(&mut self, effects: Vec<Effect>) {
        for fx in effects {
            match fx {
                Effect::Send(to, msg) => self.deliver(&to, &msg),
                Effect::Detach(id) => {
                    if let Some(c) = self.conns.remove(&id) {
                        c.detach();
                    }
                }
                Effect::Close(id, code) => {
                    if let Some(c) = self.conns.remove(&id) {
                        c.detach();
                        c.close(code);
                    }
                }
                Effect::TokenIssued(token) => {
                    self.server.tokens.insert(token, self.room.code().clone());
                }
                Effect::TokenRevoked(token) => {
                    self.server.tokens.remove(&token);
                }
                Effect::NeedPuzzle(race_id) => self.need_puzzle(race_id),
                Effect::Store(record) => {
                    let store = self.server.store.clone();
                    let race_id = record.race_id.clone();
                    let res = tokio::task::spawn_blocking(move || store.save(&record)).await;
                    match res {
                        Ok(Ok(())) => {
                            self.server.metrics.races_finished.inc();
                        }
                        Ok(Err(e)) => {
                            self.server.metrics.store_errors.inc();
                            tracing::error!(race_id, error = %e, "storing the race results failed");
                        }
                        Err(e) => {
                            self.server.metrics.store_errors.inc();
                            tracing::error!(race_id, error = %e, "the results writer panicked");
                        }
                    }
                }
            }
        }
    }

    /// Take a puzzle from the pool now if one is ready, else have one delivered later.
    fn need_puzzle(&mut self, race_id: protocol::RaceId) {
        let difficulty = self.room.settings().difficulty;
        if let Some(dealt) = self.server.pool.try_take(difficulty) {
            // Its effects (race_started, when the countdown is zero) are applied by `apply`'s loop.
            self.room.puzzle_ready(&race_id, dealt, Instant::now());
            return;
        }
        let pool = self.server.pool.clone();
        let tx = self.tx.clone();
        let shutdown = self.server.shutdown.clone();
        self.server.room_tasks.spawn(async move {
            tokio::select! {
                dealt = pool.take(difficulty) => {
                    if let Some(tx) = tx.upgrade() {
                        let _ = tx.send(RoomCmd::PuzzleReady { race_id, dealt }).await;
                    }
                }
                () = shutdown.cancelled() => {}
            }
        });
    }
}
