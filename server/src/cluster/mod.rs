//! Cluster mode (`--cluster redis://…`): several nodes behind one address, sharing a directory
//! and a message bus in Redis. The wire contract does not change; a client cannot tell.
//!
//! - A room has one owner, the node that created it, which runs its room task as on a single
//!   node. Its code is claimed in Redis with `SET NX` and leased: the owner renews it every
//!   [`keys::RENEW_EVERY`], and it lapses [`keys::LEASE`] after the owner dies.
//! - A client on another node reaches the room through that node: its connection's commands
//!   go up the room's channel ([`member`]), the owner turns them into the room's own commands
//!   for a [`crate::room::endpoint::Endpoint::Remote`] ([`owner`]), and the room's messages come down
//!   the member node's channel, one frame per node for a broadcast.
//! - [`Node`] also carries the Redis side of the directory: every change the node's own
//!   [`Directory`] makes is queued, in order, to one publisher task ([`Node::queue`]).
//!
//! - [`keys`] names what lives in Redis; [`wire`] is the frame format; `registry` the Redis
//!   side of the directory; `owner` and `member` the two ends of the relay.

mod inbound;
pub mod keys;
mod member;
mod owner;
mod registry;

pub use registry::ClusterRooms;
pub mod wire;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use dashmap::DashMap;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::AsyncCommands;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Utf8Bytes;
use tokio_util::sync::CancellationToken;

use crate::metrics::Metrics;
use crate::outbox::{CloseCode, ConnId};
use crate::room::endpoint::Relay;
use crate::room::task::RoomEnv;

/// After yielding, the publisher still waits for more frames when its batch holds fewer than
/// this many writes.
const SMALL_BATCH: usize = 16;
/// That wait: until the timer's next tick (tokio's timer ticks every millisecond and rounds a
/// deadline up to a tick, so this is 0–1 ms; two relay hops add at most twice this).
const LINGER: Duration = Duration::from_micros(1);
/// How many times the publisher yields first: each lets this worker run everything else that
/// is ready (and poll its sockets) before the publisher looks again.
const LINGER_YIELDS: usize = 2;
/// How long a Redis command may take before the node treats Redis as down for it.
const REDIS_TIMEOUT: Duration = Duration::from_secs(2);

/// Why cluster mode could not start.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// Redis refused or could not be reached.
    #[error("redis at {url}: {source}")]
    Redis {
        /// The URL given (without a password: the error names host and port only).
        url: String,
        /// The cause.
        source: redis::RedisError,
    },
}

/// One queued write to Redis, carried out in order by the publisher task.
#[derive(Debug)]
enum Op {
    Publish {
        channel: Arc<str>,
        frame: Vec<u8>,
    },
    /// A command up a room's channel; `sent` says what to do if nobody took it.
    Up {
        channel: Arc<str>,
        frame: Vec<u8>,
        sent: member::Sent,
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
    Unsubscribe {
        channel: String,
    },
}

/// One channel's frames in a publisher write, and the commands among them to hear back on.
#[derive(Debug)]
struct ChannelFrames {
    channel: Arc<str>,
    frames: Vec<Vec<u8>>,
    sent: Vec<member::Sent>,
}

/// This node of a cluster.
#[derive(Debug)]
pub struct Node {
    id: Arc<str>,
    url: String,
    /// Commands and publishes (a multiplexed connection that reconnects by itself).
    cmd: ConnectionManager,
    /// Subscriptions: RESP3 pushes into [`Node::on_push`]; resubscribed after a reconnect.
    sub: ConnectionManager,
    queue: mpsc::UnboundedSender<Op>,
    queue_rx: Mutex<Option<mpsc::UnboundedReceiver<Op>>>,
    /// What the pushes leave to the dispatcher, and how many of those it has yet to finish.
    inbound: mpsc::UnboundedSender<inbound::Inbound>,
    inbound_rx: Mutex<Option<mpsc::UnboundedReceiver<inbound::Inbound>>>,
    inbound_held: std::sync::atomic::AtomicUsize,
    env: OnceLock<Weak<RoomEnv>>,
    metrics: Arc<Metrics>,
    /// Whether the last renewal reached Redis.
    redis_up: AtomicBool,
    next_seq: AtomicU64,
    next_proxy: AtomicU64,
    /// Writes queued and not yet carried out.
    pending: std::sync::atomic::AtomicUsize,
    /// Member side: this node's connections in rooms owned elsewhere.
    members: DashMap<u64, member::Remote>,
    /// Owner side: members on other nodes of this node's rooms, by node, then connection
    /// (looked up by the node id's text, without building a key).
    proxies: DashMap<Arc<str>, owner::Proxies>,
    /// Each member node's channel name, made once.
    node_channels: DashMap<Arc<str>, Arc<str>>,
    /// When this node last found Redis empty of its own key (Redis restarted, or lost it):
    /// until every node has renewed since, a missing node key says nothing.
    reset_at: Mutex<Option<tokio::time::Instant>>,
    /// Whether a renewal has reached Redis yet.
    renewed: AtomicBool,
}

/// A fresh node id: 8 hex digits from the OS's CSPRNG.
pub fn random_id() -> String {
    use rand::Rng;
    format!("{:08x}", rand::rngs::OsRng.gen::<u32>())
}

/// The wall clock in microseconds, for the relay-latency metric only.
#[allow(clippy::disallowed_methods)] // a frame's send time; the rules never see it
fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

#[allow(clippy::disallowed_methods)] // liveness bookkeeping, not room rules
fn now() -> tokio::time::Instant {
    tokio::time::Instant::now()
}

impl Node {
    /// Connect to Redis at `url` as node `id`.
    pub async fn connect(
        url: &str,
        id: String,
        metrics: Arc<Metrics>,
    ) -> Result<Arc<Node>, ClusterError> {
        let err = |source| ClusterError::Redis {
            url: redact(url),
            source,
        };
        // RESP3: pushes arrive on the subscription connection, which the manager resubscribes.
        let with_resp3 = if url.contains("protocol=") {
            url.to_owned()
        } else if url.contains('?') {
            format!("{url}&protocol=resp3")
        } else {
            format!("{url}?protocol=resp3")
        };
        let client = redis::Client::open(with_resp3.as_str()).map_err(err)?;
        let base = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(REDIS_TIMEOUT))
            .set_response_timeout(Some(REDIS_TIMEOUT))
            .set_max_delay(Duration::from_millis(500));
        let cmd = client
            .get_connection_manager_with_config(base.clone())
            .await
            .map_err(err)?;
        // The connection's task calls the node for each push; the node holds the connection,
        // so the sender holds the node weakly (it is set once the node exists, before any
        // subscription).
        let me: Arc<OnceLock<Weak<Node>>> = Arc::default();
        let to_node = me.clone();
        let on_push = move |push: redis::PushInfo| {
            if let Some(node) = to_node.get().and_then(Weak::upgrade) {
                node.on_push(push);
            }
            Ok::<(), ()>(())
        };
        let sub = client
            .get_connection_manager_with_config(
                base.set_push_sender(on_push).set_automatic_resubscription(),
            )
            .await
            .map_err(err)?;
        let (queue, queue_rx) = mpsc::unbounded_channel();
        let (inbound, inbound_rx) = mpsc::unbounded_channel();
        let node = Arc::new(Node {
            id: id.into(),
            url: redact(url),
            cmd,
            sub,
            queue,
            queue_rx: Mutex::new(Some(queue_rx)),
            inbound,
            inbound_rx: Mutex::new(Some(inbound_rx)),
            inbound_held: std::sync::atomic::AtomicUsize::new(0),
            env: OnceLock::new(),
            metrics,
            redis_up: AtomicBool::new(true),
            next_seq: AtomicU64::new(1),
            next_proxy: AtomicU64::new(1),
            pending: std::sync::atomic::AtomicUsize::new(0),
            members: DashMap::new(),
            proxies: DashMap::new(),
            node_channels: DashMap::new(),
            reset_at: Mutex::new(None),
            renewed: AtomicBool::new(false),
        });
        let _ = me.set(Arc::downgrade(&node));
        Ok(node)
    }

    /// This node's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whether Redis answered the last renewal.
    pub fn redis_up(&self) -> bool {
        self.redis_up.load(Relaxed)
    }

    /// Start relaying for `env`'s rooms: subscribe to this node's channel, and run the
    /// publisher, the dispatcher, the renewals and the liveness checks until `shutdown`.
    pub async fn start(
        self: &Arc<Self>,
        env: &Arc<RoomEnv>,
        shutdown: CancellationToken,
    ) -> Result<(), ClusterError> {
        let _ = self.env.set(Arc::downgrade(env));
        env.directory.feed_to(self.clone());
        let mut sub = self.sub.clone();
        sub.subscribe(keys::node_channel(&self.id))
            .await
            .map_err(|source| ClusterError::Redis {
                url: self.url.clone(),
                source,
            })?;
        self.renew(&env.directory).await;
        let rx = self.queue_rx.lock().ok().and_then(|mut q| q.take());
        let inbound = self.inbound_rx.lock().ok().and_then(|mut p| p.take());
        if let (Some(rx), Some(inbound)) = (rx, inbound) {
            // Not tracked: it must outlive the rooms' shutdown, whose last words it carries
            // ([`Node::flush`] waits for them).
            tokio::spawn(self.clone().publisher(rx));
            env.tasks
                .spawn(self.clone().dispatcher(inbound, shutdown.clone()));
        }
        env.tasks.spawn(
            self.clone()
                .renewals(env.directory.clone(), shutdown.clone()),
        );
        env.tasks.spawn(self.clone().checks(shutdown));
        tracing::info!(node = %self.id, redis = %self.url, "cluster node started");
        Ok(())
    }

    fn env(&self) -> Option<Arc<RoomEnv>> {
        self.env.get().and_then(Weak::upgrade)
    }

    /// Wait until everything queued so far has been written to Redis, at most `within` (at
    /// shutdown, after the rooms have said `room_closed` to their members elsewhere).
    pub async fn flush(&self, within: Duration) {
        let _ = tokio::time::timeout(within, async {
            while self.pending.load(Relaxed) > 0 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await;
    }

    fn queue(&self, op: Op) {
        self.pending.fetch_add(1, Relaxed);
        // The publisher runs as long as the node; a send after it stopped is moot.
        let _ = self.queue.send(op);
    }

    /// Carry out queued writes in order, a pipeline at a time.
    async fn publisher(self: Arc<Self>, mut rx: mpsc::UnboundedReceiver<Op>) {
        let mut batch = Vec::new();
        let mut last_write = now();
        while rx.recv_many(&mut batch, 256).await > 0 {
            // Busy (the last write was a moment ago): linger, so that the frames queued
            // meanwhile share this write and, for each node, one PUBLISH (a bundle). First
            // yield, which costs no timer and waits as long as the worker has other work (the
            // busier the node, the fuller the batch); then, if the batch is still small, wait
            // for the timer's next tick. Idle: write at once, for the latency.
            let busy = now().saturating_duration_since(last_write) < Duration::from_millis(2);
            if busy && batch.len() < 64 {
                for _ in 0..LINGER_YIELDS {
                    tokio::task::yield_now().await;
                    gather(&mut rx, &mut batch);
                }
                if batch.len() < SMALL_BATCH {
                    tokio::time::sleep(LINGER).await;
                    gather(&mut rx, &mut batch);
                }
            }
            let n = batch.len();
            let mut pipe = redis::pipe();
            let mut subs = Vec::new();
            // Per channel, in order: its frames, and the commands among them to hear back on.
            let mut frames: Vec<ChannelFrames> = Vec::new();
            let mut index: HashMap<Arc<str>, usize> = HashMap::new();
            for op in batch.drain(..) {
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
                    Op::Unsubscribe { channel } => {
                        subs.push(channel);
                        continue;
                    }
                };
                self.metrics.relay_out.inc();
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
            // Only a command's publish is answered: how many nodes heard it.
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
            let mut cmd = self.cmd.clone();
            match pipe.query_async::<Vec<i64>>(&mut cmd).await {
                Ok(heard) => {
                    for (n, sent) in heard.into_iter().zip(watched) {
                        if n == 0 {
                            sent.into_iter()
                                .for_each(|s| self.unreachable(s, member::Unsent::NoOwner));
                        }
                    }
                }
                Err(e) => {
                    self.metrics.relay_errors.inc();
                    tracing::warn!(error = %e, "a relay write to redis failed");
                    watched
                        .into_iter()
                        .flatten()
                        .for_each(|s| self.unreachable(s, member::Unsent::Bus));
                }
            }
            self.pending.fetch_sub(n, Relaxed);
            last_write = now();
            for channel in subs {
                let mut sub = self.sub.clone();
                if let Err(e) = sub.unsubscribe(&channel).await {
                    tracing::warn!(error = %e, channel, "unsubscribing failed");
                }
            }
        }
    }

    /// Whether node `id` is alive: its key exists. `None` when Redis cannot tell.
    async fn alive(&self, id: &str) -> Option<bool> {
        let mut cmd = self.cmd.clone();
        match tokio::time::timeout(REDIS_TIMEOUT, cmd.exists::<_, bool>(keys::node(id))).await {
            Ok(Ok(b)) => Some(b),
            _ => None,
        }
    }

    /// Every [`keys::CHECK_EVERY`], look at each node this one relays with; one whose key is
    /// gone is dead (its lease lapsed): its rooms are closed to this node's members, and its
    /// members leave this node's rooms (their seats are held, as for any dropped client).
    /// While this node's own key is missing, or was until lately, Redis has restarted and the
    /// others may not have renewed yet: nobody is judged.
    async fn checks(self: Arc<Self>, shutdown: CancellationToken) {
        loop {
            tokio::select! {
                () = tokio::time::sleep(keys::CHECK_EVERY) => {}
                () = shutdown.cancelled() => return,
            }
            let mut nodes: Vec<Arc<str>> = self.members.iter().map(|m| m.owner.clone()).collect();
            nodes.extend(
                self.proxies
                    .iter()
                    .filter(|p| !p.is_empty())
                    .map(|p| p.key().clone()),
            );
            nodes.sort();
            nodes.dedup();
            if nodes.is_empty() {
                continue;
            }
            match self.alive(&self.id).await {
                Some(true) => {}
                Some(false) => {
                    self.reset();
                    continue;
                }
                None => continue,
            }
            if self.recently_reset() {
                continue;
            }
            for n in nodes {
                if self.alive(&n).await == Some(false) {
                    tracing::warn!(node = %n, "a node is gone");
                    self.node_lost(&n).await;
                }
            }
        }
    }

    /// Redis was found without this node's key.
    fn reset(&self) {
        if let Ok(mut r) = self.reset_at.lock() {
            *r = Some(now());
        }
    }

    /// Within two renewals of a reset: long enough for every live node to renew.
    fn recently_reset(&self) -> bool {
        self.reset_at.lock().ok().and_then(|r| *r).is_some_and(|t| {
            now().saturating_duration_since(t) < keys::RENEW_EVERY * 2 + keys::CHECK_EVERY
        })
    }

    async fn node_lost(&self, n: &Arc<str>) {
        self.member_node_lost(n);
        self.owner_node_lost(n);
        self.node_channels.remove(n);
    }
}

impl Relay for Node {
    fn deliver(&self, node: &str, conns: Vec<u64>, bytes: Utf8Bytes) {
        self.queue(Op::Publish {
            channel: self.node_channel(node),
            frame: wire::encode_deliver(&conns, bytes.as_bytes(), now_us()),
        });
    }

    fn detach(&self, node: &str, conn: u64) {
        self.forget_proxy(node, conn);
        self.down(node, &wire::Ctl::Detach { conn });
    }

    fn close(&self, node: &str, conn: u64, code: CloseCode) {
        self.forget_proxy(node, conn);
        self.down(
            node,
            &wire::Ctl::Close {
                conn,
                code: code.as_u16(),
            },
        );
    }
}

impl Node {
    fn down(&self, node: &str, ctl: &wire::Ctl) {
        self.queue(Op::Publish {
            channel: self.node_channel(node),
            frame: wire::encode_ctl(ctl, now_us()),
        });
    }

    /// Node `node`'s channel, its name made once.
    fn node_channel(&self, node: &str) -> Arc<str> {
        if let Some(c) = self.node_channels.get(node) {
            return c.clone();
        }
        let c: Arc<str> = keys::node_channel(node).into();
        self.node_channels.insert(node.into(), c.clone());
        c
    }

    /// A fresh id for a member on another node.
    fn proxy_id(&self) -> ConnId {
        ConnId(crate::room::endpoint::REMOTE_BIT | self.next_proxy.fetch_add(1, Relaxed))
    }

    fn seq(&self) -> u64 {
        self.next_seq.fetch_add(1, Relaxed)
    }

    /// One received frame's latency, sender's clock to ours (`now_us`, read once a publish).
    fn observe(&self, frame: &[u8], now_us: i64) {
        self.metrics.relay_in.inc();
        if let Some(at) = wire::sent_at(frame) {
            let us = now_us.saturating_sub(at).max(0);
            self.metrics.relay_latency.observe(us as f64 / 1e6);
        }
    }
}

/// Take what is queued already, up to a batch of 256.
fn gather(rx: &mut mpsc::UnboundedReceiver<Op>, batch: &mut Vec<Op>) {
    while batch.len() < 256 {
        match rx.try_recv() {
            Ok(op) => batch.push(op),
            Err(_) => break,
        }
    }
}

/// `redis://user:secret@host:port/…` → `redis://host:port/…`, for logs and errors.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}{}", &url[..s + 3], &url[at + 1..]),
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_password_never_reaches_a_log() {
        assert_eq!(super::redact("redis://u:pw@h:1/0"), "redis://h:1/0");
        assert_eq!(super::redact("redis://h:1"), "redis://h:1");
    }
}
