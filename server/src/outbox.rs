//! The way out to a connection, as rooms and the transport both see it: the [`ConnId`] that
//! names a connection, its [`Outbox`] (the bounded outgoing queue plus the state shared with
//! its reader and writer: close request, room generation, slow-reader mark and accounting),
//! the [`CloseCode`]s the server sends, and [`encode`], which serializes a message once for all
//! its recipients.
//!
//! A slow reader is judged by its queue's bytes and drain time ([`SlowRule`], Amendment A4),
//! never by a count of messages a reading client can absorb: bytes are added when a message is
//! queued and subtracted when the writer takes it off. The drain time is the writer's to judge
//! ([`Outbox::stalled`]): the queue's last progress is when the writer began its last batch, and
//! a write blocked on a client that stopped reading for longer than the rule's stall closes it.
//! Sending reads no clock (a clock read per message per recipient was 2 % of the server's CPU).
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

use crate::metrics::Metrics;

pub mod stop;

use stop::{Reason, Stop};

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
    match protocol::encode::to_json(msg) {
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

/// What the queue carries to the writer: a text frame, or a round-trip probe (A8) whose Ping
/// payload is the time it was queued. Not tungstenite's `Message` (56 bytes): tokio's queue
/// allocates its first block of 32 slots with the queue, so every byte of a slot is 32 bytes of
/// every connection, idle or not.
#[derive(Debug)]
pub enum Out {
    /// A text frame.
    Text(Utf8Bytes),
    /// A Ping carrying this payload, big-endian.
    Probe(u64),
}

impl Out {
    /// The frame to write.
    pub fn into_message(self) -> Message {
        match self {
            Out::Text(t) => Message::Text(t),
            Out::Probe(p) => Message::Ping(p.to_be_bytes().to_vec().into()),
        }
    }
}

/// State a connection shares with the rooms that hold its outbox.
#[derive(Debug)]
struct ConnState {
    /// Raised when the connection is to close, the server shuts down, or its grace is over.
    stop: Stop,
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
    /// Text messages in the queue, and the most it may hold (the safety net).
    queued_msgs: AtomicUsize,
    max_msgs: usize,
    /// What `progress_ms` counts from.
    born: Instant,
    /// Milliseconds after `born` of the queue's last progress.
    progress_ms: AtomicU64,
    /// Milliseconds after `born` when the client last sent anything (a frame of any kind).
    seen_ms: AtomicU64,
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
    /// Unbounded, because the bounds are the [`SlowRule`]'s bytes and `max_msgs`, counted
    /// here: a bounded tokio channel takes a lock on every message received to give its permit
    /// back, the costliest step left on the way out in a profile of a 400-player load.
    tx: mpsc::UnboundedSender<Out>,
    shared: Arc<ConnState>,
}

impl Outbox {
    /// The outbox of connection `id` holding at most `max_msgs` text messages, and the queue
    /// its writer drains (calling [`Outbox::taken`] for each message and [`Outbox::progress`]
    /// for each batch); `rule` says when it is a slow reader.
    #[allow(clippy::disallowed_methods)] // the transport's accounting reads the clock, not the rules
    pub fn new(
        id: ConnId,
        rule: SlowRule,
        max_msgs: usize,
    ) -> (Outbox, mpsc::UnboundedReceiver<Out>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let outbox = Outbox {
            id,
            tx,
            shared: Arc::new(ConnState {
                stop: Stop::default(),
                close_code: AtomicU16::new(0),
                slow: AtomicBool::new(false),
                room_gen: AtomicU64::new(0),
                rule,
                queued_bytes: AtomicUsize::new(0),
                queued_msgs: AtomicUsize::new(0),
                max_msgs,
                born: Instant::now(),
                progress_ms: AtomicU64::new(0),
                seen_ms: AtomicU64::new(0),
                probe_out: AtomicU64::new(0),
            }),
        };
        (outbox, rx)
    }

    /// Queue a text frame. A client whose queue is over the [`SlowRule`] (or, as a safety net,
    /// full) does not read: it is closed (1008) rather than allowed to slow down its room.
    /// Returns whether the message was queued.
    pub fn send_text(&self, text: Utf8Bytes, metrics: &Metrics) -> bool {
        let queued = self.push_text(text, metrics);
        if queued {
            metrics.messages_out.inc();
        }
        queued
    }

    /// [`Outbox::send_text`] without counting the message in `messages_out`: for a sender
    /// that counts a whole fan-out at once (one atomic add on a counter every thread shares,
    /// not one per recipient).
    pub fn push_text(&self, text: Utf8Bytes, metrics: &Metrics) -> bool {
        let sh = &self.shared;
        let n = text.len();
        let before = sh.queued_bytes.fetch_add(n, Relaxed);
        let slow = before + n > sh.rule.max_bytes;
        let full = sh.queued_msgs.fetch_add(1, Relaxed) >= sh.max_msgs;
        let queued = !slow && !full && self.tx.send(Out::Text(text)).is_ok();
        if queued {
            return true;
        }
        sh.queued_bytes.fetch_sub(n, Relaxed);
        sh.queued_msgs.fetch_sub(1, Relaxed);
        // Over the rule, or the safety net is full; a closed channel is a connection gone.
        if !self.tx.is_closed() && !sh.stop.is_raised(Reason::Closing) {
            self.close_slow(metrics);
        }
        false
    }

    /// The writer took `msg` off the queue: its bytes leave the count.
    pub fn taken(&self, msg: &Out) {
        if let Out::Text(t) = msg {
            let sh = &self.shared;
            sh.queued_bytes.fetch_sub(t.len(), Relaxed);
            sh.queued_msgs.fetch_sub(1, Relaxed);
        }
    }

    /// The writer begins a batch: the queue made progress now.
    pub fn progress(&self) {
        let sh = &self.shared;
        sh.progress_ms.store(sh.now_ms(), Relaxed);
    }

    /// Completes once messages have waited in the queue for longer than the rule's stall since
    /// the writer's last [`Outbox::progress`]: the writer races it against a write that blocks
    /// on a client that stopped reading, so the drain rule holds whatever is queued.
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

    /// The reader heard from the client at `at` (the instant it read for its rate limit).
    pub fn seen(&self, at: Instant) {
        let sh = &self.shared;
        let ms = at.saturating_duration_since(sh.born).as_millis() as u64;
        sh.seen_ms.store(ms, Relaxed);
    }

    /// How long the client has sent nothing.
    pub fn silent_for(&self) -> Duration {
        let sh = &self.shared;
        Duration::from_millis(sh.now_ms().saturating_sub(sh.seen_ms.load(Relaxed)))
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
        self.tx.send(Out::Probe(now)).is_ok()
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
        self.shared.stop.raise(Reason::Closing);
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

    /// Why the connection's tasks should stop: [`Reason::Closing`] once it is to close; the
    /// transport raises the server's shutdown and hard stop on it too.
    pub fn stop(&self) -> &Stop {
        &self.shared.stop
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
        let (out, _rx) = Outbox::new(ConnId(1), RULE, 1);
        assert_eq!(out.close_code(), None);
        out.close(CloseCode::GoingAway);
        out.close_quietly();
        out.close(CloseCode::Normal);
        assert_eq!(out.close_code(), Some(CloseCode::GoingAway));
        assert!(out.stop().is_raised(Reason::Closing));
    }

    /// A8: a probe's Pong is one sample of the time it took; a made-up, replayed or
    /// unasked-for Pong is none, and a probe still out is not replaced before its patience.
    #[tokio::test(start_paused = true)]
    async fn a_pong_is_a_sample_only_for_the_probe_out() {
        let (out, mut rx) = Outbox::new(ConnId(1), RULE, 16);
        assert_eq!(out.pong(&5u64.to_be_bytes()), None, "nothing asked");
        tokio::time::advance(Duration::from_secs(1)).await;
        assert!(out.probe());
        let Some(Message::Ping(payload)) = rx.recv().await.map(Out::into_message) else {
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
        let (out, mut rx) = Outbox::new(ConnId(1), RULE, 4096);
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

    /// Sending judges bytes only: a queue that has waited long is the writer's to close
    /// ([`Outbox::stalled`], raced against its blocked write), not the next sender's.
    #[tokio::test(start_paused = true)]
    async fn sending_reads_no_clock() {
        let m = Metrics::default();
        let (out, _rx) = Outbox::new(ConnId(1), RULE, 4096);
        out.progress();
        assert!(out.send_text(text(10), &m));
        tokio::time::advance(Duration::from_secs(60)).await;
        assert!(out.send_text(text(10), &m));
        assert!(!out.is_slow());
        // The writer's stall wait sees it at once.
        let stalled = tokio::time::timeout(Duration::from_millis(1), out.stalled()).await;
        assert!(stalled.is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn stalled_fires_only_for_a_queue_that_waits() {
        let m = Metrics::default();
        let (out, mut rx) = Outbox::new(ConnId(1), RULE, 4096);
        let t0 = Instant::now();
        // Empty for a minute: not stalled.
        let idle = tokio::time::timeout(Duration::from_secs(60), out.stalled()).await;
        assert!(idle.is_err());
        // A batch begun 5 s on, then a message left waiting: stalled just past 10 s after the
        // batch began.
        assert!(out.send_text(text(10), &m));
        tokio::time::advance(Duration::from_secs(5)).await;
        out.progress();
        out.taken(&rx.recv().await.expect("queued"));
        let taken_at = Instant::now();
        assert!(out.send_text(text(10), &m));
        out.stalled().await;
        let waited = Instant::now() - taken_at;
        assert!(waited > RULE.max_stall && waited < RULE.max_stall + Duration::from_secs(1));
        assert!(Instant::now() - t0 > Duration::from_secs(60));
    }

    /// The queue's first block (32 slots) is allocated with every connection.
    #[test]
    fn a_queue_slot_is_no_bigger_than_a_text_frame() {
        let (out, message) = (std::mem::size_of::<Out>(), std::mem::size_of::<Message>());
        assert_eq!(out, std::mem::size_of::<Utf8Bytes>());
        assert!(out < message, "Out {out} B, Message {message} B");
    }

    #[test]
    fn the_message_cap_is_a_safety_net() {
        let m = Metrics::default();
        let (out, rx) = Outbox::new(ConnId(1), RULE, 2);
        assert!(out.send_text(text(1), &m) && out.send_text(text(1), &m));
        assert!(!out.send_text(text(1), &m));
        assert!(out.is_slow());
        // A connection whose writer is gone is not slow, just gone.
        let (gone, rx2) = Outbox::new(ConnId(2), RULE, 2);
        drop(rx2);
        assert!(!gone.send_text(text(1), &m));
        assert!(!gone.is_slow());
        drop(rx);
    }
}
