//! One WebSocket connection: the handshake, a writer task that drains the bounded outgoing
//! queue (`feed` every ready message, `flush` once, ping on a timer), and the reader loop that
//! checks limits, parses client messages and routes them to the connection's room.

use std::net::SocketAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::{SplitSink, SplitStream};
use futures::{SinkExt, StreamExt};
use protocol::{ClientMsg, ErrorCode, Role, ServerMsg, PROTOCOL_VERSION};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::error::{CapacityError, Error as WsError};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode as WsCloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::rate::{RateLimiter, Verdict};
use super::Transport;
use crate::metrics::Metrics;
use crate::outbox::{CloseCode, ConnId, Outbox};
use crate::room::handle::{JoinOutcome, RoomCmd, RoomHandle, RoomMsg};
use crate::room::task;

type Ws = WebSocketStream<TcpStream>;

/// The room this connection is in, valid while the room has not let go of it.
struct Link {
    room: RoomHandle,
    generation: u64,
}

struct Reader {
    server: Arc<Transport>,
    handle: Outbox,
    peer: SocketAddr,
    link: Option<Link>,
    warned: bool,
}

/// Serve one upgraded connection until it closes.
pub(super) async fn serve(server: Arc<Transport>, stream: TcpStream, peer: SocketAddr, id: ConnId) {
    let config = super::tuning::websocket_config(server.config.limits.max_message_bytes);
    let ws = match tokio_tungstenite::accept_async_with_config(stream, Some(config)).await {
        Ok(ws) => ws,
        Err(e) => {
            tracing::debug!(error = %e, "handshake failed");
            return;
        }
    };
    let metrics = server.metrics.clone();
    let open = server.open_conns.fetch_add(1, Relaxed);
    metrics.connections.inc();
    metrics.connections_total.inc();
    let (sink, stream) = ws.split();
    let (tx, rx) = mpsc::channel(server.config.limits.out_queue.max(4));
    let handle = Outbox::new(id, tx, server.config.limits.slow_rule());
    let ping_every = (server.config.limits.idle_timeout / 2).max(Duration::from_millis(100));
    let writer = tokio::spawn(write_loop(
        sink,
        rx,
        handle.clone(),
        ping_every,
        metrics.clone(),
    ));
    handle.send(
        &ServerMsg::Welcome {
            protocol: PROTOCOL_VERSION,
            server: server.config.server_name.clone(),
        },
        &metrics,
    );
    if open >= server.config.limits.max_connections {
        tracing::warn!("connection limit reached");
        handle.send(
            &ServerMsg::Error {
                code: ErrorCode::ServerFull,
                message: "the server is at its connection limit".into(),
            },
            &metrics,
        );
        handle.close(CloseCode::TryLater);
    } else {
        tracing::debug!("connected");
        let mut reader = Reader {
            server: server.clone(),
            handle: handle.clone(),
            peer,
            link: None,
            warned: false,
        };
        reader.run(stream).await;
        if let Some(room) = reader.current() {
            let _ = room.tx.send(RoomCmd::Dropped { conn: handle.id }).await;
        }
    }
    handle.close_quietly();
    let _ = writer.await;
    server.open_conns.fetch_sub(1, Relaxed);
    metrics.connections.dec();
    let code = handle.close_code().map_or(0, CloseCode::as_u16);
    tracing::debug!(code, "closed");
}

#[allow(clippy::disallowed_methods)] // the ping timer starts now: transport reads the clock
async fn write_loop(
    mut sink: SplitSink<Ws, Message>,
    mut rx: mpsc::Receiver<Message>,
    handle: Outbox,
    ping_every: Duration,
    metrics: Arc<Metrics>,
) {
    let mut ping = tokio::time::interval_at(Instant::now() + ping_every, ping_every);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let closing = handle.closing().clone();
    loop {
        let first = tokio::select! {
            biased;
            () = closing.cancelled() => break,
            m = rx.recv() => match m {
                Some(m) => {
                    handle.taken(&m);
                    m
                }
                None => break,
            },
            _ = ping.tick() => Message::Ping(Default::default()),
        };
        let batch = async {
            sink.feed(first).await?;
            while let Ok(m) = rx.try_recv() {
                handle.taken(&m);
                sink.feed(m).await?;
            }
            sink.flush().await
        };
        let res = tokio::select! {
            r = batch => r,
            // A client that stopped reading blocks the flush: give up on it when asked.
            () = closing.cancelled() => break,
            // Or when its queue has not drained within the slow-reader rule.
            () = handle.stalled() => {
                handle.close_slow(&metrics);
                break;
            }
        };
        if let Err(e) = res {
            if matches!(e, WsError::WriteBufferFull(_)) {
                handle.close_slow(&metrics);
            } else {
                tracing::debug!(error = %e, "write failed");
                handle.close_quietly();
                return;
            }
            break;
        }
    }
    let code = handle.close_code();
    let wind_down = async {
        if !handle.is_slow() {
            // Deliver what was queued before the close (welcome + server_full, final results).
            while let Ok(m) = rx.try_recv() {
                sink.feed(m).await?;
            }
        }
        if let Some(code) = code {
            sink.feed(Message::Close(Some(CloseFrame {
                code: WsCloseCode::from(code.as_u16()),
                reason: code.reason().into(),
            })))
            .await?;
        }
        sink.flush().await?;
        sink.close().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), wind_down).await;
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

    #[allow(clippy::disallowed_methods)] // idle and rate timers: transport reads the clock
    async fn run(&mut self, mut stream: SplitStream<Ws>) {
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
                () = closing.cancelled() => return,
                () = shutdown.cancelled() => {
                    self.handle.close(CloseCode::GoingAway);
                    return;
                }
                () = tokio::time::sleep_until(last_seen + limits.idle_timeout) => {
                    tracing::info!("idle timeout");
                    self.handle.close(CloseCode::Normal);
                    return;
                }
                m = stream.next() => m,
            };
            let msg = match next {
                None => return,
                Some(Ok(m)) => m,
                Some(Err(WsError::Capacity(CapacityError::MessageTooLong {
                    size,
                    max_size: max,
                }))) => {
                    tracing::warn!(size, max, "message too big");
                    self.handle.close(CloseCode::TooBig);
                    return;
                }
                Some(Err(WsError::Protocol(e))) => {
                    tracing::warn!(error = %e, "websocket protocol error");
                    self.handle.close(CloseCode::Protocol);
                    return;
                }
                Some(Err(e)) => {
                    tracing::debug!(error = %e, "read failed");
                    return;
                }
            };
            let now = Instant::now();
            last_seen = now;
            let text = match msg {
                Message::Text(t) => Some(t),
                Message::Binary(_) => None,
                Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => continue,
                Message::Close(_) => return,
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
                    return;
                }
            }
            match text {
                None => self.error(ErrorCode::BadMessage, "binary frames are not accepted"),
                Some(t) => match serde_json::from_str::<ClientMsg>(&t) {
                    Ok(m) => {
                        tracing::debug!(msg = ?m, "received");
                        self.handle_msg(m).await;
                    }
                    Err(e) => self.error(ErrorCode::BadMessage, e.to_string()),
                },
            }
        }
    }

    async fn handle_msg(&mut self, msg: ClientMsg) {
        match msg {
            ClientMsg::Ping { id } => self.send(&ServerMsg::Pong { id }),
            ClientMsg::ListRooms => self.send(&ServerMsg::RoomList {
                rooms: self.server.rooms.directory.list_public(),
            }),
            ClientMsg::CreateRoom { name, settings } => self.create(name, settings).await,
            ClientMsg::JoinRoom { room, name } => {
                self.enter(&room, Some(name), Role::Player).await;
            }
            ClientMsg::Spectate { room, name } => self.enter(&room, name, Role::Spectator).await,
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

    async fn create(&mut self, name: String, settings: Option<protocol::SettingsRequest>) {
        if self.already_in_room() {
            return;
        }
        let settings = match settings.unwrap_or_default().resolve() {
            Ok(s) => s,
            Err(e) => return self.error(ErrorCode::InvalidSettings, e.to_string()),
        };
        let name = match protocol::PlayerName::try_from(name.as_str()) {
            Ok(n) => n.to_string(),
            Err(why) => return self.error(ErrorCode::InvalidName, why.to_string()),
        };
        let generation = self.handle.room_gen();
        match task::open(
            &self.server.rooms,
            self.peer.ip(),
            settings,
            self.handle.clone(),
            name,
        ) {
            Ok((room, answer)) => {
                self.linked(room, generation, answer).await;
            }
            Err(e) => self.error(e.code(), e.to_string()),
        }
    }

    async fn enter(&mut self, code: &str, name: Option<String>, role: Role) {
        if self.already_in_room() {
            return;
        }
        let found = protocol::RoomCode::try_from(code)
            .ok()
            .and_then(|c| self.server.rooms.directory.find(&c));
        let Some(room) = found else {
            return self.error(ErrorCode::UnknownRoom, format!("no room {code:?}"));
        };
        let generation = self.handle.room_gen();
        let (reply, answer) = oneshot::channel();
        let cmd = RoomCmd::Join {
            conn: self.handle.clone(),
            name,
            role,
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
        let Some(room) = self.server.rooms.directory.find_by_token(&token) else {
            return self.error(ErrorCode::InvalidToken, "unknown or expired token");
        };
        let generation = self.handle.room_gen();
        let (reply, answer) = oneshot::channel();
        let cmd = RoomCmd::Resume {
            conn: self.handle.clone(),
            token,
            reply,
        };
        if room.tx.send(cmd).await.is_err() {
            return self.error(ErrorCode::InvalidToken, "unknown or expired token");
        }
        self.linked(room, generation, answer).await;
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
