//! One WebSocket connection after its handshake: the writer task ([`super::writer`]), and the
//! reader loop that checks limits, parses client messages and routes them to the connection's
//! room; then the close, which lingers for the client's side of it.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::SplitStream;
use futures::StreamExt;
use protocol::{ClientMsg, ErrorCode, Role, ServerMsg, PROTOCOL_VERSION};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::error::{CapacityError, Error as WsError, ProtocolError};
use tokio_tungstenite::tungstenite::Message;
use tokio_util::task::AbortOnDropHandle;

use super::rate::{RateLimiter, Verdict};
use super::writer::{self, ReadEnd, Ws};
use super::{daily, identity};
use super::{Slot, Transport};
use crate::outbox::{CloseCode, ConnId, Outbox};
use crate::room::handle::{JoinOutcome, RoomCmd, RoomHandle, RoomMsg, Who};
use crate::room::remote::Member;
use crate::room::task;

/// How long a connection in a room waits at shutdown for its room to say `room_closed`.
const ROOM_CLOSE_WAIT: Duration = Duration::from_secs(2);

/// The room this connection is in, valid while the room has not let go of it.
struct Link {
    room: RoomHandle,
    generation: u64,
}

struct Reader {
    server: Arc<Transport>,
    handle: Outbox,
    /// The client's address (the peer's, or a trusted proxy's word for it).
    client: IpAddr,
    link: Option<Link>,
    warned: bool,
    /// Identities this connection has registered.
    registered: u8,
}

/// Serve one upgraded connection until it closes. `slot` is its place under the connection
/// cap; one that came in over the cap gets `welcome`, `server_full` and close 1013.
pub(super) async fn serve(slot: Arc<Slot>, ws: Ws, client: IpAddr, id: ConnId) {
    let server = slot.server.clone();
    let metrics = server.metrics.clone();
    metrics.connections.inc();
    metrics.connections_total.inc();
    let (sink, mut stream) = ws.split();
    let (tx, rx) = mpsc::channel(server.config.limits.out_queue.max(4));
    let handle = Outbox::new(id, tx, server.config.limits.slow_rule());
    let ping_every = (server.config.limits.idle_timeout / 2).max(Duration::from_millis(100));
    let writer = AbortOnDropHandle::new(tokio::spawn(writer::write_loop(
        sink,
        rx,
        handle.clone(),
        ping_every,
        metrics.clone(),
    )));
    handle.send(
        &ServerMsg::Welcome {
            protocol: PROTOCOL_VERSION,
            server: server.config.server_name.clone(),
        },
        &metrics,
    );
    let end = if !slot.admitted {
        tracing::warn!("connection limit reached");
        handle.send(
            &ServerMsg::Error {
                code: ErrorCode::ServerFull,
                message: "the server is at its connection limit".into(),
            },
            &metrics,
        );
        handle.close(CloseCode::TryLater);
        ReadEnd::Open
    } else {
        tracing::debug!("connected");
        let mut reader = Reader {
            server: server.clone(),
            handle: handle.clone(),
            client,
            link: None,
            warned: false,
            registered: 0,
        };
        let end = reader.run(&mut stream).await;
        if let Some(room) = reader.current() {
            let _ = room.tx.send(RoomCmd::Dropped { conn: handle.id }).await;
        }
        end
    };
    handle.close_quietly();
    writer::linger(stream, writer, end).await;
    metrics.connections.dec();
    let code = handle.close_code().map_or(0, CloseCode::as_u16);
    tracing::debug!(code, "closed");
}

impl Reader {
    fn current(&mut self) -> Option<RoomHandle> {
        let gen = self.handle.room_gen();
        match &self.link {
            Some(l) if l.generation == gen && !l.room.tx.is_closed() => Some(l.room.clone()),
            Some(_) => {
                self.link = None;
                None
            }
            None => None,
        }
    }

    fn send(&self, msg: &ServerMsg) {
        self.handle.send(msg, &self.server.metrics);
    }

    fn error(&mut self, code: ErrorCode, message: impl Into<String>) {
        let message = message.into();
        if matches!(code, ErrorCode::BadMessage | ErrorCode::RateLimited) && !self.warned {
            self.warned = true;
            tracing::warn!(?code, message, "misbehaving client");
        }
        self.send(&ServerMsg::Error { code, message });
    }

    /// Read until the connection is to close; how the reading ended.
    #[allow(clippy::disallowed_methods)] // idle and rate timers: transport reads the clock
    async fn run(&mut self, stream: &mut SplitStream<Ws>) -> ReadEnd {
        let limits = self.server.config.limits.clone();
        let mut rate = RateLimiter::new(
            limits.rate_limit,
            limits.rate_burst,
            limits.abuse_threshold,
            limits.abuse_window,
            Instant::now(),
        );
        let closing = self.handle.closing().clone();
        let shutdown = self.server.shutdown.clone();
        let mut last_seen = Instant::now();
        loop {
            let next = tokio::select! {
                biased;
                () = closing.cancelled() => return ReadEnd::Open,
                () = shutdown.cancelled() => {
                    if self.current().is_some() {
                        // The room sends `room_closed` and closes its members with 1001 (A5);
                        // if it is slow about it, the connection closes anyway.
                        let _ = tokio::time::timeout(ROOM_CLOSE_WAIT, closing.cancelled()).await;
                    }
                    self.handle.close(CloseCode::GoingAway);
                    return ReadEnd::Open;
                }
                () = tokio::time::sleep_until(last_seen + limits.idle_timeout) => {
                    tracing::info!("idle timeout");
                    self.handle.close(CloseCode::Normal);
                    return ReadEnd::Open;
                }
                m = stream.next() => m,
            };
            let msg = match next {
                None => return ReadEnd::Done,
                Some(Ok(m)) => m,
                Some(Err(e)) => return self.read_failed(e),
            };
            let now = Instant::now();
            last_seen = now;
            let text = match msg {
                Message::Text(t) => Some(t),
                Message::Binary(_) => None,
                Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => continue,
                Message::Close(_) => return ReadEnd::Done,
            };
            self.server.metrics.messages_in.inc();
            match rate.check(now) {
                Verdict::Allow => {}
                Verdict::Limited => {
                    self.server.metrics.rate_limited.inc();
                    self.error(ErrorCode::RateLimited, "too many messages; slow down");
                    continue;
                }
                Verdict::Abuse => {
                    self.server.metrics.rate_limited.inc();
                    self.server.metrics.rate_limit_closes.inc();
                    tracing::warn!("flooding past the rate limit: closing");
                    self.handle.close(CloseCode::Policy);
                    return ReadEnd::Open;
                }
            }
            match text {
                None => self.error(ErrorCode::BadMessage, "binary frames are not accepted"),
                Some(t) => match ClientMsg::from_json(&t) {
                    Ok(m) => {
                        tracing::debug!(msg = ?m, "received");
                        self.handle_msg(m).await;
                    }
                    Err(e) => self.error(ErrorCode::BadMessage, e.to_string()),
                },
            }
        }
    }

    /// The close a read error calls for (A2): 1009, 1007, 1002, or none when the socket failed.
    fn read_failed(&mut self, e: WsError) -> ReadEnd {
        let code = match e {
            WsError::Capacity(CapacityError::MessageTooLong { size, max_size }) => {
                tracing::warn!(size, max = max_size, "message too big");
                CloseCode::TooBig
            }
            WsError::Utf8 => {
                tracing::warn!("text frame is not UTF-8");
                CloseCode::InvalidData
            }
            // EOF without a Close frame: the client vanished, which is a drop, not misbehaviour.
            WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake) => {
                tracing::debug!("the client went away without a close");
                return ReadEnd::Done;
            }
            WsError::Protocol(e) => {
                tracing::warn!(error = %e, "websocket protocol error");
                CloseCode::Protocol
            }
            e => {
                tracing::debug!(error = %e, "read failed");
                return ReadEnd::Done;
            }
        };
        self.handle.close(code);
        ReadEnd::Broken
    }

    async fn handle_msg(&mut self, msg: ClientMsg) {
        match msg {
            ClientMsg::Ping { id } => self.send(&ServerMsg::Pong { id }),
            ClientMsg::ListRooms => {
                let dir = &self.server.rooms.directory;
                let rooms = match &self.server.cluster {
                    Some(node) => node.list_public(dir).await,
                    None => dir.list_public(),
                };
                self.send(&ServerMsg::RoomList { rooms });
            }
            ClientMsg::CreateRoom {
                name,
                settings,
                key,
                bot,
            } => {
                if let Some(who) = self.identify(key, bot).await {
                    self.create(name, settings, who).await;
                }
            }
            ClientMsg::JoinRoom {
                room,
                name,
                key,
                bot,
            } => {
                if let Some(who) = self.identify(key, bot).await {
                    self.enter(&room, Some(name), Role::Player, who).await;
                }
            }
            ClientMsg::Spectate { room, name, key } => {
                if let Some(who) = self.identify(key, false).await {
                    self.enter(&room, name, Role::Spectator, who).await;
                }
            }
            ClientMsg::Register { name } => self.register(name).await,
            ClientMsg::Resume { token } => self.resume(token).await,
            ClientMsg::Leave => self.leave().await,
            ClientMsg::SetReady { ready } => self.forward(RoomMsg::SetReady(ready)).await,
            ClientMsg::StartRace => self.forward(RoomMsg::StartRace).await,
            ClientMsg::Forfeit => self.forward(RoomMsg::Forfeit).await,
            ClientMsg::Place { cell, digit, id } => {
                let (c, d) = match protocol::convert::place_target(cell, digit) {
                    Ok(t) => t,
                    Err(e) => return self.error(ErrorCode::BadMessage, e.to_string()),
                };
                self.forward(RoomMsg::Place {
                    cell: c,
                    digit: d,
                    id,
                })
                .await;
            }
            ClientMsg::Chat { text } => {
                if let Err(why) = protocol::text::check_chat(&text) {
                    return self.error(ErrorCode::BadMessage, why.to_string());
                }
                self.forward(RoomMsg::Chat(text)).await;
            }
            ClientMsg::SetSettings { settings } => match settings.resolve() {
                Ok(s) => self.forward(RoomMsg::SetSettings(s)).await,
                Err(e) => self.error(ErrorCode::InvalidSettings, e.to_string()),
            },
            ClientMsg::Kick { player_id } => self.forward(RoomMsg::Kick(player_id)).await,
            ClientMsg::StartDaily { difficulty, key } => self.start_daily(difficulty, key).await,
        }
    }

    /// The identity behind a key (A6), or `None` once the refusal is sent.
    async fn identify(&mut self, key: Option<protocol::IdentityKey>, bot: bool) -> Option<Who> {
        match identity::identify(&self.server.rooms.store, key, bot).await {
            Ok(who) => Some(who),
            Err((code, message)) => {
                self.error(code, message);
                None
            }
        }
    }

    /// `register`: a new identity for this client. A connection gets a few (a player who lost
    /// a key may ask again); more are `rate_limited`, so one socket cannot fill the table.
    async fn register(&mut self, name: String) {
        if self.registered >= MAX_REGISTRATIONS {
            return self.error(
                ErrorCode::RateLimited,
                "too many identities from one connection",
            );
        }
        match identity::register(&self.server.rooms.store, &name, task::unix_ms()).await {
            Ok((key, handle)) => {
                self.registered += 1;
                tracing::info!(%handle, "registered a player");
                self.send(&ServerMsg::Registered { key, handle });
            }
            Err((code, message)) => self.error(code, message),
        }
    }

    fn already_in_room(&mut self) -> bool {
        if self.current().is_some() {
            self.error(ErrorCode::AlreadyInRoom, "leave your room first");
            return true;
        }
        false
    }

    /// Wait for the room's answer to a join, create or resume; link on success.
    async fn linked(
        &mut self,
        room: RoomHandle,
        generation: u64,
        answer: oneshot::Receiver<JoinOutcome>,
    ) -> bool {
        match answer.await {
            Ok(JoinOutcome::Refused) => false,
            Ok(joined) => {
                let span = tracing::Span::current();
                span.record("room", room.code.as_str());
                if let JoinOutcome::Player(pid) = &joined {
                    span.record("player_id", pid.as_str());
                }
                self.link = Some(Link { room, generation });
                true
            }
            Err(_) => {
                self.error(ErrorCode::UnknownRoom, "the room has closed");
                false
            }
        }
    }

    async fn create(
        &mut self,
        name: String,
        settings: Option<protocol::SettingsRequest>,
        who: Who,
    ) {
        if self.already_in_room() {
            return;
        }
        let settings = match settings.unwrap_or_default().resolve() {
            Ok(s) => s,
            Err(e) => return self.error(ErrorCode::InvalidSettings, e.to_string()),
        };
        self.open_room(name, settings, who, None).await;
    }

    /// Open a room as its host; true once in it.
    async fn open_room(
        &mut self,
        name: String,
        settings: protocol::Settings,
        who: Who,
        daily: Option<(String, crate::pool::Dealt)>,
    ) -> bool {
        let name = match protocol::PlayerName::try_from(name.as_str()) {
            Ok(n) => n.to_string(),
            Err(why) => {
                self.error(ErrorCode::InvalidName, why.to_string());
                return false;
            }
        };
        let generation = self.handle.room_gen();
        let new = task::NewRoom {
            ip: self.client,
            settings,
            creator: Member::Local(self.handle.clone()),
            name,
            who,
            daily,
        };
        let env = &self.server.rooms;
        let opened = match &self.server.cluster {
            Some(node) => node.open(env, new).await,
            None => task::open(env, None, new),
        };
        match opened {
            Ok((room, answer)) => self.linked(room, generation, answer).await,
            Err(e) => {
                self.error(e.code(), e.to_string());
                false
            }
        }
    }

    /// `start_daily`: a private one-seat room on the day's puzzle, started at once (A6).
    async fn start_daily(&mut self, difficulty: String, key: protocol::IdentityKey) {
        if self.already_in_room() {
            return;
        }
        let (who, name) = match identity::lookup(&self.server.rooms.store, Some(key), false).await {
            Ok(found) => found,
            Err((code, message)) => return self.error(code, message),
        };
        // A known key always names a handle and a name; the room and its one seat take the name
        // the player registered under, as any room takes its creator's.
        let (Some(handle), Some(name)) = (who.handle.clone(), name) else {
            return;
        };
        match daily::prepare(&self.server.rooms, &difficulty, &handle, task::unix_ms()).await {
            Ok(entry) => {
                let day = Some((entry.date, entry.puzzle));
                if self.open_room(name, entry.settings, who, day).await {
                    self.forward(RoomMsg::StartRace).await;
                }
            }
            Err((code, message)) => self.error(code, message),
        }
    }

    async fn enter(&mut self, code: &str, name: Option<String>, role: Role, who: Who) {
        if self.already_in_room() {
            return;
        }
        let found = match protocol::RoomCode::try_from(code) {
            Ok(c) => self.find(&c).await,
            Err(_) => None,
        };
        let Some(room) = found else {
            return self.error(ErrorCode::UnknownRoom, format!("no room {code:?}"));
        };
        let generation = self.handle.room_gen();
        let (reply, answer) = oneshot::channel();
        let cmd = RoomCmd::Join {
            conn: Member::Local(self.handle.clone()),
            addr: self.client,
            name,
            role,
            who,
            reply,
        };
        if room.tx.send(cmd).await.is_err() {
            return self.error(ErrorCode::UnknownRoom, format!("no room {code:?}"));
        }
        self.linked(room, generation, answer).await;
    }

    async fn resume(&mut self, token: String) {
        if self.already_in_room() {
            return;
        }
        let token = protocol::ResumeToken::from(token);
        let local = self.server.rooms.directory.find_by_token(&token);
        let room = match (local, &self.server.cluster) {
            (Some(r), _) => Some(r),
            (None, Some(node)) => node.find_by_token(&token).await,
            (None, None) => None,
        };
        let Some(room) = room else {
            return self.error(ErrorCode::InvalidToken, "unknown or expired token");
        };
        let generation = self.handle.room_gen();
        let (reply, answer) = oneshot::channel();
        let cmd = RoomCmd::Resume {
            conn: Member::Local(self.handle.clone()),
            token,
            reply,
        };
        if room.tx.send(cmd).await.is_err() {
            return self.error(ErrorCode::InvalidToken, "unknown or expired token");
        }
        self.linked(room, generation, answer).await;
    }

    /// The room with this code: this node's, or (cluster mode) another node's.
    async fn find(&self, code: &protocol::RoomCode) -> Option<RoomHandle> {
        if let Some(room) = self.server.rooms.directory.find(code) {
            return Some(room);
        }
        match &self.server.cluster {
            Some(node) => node.find(code).await,
            None => None,
        }
    }

    async fn leave(&mut self) {
        let Some(room) = self.current() else {
            return self.error(ErrorCode::NotInRoom, "not in a room");
        };
        self.link = None;
        let (reply, answer) = oneshot::channel();
        let cmd = RoomCmd::Leave {
            conn: self.handle.id,
            reply,
        };
        if room.tx.send(cmd).await.is_err() {
            return self.error(ErrorCode::NotInRoom, "not in a room");
        }
        if !matches!(answer.await, Ok(true)) {
            self.error(ErrorCode::NotInRoom, "not in a room");
        }
    }

    async fn forward(&mut self, msg: RoomMsg) {
        let Some(room) = self.current() else {
            return self.error(ErrorCode::NotInRoom, "not in a room");
        };
        let cmd = RoomCmd::Msg {
            conn: self.handle.id,
            msg,
        };
        if room.tx.send(cmd).await.is_err() {
            self.link = None;
            self.error(ErrorCode::NotInRoom, "not in a room");
        }
    }
}

/// Identities one connection may register.
const MAX_REGISTRATIONS: u8 = 3;
