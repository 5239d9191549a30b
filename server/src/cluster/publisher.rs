//! The ordered publisher: every write this node makes to Redis after it starts — its
//! connections' commands up, its rooms' messages down, the directory's changes — goes through
//! one queue to one task, which carries them out in order, a pipeline at a time, so nothing
//! the node sends reorders. [`Publisher`] is the queue's sending end, held by every part that
//! writes; [`Writes`] the task's end, run once the connections exist.
//!
//! A command's `PUBLISH` answers how many nodes heard it: the publisher hands each command
//! nobody heard (or that never reached Redis) back to whoever was given as `unheard`, with its
//! receipt `R` (what the sender needs to know which command it was).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use redis::aio::ConnectionManager;
use tokio::sync::mpsc;

use super::{keys, now, wire};
use crate::metrics::Metrics;

/// After yielding, the publisher still waits for more frames when its batch holds fewer than
/// this many writes.
const SMALL_BATCH: usize = 16;
/// That wait: until the timer's next tick (tokio's timer ticks every millisecond and rounds a
/// deadline up to a tick, so this is 0–1 ms; two relay hops add at most twice this).
const LINGER: Duration = Duration::from_micros(1);
/// How many times the publisher yields first: each lets this worker run everything else that
/// is ready (and poll its sockets) before the publisher looks again.
const LINGER_YIELDS: usize = 2;
/// The most writes in one pipeline.
const BATCH: usize = 256;

/// Why a command did not reach its room.
#[derive(Clone, Copy, Debug)]
pub(super) enum Unsent {
    /// Redis took it, but nobody listens on the room's channel: its owner is gone (or has yet
    /// to resubscribe after a Redis restart).
    NoOwner,
    /// Redis itself could not be reached.
    Bus,
}

/// One queued write to Redis, carried out in order by the publisher task.
#[derive(Debug)]
enum Op<R> {
    Publish {
        channel: Arc<str>,
        frame: Vec<u8>,
    },
    /// A command up a room's channel; `sent` is handed back if nobody took it.
    Up {
        channel: Arc<str>,
        frame: Vec<u8>,
        sent: R,
    },
    Set {
        key: String,
        value: String,
    },
    Del {
        keys: Vec<String>,
    },
    Srem {
        key: String,
        member: String,
    },
    /// One more entry of a room's command log (a stream), its lease renewed.
    Xadd {
        key: String,
        entry: Vec<u8>,
    },
    Unsubscribe {
        channel: String,
    },
}

/// The queue to the publisher task: each call queues one write, in order, and never waits.
#[derive(Debug)]
pub(super) struct Publisher<R> {
    queue: mpsc::UnboundedSender<Op<R>>,
    /// Writes queued and not yet carried out.
    pending: Arc<AtomicUsize>,
}

impl<R> Clone for Publisher<R> {
    fn clone(&self) -> Self {
        Publisher {
            queue: self.queue.clone(),
            pending: self.pending.clone(),
        }
    }
}

/// The publisher task's end of the queue, until it runs ([`Writes::run`]).
#[derive(Debug)]
pub(super) struct Writes<R> {
    rx: mpsc::UnboundedReceiver<Op<R>>,
    pending: Arc<AtomicUsize>,
}

/// A new queue: its sending end, and what the publisher task will take from it.
pub(super) fn queue<R>() -> (Publisher<R>, Writes<R>) {
    let (queue, rx) = mpsc::unbounded_channel();
    let pending = Arc::new(AtomicUsize::new(0));
    let writes = Writes {
        rx,
        pending: pending.clone(),
    };
    (Publisher { queue, pending }, writes)
}

impl<R> Publisher<R> {
    fn queue(&self, op: Op<R>) {
        self.pending.fetch_add(1, Relaxed);
        // The publisher runs as long as the node; a send after it stopped is moot.
        let _ = self.queue.send(op);
    }

    /// Publish `frame` on `channel`.
    pub(super) fn publish(&self, channel: Arc<str>, frame: Vec<u8>) {
        self.queue(Op::Publish { channel, frame });
    }

    /// Publish a command's `frame` up a room's `channel`; `sent` comes back if nobody heard it.
    pub(super) fn up(&self, channel: Arc<str>, frame: Vec<u8>, sent: R) {
        self.queue(Op::Up {
            channel,
            frame,
            sent,
        });
    }

    /// Set `key` to `value`, leased.
    pub(super) fn set(&self, key: String, value: String) {
        self.queue(Op::Set { key, value });
    }

    /// Delete `keys`.
    pub(super) fn del(&self, keys: Vec<String>) {
        self.queue(Op::Del { keys });
    }

    /// Remove `member` from the set `key`.
    pub(super) fn srem(&self, key: String, member: String) {
        self.queue(Op::Srem { key, member });
    }

    /// Append `entry` to the stream `key` (a room's command log, leased).
    pub(super) fn xadd(&self, key: String, entry: Vec<u8>) {
        self.queue(Op::Xadd { key, entry });
    }

    /// Stop listening on `channel`, after everything queued before.
    pub(super) fn unsubscribe(&self, channel: String) {
        self.queue(Op::Unsubscribe { channel });
    }

    /// Wait until everything queued so far has been written to Redis, at most `within`.
    pub(super) async fn flush(&self, within: Duration) {
        let _ = tokio::time::timeout(within, async {
            while self.pending.load(Relaxed) > 0 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await;
    }
}

/// One channel's frames in a publisher write, and the commands among them to hear back on.
#[derive(Debug)]
struct ChannelFrames<R> {
    channel: Arc<str>,
    frames: Vec<Vec<u8>>,
    sent: Vec<R>,
}

/// One batch as a pipeline: its writes, the receipts of each answered publish in order, and
/// the channels to unsubscribe after it.
struct Pipeline<R> {
    pipe: redis::Pipeline,
    watched: Vec<Vec<R>>,
    unsubscribe: Vec<String>,
}

impl<R: Send + 'static> Writes<R> {
    /// Carry out queued writes in order, a pipeline at a time, on `cmd` (unsubscribing on
    /// `sub`); a command nobody heard goes to `unheard`.
    pub(super) async fn run(
        mut self,
        cmd: ConnectionManager,
        sub: ConnectionManager,
        metrics: Arc<Metrics>,
        unheard: impl Fn(R, Unsent),
    ) {
        let mut batch = Vec::new();
        let mut last_write = now();
        while self.rx.recv_many(&mut batch, BATCH).await > 0 {
            self.linger(&mut batch, last_write).await;
            let n = batch.len();
            let Pipeline {
                pipe,
                watched,
                unsubscribe,
            } = pipeline(batch.drain(..), &metrics);
            let mut cmd = cmd.clone();
            match pipe.query_async::<Vec<i64>>(&mut cmd).await {
                Ok(heard) => {
                    for (n, sent) in heard.into_iter().zip(watched) {
                        if n == 0 {
                            sent.into_iter().for_each(|s| unheard(s, Unsent::NoOwner));
                        }
                    }
                }
                Err(e) => {
                    metrics.relay_errors.inc();
                    tracing::warn!(error = %e, "a relay write to redis failed");
                    watched
                        .into_iter()
                        .flatten()
                        .for_each(|s| unheard(s, Unsent::Bus));
                }
            }
            self.pending.fetch_sub(n, Relaxed);
            last_write = now();
            for channel in unsubscribe {
                let mut sub = sub.clone();
                if let Err(e) = sub.unsubscribe(&channel).await {
                    tracing::warn!(error = %e, channel, "unsubscribing failed");
                }
            }
        }
    }

    /// Busy (the last write was a moment ago): linger, so that the frames queued meanwhile
    /// share this write and, for each node, one PUBLISH (a bundle). First yield, which costs
    /// no timer and waits as long as the worker has other work (the busier the node, the
    /// fuller the batch); then, if the batch is still small, wait for the timer's next tick.
    /// Idle: write at once, for the latency.
    async fn linger(&mut self, batch: &mut Vec<Op<R>>, last_write: tokio::time::Instant) {
        let busy = now().saturating_duration_since(last_write) < Duration::from_millis(2);
        if busy && batch.len() < 64 {
            for _ in 0..LINGER_YIELDS {
                tokio::task::yield_now().await;
                self.gather(batch);
            }
            if batch.len() < SMALL_BATCH {
                tokio::time::sleep(LINGER).await;
                self.gather(batch);
            }
        }
    }

    /// Take what is queued already, up to a batch.
    fn gather(&mut self, batch: &mut Vec<Op<R>>) {
        while batch.len() < BATCH {
            match self.rx.try_recv() {
                Ok(op) => batch.push(op),
                Err(_) => break,
            }
        }
    }
}

/// One more entry of a room's log; each log's lease is renewed once per pipeline, after its
/// entries (a log whose node dies expires with it).
fn xadd(pipe: &mut redis::Pipeline, key: String, entry: Vec<u8>, logs: &mut Vec<String>) {
    pipe.cmd("XADD")
        .arg(&key)
        .arg("*")
        .arg("e")
        .arg(entry)
        .ignore();
    if !logs.contains(&key) {
        logs.push(key);
    }
}

/// A batch's writes as one pipeline: the keys first, then per channel, in order, its frames
/// (one `PUBLISH`, bundled when there are several); only a command's publish is answered.
fn pipeline<R>(batch: impl Iterator<Item = Op<R>>, metrics: &Metrics) -> Pipeline<R> {
    let mut pipe = redis::pipe();
    let mut unsubscribe = Vec::new();
    let mut logs: Vec<String> = Vec::new();
    // Per channel, in order: its frames, and the commands among them to hear back on.
    let mut frames: Vec<ChannelFrames<R>> = Vec::new();
    let mut index: HashMap<Arc<str>, usize> = HashMap::new();
    for op in batch {
        let (channel, frame, sent) = match op {
            // Gathered per channel (in order) and sent after the batch's other writes.
            Op::Publish { channel, frame } => (channel, frame, None),
            Op::Up {
                channel,
                frame,
                sent,
            } => (channel, frame, Some(sent)),
            Op::Set { key, value } => {
                pipe.pset_ex(key, value, keys::LEASE.as_millis() as u64)
                    .ignore();
                continue;
            }
            Op::Del { keys } => {
                pipe.del(keys).ignore();
                continue;
            }
            Op::Srem { key, member } => {
                pipe.srem(key, member).ignore();
                continue;
            }
            Op::Xadd { key, entry } => {
                xadd(&mut pipe, key, entry, &mut logs);
                continue;
            }
            Op::Unsubscribe { channel } => {
                unsubscribe.push(channel);
                continue;
            }
        };
        metrics.relay_out.inc();
        let at = *index.entry(channel.clone()).or_insert_with(|| {
            frames.push(ChannelFrames {
                channel,
                frames: Vec::new(),
                sent: Vec::new(),
            });
            frames.len() - 1
        });
        frames[at].frames.push(frame);
        frames[at].sent.extend(sent);
    }
    for key in logs {
        pipe.pexpire(key, keys::LOG_LEASE.as_millis() as i64)
            .ignore();
    }
    let mut watched = Vec::new();
    for ChannelFrames {
        channel,
        frames: mut fs,
        sent,
    } in frames
    {
        let payload = match fs.len() {
            1 => fs.remove(0),
            _ => wire::encode_bundle(&fs),
        };
        if sent.is_empty() {
            pipe.publish(&*channel, payload).ignore();
        } else {
            pipe.publish(&*channel, payload);
            watched.push(sent);
        }
    }
    Pipeline {
        pipe,
        watched,
        unsubscribe,
    }
}
