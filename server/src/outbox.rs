//! The way out to a connection, as rooms and the transport both see it: the [`ConnId`] that
//! names a connection, its [`Outbox`] (the bounded outgoing queue plus the state shared with
//! its reader and writer: close request, room generation, slow-reader mark and accounting),
//! the [`CloseCode`]s the server sends, and [`encode`], which serializes a message once for all
//! its recipients.
//!
//! A slow reader is judged by its queue's bytes and drain time ([`SlowRule`], Amendment A4),
//! never by a count of messages a reading client can absorb: bytes are added when a message is
//! queued and subtracted when the writer takes it off, and the queue's last progress is when the
//! writer last took a message, or when an empty queue got its first one.
//!
//! It sits at the bottom of the crate: it knows neither the transport (`net`) nor rooms.

use std::fmt;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, AtomicUsize};
use std::sync::Arc;
use std::time::Duration;

use protocol::ServerMsg;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_util::sync::CancellationToken;

use crate::metrics::Metrics;

/// Outgoing messages one connection's queue holds at most: a safety net; queued bytes and
/// drain time ([`SlowRule`]) decide who is a slow reader.
pub const OUT_QUEUE: usize = 4096;

/// How long a round-trip probe waits for its Pong before another replaces it (A8).
pub const PROBE_PATIENCE: Duration = Duration::from_secs(5);

/// When a connection is a slow reader: its queue holds more than `max_bytes`, or has held
/// messages for `max_stall` without the writer taking one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlowRule {
    /// Bytes queued above which the connection is slow.
    pub max_bytes: usize,
    /// How long a non-empty queue may go without progress.
    pub max_stall: Duration,
}

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
    /// 1012: the service restarts (cluster mode: the node that ran the room is gone).
    ServiceRestart,
    /// 1013: the server is at its connection limit.
    TryLater,
}

impl CloseCode {
    /// Every code.
    pub const ALL: [CloseCode; 8] = [
        CloseCode::Normal,
        CloseCode::GoingAway,
        CloseCode::Protocol,
        CloseCode::InvalidData,
        CloseCode::Policy,
        CloseCode::TooBig,
        CloseCode::ServiceRestart,
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
            CloseCode::ServiceRestart => 1012,
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
            CloseCode::ServiceRestart => "room lost: its server is gone",
            CloseCode::TryLater => "server full",
            CloseCode::InvalidData => "invalid utf-8",
            CloseCode::Protocol => "",
        }
    }

    /// The code with this number, if the server sends it.
    pub fn from_u16(code: u16) -> Option<CloseCode> {
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
struct ConnState {
    /// Cancelled when the connection is to close.
    closing: CancellationToken,
    /// The close code to send (0: none chosen; the peer closed or vanished).
    close_code: AtomicU16,
    /// Closed for not reading: nothing more is written to it but the close frame.
    slow: AtomicBool,
    /// Bumped each time a room lets go of the connection; a reader's link to a room is valid
    /// only while this still has the value it had when the link was made.
    room_gen: AtomicU64,
    rule: SlowRule,
    /// Bytes of text in the queue (added by senders, subtracted by the writer).
    queued_bytes: AtomicUsize,
    /// What `progress_ms` counts from.
    born: Instant,
    /// Milliseconds after `born` of the queue's last progress.
    progress_ms: AtomicU64,
    /// The payload of the round-trip probe awaiting its Pong (A8): milliseconds after `born`
    /// when it was sent, plus one; 0 when none is out.
    probe_out: AtomicU64,
}

impl ConnState {
    /// Milliseconds since the outbox was made, on the tokio clock (paused in tests).
    #[allow(clippy::disallowed_methods)] // the transport's accounting reads the clock, not the rules
    fn now_ms(&self) -> u64 {
        Instant::now()
            .saturating_duration_since(self.born)
            .as_millis() as u64
    }
}

/// A way to queue messages to a connection and to close it, held by its room and its tasks.
#[derive(Clone, Debug)]
pub struct Outbox {
    /// Server-wide connection id.
    pub id: ConnId,
    tx: mpsc::Sender<Message>,
    shared: Arc<ConnState>,
}

impl Outbox {
    /// The outbox of connection `id`, whose writer drains the receiving end of `tx` (calling
    /// [`Outbox::taken`] for each message); `rule` says when it is a slow reader.
    #[allow(clippy::disallowed_methods)] // the transport's accounting reads the clock, not the rules
    pub fn new(id: ConnId, tx: mpsc::Sender<Message>, rule: SlowRule) -> Outbox {
        Outbox {
            id,
            tx,
            shared: Arc::new(ConnState {
                closing: CancellationToken::new(),
                close_code: AtomicU16::new(0),
                slow: AtomicBool::new(false),
                room_gen: AtomicU64::new(0),
                rule,
                queued_bytes: AtomicUsize::new(0),
                born: Instant::now(),
                progress_ms: AtomicU64::new(0),
                probe_out: AtomicU64::new(0),
            }),
        }
    }

    /// Queue a text frame. A client whose queue is over the [`SlowRule`] (or, as a safety net,
    /// full) does not read: it is closed (1008) rather than allowed to slow down its room.
    /// Returns whether the message was queued.
    pub fn send_text(&self, text: Utf8Bytes, metrics: &Metrics) -> bool {
        let sh = &self.shared;
        let n = text.len();
        let now = sh.now_ms();
        let before = sh.queued_bytes.fetch_add(n, Relaxed);
        let stalled = before > 0
            && now.saturating_sub(sh.progress_ms.load(Relaxed))
                > sh.rule.max_stall.as_millis() as u64;
        if before == 0 {
            // The stall clock runs only while something waits.
            sh.progress_ms.store(now, Relaxed);
        }
        let slow = stalled || before + n > sh.rule.max_bytes;
        let queued = !slow && self.tx.try_send(Message::Text(text)).is_ok();
        if queued {
            metrics.messages_out.inc();
            return true;
        }
        sh.queued_bytes.fetch_sub(n, Relaxed);
        // Over the rule, or the safety net is full; a closed channel is a connection gone.
        if !self.tx.is_closed() && !sh.closing.is_cancelled() {
            self.close_slow(metrics);
        }
        false
    }

    /// The writer took `msg` off the queue: its bytes leave the count, and the queue made
    /// progress.
    pub fn taken(&self, msg: &Message) {
        if let Message::Text(t) = msg {
            let sh = &self.shared;
            sh.queued_bytes.fetch_sub(t.len(), Relaxed);
            sh.progress_ms.store(sh.now_ms(), Relaxed);
        }
    }

    /// Completes once messages have waited in the queue for longer than the rule's stall
    /// without the writer taking one: the writer races it against a write that blocks on a
    /// client that stopped reading, so the drain rule holds even when nothing new is queued.
    pub async fn stalled(&self) {
        let sh = &self.shared;
        let stall = sh.rule.max_stall.as_millis() as u64;
        loop {
            let waited = sh.now_ms().saturating_sub(sh.progress_ms.load(Relaxed));
            let queued = sh.queued_bytes.load(Relaxed) > 0;
            if queued && waited > stall {
                return;
            }
            // Check again when the current wait could first exceed the stall.
            let left = if queued {
                stall + 1 - waited
            } else {
                stall + 1
            };
            tokio::time::sleep(Duration::from_millis(left)).await;
        }
    }

    /// Bytes waiting in the queue.
    pub fn queued_bytes(&self) -> usize {
        self.shared.queued_bytes.load(Relaxed)
    }

    /// Queue one server message.
    pub fn send(&self, msg: &ServerMsg, metrics: &Metrics) -> bool {
        self.send_text(encode(msg), metrics)
    }

    /// Ask the client for a round trip (A8): queue a WebSocket Ping whose payload is the time
    /// it was queued, unless a probe is still out and younger than [`PROBE_PATIENCE`] (so a
    /// round trip longer than the probe interval is still measured). Every WebSocket client
    /// answers a Ping with a Pong of the same payload; [`Outbox::pong`] turns it into a
    /// sample. Returns whether a Ping was queued.
    pub fn probe(&self) -> bool {
        let sh = &self.shared;
        let now = sh.now_ms() + 1;
        let out = sh.probe_out.load(Relaxed);
        if out != 0 && now.saturating_sub(out) < PROBE_PATIENCE.as_millis() as u64 {
            return false;
        }
        sh.probe_out.store(now, Relaxed);
        let payload = now.to_be_bytes().to_vec();
        self.tx.try_send(Message::Ping(payload.into())).is_ok()
    }

    /// A Pong arrived with `payload`: the round trip in milliseconds if it answers the probe
    /// that is out. Anything else (an answer to the idle ping, a Pong nobody asked for, a
    /// replayed or made-up payload) is no sample: a client can delay its answer, never
    /// choose the time it claims.
    pub fn pong(&self, payload: &[u8]) -> Option<u32> {
        let sh = &self.shared;
        let sent = u64::from_be_bytes(payload.try_into().ok()?);
        if sent == 0 {
            return None;
        }
        sh.probe_out
            .compare_exchange(sent, 0, Relaxed, Relaxed)
            .ok()?;
        let rtt = (sh.now_ms() + 1).saturating_sub(sent);
        Some(u32::try_from(rtt).unwrap_or(u32::MAX))
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
#[allow(clippy::disallowed_methods)] // tests pick their own instants
mod tests {
    use super::*;

    #[test]
    fn close_codes_on_the_wire() {
        let codes = CloseCode::ALL.map(CloseCode::as_u16);
        assert_eq!(codes, [1000, 1001, 1002, 1007, 1008, 1009, 1012, 1013]);
        for c in CloseCode::ALL {
            assert_eq!(CloseCode::from_u16(c.as_u16()), Some(c));
        }
        assert_eq!(CloseCode::from_u16(0), None);
    }

    const RULE: SlowRule = SlowRule {
        max_bytes: 1000,
        max_stall: Duration::from_secs(10),
    };

    fn text(n: usize) -> Utf8Bytes {
        Utf8Bytes::from("x".repeat(n))
    }

    #[test]
    fn first_close_code_wins() {
        let (tx, _rx) = mpsc::channel(1);
        let out = Outbox::new(ConnId(1), tx, RULE);
        assert_eq!(out.close_code(), None);
        out.close(CloseCode::GoingAway);
        out.close_quietly();
        out.close(CloseCode::Normal);
        assert_eq!(out.close_code(), Some(CloseCode::GoingAway));
        assert!(out.closing().is_cancelled());
    }

    /// A8: a probe's Pong is one sample of the time it took; a made-up, replayed or
    /// unasked-for Pong is none, and a probe still out is not replaced before its patience.
    #[tokio::test(start_paused = true)]
    async fn a_pong_is_a_sample_only_for_the_probe_out() {
        let (tx, mut rx) = mpsc::channel(16);
        let out = Outbox::new(ConnId(1), tx, RULE);
        assert_eq!(out.pong(&5u64.to_be_bytes()), None, "nothing asked");
        tokio::time::advance(Duration::from_secs(1)).await;
        assert!(out.probe());
        let Some(Message::Ping(payload)) = rx.recv().await else {
            panic!("a ping");
        };
        assert!(!out.probe(), "one probe out at a time");
        tokio::time::advance(Duration::from_millis(300)).await;
        assert_eq!(out.pong(b""), None, "the idle ping's answer");
        assert_eq!(
            out.pong(&(u64::from_be_bytes(payload[..].try_into().unwrap()) - 200).to_be_bytes()),
            None,
            "an older time claimed"
        );
        assert_eq!(out.pong(&payload), Some(300));
        assert_eq!(out.pong(&payload), None, "answered once");
        // A probe never answered is replaced after its patience.
        assert!(out.probe());
        tokio::time::advance(PROBE_PATIENCE).await;
        assert!(out.probe());
    }

    #[tokio::test(start_paused = true)]
    async fn bytes_decide_not_message_counts() {
        let m = Metrics::default();
        let (tx, mut rx) = mpsc::channel(4096);
        let out = Outbox::new(ConnId(1), tx, RULE);
        // A reader that keeps up takes any number of messages.
        for _ in 0..3000 {
            assert!(out.send_text(text(100), &m));
            out.taken(&rx.recv().await.expect("queued"));
        }
        assert_eq!(out.queued_bytes(), 0);
        // One that does not: ten of 100 bytes fit, the eleventh is over 1000.
        for _ in 0..10 {
            assert!(out.send_text(text(100), &m));
        }
        assert_eq!(out.queued_bytes(), 1000);
        assert!(!out.send_text(text(1), &m));
        assert!(out.is_slow());
        assert_eq!(out.close_code(), Some(CloseCode::Policy));
        assert_eq!(out.queued_bytes(), 1000);
    }

    #[tokio::test(start_paused = true)]
    async fn a_queue_that_does_not_drain_is_slow() {
        let m = Metrics::default();
        let (tx, mut rx) = mpsc::channel(4096);
        let out = Outbox::new(ConnId(1), tx, RULE);
        assert!(out.send_text(text(10), &m));
        // Progress 9 s in: the clock restarts.
        tokio::time::advance(Duration::from_secs(9)).await;
        out.taken(&rx.recv().await.expect("queued"));
        assert!(out.send_text(text(10), &m));
        tokio::time::advance(Duration::from_secs(9)).await;
        assert!(out.send_text(text(10), &m));
        assert!(!out.is_slow());
        // An empty queue is never stalled, however long it was empty.
        out.taken(&rx.recv().await.expect("queued"));
        out.taken(&rx.recv().await.expect("queued"));
        tokio::time::advance(Duration::from_secs(60)).await;
        assert!(out.send_text(text(10), &m));
        // Nothing taken for over 10 s while messages wait: slow.
        tokio::time::advance(Duration::from_millis(10_001)).await;
        assert!(!out.send_text(text(10), &m));
        assert!(out.is_slow());
    }

    #[tokio::test(start_paused = true)]
    async fn stalled_fires_only_for_a_queue_that_waits() {
        let m = Metrics::default();
        let (tx, mut rx) = mpsc::channel(4096);
        let out = Outbox::new(ConnId(1), tx, RULE);
        let t0 = Instant::now();
        // Empty for a minute: not stalled.
        let idle = tokio::time::timeout(Duration::from_secs(60), out.stalled()).await;
        assert!(idle.is_err());
        // Taken from 5 s on, then left waiting: stalled just past 10 s after the last take.
        assert!(out.send_text(text(10), &m));
        tokio::time::advance(Duration::from_secs(5)).await;
        out.taken(&rx.recv().await.expect("queued"));
        let taken_at = Instant::now();
        assert!(out.send_text(text(10), &m));
        out.stalled().await;
        let waited = Instant::now() - taken_at;
        assert!(waited > RULE.max_stall && waited < RULE.max_stall + Duration::from_secs(1));
        assert!(Instant::now() - t0 > Duration::from_secs(60));
    }

    #[test]
    fn the_message_cap_is_a_safety_net() {
        let m = Metrics::default();
        let (tx, rx) = mpsc::channel(2);
        let out = Outbox::new(ConnId(1), tx, RULE);
        assert!(out.send_text(text(1), &m) && out.send_text(text(1), &m));
        assert!(!out.send_text(text(1), &m));
        assert!(out.is_slow());
        // A connection whose writer is gone is not slow, just gone.
        let (tx, rx2) = mpsc::channel(2);
        let gone = Outbox::new(ConnId(2), tx, RULE);
        drop(rx2);
        assert!(!gone.send_text(text(1), &m));
        assert!(!gone.is_slow());
        drop(rx);
    }
}
