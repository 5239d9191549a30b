//! The Redis side of the directory ([`Registry`]): the leases a node renews (itself, its
//! rooms, their listings, their seats' tokens), a room's owner and a token's room, the room
//! list of every node, codes claimed cluster-wide, the per-address count, and whether a node
//! is alive; and the facts the node's own [`Directory`] reports ([`Feed`], its [`DirectoryFeed`]).
//! [`ClusterRooms`] is the room layer's [`OtherNodes`]: the registry, and the member side for a
//! room found elsewhere.

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use protocol::{ResumeToken, RoomCode, RoomSummary};
use redis::aio::ConnectionManager;
use redis::AsyncCommands;
use tokio_util::sync::CancellationToken;

use super::member::{MemberSide, Sent};
use super::publisher::Publisher;
use super::{keys, now, REDIS_TIMEOUT};
use crate::room::directory::{self, Directory, DirectoryFeed};
use crate::room::handle::{RoomHandle, RoomInfo};
use crate::room::rooms::{NodeHealth, OtherNodes, Unreachable};

/// This node's entries in Redis, and what it looks up there.
#[derive(Debug)]
pub(super) struct Registry {
    id: Arc<str>,
    /// Commands (a multiplexed connection that reconnects by itself).
    cmd: ConnectionManager,
    /// Subscriptions (a room's channel is subscribed as its code is claimed).
    sub: ConnectionManager,
    /// The directory's changes, in order with everything else the node writes.
    feed: Feed,
    /// Whether the last renewal reached Redis.
    redis_up: AtomicBool,
    /// How many renewals' PINGs the subscription connection answered.
    sub_pings: AtomicU64,
    /// Whether a renewal has reached Redis yet.
    renewed: AtomicBool,
    /// When this node last found Redis empty of its own key (Redis restarted, or lost it):
    /// until every node has renewed since, a missing node key says nothing.
    reset_at: Mutex<Option<tokio::time::Instant>>,
    /// The rooms the last renewal listed as this node's (`sr:own:ID`).
    listed: Mutex<Vec<RoomCode>>,
}

/// Renew a room's key only while it names this node, or names nobody (Redis lost it): a
/// node never takes back a room another node took over. KEYS: the room's key; ARGV: this
/// node's id, the lease in ms. Answers 1, or 0 when the room is another node's.
const RENEW_ROOM: &str = r"
local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
";

impl Registry {
    /// Node `id`'s entries, on `cmd` and `sub`, its changes queued to `feed`.
    pub(super) fn new(
        id: Arc<str>,
        cmd: ConnectionManager,
        sub: ConnectionManager,
        feed: Feed,
    ) -> Self {
        Registry {
            id,
            cmd,
            sub,
            feed,
            redis_up: AtomicBool::new(true),
            sub_pings: AtomicU64::new(0),
            renewed: AtomicBool::new(false),
            reset_at: Mutex::new(None),
            listed: Mutex::new(Vec::new()),
        }
    }

    /// Whether Redis answered the last renewal.
    /// How many renewals' PINGs the subscription connection has answered: one answered after
    /// it dropped means it is back, resubscribed (the manager resubscribes before it answers).
    pub(super) fn sub_pings(&self) -> u64 {
        self.sub_pings.load(Relaxed)
    }

    pub(super) fn redis_up(&self) -> bool {
        self.redis_up.load(Relaxed)
    }

    /// Whether node `id` is alive: its key exists. `None` when Redis cannot tell.
    pub(super) async fn alive(&self, id: &str) -> Option<bool> {
        let mut cmd = self.cmd.clone();
        match tokio::time::timeout(REDIS_TIMEOUT, cmd.exists::<_, bool>(keys::node(id))).await {
            Ok(Ok(b)) => Some(b),
            _ => None,
        }
    }

    /// Redis was found without this node's key.
    pub(super) fn reset(&self) {
        if let Ok(mut r) = self.reset_at.lock() {
            *r = Some(now());
        }
    }

    /// Within two renewals of a reset: long enough for every live node to renew.
    pub(super) fn recently_reset(&self) -> bool {
        self.reset_at.lock().ok().and_then(|r| *r).is_some_and(|t| {
            now().saturating_duration_since(t) < keys::RENEW_EVERY * 2 + keys::CHECK_EVERY
        })
    }

    /// Renew this node's leases: itself, its rooms, their listings and their seats' tokens.
    /// Writing them whole (not only extending them) brings them back after Redis restarts.
    pub(super) async fn renew(&self, dir: &Directory) {
        // The subscription connection only listens: a manager whose reconnect attempts ran out
        // during an outage tries again on its next command, and this is it (it resubscribes
        // every channel once it is back).
        let mut sub = self.sub.clone();
        let ping = tokio::time::timeout(
            REDIS_TIMEOUT,
            redis::cmd("PING").query_async::<()>(&mut sub),
        )
        .await;
        if matches!(ping, Ok(Ok(()))) {
            self.sub_pings.fetch_add(1, Relaxed);
        }
        let ms = keys::LEASE.as_millis() as u64;
        let mut pipe = redis::pipe();
        let rooms = dir.rooms();
        let codes: Vec<RoomCode> = rooms.iter().map(|(c, _)| c.clone()).collect();
        self.list_owned(&mut pipe, &codes);
        for (code, info) in rooms {
            pipe.cmd("EVAL")
                .arg(RENEW_ROOM)
                .arg(1)
                .arg(keys::room(&code))
                .arg(&*self.id)
                .arg(ms)
                .ignore();
            let log_ms = keys::LOG_LEASE.as_millis() as i64;
            pipe.pexpire(keys::log(&code), log_ms).ignore();
            match directory::summary(&code, &info) {
                Some(row) => {
                    let json = serde_json::to_string(&row).unwrap_or_default();
                    pipe.pset_ex(keys::listing(&code), json, ms).ignore();
                }
                None => {
                    pipe.del(keys::listing(&code)).ignore();
                }
            }
        }
        for (token, code) in dir.tokens() {
            pipe.pset_ex(keys::token(&token), code.as_str(), ms)
                .ignore();
        }
        let mut cmd = self.cmd.clone();
        match tokio::time::timeout(REDIS_TIMEOUT, pipe.query_async::<()>(&mut cmd)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "renewing the cluster leases failed"),
            Err(_) => tracing::warn!("renewing the cluster leases timed out"),
        }
    }

    /// List this node's rooms in `sr:own:ID`, the index another node takes them over from:
    /// the rooms open now added, the ones closed since the last renewal taken out.
    fn list_owned(&self, pipe: &mut redis::Pipeline, codes: &[RoomCode]) {
        let owned = keys::owned(&self.id);
        let Ok(mut listed) = self.listed.lock() else {
            return;
        };
        let gone: Vec<&str> = listed
            .iter()
            .filter(|c| !codes.contains(c))
            .map(|c| c.as_str())
            .collect();
        if !gone.is_empty() {
            pipe.srem(&owned, gone).ignore();
        }
        if !codes.is_empty() {
            let now: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
            pipe.sadd(&owned, now).ignore();
        }
        pipe.sadd(keys::NODES, &*self.id).ignore();
        *listed = codes.to_vec();
    }

    /// Renew this node's own key (every [`keys::NODE_RENEW_EVERY`]: its liveness, which other
    /// nodes take its rooms over by) and note whether Redis answered.
    pub(super) async fn renew_node(&self) {
        let mut cmd = self.cmd.clone();
        // GET: the key's old value; none means Redis lost it (restarted, or this node was
        // held up past its lease) since the last renewal.
        let mut set = redis::cmd("SET");
        set.arg(keys::node(&self.id))
            .arg(1)
            .arg("PX")
            .arg(keys::NODE_LEASE.as_millis() as u64)
            .arg("GET");
        let ok =
            match tokio::time::timeout(REDIS_TIMEOUT, set.query_async::<Option<String>>(&mut cmd))
                .await
            {
                Ok(Ok(old)) => {
                    // The very first renewal finds no key of course.
                    if old.is_none() && self.renewed.swap(true, Relaxed) {
                        tracing::warn!("this node's key was gone: redis lost it, or it lapsed");
                        self.reset();
                    }
                    true
                }
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, "renewing this node's key failed");
                    false
                }
                Err(_) => {
                    tracing::warn!("renewing this node's key timed out");
                    false
                }
            };
        if self.redis_up.swap(ok, Relaxed) != ok {
            tracing::info!(up = ok, "redis state changed");
        }
    }

    /// Renew this node's own key until `shutdown`.
    pub(super) async fn node_renewals(self: Arc<Self>, shutdown: CancellationToken) {
        loop {
            tokio::select! {
                () = tokio::time::sleep(keys::NODE_RENEW_EVERY) => self.renew_node().await,
                () = shutdown.cancelled() => break,
            }
        }
    }

    pub(super) async fn renewals(
        self: Arc<Self>,
        dir: Arc<Directory>,
        shutdown: CancellationToken,
    ) {
        loop {
            tokio::select! {
                () = tokio::time::sleep(keys::RENEW_EVERY) => self.renew(&dir).await,
                () = shutdown.cancelled() => break,
            }
        }
        // A clean stop leaves its key to lapse (a moment): deleted now, it would let another
        // node take over the rooms still closing here.
    }

    /// This node's id and its two Redis connections (commands, subscriptions).
    pub(super) fn connections(&self) -> (Arc<str>, ConnectionManager, ConnectionManager) {
        (self.id.clone(), self.cmd.clone(), self.sub.clone())
    }

    /// The room `code`'s owner, whichever node it is.
    pub(super) async fn owner(&self, code: &RoomCode) -> Option<Arc<str>> {
        let mut cmd = self.cmd.clone();
        let owner: Option<String> = tokio::time::timeout(REDIS_TIMEOUT, cmd.get(keys::room(code)))
            .await
            .ok()?
            .ok()?;
        owner.map(Arc::from)
    }

    /// The room `code`'s owner, if it is another node.
    async fn owner_of(&self, code: &RoomCode) -> Option<Arc<str>> {
        let mut cmd = self.cmd.clone();
        let owner: Option<String> = tokio::time::timeout(REDIS_TIMEOUT, cmd.get(keys::room(code)))
            .await
            .ok()?
            .ok()?;
        let owner = owner?;
        (owner != *self.id).then(|| Arc::from(owner))
    }

    /// The room a resume token belongs to, as Redis knows it.
    async fn room_of_token(&self, token: &ResumeToken) -> Option<RoomCode> {
        let mut cmd = self.cmd.clone();
        let code: Option<String> = tokio::time::timeout(REDIS_TIMEOUT, cmd.get(keys::token(token)))
            .await
            .ok()?
            .ok()?;
        RoomCode::try_from(code?.as_str()).ok()
    }

    async fn listings(&self) -> redis::RedisResult<Vec<RoomSummary>> {
        let mut cmd = self.cmd.clone();
        let mut names: Vec<String> = Vec::new();
        {
            let mut it = cmd.scan_match::<_, String>(keys::LISTING_PATTERN).await?;
            while let Some(k) = futures::StreamExt::next(&mut it).await {
                names.push(k?);
            }
        }
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let values: Vec<Option<String>> =
            redis::cmd("MGET").arg(&names).query_async(&mut cmd).await?;
        Ok(values
            .into_iter()
            .flatten()
            .filter_map(|v| serde_json::from_str(&v).ok())
            .collect())
    }

    /// Claim `code` for a room of this node created from `ip`: its channel subscribed before
    /// anyone can find it, then the code set if nobody holds it, then counted for `ip`.
    async fn claim(&self, code: &RoomCode, ip: IpAddr) -> redis::RedisResult<bool> {
        let mut cmd = self.cmd.clone();
        let mut sub = self.sub.clone();
        let channel = keys::room_channel(code);
        sub.subscribe(&channel).await?;
        let claimed: Option<String> = redis::cmd("SET")
            .arg(keys::room(code))
            .arg(&*self.id)
            .arg("NX")
            .arg("PX")
            .arg(keys::LEASE.as_millis() as u64)
            .query_async(&mut cmd)
            .await?;
        if claimed.is_none() {
            let _ = sub.unsubscribe(&channel).await;
            return Ok(false);
        }
        let _: redis::RedisResult<()> = redis::pipe()
            .sadd(keys::owned(&self.id), code.as_str())
            .ignore()
            .sadd(keys::address(ip), code.as_str())
            .ignore()
            .pexpire(keys::address(ip), (keys::LEASE.as_millis() * 360) as i64)
            .ignore()
            .query_async(&mut cmd)
            .await;
        Ok(true)
    }

    /// Rooms open anywhere in the cluster that were created from `ip`; codes of rooms that
    /// are gone leave the set as they are found.
    async fn rooms_from(&self, ip: IpAddr) -> redis::RedisResult<usize> {
        let mut cmd = self.cmd.clone();
        let codes: Vec<String> = cmd.smembers(keys::address(ip)).await?;
        let codes: Vec<RoomCode> = codes
            .iter()
            .filter_map(|c| RoomCode::try_from(c.as_str()).ok())
            .collect();
        if codes.is_empty() {
            return Ok(0);
        }
        // One round trip for all of them (a busy address has many rooms open).
        let mut pipe = redis::pipe();
        for code in &codes {
            pipe.exists(keys::room(code));
        }
        let open: Vec<bool> = pipe.query_async(&mut cmd).await?;
        let gone: Vec<&str> = codes
            .iter()
            .zip(&open)
            .filter(|(_, open)| !**open)
            .map(|(code, _)| code.as_str())
            .collect();
        if !gone.is_empty() {
            let _: () = cmd.srem(keys::address(ip), gone).await?;
        }
        Ok(open.iter().filter(|o| **o).count())
    }
}

/// The other nodes of the cluster, as this node's room layer reaches them: looked up in the
/// registry, and a room found there reached through the member side.
#[derive(Debug)]
pub struct ClusterRooms {
    registry: Arc<Registry>,
    member: Arc<MemberSide>,
}

impl ClusterRooms {
    /// The other nodes, found in `registry` and reached as a `member`.
    pub(super) fn new(registry: Arc<Registry>, member: Arc<MemberSide>) -> ClusterRooms {
        ClusterRooms { registry, member }
    }

    /// A room on another node, reached through this node's relay.
    async fn find(&self, code: &RoomCode) -> Option<RoomHandle> {
        let owner = self.registry.owner_of(code).await?;
        Some(self.member.stub(code.clone(), owner))
    }
}

/// A Redis failure on a lookup the room layer needs: said once here, with its cause.
fn unreachable(e: redis::RedisError) -> Unreachable {
    tracing::warn!(error = %e, "the cluster directory is unreachable");
    Unreachable
}

impl OtherNodes for ClusterRooms {
    fn find<'a>(&'a self, code: &'a RoomCode) -> BoxFuture<'a, Option<RoomHandle>> {
        Box::pin(self.find(code))
    }

    fn find_by_token<'a>(&'a self, token: &'a ResumeToken) -> BoxFuture<'a, Option<RoomHandle>> {
        Box::pin(async move {
            let code = self.registry.room_of_token(token).await?;
            self.find(&code).await
        })
    }

    fn list_public(&self) -> BoxFuture<'_, Option<Vec<RoomSummary>>> {
        Box::pin(async move {
            match tokio::time::timeout(REDIS_TIMEOUT, self.registry.listings()).await {
                Ok(Ok(rows)) => Some(rows),
                _ => None,
            }
        })
    }

    fn rooms_from(&self, ip: IpAddr) -> BoxFuture<'_, Result<usize, Unreachable>> {
        Box::pin(async move { self.registry.rooms_from(ip).await.map_err(unreachable) })
    }

    fn claim<'a>(
        &'a self,
        code: &'a RoomCode,
        ip: IpAddr,
    ) -> BoxFuture<'a, Result<bool, Unreachable>> {
        Box::pin(async move { self.registry.claim(code, ip).await.map_err(unreachable) })
    }

    fn release(&self, code: &RoomCode, ip: IpAddr) {
        self.registry.feed.closed(code, ip);
    }

    fn health(&self) -> NodeHealth {
        NodeHealth {
            node: self.registry.id.to_string(),
            bus_up: self.registry.redis_up(),
        }
    }
}

/// The directory's changes, as writes queued to the publisher: made with the queue, before
/// the directory (which is built with it) and the registry (which holds it too, to let a room
/// go that never opened).
#[derive(Clone, Debug)]
pub(super) struct Feed {
    publisher: Publisher<Sent>,
}

impl Feed {
    /// The changes, queued to `publisher`.
    pub(super) fn new(publisher: Publisher<Sent>) -> Feed {
        Feed { publisher }
    }
}

impl DirectoryFeed for Feed {
    fn changed(&self, code: &RoomCode, info: &RoomInfo) {
        match directory::summary(code, info) {
            Some(row) => self.publisher.set(
                keys::listing(code),
                serde_json::to_string(&row).unwrap_or_default(),
            ),
            None => self.publisher.del(vec![keys::listing(code)]),
        }
    }

    fn closed(&self, code: &RoomCode, ip: IpAddr) {
        self.publisher
            .del(vec![keys::room(code), keys::listing(code), keys::log(code)]);
        self.publisher
            .srem(keys::address(ip), code.as_str().to_owned());
        self.publisher.unsubscribe(keys::room_channel(code));
    }

    fn token_issued(&self, token: &ResumeToken, code: &RoomCode) {
        self.publisher
            .set(keys::token(token), code.as_str().to_owned());
    }

    fn token_revoked(&self, token: &ResumeToken) {
        self.publisher.del(vec![keys::token(token)]);
    }

    fn logged(&self, code: &RoomCode, seq: u64, entry: Vec<u8>) {
        self.publisher
            .log(keys::room(code), keys::log(code), seq, entry);
    }

    fn sync(
        &self,
        code: &RoomCode,
    ) -> Option<tokio::sync::oneshot::Receiver<Result<(), directory::LogError>>> {
        Some(self.publisher.sync(keys::log(code)))
    }

    fn abandoned(&self, code: &RoomCode) {
        // Its keys, tokens and log are the new owner's: only this node stops listening.
        self.publisher.unsubscribe(keys::room_channel(code));
    }
}
