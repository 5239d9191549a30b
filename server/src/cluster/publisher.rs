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
use tokio::sync::{mpsc, oneshot};

use super::{keys, now, wire};
use crate::metrics::Metrics;
use crate::room::directory::LogError;

/// A room's log entry, written only while the room's key names the writer (the fencing
/// token: a node that lost a room, to a takeover, can never add to its log again). KEYS: the
/// room's key, its log; ARGV: this node's id, the entry's id (`0-SEQ`: given twice, it is
/// kept once), the entry. Answers 1 (written), 2 (written already), 0 (another node owns
/// the room) or -1 (nobody does: Redis lost the key, which the owner's renewal writes back).
const FENCED_XADD: &str = r"
local owner = redis.call('GET', KEYS[1])
if owner == false then return -1 end
if owner ~= ARGV[1] then return 0 end
local r = redis.pcall('XADD', KEYS[2], ARGV[2], 'e', ARGV[3])
if type(r) == 'table' and r.err then return 2 end
return 1
";

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
    /// Entry `seq` of a room's command log (a stream), its lease renewed: written only while
    /// the room's key names this node (the fence, [`FENCED_XADD`]).
    Log {
        room: String,
        log: String,
        seq: u64,
        entry: Vec<u8>,
    },
    /// Answered once every entry of `log` queued before it is written, or why not.
    Sync {
        log: String,
        tx: oneshot::Sender<Result<(), LogError>>,
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

    /// Append entry `seq` to the stream `log` (a room's command log, leased), if the room's
    /// key `room` still names this node.
    pub(super) fn log(&self, room: String, log: String, seq: u64, entry: Vec<u8>) {
        self.queue(Op::Log {
            room,
            log,
            seq,
            entry,
        });
    }

    /// Answered once every entry of `log` queued so far is written, or why not.
    pub(super) fn sync(&self, log: String) -> oneshot::Receiver<Result<(), LogError>> {
        let (tx, rx) = oneshot::channel();
        self.queue(Op::Sync { log, tx });
        rx
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

/// One batch as a pipeline: its writes, the log of each fenced entry in order, the receipts
/// of each answered publish in order, and the syncs to answer and channels to unsubscribe
/// after it.
struct Pipeline<R> {
    pipe: redis::Pipeline,
    logged: Vec<String>,
    watched: Vec<Vec<R>>,
    syncs: Vec<(String, oneshot::Sender<Result<(), LogError>>)>,
    unsubscribe: Vec<String>,
}

/// The publisher task's memory of the logs: which failed since their last sync, and whether
/// Redis holds the fence's script.
struct Logs {
    node: Arc<str>,
    /// The fence script's SHA-1, as Redis named it when it was loaded.
    sha: String,
    loaded: bool,
    failed: HashMap<String, LogError>,
}

impl Logs {
    /// A fenced entry's answer: a failure is kept until the log's next sync (the worst one).
    fn answered(&mut self, log: String, answer: &redis::RedisResult<redis::Value>) {
        let failure = match answer {
            Ok(redis::Value::Int(1 | 2)) => return,
            Ok(redis::Value::Int(0)) => LogError::Fenced,
            Err(e) => {
                if e.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::NoScript) {
                    self.loaded = false;
                }
                LogError::Unavailable
            }
            Ok(_) => LogError::Unavailable,
        };
        let worst = self.failed.entry(log).or_insert(failure);
        if failure == LogError::Fenced {
            *worst = LogError::Fenced;
        }
    }

    /// None of the pipeline's entries reached Redis.
    fn unreachable(&mut self, logged: Vec<String>) {
        self.loaded = false;
        for log in logged {
            self.failed.entry(log).or_insert(LogError::Unavailable);
        }
    }

    /// A sync's answer: the log's failures since its last sync, forgotten with it.
    fn sync(&mut self, log: &str) -> Result<(), LogError> {
        self.failed.remove(log).map_or(Ok(()), Err)
    }
}

impl<R: Send + 'static> Writes<R> {
    /// Carry out queued writes in order, a pipeline at a time, on `cmd` (unsubscribing on
    /// `sub`) as node `node`; a command nobody heard goes to `unheard`.
    pub(super) async fn run(
        mut self,
        node: Arc<str>,
        cmd: ConnectionManager,
        sub: ConnectionManager,
        metrics: Arc<Metrics>,
        unheard: impl Fn(R, Unsent),
    ) {
        // Its name, from Redis: loaded again in a pipeline whenever Redis may have lost it.
        let sha = loop {
            let mut c = cmd.clone();
            let mut load = redis::cmd("SCRIPT");
            load.arg("LOAD").arg(FENCED_XADD);
            match load.query_async::<String>(&mut c).await {
                Ok(sha) => break sha,
                Err(e) => {
                    tracing::warn!(error = %e, "loading the log's fence into redis failed");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
        };
        let mut batch = Vec::new();
        let mut last_write = now();
        let mut logs = Logs {
            node,
            sha,
            loaded: true,
            failed: HashMap::new(),
        };
        while self.rx.recv_many(&mut batch, BATCH).await > 0 {
            self.linger(&mut batch, last_write).await;
            let n = batch.len();
            let p = pipeline(batch.drain(..), &mut logs, &metrics);
            let mut cmd = cmd.clone();
            // A batch of syncs and unsubscriptions alone writes nothing.
            if !p.pipe.is_empty() {
                let answers = p
                    .pipe
                    .query_async::<Vec<redis::RedisResult<redis::Value>>>(&mut cmd)
                    .await;
                answered(answers, p.logged, p.watched, &mut logs, &metrics, &unheard);
            }
            for (log, tx) in p.syncs {
                let _ = tx.send(logs.sync(&log));
            }
            self.pending.fetch_sub(n, Relaxed);
            last_write = now();
            for channel in p.unsubscribe {
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

/// What a pipeline's answers say: each log entry's fate, and each command nobody heard.
fn answered<R>(
    answers: redis::RedisResult<Vec<redis::RedisResult<redis::Value>>>,
    logged: Vec<String>,
    watched: Vec<Vec<R>>,
    logs: &mut Logs,
    metrics: &Metrics,
    unheard: &impl Fn(R, Unsent),
) {
    match answers {
        Ok(answers) => {
            let mut answers = answers.into_iter();
            for log in logged {
                let answer = answers.next().unwrap_or(Ok(redis::Value::Nil));
                logs.answered(log, &answer);
            }
            for (answer, sent) in answers.zip(watched) {
                match answer {
                    Ok(redis::Value::Int(0)) => {
                        sent.into_iter().for_each(|s| unheard(s, Unsent::NoOwner));
                    }
                    Err(_) => sent.into_iter().for_each(|s| unheard(s, Unsent::Bus)),
                    Ok(_) => {}
                }
            }
        }
        Err(e) => {
            metrics.relay_errors.inc();
            tracing::warn!(error = %e, "a relay write to redis failed");
            logs.unreachable(logged);
            watched
                .into_iter()
                .flatten()
                .for_each(|s| unheard(s, Unsent::Bus));
        }
    }
}

/// Entry `seq` of a room's log, through the fence.
fn log_entry(pipe: &mut redis::Pipeline, logs: &Logs, op: (String, &str, u64, Vec<u8>)) {
    let (room, log, seq, entry) = op;
    pipe.cmd("EVALSHA")
        .arg(&logs.sha)
        .arg(2)
        .arg(room)
        .arg(log)
        .arg(&*logs.node)
        .arg(format!("0-{seq}"))
        .arg(entry);
}

/// A batch's writes as one pipeline: the keys first (the fence's script loaded before them
/// when Redis may not hold it), then per channel, in order, its frames (one `PUBLISH`,
/// bundled when there are several); only a log entry and a command's publish are answered.
/// Each log's lease is renewed once per pipeline, after its entries (a log whose node dies
/// expires with it).
fn pipeline<R>(
    batch: impl Iterator<Item = Op<R>>,
    logs: &mut Logs,
    metrics: &Metrics,
) -> Pipeline<R> {
    let mut p = Pipeline {
        pipe: redis::pipe(),
        logged: Vec::new(),
        watched: Vec::new(),
        syncs: Vec::new(),
        unsubscribe: Vec::new(),
    };
    p.pipe.ignore_errors();
    if !logs.loaded {
        p.pipe.cmd("SCRIPT").arg("LOAD").arg(FENCED_XADD).ignore();
        logs.loaded = true;
    }
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
            other => {
                key_write(&mut p, logs, other);
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
    let mut leased: Vec<&String> = p.logged.iter().collect();
    leased.sort();
    leased.dedup();
    for key in leased {
        p.pipe
            .pexpire(key, keys::LOG_LEASE.as_millis() as i64)
            .ignore();
    }
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
            p.pipe.publish(&*channel, payload).ignore();
        } else {
            p.pipe.publish(&*channel, payload);
            p.watched.push(sent);
        }
    }
    p
}

/// A write that is not a publish, into the pipeline in its place.
fn key_write<R>(p: &mut Pipeline<R>, logs: &Logs, op: Op<R>) {
    match op {
        Op::Set { key, value } => {
            p.pipe
                .pset_ex(key, value, keys::LEASE.as_millis() as u64)
                .ignore();
        }
        Op::Del { keys } => {
            p.pipe.del(keys).ignore();
        }
        Op::Srem { key, member } => {
            p.pipe.srem(key, member).ignore();
        }
        Op::Log {
            room,
            log,
            seq,
            entry,
        } => {
            log_entry(&mut p.pipe, logs, (room, &log, seq, entry));
            p.logged.push(log);
        }
        Op::Sync { log, tx } => p.syncs.push((log, tx)),
        Op::Unsubscribe { channel } => p.unsubscribe.push(channel),
        Op::Publish { .. } | Op::Up { .. } => {}
    }
}
