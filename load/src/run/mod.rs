//! Load runs against the race server and the echo server, and what they measure.
//!
//! Every run is open-loop: connection `j` of a group sends its `k`-th message at the intended
//! time `t0 + offset_j + k * interval`, whatever happened to the previous ones, and every
//! latency is measured from that intended time (no coordinated omission): a late send is
//! charged to the latency. The tokio timer fires up to a millisecond after a deadline, so a
//! sender wakes a millisecond early and, when it sends before the intended time, latency counts
//! from the actual send. The start time of each message is published to the whole group, so
//! any member can time its fan-out copy of message `k` of member `j`.
//!
//! Each connection also checks its stream: the replies to its own messages arrive once each
//! and in order, and so do the copies of every member's messages (the race server's `progress`
//! counts `filled + mistakes`, which a bot's placement raises by exactly one).

pub mod boards;
pub mod churn;
pub mod crowd;
pub mod deal;
pub mod echo_load;
pub mod idle;
pub mod idle_spread;
pub mod launch;
pub mod plan;
pub mod pool;
pub mod race;
pub mod report;
pub mod spawn;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::stream::{SplitSink, SplitStream};
use futures::{SinkExt, StreamExt};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

use crate::hist::Latency;
use crate::wsclient::Ws;

/// When a group's messages are meant to leave.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    /// Start of the measured window.
    pub t0: Instant,
    /// Time between two messages of one connection.
    pub interval: Duration,
    /// No message is meant to leave at or after this instant.
    pub end: Instant,
}

impl Schedule {
    /// A schedule of `total_rate` messages/s over `connections` connections for `duration`,
    /// starting at `t0`.
    pub fn new(t0: Instant, total_rate: f64, connections: usize, duration: Duration) -> Schedule {
        let per_conn = (total_rate / connections.max(1) as f64).max(1e-3);
        Schedule {
            t0,
            interval: Duration::from_secs_f64(1.0 / per_conn),
            end: t0 + duration,
        }
    }

    /// The offset of connection `g` of `n`: spread evenly over one interval.
    pub fn offset(&self, g: usize, n: usize) -> Duration {
        self.interval.mul_f64(g as f64 / n.max(1) as f64)
    }

    /// The most messages one connection can send (intended before `end`).
    pub fn len(&self) -> usize {
        let span = (self.end - self.t0).as_secs_f64() / self.interval.as_secs_f64().max(1e-9);
        // Offsets are below one interval: at most one message past the span's floor.
        span.ceil() as usize + 1
    }

    /// Whether no message is meant to leave at all.
    pub fn is_empty(&self) -> bool {
        self.end <= self.t0
    }

    /// When message `k` of a connection with `offset` is meant to leave.
    pub fn intended(&self, offset: Duration, k: u64) -> Instant {
        let nanos = self.interval.as_nanos().saturating_mul(u128::from(k));
        self.t0 + offset + Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }
}

/// The fan-out of one message: copies still expected, and the latest arrival so far.
#[derive(Default)]
struct Fanout {
    pending: HashMap<(usize, u64), (usize, Duration)>,
    /// Time until the last member got the copy.
    all: Latency,
}

/// What the members of one group (a room, or an echo group) share.
pub struct Group {
    /// The schedule of the whole run.
    pub schedule: Schedule,
    /// Each member's send offset.
    pub offsets: Vec<Duration>,
    /// Each member's messages sent so far.
    sent: Vec<AtomicU64>,
    /// When each member's message `k` started: nanoseconds after `base`.
    started: Vec<Vec<AtomicU64>>,
    /// The origin of `started`, a second before `t0`.
    base: Instant,
    /// Members whose sender has finished.
    writers_done: AtomicUsize,
    fanout: Mutex<Fanout>,
}

impl Group {
    /// A group whose members have these offsets.
    pub fn new(schedule: Schedule, offsets: Vec<Duration>) -> Group {
        let per_member = schedule.len();
        Group {
            schedule,
            sent: offsets.iter().map(|_| AtomicU64::new(0)).collect(),
            started: offsets
                .iter()
                .map(|_| (0..per_member).map(|_| AtomicU64::new(0)).collect())
                .collect(),
            base: schedule.t0 - Duration::from_secs(1),
            offsets,
            writers_done: AtomicUsize::new(0),
            fanout: Mutex::new(Fanout::default()),
        }
    }

    fn size(&self) -> usize {
        self.offsets.len()
    }

    /// When member `j`'s message `k` was meant to leave.
    fn intended(&self, j: usize, k: u64) -> Instant {
        self.schedule.intended(self.offsets[j], k)
    }

    /// Records that member `j`'s message `k` starts at `at` (before it is sent).
    fn set_started(&self, j: usize, k: u64, at: Instant) {
        let slot = usize::try_from(k).ok().and_then(|k| self.started[j].get(k));
        if let Some(slot) = slot {
            let nanos = at.saturating_duration_since(self.base).as_nanos();
            slot.store(u64::try_from(nanos).unwrap_or(u64::MAX), Ordering::Release);
        }
    }

    /// When member `j`'s message `k` started: its intended time, or its actual send when that
    /// was earlier.
    fn started(&self, j: usize, k: u64) -> Instant {
        let intended = self.intended(j, k);
        let slot = usize::try_from(k).ok().and_then(|k| self.started[j].get(k));
        match slot.map(|s| s.load(Ordering::Acquire)) {
            Some(nanos) if nanos > 0 => intended.min(self.base + Duration::from_nanos(nanos)),
            _ => intended,
        }
    }

    /// The fan-out latencies: the time until every member had each message.
    pub fn fanout_all(&self) -> Latency {
        self.fanout
            .lock()
            .expect("fanout lock poisoned")
            .all
            .clone()
    }
}

/// What one connection saw.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Messages sent (placements, or echo frames).
    pub sent: u64,
    /// Text messages received in the measured window.
    pub received: u64,
    /// Replies to this connection's own messages.
    pub replies: u64,
    /// Replies that were accepted placements.
    pub accepted: u64,
    /// Replies that were mistakes.
    pub mistakes: u64,
    /// `error` messages, refused placements of an unexpected kind, unparsable frames,
    /// broken connections.
    pub errors: u64,
    /// Expected messages that never came.
    pub lost: u64,
    /// Messages that came twice or out of order.
    pub disorder: u64,
    /// Own message to its reply.
    pub round_trip: Latency,
    /// A member's message to its copy at this connection.
    pub fanout_member: Latency,
}

impl Tally {
    /// Adds another connection's tally.
    pub fn merge(&mut self, o: &Tally) {
        self.sent += o.sent;
        self.received += o.received;
        self.replies += o.replies;
        self.accepted += o.accepted;
        self.mistakes += o.mistakes;
        self.errors += o.errors;
        self.lost += o.lost;
        self.disorder += o.disorder;
        self.round_trip.merge(&o.round_trip);
        self.fanout_member.merge(&o.fanout_member);
    }
}

/// One incoming frame, as the reader understands it.
pub enum Event {
    /// A reply to this connection's message `id`; `accepted` when it was a good placement.
    Reply {
        /// The message index it answers.
        id: u64,
        /// An accepted placement (false: a mistake, or an echo).
        accepted: bool,
        /// A mistake.
        mistake: bool,
    },
    /// The copy of member `from`'s message number `seq` (1-based).
    Copy {
        /// Member index in the group.
        from: usize,
        /// 1-based sequence number.
        seq: u64,
    },
    /// A reply and a copy in one (the echo's own frame).
    ReplyAndCopy {
        /// The message index.
        id: u64,
    },
    /// Something the run does not count.
    Other,
    /// Something that must not happen.
    Error,
}

/// Checks one connection's stream against what its group sent.
struct Tracker {
    me: usize,
    group: Arc<Group>,
    next_reply: u64,
    last_seq: Vec<u64>,
    tally: Tally,
}

impl Tracker {
    fn new(me: usize, group: Arc<Group>) -> Tracker {
        Tracker {
            me,
            last_seq: vec![0; group.size()],
            group,
            next_reply: 0,
            tally: Tally::default(),
        }
    }

    fn on_event(&mut self, ev: Event, now: Instant) {
        match ev {
            Event::Reply {
                id,
                accepted,
                mistake,
            } => {
                self.on_reply(id, now);
                self.tally.accepted += u64::from(accepted);
                self.tally.mistakes += u64::from(mistake);
            }
            Event::Copy { from, seq } => self.on_copy(from, seq, now),
            Event::ReplyAndCopy { id } => {
                self.on_reply(id, now);
                self.on_copy(self.me, id + 1, now);
            }
            Event::Other => {}
            Event::Error => self.tally.errors += 1,
        }
    }

    fn on_reply(&mut self, id: u64, now: Instant) {
        if id < self.next_reply {
            self.tally.disorder += 1;
            return;
        }
        self.tally.lost += id - self.next_reply;
        self.next_reply = id + 1;
        self.tally.replies += 1;
        self.tally
            .round_trip
            .record(now.saturating_duration_since(self.group.started(self.me, id)));
    }

    fn on_copy(&mut self, from: usize, seq: u64, now: Instant) {
        let Some(last) = self.last_seq.get_mut(from) else {
            self.tally.errors += 1;
            return;
        };
        if seq <= *last || seq == 0 {
            self.tally.disorder += 1;
            return;
        }
        self.tally.lost += seq - *last - 1;
        *last = seq;
        let delay = now.saturating_duration_since(self.group.started(from, seq - 1));
        self.tally.fanout_member.record(delay);
        let size = self.group.size();
        let mut fanout = self.group.fanout.lock().expect("fanout lock poisoned");
        let entry = fanout
            .pending
            .entry((from, seq))
            .or_insert((size, Duration::ZERO));
        entry.0 -= 1;
        entry.1 = entry.1.max(delay);
        if entry.0 == 0 {
            let worst = entry.1;
            fanout.pending.remove(&(from, seq));
            fanout.all.record(worst);
        }
    }

    /// Every sender is done and everything they sent has arrived here.
    fn complete(&self) -> bool {
        let g = &self.group;
        g.writers_done.load(Ordering::Acquire) == g.size()
            && self.next_reply >= g.sent[self.me].load(Ordering::Acquire)
            && self
                .last_seq
                .iter()
                .zip(&g.sent)
                .all(|(&last, sent)| last >= sent.load(Ordering::Acquire))
    }

    /// The tally, with whatever never arrived counted as lost.
    fn finish(mut self) -> Tally {
        let g = &self.group;
        let sent = |j: usize| g.sent[j].load(Ordering::Acquire);
        self.tally.sent = sent(self.me);
        self.tally.lost += sent(self.me).saturating_sub(self.next_reply);
        for (j, &last) in self.last_seq.iter().enumerate() {
            self.tally.lost += sent(j).saturating_sub(last);
        }
        self.tally
    }
}

/// Sends member `me`'s messages on schedule until the schedule's end; `make(k)` is the text
/// of message `k`. Returns the sink and how late each send started (timer slack and
/// scheduling in this process, included in every latency measured).
async fn write_loop(
    mut sink: SplitSink<Ws, Message>,
    group: Arc<Group>,
    me: usize,
    mut make: impl FnMut(u64) -> String,
) -> (SplitSink<Ws, Message>, Latency) {
    let mut lag = Latency::new();
    let mut k = 0u64;
    loop {
        let at = group.intended(me, k);
        if at >= group.schedule.end {
            break;
        }
        tokio::time::sleep_until(at - Duration::from_millis(1)).await;
        let now = Instant::now();
        lag.record(now.saturating_duration_since(at));
        group.set_started(me, k, now);
        if sink.send(Message::text(make(k))).await.is_err() {
            break;
        }
        k += 1;
        group.sent[me].store(k, Ordering::Release);
    }
    group.writers_done.fetch_add(1, Ordering::AcqRel);
    (sink, lag)
}

/// Reads member `me`'s stream until everything its group sent has arrived, or `deadline`;
/// `parse` turns each text frame into an [`Event`].
async fn read_loop(
    mut stream: SplitStream<Ws>,
    group: Arc<Group>,
    me: usize,
    deadline: Instant,
    mut parse: impl FnMut(&str) -> Event,
) -> (SplitStream<Ws>, Tally) {
    let mut tracker = Tracker::new(me, group);
    let poll = Duration::from_millis(20);
    loop {
        if tracker.complete() {
            break;
        }
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        match tokio::time::timeout(poll.min(deadline - now), stream.next()).await {
            Err(_elapsed) => {}
            Ok(None) => {
                tracker.tally.errors += 1;
                break;
            }
            Ok(Some(Err(_))) => {
                tracker.tally.errors += 1;
                break;
            }
            Ok(Some(Ok(Message::Text(text)))) => {
                let now = Instant::now();
                tracker.tally.received += 1;
                let ev = parse(text.as_str());
                tracker.on_event(ev, now);
            }
            Ok(Some(Ok(Message::Close(_)))) => {
                tracker.tally.errors += 1;
                break;
            }
            Ok(Some(Ok(_))) => {}
        }
    }
    (stream, tracker.finish())
}

/// What a load run measured.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// Every connection's tally, added up.
    pub tally: Tally,
    /// Time until the last member of the group had each message.
    pub fanout_all: Latency,
    /// Connections used.
    pub connections: usize,
    /// How long messages were sent.
    pub send_window: Duration,
    /// From the first intended send to the last answer (or the drain deadline).
    pub window: Duration,
    /// The server's CPU time (user + system) over `window`, when its pid is known; on a
    /// cluster, every node's added up.
    pub server_cpu: Option<Duration>,
    /// Nodes the players were spread over (1: one server).
    pub nodes: usize,
    /// The cluster's Redis CPU time over `window`, when its pid is known.
    pub redis_cpu: Option<Duration>,
    /// This process's CPU time over `window`.
    pub self_cpu: Option<Duration>,
    /// How late sends started against their intended times.
    pub send_lag: Latency,
    /// Round trips per group (room), in the order the groups were made.
    pub round_trip_by_group: Vec<Latency>,
    /// Round trips of the players on another node than their room's owner (relayed through
    /// Redis both ways); empty on one server.
    pub round_trip_relayed: Latency,
    /// What a crowd of spectators did, when one ran (`--spectators`).
    pub crowd: Option<crowd::CrowdReport>,
}

impl RunReport {
    /// Answered messages per second of the send window.
    pub fn replies_per_s(&self) -> f64 {
        self.tally.replies as f64 / self.send_window.as_secs_f64().max(1e-9)
    }

    /// Messages the server sent (received by the clients) per second of the window.
    pub fn out_per_s(&self) -> f64 {
        self.tally.received as f64 / self.window.as_secs_f64().max(1e-9)
    }

    /// Server CPU microseconds per message it sent, when known (all nodes' CPU on a cluster).
    pub fn cpu_us_per_msg(&self) -> Option<f64> {
        self.per_msg(self.server_cpu?)
    }

    /// Redis CPU microseconds per message the servers sent, when known.
    pub fn redis_us_per_msg(&self) -> Option<f64> {
        self.per_msg(self.redis_cpu?)
    }

    fn per_msg(&self, cpu: Duration) -> Option<f64> {
        (self.tally.received > 0).then(|| cpu.as_secs_f64() * 1e6 / self.tally.received as f64)
    }
}
