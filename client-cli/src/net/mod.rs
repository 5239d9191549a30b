//! The connection task: one WebSocket to the race server, kept alive across drops.
//!
//! [`connect`] spawns a task that owns the socket. The caller sends [`ClientMsg`]s through the
//! returned [`Session`] and receives [`NetEvent`]s. The task
//! - sends the [`Intent`] (create, join, spectate, quick race, ghost race, arena) right after
//!   `welcome`;
//! - remembers the seat's resume token from `room_joined`, and after a drop reconnects with
//!   exponential backoff and sends `resume` (a spectator re-sends `spectate`; a player waiting
//!   in the pool, who has no seat to resume, sends `quick_race` again; an arena member between
//!   races sends `join_arena` again);
//! - queues what the caller sends while the socket is down and flushes it after the resume;
//! - sends a WebSocket ping every [`KEEPALIVE`] so an idle lobby is not closed by the server;
//! - ends the session for good on `room_closed` (the host quit, or the room was removed: A5), and
//!   when reconnecting has failed for [`Endpoint::give_up_after`] — never a silent loop;
//! - on a server restarting (A9: `room_closed` `drain` or `shutdown`, or `server_draining`)
//!   closes the socket and waits: the caller's next ask for a room or the pool goes out on a
//!   new connection (which a balancer sends to a server that stays);
//! - makes every server string safe for a terminal ([`parse_server_msg`]) before anything reads
//!   it (Amendment A3): this is the one door server text comes in by, so no screen, log line or
//!   printed table can be handed an escape sequence.
//!
//! It never touches the terminal: it is shared by the TUI and the bots. The coming-back part
//! (the seat's memory, the backoff loop) is `rejoin`; the server's address is [`ServerUrl`];
//! what a `wss://` connection trusts is [`Trust`] (`tls`). The two travel together as an
//! [`Endpoint`].

mod intent;
mod rejoin;
pub mod tls;
pub mod url;

pub use intent::Intent;
pub(crate) use intent::{join_arena, quick_race};

use std::borrow::Cow;
use std::collections::VecDeque;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use protocol::text::terminal_safe;
use protocol::{ClientMsg, ErrorCode, ServerMsg};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tracing::{debug, info, warn};

use rejoin::{open, Seat};
pub use rejoin::{FIRST_BACKOFF, GIVE_UP_AFTER, MAX_BACKOFF};
pub use tls::{CaFileError, Trust};
pub use url::{RoomTarget, ServerUrl, TargetError, UrlError, DEFAULT_SERVER};

/// Interval of WebSocket pings on an otherwise idle connection.
pub const KEEPALIVE: Duration = Duration::from_secs(20);

/// Most messages queued while the socket is down.
const MAX_QUEUED: usize = 64;

/// The socket of one connection.
type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Longest wait for our Close frame to go out when the session ends on the server's word.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// Longest wait for the TCP, TLS and WebSocket handshakes of one connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(8);

/// A server to connect to: its URL, and the certificates trusted when it is `wss://`.
#[derive(Clone, Debug)]
pub struct Endpoint {
    /// The server's URL.
    pub url: ServerUrl,
    /// What a TLS connection trusts (unused for `ws://`).
    pub trust: Trust,
    /// Longest wait for one connection's handshakes ([`CONNECT_TIMEOUT`]).
    pub connect_timeout: Duration,
    /// How long reconnecting may fail before the session ends ([`GIVE_UP_AFTER`]).
    pub give_up_after: Duration,
}

impl Endpoint {
    /// `url`, trusting `trust`.
    pub fn new(url: ServerUrl, trust: Trust) -> Endpoint {
        Endpoint {
            url,
            trust,
            connect_timeout: CONNECT_TIMEOUT,
            give_up_after: GIVE_UP_AFTER,
        }
    }
}

impl Default for Endpoint {
    fn default() -> Endpoint {
        Endpoint::from(ServerUrl::default())
    }
}

impl From<ServerUrl> for Endpoint {
    fn from(url: ServerUrl) -> Endpoint {
        Endpoint::new(url, Trust::default())
    }
}

impl From<&ServerUrl> for Endpoint {
    fn from(url: &ServerUrl) -> Endpoint {
        Endpoint::from(url.clone())
    }
}

/// What the connection task reports.
#[derive(Clone, Debug, PartialEq)]
pub enum NetEvent {
    /// The socket is up (first time or after a reconnect); `welcome` follows as a message.
    Connected {
        /// True after a drop.
        reconnect: bool,
    },
    /// A message from the server (boxed: `room_joined` is large).
    Message(Box<ServerMsg>),
    /// The socket dropped; the next attempt is in `delay`.
    Reconnecting {
        /// 1 for the first retry.
        attempt: u32,
        /// Wait before the attempt.
        delay: Duration,
    },
    /// The session is over: the caller hung up, the server closed for good, or reconnecting failed.
    Closed {
        /// Why, when it was not the caller's doing.
        error: Option<String>,
    },
}

/// Who a session speaks for (A6): the player's identity key, if it has one, and whether it is
/// a program. The session stamps both on every message that enters a room, so the screens and
/// the bot's brain never handle the key.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Identity {
    /// The secret key from `registered`; `None` plays anonymously.
    pub key: Option<protocol::IdentityKey>,
    /// Bots must say so.
    pub bot: bool,
}

impl Identity {
    /// Fill in who is asking on `create_room`, `join_room`, `quick_race`, `spectate`,
    /// `race_ghost` and `join_arena`; other messages pass.
    pub fn stamp(&self, msg: &mut ClientMsg) {
        match msg {
            ClientMsg::CreateRoom { key, bot, .. }
            | ClientMsg::JoinRoom { key, bot, .. }
            | ClientMsg::QuickRace { key, bot, .. } => {
                if key.is_none() {
                    key.clone_from(&self.key);
                }
                *bot |= self.bot;
            }
            ClientMsg::Spectate { key, .. }
            | ClientMsg::RaceGhost { key, .. }
            | ClientMsg::JoinArena { key, .. }
                if key.is_none() =>
            {
                key.clone_from(&self.key)
            }
            _ => {}
        }
    }
}

/// Whether a message carries a secret, and so must not be logged as it is.
fn carries_key(msg: &ClientMsg) -> bool {
    matches!(
        msg,
        ClientMsg::CreateRoom { key: Some(_), .. }
            | ClientMsg::JoinRoom { key: Some(_), .. }
            | ClientMsg::Spectate { key: Some(_), .. }
            | ClientMsg::QuickRace { key: Some(_), .. }
            | ClientMsg::RaceGhost { key: Some(_), .. }
            | ClientMsg::JoinArena { key: Some(_), .. }
            | ClientMsg::StartDaily { .. }
    )
}

/// The caller's end of a session: dropping it closes the socket.
#[derive(Clone, Debug)]
pub struct Session {
    tx: mpsc::UnboundedSender<ClientMsg>,
    who: Identity,
}

impl Session {
    /// Queue a message for the server. False once the task has ended.
    pub fn send(&self, mut msg: ClientMsg) -> bool {
        self.who.stamp(&mut msg);
        self.tx.send(msg).is_ok()
    }
}

/// Spawn the connection task for `to`: a [`ServerUrl`] (e.g. `ws://127.0.0.1:7878/ws`) or an
/// [`Endpoint`] (a URL with its [`Trust`]).
///
/// The first connection failing is reported as [`NetEvent::Closed`] at once (a wrong address
/// should not spin); later drops are retried.
pub fn connect(
    to: impl Into<Endpoint>,
    intent: Intent,
) -> (Session, mpsc::UnboundedReceiver<NetEvent>) {
    connect_as(to, intent, Identity::default())
}

/// [`connect`] on behalf of an identity (A6).
pub fn connect_as(
    to: impl Into<Endpoint>,
    intent: Intent,
    who: Identity,
) -> (Session, mpsc::UnboundedReceiver<NetEvent>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let (ev_tx, ev_rx) = mpsc::unbounded_channel();
    tokio::spawn(run(to.into(), intent, who.clone(), rx, ev_tx));
    (Session { tx, who }, ev_rx)
}

/// How one connection ended.
enum End {
    /// The caller dropped its [`Session`] or sent `leave` and hung up: stop.
    CallerDone,
    /// The socket dropped or errored: reconnect.
    Dropped(String),
    /// The server refused us for good (e.g. `server_full`, or the resume token is gone): stop.
    Fatal(String),
    /// The server is restarting (A9): nothing to come back to; the caller's next ask for a room
    /// or the pool opens a new connection.
    Restart,
}

async fn run(
    to: Endpoint,
    intent: Intent,
    who: Identity,
    mut rx: mpsc::UnboundedReceiver<ClientMsg>,
    events: mpsc::UnboundedSender<NetEvent>,
) {
    let mut seat = Seat::default();
    if let Intent::Spectate { name, room, boards } = &intent {
        seat.spectating = Some((room.clone(), name.clone()));
        seat.boards = *boards;
    }
    if let Intent::Quick { name, .. } = &intent {
        seat.pool_name = Some(name.clone());
    }
    if let Intent::Arena { arena_id, name } = &intent {
        seat.arena = Some((arena_id.clone(), name.clone()));
    }
    let mut queued: VecDeque<ClientMsg> = VecDeque::new();
    let mut first = true;
    loop {
        let ws = match open(&to, &events, first, &mut rx, &mut queued).await {
            Some(ws) => ws,
            None => return,
        };
        let _ = events.send(NetEvent::Connected { reconnect: !first });
        let mut hello = if first {
            intent.first_message()
        } else {
            seat.rejoin_message()
        };
        if let Some(m) = hello.as_mut() {
            who.stamp(m);
        }
        if let (true, Intent::Daily { difficulty, .. }, Some(key)) = (first, &intent, &who.key) {
            hello = Some(ClientMsg::StartDaily {
                difficulty: difficulty.as_str().to_owned(),
                key: key.clone(),
            });
        }
        first = false;
        let end = serve(ws, hello, &mut seat, &mut rx, &mut queued, &events).await;
        match end {
            End::CallerDone => {
                let _ = events.send(NetEvent::Closed { error: None });
                return;
            }
            End::Fatal(why) => {
                let _ = events.send(NetEvent::Closed { error: Some(why) });
                return;
            }
            End::Restart => {
                info!("the server is restarting: waiting for the next ask");
                seat = Seat::default();
                if !next_ask(&mut rx, &mut queued).await {
                    let _ = events.send(NetEvent::Closed { error: None });
                    return;
                }
            }
            End::Dropped(why) => {
                info!(%why, "connection dropped");
                if !seat.can_come_back() {
                    // Nothing to take back: a session in no room just ends.
                    let _ = events.send(NetEvent::Closed { error: Some(why) });
                    return;
                }
            }
        }
    }
}

/// After a restart: wait for the caller's next ask for a room or the pool, queued for the new
/// connection (anything else has nothing to go to and is dropped). False when the caller is gone
/// or leaves.
async fn next_ask(
    rx: &mut mpsc::UnboundedReceiver<ClientMsg>,
    queued: &mut VecDeque<ClientMsg>,
) -> bool {
    queued.clear();
    while let Some(m) = rx.recv().await {
        match m {
            ClientMsg::Leave => return false,
            ClientMsg::CreateRoom { .. }
            | ClientMsg::JoinRoom { .. }
            | ClientMsg::Spectate { .. }
            | ClientMsg::QuickRace { .. }
            | ClientMsg::RaceGhost { .. }
            | ClientMsg::JoinArena { .. }
            | ClientMsg::StartDaily { .. } => {
                queued.push_back(m);
                return true;
            }
            _ => {}
        }
    }
    false
}

/// Whether `msg` says the server is restarting (A9): its room closed for a drain or a
/// shutdown, or it takes nothing new while it drains.
pub fn restarting(msg: &ServerMsg) -> bool {
    use protocol::ClosedReason;
    match msg {
        ServerMsg::RoomClosed { reason, .. } => {
            matches!(reason, Some(ClosedReason::Drain | ClosedReason::Shutdown))
        }
        ServerMsg::Error { code, .. } => *code == ErrorCode::ServerDraining,
        _ => false,
    }
}

/// A server message from its JSON text, with every string in it (names, chat, codes, error
/// messages, the server's name) passed through [`terminal_safe`]: control, bidi and other format
/// characters become U+FFFD. Cleaned before the typed parse, so a name the server should not
/// have sent still arrives (drawn with U+FFFD) rather than losing the whole message.
pub fn parse_server_msg(text: &str) -> Result<ServerMsg, serde_json::Error> {
    fn clean(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::String(s) => {
                if let Cow::Owned(safe) = terminal_safe(s) {
                    *s = safe;
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(clean),
            serde_json::Value::Object(fields) => fields.values_mut().for_each(clean),
            serde_json::Value::Null | serde_json::Value::Bool(_) | serde_json::Value::Number(_) => {
            }
        }
    }
    let mut value: serde_json::Value = serde_json::from_str(text)?;
    clean(&mut value);
    serde_json::from_value(value)
}

async fn send(ws: &mut Ws, msg: &ClientMsg) -> Result<(), String> {
    let text = serde_json::to_string(msg).map_err(|e| format!("encode: {e}"))?;
    if carries_key(msg) {
        debug!("send (a message with the identity key: not logged)");
    } else {
        debug!(%text, "send");
    }
    ws.send(Message::text(text))
        .await
        .map_err(|e| format!("send: {e}"))
}

async fn serve(
    mut ws: Ws,
    hello: Option<ClientMsg>,
    seat: &mut Seat,
    rx: &mut mpsc::UnboundedReceiver<ClientMsg>,
    queued: &mut VecDeque<ClientMsg>,
    events: &mpsc::UnboundedSender<NetEvent>,
) -> End {
    let resuming = matches!(hello, Some(ClientMsg::Resume { .. }));
    if let Err(end) = greet(&mut ws, hello, queued).await {
        return end;
    }
    let mut keepalive = tokio::time::interval(KEEPALIVE);
    keepalive.tick().await;
    let mut leaving = false;
    loop {
        tokio::select! {
            frame = ws.next() => {
                let frame = match frame {
                    None => return if leaving { End::CallerDone } else { End::Dropped("closed".into()) },
                    Some(Err(e)) => return if leaving { End::CallerDone } else { End::Dropped(e.to_string()) },
                    Some(Ok(f)) => f,
                };
                match frame {
                    Message::Text(text) => {
                        if let Some(end) = from_server(&mut ws, text.as_str(), resuming, seat, events).await {
                            return end;
                        }
                    }
                    Message::Close(frame) => return closed_by_server(frame, leaving, seat),
                    Message::Binary(_) | Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => {}
                }
            }
            msg = rx.recv() => {
                if let Some(end) = from_caller(&mut ws, msg, &mut leaving, seat, queued).await {
                    return end;
                }
            }
            _ = keepalive.tick() => {
                if let Err(e) = ws.send(Message::Ping(Vec::new().into())).await {
                    return End::Dropped(format!("ping: {e}"));
                }
            }
        }
    }
}

/// The first messages on a new socket: the hello (intent or resume), then whatever the caller
/// sent while the socket was down. What could not go out stays queued.
async fn greet(
    ws: &mut Ws,
    hello: Option<ClientMsg>,
    queued: &mut VecDeque<ClientMsg>,
) -> Result<(), End> {
    if let Some(m) = hello {
        send(ws, &m).await.map_err(End::Dropped)?;
    }
    while let Some(m) = queued.pop_front() {
        if let Err(e) = send(ws, &m).await {
            queued.push_front(m);
            return Err(End::Dropped(e));
        }
    }
    Ok(())
}

/// One text frame from the server: parsed (made terminal-safe), remembered by the seat and
/// handed to the caller. `Some` when it ends the connection: a refused resume, a full server,
/// a closed room, a caller gone.
async fn from_server(
    ws: &mut Ws,
    text: &str,
    resuming: bool,
    seat: &mut Seat,
    events: &mpsc::UnboundedSender<NetEvent>,
) -> Option<End> {
    let msg = match parse_server_msg(text) {
        Ok(m) => m,
        Err(e) => {
            let text = terminal_safe(text);
            warn!(error = %e, %text, "unparsable server message skipped");
            return None;
        }
    };
    debug!(?msg, "recv");
    seat.observe(&msg);
    if let ServerMsg::Error { code, message, .. } = &msg {
        match code {
            ErrorCode::InvalidToken if resuming => {
                seat.token = None;
                let _ = events.send(NetEvent::Message(Box::new(msg.clone())));
                return Some(End::Fatal(format!(
                    "could not take the seat back: {message}"
                )));
            }
            ErrorCode::ServerFull => {
                let _ = events.send(NetEvent::Message(Box::new(msg.clone())));
                return Some(End::Fatal(format!("server full: {message}")));
            }
            _ => {}
        }
    }
    if restarting(&msg) {
        let _ = events.send(NetEvent::Message(Box::new(msg)));
        let _ = tokio::time::timeout(CLOSE_WAIT, ws.close(None)).await;
        return Some(End::Restart);
    }
    if let ServerMsg::RoomClosed { room, .. } = &msg {
        // Final (A5: `room_closed`, then 1001 from a host that quit): the seat
        // is gone with the room, so there is nothing to come back to.
        let why = format!("room {room} was closed: the host closed the room");
        seat.token = None;
        seat.spectating = None;
        let _ = events.send(NetEvent::Message(Box::new(msg)));
        let _ = tokio::time::timeout(CLOSE_WAIT, ws.close(None)).await;
        return Some(End::Fatal(why));
    }
    if events.send(NetEvent::Message(Box::new(msg))).is_err() {
        let _ = ws.close(None).await;
        return Some(End::CallerDone);
    }
    None
}

/// The server's Close frame: the caller's end after a leave, final when our seat moved to
/// another terminal, else a drop to come back from.
fn closed_by_server(frame: Option<CloseFrame>, leaving: bool, seat: &Seat) -> End {
    if leaving {
        return End::CallerDone;
    }
    // 1000 after a resume elsewhere: our seat moved to another terminal.
    if let Some(f) = &frame {
        if u16::from(f.code) == 1000 && seat.token.is_some() {
            let reason = terminal_safe(f.reason.as_str());
            return End::Fatal(format!("connection closed by the server: {reason}"));
        }
    }
    End::Dropped(format!("closed by the server: {frame:?}"))
}

/// One message from the caller (`None`: the caller is gone), sent on. `Some` when it ends the
/// connection; a message that could not go out is queued for the next one.
async fn from_caller(
    ws: &mut Ws,
    msg: Option<ClientMsg>,
    leaving: &mut bool,
    seat: &mut Seat,
    queued: &mut VecDeque<ClientMsg>,
) -> Option<End> {
    let Some(m) = msg else {
        let _ = ws.close(None).await;
        return Some(End::CallerDone);
    };
    let is_leave = matches!(m, ClientMsg::Leave);
    seat.sent(&m);
    if let Err(e) = send(ws, &m).await {
        if is_leave {
            return Some(End::CallerDone);
        }
        queued.push_back(m);
        return Some(End::Dropped(e));
    }
    // After a leave there is nothing to come back to: the socket stays for
    // what may follow (a spectator taking a seat sends `join_room` next),
    // and its end is then the caller's, not a drop.
    *leaving = is_leave;
    if is_leave {
        seat.token = None;
        seat.spectating = None;
    }
    None
}

#[cfg(test)]
pub(crate) mod tests;
