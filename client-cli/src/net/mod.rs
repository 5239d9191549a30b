//! The connection task: one WebSocket to the race server, kept alive across drops.
//!
//! [`connect`] spawns a task that owns the socket. The caller sends [`ClientMsg`]s through the
//! returned [`Session`] and receives [`NetEvent`]s. The task
//! - sends the [`Intent`] (create, join, spectate, quick race, ghost race, arena) right after
//!   `welcome`;
//! - remembers the seat's resume token from `room_joined`, and after a drop reconnects with
//!   exponential backoff and jitter and sends `resume` (a spectator re-sends `spectate`; a player
//!   waiting in the pool, who has no seat to resume, sends `quick_race` again; an arena member
//!   between races sends `join_arena` again);
//! - rides through a room moving to another server (A12): a `resume` answered `room_moving`
//!   (or, within [`MOVE_WINDOW`] of the drop, `unknown_room` or `invalid_token`: the room's new
//!   server may not know it yet) is sent again after the server's `retry_ms` with backoff and
//!   jitter, reported as [`NetEvent::Moving`]; only later do those answers end the session
//!   ("the room has closed");
//! - queues what the caller sends while the socket is down or the resume unanswered, and
//!   flushes it once the seat is back (placements excepted: the caller holds its own and sends
//!   them again itself, A12);
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
//! (the seat's memory, the reconnect loop, reading a hello's answer) is `rejoin`; one socket's
//! loop is `serve`; the waits between tries are [`Backoff`]; the server's address is [`ServerUrl`];
//! what a `wss://` connection trusts is [`Trust`] (`tls`). The two travel together as an
//! [`Endpoint`].

pub mod backoff;
mod intent;
mod rejoin;
mod serve;
pub mod tls;
pub mod url;

pub use intent::{drawn, wire_variant, Intent};
pub(crate) use intent::{join_arena, quick_race};

use std::borrow::Cow;
use std::collections::VecDeque;
use std::time::Duration;

use futures::SinkExt;
use protocol::text::terminal_safe;
use protocol::{ClientMsg, ErrorCode, ServerMsg};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tracing::{debug, info};

pub use backoff::{Backoff, FIRST_BACKOFF, MAX_BACKOFF};
use rejoin::{open, Hello, Seat};
pub use rejoin::{GIVE_UP_AFTER, MOVE_WINDOW};
pub use tls::{CaFileError, Trust};
pub use url::{RoomTarget, ServerUrl, TargetError, UrlError, DEFAULT_SERVER};

/// Interval of WebSocket pings on an otherwise idle connection.
pub const KEEPALIVE: Duration = Duration::from_secs(20);

/// Most messages queued while the socket is down.
const MAX_QUEUED: usize = 64;

/// Keep `m`, which the caller sent while the socket was down or the hello unanswered, for once
/// the seat is back (up to [`MAX_QUEUED`]). Not a placement: its sender holds its placements and
/// sends them again once the room answers, against the board the room shows (A12: the app's
/// `Play`, a bot's plan); a kept copy would go as well, and be answered `filled`.
fn keep(queued: &mut VecDeque<ClientMsg>, m: ClientMsg) {
    if matches!(m, ClientMsg::Place { .. }) {
        debug!("a placement sent while away is left to its sender");
    } else if queued.len() < MAX_QUEUED {
        queued.push_back(m);
    }
}

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
    /// How long after a drop reconnecting and resuming may fail before the session ends
    /// ([`GIVE_UP_AFTER`]).
    pub give_up_after: Duration,
    /// How long after a drop `unknown_room` or `invalid_token` answered to a `resume` still
    /// means the room is moving rather than gone ([`MOVE_WINDOW`]).
    pub moving_window: Duration,
}

impl Endpoint {
    /// `url`, trusting `trust`.
    pub fn new(url: ServerUrl, trust: Trust) -> Endpoint {
        Endpoint {
            url,
            trust,
            connect_timeout: CONNECT_TIMEOUT,
            give_up_after: GIVE_UP_AFTER,
            moving_window: MOVE_WINDOW,
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
    /// Connected again, but the seat's room is moving to another server (A12: the `resume`
    /// was answered `room_moving`, or the room is not known yet right after its server was
    /// lost); the `resume` goes again in `delay`. The race goes on.
    Moving {
        /// 1 for the first try again.
        attempt: u32,
        /// Wait before the try.
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
    /// The server refused us for good (e.g. `server_full`, or the room is gone): stop.
    Fatal(String),
    /// The server is restarting (A9): nothing to come back to; the caller's next ask for a room
    /// or the pool opens a new connection.
    Restart,
}

/// What the connection task keeps across sockets.
struct Task {
    /// The server.
    to: Endpoint,
    /// How to come back after a drop.
    seat: Seat,
    /// What the caller sends.
    rx: mpsc::UnboundedReceiver<ClientMsg>,
    /// What the caller sent that has yet to go out.
    queued: VecDeque<ClientMsg>,
    /// What we tell the caller.
    events: mpsc::UnboundedSender<NetEvent>,
    /// When the connection dropped, until the seat (or the place watched) is back: the give-up
    /// and moving windows count from here, across every socket tried meanwhile.
    away_since: Option<Instant>,
}

async fn run(
    to: Endpoint,
    intent: Intent,
    who: Identity,
    rx: mpsc::UnboundedReceiver<ClientMsg>,
    events: mpsc::UnboundedSender<NetEvent>,
) {
    let mut task = Task {
        to,
        seat: Seat::for_intent(&intent),
        rx,
        queued: VecDeque::new(),
        events,
        away_since: None,
    };
    let mut first = true;
    loop {
        let since = task.away_since.unwrap_or_else(Instant::now);
        let Some(ws) = open(
            &task.to,
            &task.events,
            first,
            since,
            &mut task.rx,
            &mut task.queued,
        )
        .await
        else {
            return;
        };
        let _ = task.events.send(NetEvent::Connected { reconnect: !first });
        let hello = hello(first, &intent, &who, &task.seat).map(|m| Hello::new(m, !first, since));
        first = false;
        let end = task.serve(ws, hello).await;
        match end {
            End::CallerDone => {
                let _ = task.events.send(NetEvent::Closed { error: None });
                return;
            }
            End::Fatal(why) => {
                let _ = task.events.send(NetEvent::Closed { error: Some(why) });
                return;
            }
            End::Restart => {
                info!("the server is restarting: waiting for the next ask");
                task.seat = Seat::default();
                task.away_since = None;
                if !next_ask(&mut task.rx, &mut task.queued).await {
                    let _ = task.events.send(NetEvent::Closed { error: None });
                    return;
                }
            }
            End::Dropped(why) => {
                info!(%why, "connection dropped");
                if !task.seat.can_come_back() {
                    // Nothing to take back: a session in no room just ends.
                    let _ = task.events.send(NetEvent::Closed {
                        error: Some(format!("connection lost: {why}")),
                    });
                    return;
                }
                task.away_since.get_or_insert_with(Instant::now);
            }
        }
    }
}

/// What a new socket says first: the intent's ask on the first, how to come back on the next.
fn hello(first: bool, intent: &Intent, who: &Identity, seat: &Seat) -> Option<ClientMsg> {
    let mut hello = if first {
        intent.first_message()
    } else {
        seat.rejoin_message()
    };
    if let Some(m) = hello.as_mut() {
        who.stamp(m);
    }
    if let (
        true,
        Intent::Daily {
            difficulty,
            variant,
            ..
        },
        Some(key),
    ) = (first, intent, &who.key)
    {
        hello = Some(ClientMsg::StartDaily {
            difficulty: difficulty.as_str().to_owned(),
            key: key.clone(),
            variant: wire_variant(*variant),
            variants: crate::net::drawn(),
        });
    }
    hello
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

#[cfg(test)]
pub(crate) mod tests;
