//! Cluster mode (`--cluster redis://…`): several nodes behind one address, sharing a directory
//! and a message bus in Redis. The wire contract does not change; a client cannot tell.
//!
//! - A room has one owner, the node that created it, which runs its room task as on a single
//!   node. Its code is claimed in Redis with `SET NX` and leased: the owner renews it every
//!   [`keys::RENEW_EVERY`], and it lapses [`keys::LEASE`] after the owner dies.
//! - A client on another node reaches the room through that node: its connection's commands
//!   go up the room's channel (`member`), the owner turns them into the room's own commands
//!   for a [`crate::room::endpoint::Endpoint::Remote`] (`owner`), and the room's messages come down
//!   the member node's channel, one frame per node for a broadcast.
//!
//! [`Node`] is made of parts that each own their state, built bottom up from its [`Queue`] (which
//! the directory is built with, to report its changes) in [`Node::start`],
//! each given the parts it uses (none refers back to what holds it):
//!
//! - `publisher`: the ordered queue of every write to Redis, and the task that carries it
//!   out (a command nobody heard goes back to the member side, given to the task at its start);
//! - `member`: `MemberSide`, this node's connections in rooms owned elsewhere (stub
//!   handles whose commands go up; what comes down reaches their outboxes);
//! - `owner`: `OwnerSide`, the members elsewhere of this node's rooms (commands up
//!   become the room's own; the room's [`Relay`] sends down);
//! - `inbound`: each Redis push, to the owner or the member side, or the dispatcher task;
//! - `pool`: [`ClusterPool`], the pool layer's [`SharedPool`]: each difficulty's pool across
//!   every node in Redis, the lease of the node that forms its races, the seat orders;
//! - `registry`: `Registry`, this node's leases, codes, listings and tokens in
//!   Redis and the lookups; its `Feed`, the directory's [`DirectoryFeed`], and [`ClusterRooms`], the room
//!   layer's [`OtherNodes`].
//!
//! [`keys`] names what lives in Redis; [`wire`] is the frame format.
//!
//! [`Relay`]: crate::room::endpoint::Relay
//! [`DirectoryFeed`]: crate::room::directory::DirectoryFeed
//! [`OtherNodes`]: crate::room::rooms::OtherNodes
//! [`SharedPool`]: crate::pool::shared::SharedPool

mod inbound;
pub mod keys;
mod member;
mod owner;
mod pool;
mod publisher;
mod registry;
mod takeover;

pub use pool::ClusterPool;
pub use registry::ClusterRooms;
pub mod wire;

use std::sync::Arc;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio_util::sync::CancellationToken;

use crate::room::directory::DirectoryFeed;
use crate::room::task::RoomEnv;
use inbound::Inbound;
use member::MemberSide;
use owner::OwnerSide;
use publisher::Publisher;
use registry::Registry;

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

/// The ordered queue of a node's writes to Redis, made first: the node's directory is built
/// with its [`Queue::feed`], then the node started with it ([`Node::start`]).
#[derive(Debug)]
pub struct Queue {
    publisher: Publisher<member::Sent>,
    writes: publisher::Writes<member::Sent>,
    feed: registry::Feed,
}

impl Queue {
    /// A queue, not yet written by anyone.
    #[allow(clippy::new_without_default)] // made once, at start, where it is named
    pub fn new() -> Queue {
        let (publisher, writes) = publisher::queue();
        let feed = registry::Feed::new(publisher.clone());
        Queue {
            publisher,
            writes,
            feed,
        }
    }

    /// Its parts, for the node it starts.
    fn parts(
        self,
    ) -> (
        Publisher<member::Sent>,
        publisher::Writes<member::Sent>,
        registry::Feed,
    ) {
        (self.publisher, self.writes, self.feed)
    }

    /// What a directory tells the cluster of its changes: queued, in order with everything else.
    pub fn feed(&self) -> Arc<dyn DirectoryFeed> {
        Arc::new(self.feed.clone())
    }
}

/// This node of a cluster: its parts, each given what it needs as it is made, bottom up.
#[derive(Debug)]
pub struct Node {
    id: Arc<str>,
    url: String,
    publisher: Publisher<member::Sent>,
    registry: Arc<Registry>,
    owner: Arc<OwnerSide>,
    member: Arc<MemberSide>,
    pool: Arc<ClusterPool>,
    /// How soon a lost owner's rooms are taken over (`--takeover-s`).
    takeover: Duration,
}

impl Node {
    /// Join the cluster at Redis `url` as node `id`, for `env`'s rooms: connect, subscribe to
    /// this node's channel, and run the publisher, the dispatcher, the renewals and the
    /// liveness checks until `shutdown`.
    /// `queue` is the one `env`'s directory was built with ([`Queue::feed`]).
    pub async fn start(
        url: &str,
        id: String,
        queue: Queue,
        env: &Arc<RoomEnv>,
        takeover: Duration,
        shutdown: CancellationToken,
    ) -> Result<Arc<Node>, ClusterError> {
        let (publisher, writes, feed) = queue.parts();
        let id: Arc<str> = id.into();
        let err = |source| ClusterError::Redis {
            url: redact(url),
            source,
        };
        let client = redis::Client::open(with_resp3(url).as_str()).map_err(err)?;
        let base = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(REDIS_TIMEOUT))
            .set_response_timeout(Some(REDIS_TIMEOUT))
            .set_max_delay(Duration::from_millis(500));
        let cmd = client
            .get_connection_manager_with_config(base.clone())
            .await
            .map_err(err)?;
        // Bottom up: the publisher's queue (made before the directory, which reports to it);
        // the member and owner sides, which write through it;
        // the inbound side, which hands pushes to them and which the subscription connection
        // is built with; the registry, on both connections; the publisher task, on both
        // connections too, giving what nobody heard back to the member side.
        let metrics = env.metrics.clone();
        let member = Arc::new(MemberSide::new(
            id.clone(),
            publisher.clone(),
            metrics.clone(),
        ));
        let owner = Arc::new(OwnerSide::new(
            env.directory.clone(),
            publisher.clone(),
            metrics.clone(),
        ));
        let pool = Arc::new(ClusterPool::new(
            id.clone(),
            cmd.clone(),
            publisher.clone(),
            metrics.clone(),
        ));
        let (inbound, dispatcher) =
            Inbound::new(owner.clone(), member.clone(), pool.clone(), metrics.clone());
        // The connection's own task hands each push to the inbound side.
        let on_push = move |push: redis::PushInfo| {
            inbound.on_push(push);
            Ok::<(), ()>(())
        };
        let sub = client
            .get_connection_manager_with_config(
                base.set_push_sender(on_push).set_automatic_resubscription(),
            )
            .await
            .map_err(err)?;
        let registry = Arc::new(Registry::new(id.clone(), cmd.clone(), sub.clone(), feed));
        // Not tracked: it must outlive the rooms' shutdown, whose last words it carries
        // ([`Node::flush`] waits for them).
        let unheard = member.clone();
        tokio::spawn(
            writes.run(id.clone(), cmd, sub.clone(), metrics, move |sent, why| {
                unheard.unreachable(sent, why)
            }),
        );
        let node = Arc::new(Node {
            id,
            url: redact(url),
            publisher,
            registry,
            owner,
            member,
            pool,
            takeover,
        });
        node.run(env, sub, dispatcher, shutdown).await?;
        Ok(node)
    }

    /// Start relaying for `env`'s rooms: subscribe to this node's channel, renew, and run the dispatcher, the renewals and the liveness checks.
    async fn run(
        self: &Arc<Self>,
        env: &Arc<RoomEnv>,
        mut sub: ConnectionManager,
        dispatcher: inbound::Dispatcher,
        shutdown: CancellationToken,
    ) -> Result<(), ClusterError> {
        sub.subscribe(keys::node_channel(&self.id))
            .await
            .map_err(|source| ClusterError::Redis {
                url: self.url.clone(),
                source,
            })?;
        self.registry.renew_node().await;
        self.registry.renew(&env.directory).await;
        env.tasks
            .spawn(self.registry.clone().node_renewals(shutdown.clone()));
        env.tasks.spawn(dispatcher.run(shutdown.clone()));
        env.tasks.spawn(
            self.registry
                .clone()
                .renewals(env.directory.clone(), shutdown.clone()),
        );
        env.tasks.spawn(self.clone().checks(shutdown.clone()));
        let takeovers = takeover::Takeovers::new(
            self.registry.clone(),
            self.owner.clone(),
            env.clone(),
            self.takeover,
        );
        let takeovers = Arc::new(takeovers);
        env.tasks.spawn(takeovers.clone().watch(shutdown.clone()));
        env.tasks.spawn(takeovers.run(shutdown));
        tracing::info!(node = %self.id, redis = %self.url, "cluster node started");
        Ok(())
    }

    /// This node's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whether Redis answered the last renewal.
    pub fn redis_up(&self) -> bool {
        self.registry.redis_up()
    }

    /// The other nodes, as the room layer reaches them.
    pub fn other_nodes(&self) -> ClusterRooms {
        ClusterRooms::new(self.registry.clone(), self.member.clone())
    }

    /// The cluster-wide pool (A7), as the pool layer reaches it.
    pub fn pool(&self) -> Arc<dyn crate::pool::shared::SharedPool> {
        self.pool.clone()
    }

    /// Wait until everything queued so far has been written to Redis, at most `within` (at
    /// shutdown, after the rooms have said `room_closed` to their members elsewhere).
    pub async fn flush(&self, within: Duration) {
        self.publisher.flush(within).await;
    }

    /// Every [`keys::CHECK_EVERY`], look at each node this one relays with; one whose key is
    /// gone is dead (its lease lapsed): its rooms are closed to this node's members, and its
    /// members leave this node's rooms (their seats are held, as for any dropped client).
    /// While this node's own key is missing, or was until lately, Redis has restarted and the
    /// others may not have renewed yet: nobody is judged.
    async fn checks(self: Arc<Self>, shutdown: CancellationToken) {
        // The subscription's answered PINGs when it was first seen dropped.
        let mut pings_at_drop = None;
        loop {
            tokio::select! {
                () = tokio::time::sleep(keys::CHECK_EVERY) => {}
                () = shutdown.cancelled() => return,
            }
            self.owner.sweep_seqs();
            self.member.sweep_numbers();
            // Should the resubscription's confirmation not come as a push, a PING answered
            // since the drop says the subscription is back.
            pings_at_drop = match (self.member.is_resubscribing(), pings_at_drop) {
                (false, _) => None,
                (true, None) => Some(self.registry.sub_pings()),
                (true, Some(at)) if self.registry.sub_pings() > at => {
                    self.member.resubscribed();
                    None
                }
                (true, at) => at,
            };
            self.reown().await;
            let mut nodes = self.member.owners();
            nodes.extend(self.owner.member_nodes());
            nodes.sort();
            nodes.dedup();
            if nodes.is_empty() {
                continue;
            }
            match self.registry.alive(&self.id).await {
                Some(true) => {}
                Some(false) => {
                    self.registry.reset();
                    continue;
                }
                None => continue,
            }
            if self.registry.recently_reset() {
                continue;
            }
            for n in nodes {
                if self.registry.alive(&n).await == Some(false) {
                    tracing::warn!(node = %n, "a node is gone");
                    self.owner.drop_members_of(&n);
                    self.member.orphan_rooms_of(&n);
                }
            }
        }
    }
}

impl Node {
    /// Rooms whose owner was lost: those another node took over are followed there; those
    /// nobody took within `--takeover-s` (and a check) are closed to their members here.
    async fn reown(&self) {
        for code in self.member.orphaned_rooms() {
            if let Some(owner) = self.registry.owner(&code).await {
                if self.registry.alive(&owner).await == Some(true) {
                    self.member.reowned(&code, &owner);
                }
            }
        }
        self.member
            .close_orphans(self.takeover + keys::CHECK_EVERY * 2);
    }
}

/// `url` with RESP3 asked for: pushes arrive on the subscription connection, which the
/// manager resubscribes.
fn with_resp3(url: &str) -> String {
    if url.contains("protocol=") {
        url.to_owned()
    } else if url.contains('?') {
        format!("{url}&protocol=resp3")
    } else {
        format!("{url}?protocol=resp3")
    }
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
