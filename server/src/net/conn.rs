//! One WebSocket connection after its handshake: the writer task ([`super::writer`]), and the
//! read loop: read a frame, check the rate limit, parse it, and hand the message to
//! the connection's [`Session`] ([`super::cmd`]); then the close, which lingers for the client's
//! side of it.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::SplitStream;
use futures::StreamExt;
use protocol::{ClientMsg, ErrorCode, ServerMsg, PROTOCOL_VERSION};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::error::{CapacityError, Error as WsError, ProtocolError};
use tokio_tungstenite::tungstenite::Message;
use tokio_util::task::AbortOnDropHandle;

use super::cmd::Session;
use super::rate::{RateLimiter, Verdict};
use super::writer::{self, ReadEnd, Sink, Ws};
use super::{Slot, Transport};
use crate::config::Config;
use crate::metrics::Refused;
use crate::outbox::stop::{Reason, Side};
use crate::outbox::{CloseCode, ConnId, Out, Outbox};

/// How long a connection in a room waits at shutdown for its room to say `room_closed`.
const ROOM_CLOSE_WAIT: Duration = Duration::from_secs(2);

/// The read loop's state: the connection's way out, and the session its messages act on.
struct Reader {
    server: Arc<Transport>,
    outbox: Outbox,
    session: Session,
}

/// Serve one upgraded connection until it closes, or drop it at the end of the shutdown
/// grace. `slot` is its place under the connection cap; one that came in over the cap gets
/// `welcome`, `server_full` and close 1013.
pub(super) async fn serve(
    slot: Arc<Slot>,
    (sink, stream): (Sink, SplitStream<Ws>),
    client: IpAddr,
    id: ConnId,
) {
    let server = slot.server.clone();
    let limits = &server.config.limits;
    let (handle, rx) = Outbox::new(id, limits.slow_rule(), limits.out_queue.max(4));
    // On the list the shutdown and the hard stop go through, until this task ends.
    let _live = server.stop.live.enter(&handle);
    let stop = handle.stop();
    tokio::select! {
        biased;
        () = stop.wait(Side::Reader, Reason::HardStop) => {
            tracing::debug!("dropped at the end of the grace");
        }
        () = serve_until_closed(slot, (sink, stream), client, handle.clone(), rx) => {}
    }
}

async fn serve_until_closed(
    slot: Arc<Slot>,
    (sink, mut stream): (Sink, SplitStream<Ws>),
    client: IpAddr,
    handle: Outbox,
    rx: mpsc::UnboundedReceiver<Out>,
) {
    let server = slot.server.clone();
    let metrics = server.metrics.clone();
    metrics.connections.inc();
    metrics.connections_total.inc();
    let writer = AbortOnDropHandle::new(tokio::spawn(writer::write_loop(
        sink,
        rx,
        handle.clone(),
        server.config.limits.idle_timeout,
        metrics.clone(),
    )));
    handle.send(&welcome(&server.config), &metrics);
    let end = if !slot.admitted {
        tracing::warn!("connection limit reached");
        metrics.refused(Refused::Cap);
        handle.send(&server_full(), &metrics);
        handle.close(CloseCode::TryLater);
        ReadEnd::Open
    } else {
        tracing::debug!("connected");
        let mut reader = Reader {
            server: server.clone(),
            outbox: handle.clone(),
            session: Session::new(server.clone(), handle.clone(), client),
        };
        let end = reader.run(&mut stream).await;
        // Boxed, as are the shutdown's wait and the linger: each runs once, at the end, and
        // inline its state would be part of every connection's task for its whole life.
        Box::pin(reader.session.close()).await;
        end
    };
    handle.close_quietly();
    Box::pin(writer::linger(stream, writer, end)).await;
    metrics.connections.dec();
    let code = handle.close_code().map_or(0, CloseCode::as_u16);
    tracing::debug!(code, "closed");
}

/// The first message on every connection.
pub(super) fn welcome(config: &Config) -> ServerMsg {
    ServerMsg::Welcome {
        protocol: PROTOCOL_VERSION,
        server: config.server_name.clone(),
    }
}

/// What a connection past the cap is told after `welcome`, before close 1013 (here, and at
/// accept by [`super::refuse`]).
pub(super) fn server_full() -> ServerMsg {
    ServerMsg::Error {
        code: ErrorCode::ServerFull,
        message: "the server is at its connection limit".into(),
        retry_ms: None,
    }
}

impl Reader {
    /// The server stops: close with 1001. The room sends `room_closed` and closes its members
    /// with 1001 (A5), so wait for it a little (if it is slow, the connection closes anyway).
    /// Only a room this node runs does that: one owned by another node goes on there (the
    /// player resumes elsewhere), and waiting for it would leave what the player sends unread
    /// for the whole wait (found by rolling-bench).
    async fn shut_down(&mut self) -> ReadEnd {
        let local = self
            .session
            .current()
            .is_some_and(|room| self.server.play.rooms.runs_here(&room.code));
        if local {
            let closing = self.outbox.stop().wait(Side::Reader, Reason::Closing);
            let _ = tokio::time::timeout(ROOM_CLOSE_WAIT, closing).await;
        }
        self.outbox.close(CloseCode::GoingAway);
        ReadEnd::Open
    }

    /// Read until the connection is to close; how the reading ended.
    #[allow(clippy::disallowed_methods)] // the rate limit: transport reads the clock
    async fn run(&mut self, stream: &mut SplitStream<Ws>) -> ReadEnd {
        let limits = self.server.config.limits.clone();
        let mut rate = RateLimiter::new(
            limits.rate_limit,
            limits.rate_burst,
            limits.abuse_threshold,
            limits.abuse_window,
            Instant::now(),
        );
        let outbox = self.outbox.clone();
        let stop = outbox.stop();
        // No idle timer here: the writer, which wakes to ping anyway, closes a connection
        // silent for the idle timeout (a timer polled on every message was 2 % of the CPU).
        loop {
            let next = tokio::select! {
                biased;
                () = stop.wait(Side::Reader, Reason::Closing) => return ReadEnd::Open,
                () = stop.wait(Side::Reader, Reason::Shutdown) => {
                    return Box::pin(self.shut_down()).await;
                }
                m = stream.next() => m,
            };
            let msg = match next {
                None => return ReadEnd::Done,
                Some(Ok(m)) => m,
                Some(Err(e)) => return self.read_failed(e),
            };
            let now = Instant::now();
            self.outbox.seen(now);
            let text = match msg {
                Message::Text(t) => Some(t),
                Message::Binary(_) => None,
                Message::Pong(p) => {
                    self.pong(&p).await;
                    continue;
                }
                Message::Ping(_) | Message::Frame(_) => continue,
                Message::Close(_) => return ReadEnd::Done,
            };
            self.server.metrics.messages_in.inc();
            match rate.check(now) {
                Verdict::Allow => {}
                Verdict::Limited => {
                    self.server.metrics.rate_limited.inc();
                    self.session
                        .error(ErrorCode::RateLimited, "too many messages; slow down");
                    continue;
                }
                Verdict::Abuse => {
                    self.server.metrics.rate_limited.inc();
                    self.server.metrics.rate_limit_closes.inc();
                    tracing::warn!("flooding past the rate limit: closing");
                    self.outbox.close(CloseCode::Policy);
                    return ReadEnd::Open;
                }
            }
            match text {
                None => self
                    .session
                    .error(ErrorCode::BadMessage, "binary frames are not accepted"),
                Some(t) => match ClientMsg::from_json(&t) {
                    Ok(m) => {
                        tracing::debug!(msg = ?m, "received");
                        // Boxed: the state of whatever a message awaits (a room's queue, the
                        // store, the directory) would otherwise size every connection's task
                        // for its whole life, idle or not; one allocation per message read
                        // costs far less than the memory it saves (docs/benchmarks.md).
                        Box::pin(self.session.apply(m)).await;
                    }
                    Err(e) => self.session.error(ErrorCode::BadMessage, e.to_string()),
                },
            }
        }
    }

    /// A Pong: if it answers a room's round-trip probe (A8), a sample for the room. Control
    /// frames are not messages: no rate limit, no error.
    async fn pong(&mut self, payload: &[u8]) {
        if let Some(rtt_ms) = self.outbox.pong(payload) {
            Box::pin(self.session.lag_sample(rtt_ms)).await;
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
        self.outbox.close(code);
        ReadEnd::Broken
    }
}
