//! Coming back after a drop: what the seat remembers (the resume token, or the room being
//! watched) and how to ask for it again; the reconnect loop with exponential backoff and jitter
//! ([`Backoff`]) that gives up [`GIVE_UP_AFTER`] after the drop; and how a hello (an ask, or a
//! `resume` after a drop) reads its answer ([`Hello`]): a room that is moving to another server
//! (A12 `room_moving`, or a room not known yet right after its server was lost) is asked again,
//! and only a room still unknown after [`MOVE_WINDOW`] is gone.

use std::collections::VecDeque;
use std::time::Duration;

use engine::Difficulty;
use protocol::{ClientMsg, ErrorCode, Role, ServerMsg};
use rand::Rng;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::{connect_async_tls_with_config, Connector};
use tracing::debug;

use super::backoff::Backoff;
use super::tls::explain;
use super::{keep, Endpoint, Intent, NetEvent, Ws};

/// How long after a drop reconnecting and resuming may fail before the session ends and says
/// why (the default of [`Endpoint::give_up_after`]): the resume grace, the time the server
/// holds a dropped seat (60 s). A seat is not coming back after that; a person waiting on
/// `reconnecting…` deserves an answer.
pub const GIVE_UP_AFTER: Duration = Duration::from_secs(60);

/// How long after a drop a room may still be moving to another server (the default of
/// [`Endpoint::moving_window`]): a lost owner's lease lapses 10 s after its last renewal and
/// another node takes its rooms over within `--takeover-s` (5 s) of that, looking twice per
/// period. Until then a node may not know the room yet (`unknown_room`, `invalid_token`), and
/// the seat asks again; after it those answers mean the room is gone (A12).
pub const MOVE_WINDOW: Duration = Duration::from_secs(20);

/// Shortest wait for a reconnect's handshakes, even right at the deadline.
const MIN_DIAL: Duration = Duration::from_millis(200);

/// What the task remembers across reconnects.
#[derive(Default)]
pub(super) struct Seat {
    /// Resume token of our player seat.
    pub(super) token: Option<protocol::ResumeToken>,
    /// Room and name when spectating.
    pub(super) spectating: Option<(String, String)>,
    /// A spectator that asked for the delayed boards asks again on a rejoin (A8).
    pub(super) boards: bool,
    /// The pool we wait in (A7), from `queued` until `room_joined` or `left_queue`: a queued
    /// player has no seat to resume, so it queues again.
    pub(super) queued: Option<Difficulty>,
    /// The name we last asked the pool under.
    pub(super) pool_name: Option<String>,
    /// The variant of the pool we last asked for (A10; `queued` does not say it).
    pub(super) pool_variant: engine::Variant,
    /// The arena we are a member of (A7), with the name we joined under, from `join_arena`
    /// until `leave_arena` or `left_arena`: between its races we hold no seat, so we join it
    /// again.
    pub(super) arena: Option<(String, String)>,
}

impl Seat {
    /// The seat a session asking for `intent` starts with: a spectator, a pool player or an
    /// arena member knows how to come back before the server has said anything.
    pub(super) fn for_intent(intent: &Intent) -> Seat {
        let mut seat = Seat::default();
        match intent {
            Intent::Spectate { name, room, boards } => {
                seat.spectating = Some((room.clone(), name.clone()));
                seat.boards = *boards;
            }
            Intent::Quick { name, variant, .. } => {
                seat.pool_name = Some(name.clone());
                seat.pool_variant = *variant;
            }
            Intent::Arena { arena_id, name } => seat.arena = Some((arena_id.clone(), name.clone())),
            _ => {}
        }
        seat
    }

    pub(super) fn observe(&mut self, msg: &ServerMsg) {
        match msg {
            // In the pool we hold no seat (after `requeue` the pool room's is gone).
            ServerMsg::Queued { difficulty, .. } => {
                self.queued = Some(*difficulty);
                self.token = None;
                self.spectating = None;
            }
            ServerMsg::LeftQueue | ServerMsg::RoomJoined { .. } => self.queued = None,
            _ => {}
        }
        if let ServerMsg::RoomJoined { room, you, .. } = msg {
            match you.role {
                Role::Player => {
                    // A room taken over by another server (A9) shows the seat the room
                    // again without its token: the one it has stays.
                    if you.token.is_some() || self.spectating.is_some() {
                        self.token = you.token.clone();
                    }
                    self.spectating = None;
                }
                Role::Spectator => {
                    self.token = None;
                    let name = self
                        .spectating
                        .take()
                        .map_or_else(|| "spectator".to_owned(), |(_, n)| n);
                    self.spectating = Some((room.to_string(), name));
                }
            }
        }
        if let ServerMsg::RoomClosed { .. } = msg {
            self.spectating = None;
        }
        if let ServerMsg::LeftArena { .. } = msg {
            self.arena = None;
        }
    }

    /// What the caller sent that changes how we come back: a `quick_race` names us in the pool,
    /// a `leave_queue` leaves it.
    pub(super) fn sent(&mut self, msg: &ClientMsg) {
        match msg {
            ClientMsg::QuickRace { name, variant, .. } => {
                self.pool_name = Some(name.clone());
                self.pool_variant = variant
                    .as_deref()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_default();
            }
            ClientMsg::LeaveQueue => self.queued = None,
            ClientMsg::JoinArena { arena_id, name, .. } => {
                self.arena = Some((arena_id.clone(), name.clone()));
            }
            ClientMsg::LeaveArena => self.arena = None,
            _ => {}
        }
    }

    /// Whether a dropped connection has something to come back to.
    pub(super) fn can_come_back(&self) -> bool {
        self.token.is_some()
            || self.spectating.is_some()
            || self.queued.is_some()
            || self.arena.is_some()
    }

    pub(super) fn rejoin_message(&self) -> Option<ClientMsg> {
        if let Some(token) = &self.token {
            return Some(ClientMsg::Resume {
                token: token.to_string(),
                variants: crate::net::drawn(),
            });
        }
        if let Some((arena_id, name)) = &self.arena {
            // Between an arena's races: its pool is the arena's, not the open one.
            return Some(super::join_arena(arena_id, name));
        }
        if let Some(difficulty) = self.queued {
            let name = self.pool_name.as_deref().unwrap_or("player");
            return Some(super::quick_race(difficulty, self.pool_variant, name));
        }
        self.spectating
            .as_ref()
            .map(|(room, name)| ClientMsg::Spectate {
                room: room.clone(),
                name: Some(name.clone()),
                key: None,
                boards: self.boards,
                variants: crate::net::drawn(),
            })
    }
}

/// A hello waiting for its answer: the ask a session opens with, or what takes the seat (or
/// the place watched) back after a drop. What the caller sends meanwhile waits for the answer.
pub(super) struct Hello {
    /// What was sent (and is sent again while the room moves).
    pub(super) msg: ClientMsg,
    /// Sent after a drop: the room was ours, so not knowing it may mean it is moving.
    rejoin: bool,
    /// When the connection dropped (or the ask was first sent): the windows count from here.
    since: Instant,
    /// The tries since.
    tries: Backoff,
}

/// What an answer to a [`Hello`] means.
#[derive(Debug, PartialEq)]
pub(super) enum Verdict {
    /// In: what the caller sent meanwhile may go.
    Back,
    /// The room is moving to another server: ask again after this wait (try `attempt`).
    Again {
        /// 1 for the first try again.
        attempt: u32,
        /// The wait.
        delay: Duration,
    },
    /// The room is gone, or did not come back in time: the session ends with this reason.
    Gone(String),
    /// Answered otherwise (a refusal the caller reads): the hello is done with.
    Answered,
    /// Not an answer to the hello.
    Pass,
}

impl Hello {
    /// `msg`, sent after a drop (`rejoin`) or as the first ask, with `since` the drop or now.
    pub(super) fn new(msg: ClientMsg, rejoin: bool, since: Instant) -> Hello {
        Hello {
            msg,
            rejoin,
            since,
            tries: Backoff::default(),
        }
    }

    /// What `msg` says of the hello at `now`, for a session to `to`; `seed` picks the jitter.
    pub(super) fn answer(
        &mut self,
        msg: &ServerMsg,
        to: &Endpoint,
        now: Instant,
        seed: u64,
    ) -> Verdict {
        let away = now.saturating_duration_since(self.since);
        let (code, message, retry_ms) = match msg {
            ServerMsg::RoomJoined { .. }
            | ServerMsg::Queued { .. }
            | ServerMsg::ArenaJoined { .. } => return Verdict::Back,
            ServerMsg::Error {
                code,
                message,
                retry_ms,
            } => (*code, message, *retry_ms),
            _ => return Verdict::Pass,
        };
        let moving = match code {
            ErrorCode::RoomMoving | ErrorCode::RateLimited => true,
            // Right after its server was lost, a node may not know the room yet.
            ErrorCode::UnknownRoom | ErrorCode::InvalidToken if self.rejoin => {
                if away >= to.moving_window {
                    return Verdict::Gone(format!(
                        "the room has closed: its server was lost and no other server took it over ({}: {message})",
                        code.as_str()
                    ));
                }
                true
            }
            _ => false,
        };
        if !moving {
            return Verdict::Answered;
        }
        if away >= to.give_up_after {
            let secs = to.give_up_after.as_secs_f32();
            return Verdict::Gone(format!(
                "the room has closed: it did not come back on another server within {secs} s ({}: {message})",
                code.as_str()
            ));
        }
        let delay = self.tries.next(retry_ms, seed);
        Verdict::Again {
            attempt: self.tries.attempt(),
            delay,
        }
    }
}

/// Connect, retrying with backoff unless this is the very first connection, until
/// [`Endpoint::give_up_after`] past `since` (when the connection dropped).
/// `None` when the session is over (reported already).
pub(super) async fn open(
    to: &Endpoint,
    events: &mpsc::UnboundedSender<NetEvent>,
    first: bool,
    since: Instant,
    rx: &mut mpsc::UnboundedReceiver<ClientMsg>,
    queued: &mut VecDeque<ClientMsg>,
) -> Option<Ws> {
    let deadline = since + to.give_up_after;
    let mut tries = Backoff::default();
    loop {
        if !first {
            let wait = tries.next(None, rand::thread_rng().gen());
            let _ = events.send(NetEvent::Reconnecting {
                attempt: tries.attempt(),
                delay: wait,
            });
            if !back_off(wait, deadline, events, rx, queued).await {
                return None;
            }
        }
        // Bounded: a plain server waits for an HTTP request that a TLS hello never is.
        let limit = if first {
            to.connect_timeout
        } else {
            let left = deadline.saturating_duration_since(Instant::now());
            to.connect_timeout.min(left.max(MIN_DIAL))
        };
        let url = &to.url;
        match dial(to, limit).await {
            Ok(ws) => return Some(ws),
            Err(e) => {
                if first {
                    let _ = events.send(NetEvent::Closed {
                        error: Some(format!("cannot connect to {url}: {e}")),
                    });
                    return None;
                }
                debug!(attempt = tries.attempt(), error = %e, "reconnect failed");
                if Instant::now() >= deadline {
                    let secs = to.give_up_after.as_secs_f32();
                    let _ = events.send(NetEvent::Closed {
                        error: Some(format!(
                            "connection lost: the server at {url} did not answer for {secs} s (last: {e})"
                        )),
                    });
                    return None;
                }
            }
        }
    }
}

/// Wait `wait` before the next attempt, never past `deadline` (the last attempt is made at it,
/// not after it), queueing the caller's messages meanwhile so a quit is seen at once. False
/// when the caller quit (reported already).
async fn back_off(
    wait: Duration,
    deadline: Instant,
    events: &mpsc::UnboundedSender<NetEvent>,
    rx: &mut mpsc::UnboundedReceiver<ClientMsg>,
    queued: &mut VecDeque<ClientMsg>,
) -> bool {
    let sleep = tokio::time::sleep_until((Instant::now() + wait).min(deadline));
    tokio::pin!(sleep);
    loop {
        tokio::select! {
            _ = &mut sleep => return true,
            msg = rx.recv() => match msg {
                None => {
                    let _ = events.send(NetEvent::Closed { error: None });
                    return false;
                }
                Some(ClientMsg::Leave) => {
                    let _ = events.send(NetEvent::Closed { error: None });
                    return false;
                }
                Some(m) => keep(queued, m),
            }
        }
    }
}

/// One WebSocket handshake (TLS first for `wss`) within `limit`; the error says why it failed.
async fn dial(to: &Endpoint, limit: Duration) -> Result<Ws, String> {
    let url = &to.url;
    // The connector is rustls only for `wss`; a `ws` URL dials plain TCP whatever it gets.
    let connector = url
        .is_secure()
        .then(|| Connector::Rustls(to.trust.client_config()));
    let dial = connect_async_tls_with_config(url.as_str(), None, false, connector);
    match tokio::time::timeout(limit, dial).await {
        Ok(r) => r
            .map(|(ws, _resp)| ws)
            .map_err(|e| explain(url, &to.trust, &e)),
        Err(_) => Err(silent(to)),
    }
}

/// Why a handshake that never finished failed, with the likeliest cause.
fn silent(to: &Endpoint) -> String {
    let (url, secs) = (&to.url, to.connect_timeout.as_secs_f32());
    if url.is_secure() {
        format!(
            "{}:{} did not answer the TLS handshake within {secs} s: if it is a plain server, use ws:// instead of wss://",
            url.hostname(),
            url.port()
        )
    } else {
        format!(
            "{}:{} did not answer the WebSocket handshake within {secs} s",
            url.hostname(),
            url.port()
        )
    }
}
