//! Transport: the accept loop, plain-HTTP routes, the WebSocket connections and their
//! outgoing queues.
//!
//! - [`http`]: request-line routing, `/healthz`, `/metrics`.
//! - [`conn`]: one connection's reader and writer.
//! - [`rate`]: the per-connection rate limit.
//! - [`tuning`]: WebSocket, socket and queue settings (shared with the echo baseline).

pub mod conn;
pub mod http;
pub mod rate;
pub mod tuning;

use std::net::SocketAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64};
use std::sync::Arc;
use std::time::Duration;

use protocol::ServerMsg;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc::{self, error::TrySendError};
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::metrics::Metrics;
use crate::room::race::ConnId;
use crate::Server;

/// Close codes the server uses.
pub mod close {
    /// Normal: idle timeout, or the seat was resumed on another connection.
    pub const NORMAL: u16 = 1000;
    /// Going away: the server shuts down.
    pub const GOING_AWAY: u16 = 1001;
    /// Policy: flooding past the rate limit, or not reading.
    pub const POLICY: u16 = 1008;
    /// Message too big.
    pub const TOO_BIG: u16 = 1009;
    /// Try again later: the server is at its connection limit.
    pub const TRY_LATER: u16 = 1013;
    /// Protocol error in the WebSocket framing.
    pub const PROTOCOL: u16 = 1002;
}

/// Serialize a server message once; the bytes are shared by every recipient.
pub fn encode(msg: &ServerMsg) -> Utf8Bytes {
    match serde_json::to_string(msg) {
        Ok(s) => Utf8Bytes::from(s),
        Err(e) => {
            // The wire types serialize infallibly; this is a bug, not a client's doing.
            tracing::error!(error = %e, "cannot serialize a server message");
            Utf8Bytes::from_static(
                "{\"type\":\"error\",\"code\":\"bad_message\",\"message\":\"internal error\"}",
            )
        }
    }
}

/// State a connection shares with the rooms that hold its handle.
#[derive(Debug)]
pub struct ConnShared {
    /// Cancelled when the connection is to close.
    closing: CancellationToken,
    /// The close code to send (0: none chosen; the peer closed or vanished).
    close_code: AtomicU16,
    /// Closed for not reading: nothing more is written to it but the close frame.
    slow: AtomicBool,
    /// Bumped each time a room lets go of the connection; a reader's link to a room is valid
    /// only while this still has the value it had when the link was made.
    room_gen: AtomicU64,
}

/// A way to queue messages to a connection and to close it, held by its room.
#[derive(Clone, Debug)]
pub struct ConnHandle {
    /// Server-wide connection id.
    pub id: ConnId,
    tx: mpsc::Sender<Message>,
    shared: Arc<ConnShared>,
}

impl ConnHandle {
    fn new(id: ConnId, tx: mpsc::Sender<Message>) -> ConnHandle {
        ConnHandle {
            id,
            tx,
            shared: Arc::new(ConnShared {
                closing: CancellationToken::new(),
                close_code: AtomicU16::new(0),
                slow: AtomicBool::new(false),
                room_gen: AtomicU64::new(0),
            }),
        }
    }

    /// Queue a text frame. A full queue means the client does not read: it is closed (1008)
    /// rather than allowed to slow down its room. Returns whether the message was queued.
    pub fn send_text(&self, text: Utf8Bytes, metrics: &Metrics) -> bool {
        match self.tx.try_send(Message::Text(text)) {
            Ok(()) => {
                metrics.messages_out.inc();
                true
            }
            Err(TrySendError::Full(_)) => {
                if !self.shared.closing.is_cancelled() {
                    self.close_slow(metrics);
                }
                false
            }
            Err(TrySendError::Closed(_)) => false,
        }
    }

    /// Queue one server message.
    pub fn send(&self, msg: &ServerMsg, metrics: &Metrics) -> bool {
        self.send_text(encode(msg), metrics)
    }

    /// The room has let go of this connection.
    pub fn detach(&self) {
        self.shared.room_gen.fetch_add(1, Relaxed);
    }

    /// The current room generation (see [`ConnShared`]).
    pub fn room_gen(&self) -> u64 {
        self.shared.room_gen.load(Relaxed)
    }

    /// Close with `code` (the first code chosen wins).
    pub fn close(&self, code: u16) {
        let _ = self
            .shared
            .close_code
            .compare_exchange(0, code, Relaxed, Relaxed);
        self.shared.closing.cancel();
    }

    /// Close a client that does not read (1008), without draining its queue.
    pub fn close_slow(&self, metrics: &Metrics) {
        metrics.slow_consumer_closes.inc();
        tracing::warn!(
            conn_id = self.id,
            "client does not read its messages: closing"
        );
        self.shared.slow.store(true, Relaxed);
        self.close(close::POLICY);
    }

    fn is_slow(&self) -> bool {
        self.shared.slow.load(Relaxed)
    }

    fn close_code(&self) -> u16 {
        self.shared.close_code.load(Relaxed)
    }

    fn closing(&self) -> &CancellationToken {
        &self.shared.closing
    }
}

/// Accept until shutdown; each socket gets its own task.
pub(crate) async fn accept_loop(server: Arc<Server>, listener: TcpListener) {
    loop {
        tokio::select! {
            () = server.shutdown.cancelled() => break,
            r = listener.accept() => match r {
                Ok((stream, peer)) => {
                    let s = server.clone();
                    server.conn_tasks.spawn(serve_socket(s, stream, peer));
                }
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::error!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }
    tracing::info!("stopped accepting connections");
}

async fn serve_socket(server: Arc<Server>, stream: TcpStream, peer: SocketAddr) {
    tuning::tune_socket(&stream);
    let routed = tokio::select! {
        r = tokio::time::timeout(Duration::from_secs(10), http::peek_route(&stream)) => r,
        () = server.shutdown.cancelled() => return,
    };
    let Ok(Some(route)) = routed else { return };
    match route {
        http::Route::Ws => {
            let id = server.next_conn.fetch_add(1, Relaxed);
            let span = tracing::info_span!(
                "conn",
                conn_id = id,
                peer = %peer,
                room = tracing::field::Empty,
                player_id = tracing::field::Empty
            );
            conn::serve(server, stream, peer, id).instrument(span).await;
        }
        http::Route::Healthz => {
            let body = format!(
                "{{\"rooms\":{},\"connections\":{}}}",
                server.rooms.len(),
                server.metrics.connections.get()
            );
            http::respond(stream, "200 OK", "application/json", &body).await;
        }
        http::Route::Metrics => {
            let body = server.metrics.render();
            http::respond(stream, "200 OK", crate::metrics::CONTENT_TYPE, &body).await;
        }
        http::Route::NotFound => {
            http::respond(stream, "404 Not Found", "text/plain", "not found\n").await;
        }
        http::Route::Bad => {
            http::respond(stream, "400 Bad Request", "text/plain", "bad request\n").await;
        }
    }
}
