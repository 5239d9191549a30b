//! The way out to a connection, as rooms and the transport both see it: the [`ConnId`] that
//! names a connection, its [`Outbox`] (the bounded outgoing queue plus the state shared with
//! its reader and writer: close request, room generation, slow-reader mark), the
//! [`CloseCode`]s the server sends, and [`encode`], which serializes a message once for all
//! its recipients.
//!
//! It sits at the bottom of the crate: it knows neither the transport (`net`) nor rooms.

use std::fmt;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64};
use std::sync::Arc;

use protocol::ServerMsg;
use tokio::sync::mpsc::{self, error::TrySendError};
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_util::sync::CancellationToken;

use crate::metrics::Metrics;

/// Outgoing messages queued per connection before it counts as not reading.
pub const OUT_QUEUE: usize = 256;

/// A connection, server-wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConnId(pub u64);

impl fmt::Display for ConnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The WebSocket close codes the server sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloseCode {
    /// 1000: idle timeout, or the seat was resumed on another connection.
    Normal,
    /// 1001: the server shuts down.
    GoingAway,
    /// 1002: protocol error in the WebSocket framing.
    Protocol,
    /// 1007: a text frame that is not UTF-8.
    InvalidData,
    /// 1008: flooding past the rate limit, or not reading.
    Policy,
    /// 1009: message too big.
    TooBig,
    /// 1013: the server is at its connection limit.
    TryLater,
}

impl CloseCode {
    /// Every code.
    pub const ALL: [CloseCode; 7] = [
        CloseCode::Normal,
        CloseCode::GoingAway,
        CloseCode::Protocol,
        CloseCode::InvalidData,
        CloseCode::Policy,
        CloseCode::TooBig,
        CloseCode::TryLater,
    ];

    /// The code on the wire.
    pub const fn as_u16(self) -> u16 {
        match self {
            CloseCode::Normal => 1000,
            CloseCode::GoingAway => 1001,
            CloseCode::Protocol => 1002,
            CloseCode::InvalidData => 1007,
            CloseCode::Policy => 1008,
            CloseCode::TooBig => 1009,
            CloseCode::TryLater => 1013,
        }
    }

    /// The reason text sent in the close frame.
    pub const fn reason(self) -> &'static str {
        match self {
            CloseCode::Normal => "closing",
            CloseCode::GoingAway => "server shutting down",
            CloseCode::Policy => "policy violation",
            CloseCode::TooBig => "message too big",
            CloseCode::TryLater => "server full",
            CloseCode::InvalidData => "invalid utf-8",
            CloseCode::Protocol => "",
        }
    }

    fn from_u16(code: u16) -> Option<CloseCode> {
        CloseCode::ALL.into_iter().find(|c| c.as_u16() == code)
    }
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

/// State a connection shares with the rooms that hold its outbox.
#[derive(Debug)]
struct Shared {
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

/// A way to queue messages to a connection and to close it, held by its room and its tasks.
#[derive(Clone, Debug)]
pub struct Outbox {
    /// Server-wide connection id.
    pub id: ConnId,
    tx: mpsc::Sender<Message>,
    shared: Arc<Shared>,
}

impl Outbox {
    /// The outbox of connection `id`, whose writer drains the receiving end of `tx`.
    pub fn new(id: ConnId, tx: mpsc::Sender<Message>) -> Outbox {
        Outbox {
            id,
            tx,
            shared: Arc::new(Shared {
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

    /// The current room generation (bumped by [`Outbox::detach`]).
    pub fn room_gen(&self) -> u64 {
        self.shared.room_gen.load(Relaxed)
    }

    /// Close with `code` (the first code chosen wins).
    pub fn close(&self, code: CloseCode) {
        self.close_raw(code.as_u16());
    }

    /// Close without a close frame of our own (the peer closed or vanished), unless a code
    /// was chosen already.
    pub fn close_quietly(&self) {
        self.close_raw(0);
    }

    fn close_raw(&self, code: u16) {
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
            conn_id = self.id.0,
            "client does not read its messages: closing"
        );
        self.shared.slow.store(true, Relaxed);
        self.close(CloseCode::Policy);
    }

    /// Whether it was closed for not reading.
    pub fn is_slow(&self) -> bool {
        self.shared.slow.load(Relaxed)
    }

    /// The close code chosen, if any.
    pub fn close_code(&self) -> Option<CloseCode> {
        CloseCode::from_u16(self.shared.close_code.load(Relaxed))
    }

    /// Cancelled once the connection is to close.
    pub fn closing(&self) -> &CancellationToken {
        &self.shared.closing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_codes_on_the_wire() {
        let codes = CloseCode::ALL.map(CloseCode::as_u16);
        assert_eq!(codes, [1000, 1001, 1002, 1007, 1008, 1009, 1013]);
        for c in CloseCode::ALL {
            assert_eq!(CloseCode::from_u16(c.as_u16()), Some(c));
        }
        assert_eq!(CloseCode::from_u16(0), None);
    }

    #[test]
    fn first_close_code_wins() {
        let (tx, _rx) = mpsc::channel(1);
        let out = Outbox::new(ConnId(1), tx);
        assert_eq!(out.close_code(), None);
        out.close(CloseCode::GoingAway);
        out.close_quietly();
        out.close(CloseCode::Normal);
        assert_eq!(out.close_code(), Some(CloseCode::GoingAway));
        assert!(out.closing().is_cancelled());
    }
}
