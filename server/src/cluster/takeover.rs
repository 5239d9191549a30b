//! Takeover (A9): a room whose owner's lease lapsed while its command log is still in Redis
//! is claimed by one node (`SET NX` on its code, as codes are claimed), rebuilt there by
//! replaying its log ([`crate::room::task::adopt`]), and run on: its members on live nodes
//! are kept (their commands already go up the room's channel, which the new owner now
//! reads; what the room sends comes down their node's channel as before), the lost node's
//! members resume with their tokens on any node.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use protocol::RoomCode;
use redis::aio::ConnectionManager;
use redis::AsyncCommands;
use tokio_util::sync::CancellationToken;

use super::owner::OwnerSide;
use super::registry::Registry;
use super::{keys, REDIS_TIMEOUT};
use crate::room::journal::Logged;
use crate::room::task::{self, RoomEnv};

/// One stream entry as `XRANGE` answers it: its id and its fields.
type StreamEntry = (String, Vec<(String, Vec<u8>)>);

/// A room's log as `XRANGE` gave it, whole or not at all: replayed in part, a log would make
/// another room (seats or placements missing), so one this node cannot read whole (an older
/// node's format) is not replayed.
fn decode_log(raw: &[StreamEntry]) -> Result<Vec<Logged>, serde_json::Error> {
    raw.iter()
        .flat_map(|(_, fields)| fields.iter())
        .map(|(_, v)| Logged::decode(v))
        .collect()
}

/// The pattern of every room's log.
const LOG_PATTERN: &str = "sr:log:*";

/// Claim a room from a dead node: only while that node's key is gone and the room's key
/// still names it (another node may have claimed it already), the code moved from its index
/// to this node's. KEYS: the room's key, the dead node's key, its index, this node's index;
/// ARGV: the dead node's id, this node's, the lease in ms, the code. Answers 1 when claimed.
const CLAIM_FROM: &str = r"
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SREM', KEYS[3], ARGV[4])
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('SADD', KEYS[4], ARGV[4])
return 1
";

/// This node's side of taking rooms over: what it looks with, and what it rebuilds into.
#[derive(Debug)]
pub(super) struct Takeovers {
    id: Arc<str>,
    registry: Arc<Registry>,
    cmd: ConnectionManager,
    sub: ConnectionManager,
    owner: Arc<OwnerSide>,
    env: Arc<RoomEnv>,
    /// How soon after a lease lapses a room is taken over (`--takeover-s`).
    within: Duration,
}

impl Takeovers {
    pub(super) fn new(
        registry: Arc<Registry>,
        owner: Arc<OwnerSide>,
        env: Arc<RoomEnv>,
        within: Duration,
    ) -> Takeovers {
        let (id, cmd, sub) = registry.connections();
        Takeovers {
            id,
            registry,
            cmd,
            sub,
            owner,
            env,
            within,
        }
    }

    /// Look for rooms to take over twice per `within`, until `shutdown`.
    pub(super) async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        let every = (self.within / 2).max(Duration::from_millis(100));
        loop {
            tokio::select! {
                () = tokio::time::sleep(every) => {}
                () = shutdown.cancelled() => return,
            }
            // Right after a Redis restart every lease is gone: nobody is judged until the
            // live nodes have renewed theirs.
            if !self.registry.redis_up() || self.registry.recently_reset() {
                continue;
            }
            match tokio::time::timeout(REDIS_TIMEOUT * 5, self.sweep()).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!(error = %e, "looking for rooms to take over failed"),
                Err(_) => tracing::warn!("looking for rooms to take over timed out"),
            }
        }
    }

    /// Every [`keys::NODE_POLL`] until `shutdown`, look for nodes whose key lapsed (killed,
    /// or cut off from Redis) and take their rooms over: the fast way (A12), by the dead
    /// node's index of its rooms; [`Takeovers::run`]'s sweep finds any it missed.
    pub(super) async fn watch(self: Arc<Self>, shutdown: CancellationToken) {
        loop {
            tokio::select! {
                () = tokio::time::sleep(keys::NODE_POLL) => {}
                () = shutdown.cancelled() => return,
            }
            if !self.registry.redis_up() || self.registry.recently_reset() {
                continue;
            }
            match tokio::time::timeout(REDIS_TIMEOUT * 5, self.rescue()).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!(error = %e, "looking for dead nodes failed"),
                Err(_) => tracing::warn!("looking for dead nodes timed out"),
            }
        }
    }

    /// The rooms of every node whose key lapsed: each claimed (by one node) and rebuilt.
    async fn rescue(&self) -> redis::RedisResult<()> {
        let mut cmd = self.cmd.clone();
        let nodes: Vec<String> = cmd.smembers(keys::NODES).await?;
        let nodes: Vec<String> = nodes.into_iter().filter(|n| *n != *self.id).collect();
        if nodes.is_empty() {
            return Ok(());
        }
        let mut pipe = redis::pipe();
        for n in &nodes {
            pipe.exists(keys::node(n));
        }
        let alive: Vec<bool> = pipe.query_async(&mut cmd).await?;
        for (dead, _) in nodes.iter().zip(alive).filter(|(_, a)| !*a) {
            let mut codes: Vec<String> = cmd.smembers(keys::owned(dead)).await?;
            if codes.is_empty() {
                let _: () = cmd.srem(keys::NODES, dead).await?;
                continue;
            }
            // Every survivor tries them all, each from its own starting point, so that they
            // share the work.
            let from = rand::Rng::gen_range(&mut rand::rngs::OsRng, 0..codes.len());
            codes.rotate_left(from);
            for code in codes
                .iter()
                .filter_map(|c| RoomCode::try_from(c.as_str()).ok())
            {
                if self.env.directory.find(&code).is_none() {
                    self.take_from(code, dead).await?;
                }
            }
        }
        Ok(())
    }

    /// Claim room `code` from dead node `dead` and rebuild it here, if nobody claims it first.
    async fn take_from(&self, code: RoomCode, dead: &str) -> redis::RedisResult<()> {
        let mut claim = redis::cmd("EVAL");
        claim
            .arg(CLAIM_FROM)
            .arg(4)
            .arg(keys::room(&code))
            .arg(keys::node(dead))
            .arg(keys::owned(dead))
            .arg(keys::owned(&self.id))
            .arg(dead)
            .arg(&*self.id)
            .arg(keys::LEASE.as_millis() as u64)
            .arg(code.as_str());
        match self.claim(&code, &claim).await? {
            Some(channel) => self.rebuild(code, channel).await,
            None => Ok(()),
        }
    }

    /// Claim room `code` with `claim` (answered nil or 0 when another node has it), its
    /// channel subscribed first so that no command sent to its new owner is missed: the
    /// channel, when this node holds the room now.
    async fn claim(
        &self,
        code: &RoomCode,
        claim: &redis::Cmd,
    ) -> redis::RedisResult<Option<String>> {
        let mut cmd = self.cmd.clone();
        let mut sub = self.sub.clone();
        let channel = keys::room_channel(code);
        sub.subscribe(&channel).await?;
        let answer: redis::Value = claim.query_async(&mut cmd).await?;
        if matches!(answer, redis::Value::Nil | redis::Value::Int(0)) {
            let _ = sub.unsubscribe(&channel).await;
            return Ok(None);
        }
        Ok(Some(channel))
    }

    /// The rooms whose log is kept but whose owner's lease lapsed: each claimed and rebuilt.
    async fn sweep(&self) -> redis::RedisResult<()> {
        let mut cmd = self.cmd.clone();
        let mut logs = Vec::new();
        {
            let mut it = cmd.scan_match::<_, String>(LOG_PATTERN).await?;
            while let Some(k) = futures::StreamExt::next(&mut it).await {
                logs.push(k?);
            }
        }
        if logs.is_empty() {
            return Ok(());
        }
        let codes: Vec<RoomCode> = logs
            .iter()
            .filter_map(|k| RoomCode::try_from(&k[keys::log_prefix_len()..]).ok())
            .collect();
        let mut pipe = redis::pipe();
        for code in &codes {
            pipe.exists(keys::room(code));
        }
        let owned: Vec<bool> = pipe.query_async(&mut cmd).await?;
        for (code, owned) in codes.into_iter().zip(owned) {
            if !owned && self.env.directory.find(&code).is_none() {
                self.take(code).await?;
            }
        }
        Ok(())
    }

    /// Claim room `code` and rebuild it here, if nobody claims it first.
    async fn take(&self, code: RoomCode) -> redis::RedisResult<()> {
        let mut claim = redis::cmd("SET");
        claim
            .arg(keys::room(&code))
            .arg(&*self.id)
            .arg("NX")
            .arg("PX")
            .arg(keys::LEASE.as_millis() as u64);
        let Some(channel) = self.claim(&code, &claim).await? else {
            return Ok(());
        };
        let mut cmd = self.cmd.clone();
        let _: () = cmd.sadd(keys::owned(&self.id), code.as_str()).await?;
        self.rebuild(code, channel).await
    }

    /// Read room `code`'s log and run it here (claimed, its `channel` subscribed).
    async fn rebuild(&self, code: RoomCode, channel: String) -> redis::RedisResult<()> {
        #[cfg(feature = "cluster-tests")]
        test_hook::before_rebuild(&code).await;
        let mut cmd = self.cmd.clone();
        let mut sub = self.sub.clone();
        let raw: Vec<StreamEntry> = redis::cmd("XRANGE")
            .arg(keys::log(&code))
            .arg("-")
            .arg("+")
            .query_async(&mut cmd)
            .await?;
        let log = decode_log(&raw).unwrap_or_else(|e| {
            tracing::warn!(room = %code, error = %e, "a room's log does not decode");
            Vec::new()
        });
        let alive = self.alive_nodes(&log).await?;
        let owner = self.owner.clone();
        let adopted = task::adopt(&self.env, log, |node, conn| {
            alive.contains(node).then(|| owner.proxy(node, conn, &code))
        });
        if adopted.is_none() {
            // Nothing to run: the room ends for its members as a lost room does.
            tracing::warn!(room = %code, "a room could not be taken over");
            let _: redis::RedisResult<()> =
                cmd.del(vec![keys::room(&code), keys::log(&code)]).await;
            let _ = sub.unsubscribe(&channel).await;
        }
        Ok(())
    }

    /// The nodes the log's members are on that are alive (this one included).
    async fn alive_nodes(&self, log: &[Logged]) -> redis::RedisResult<HashSet<String>> {
        use crate::room::journal::Entry;
        let mut nodes: Vec<String> = log
            .iter()
            .filter_map(|l| match &l.entry {
                Entry::Cmd { remote, .. } | Entry::Rename { remote, .. } => {
                    remote.as_ref().map(|(n, _)| n.clone())
                }
                _ => None,
            })
            .collect();
        nodes.sort();
        nodes.dedup();
        let mut alive = HashSet::new();
        let mut cmd = self.cmd.clone();
        for n in nodes {
            if n == *self.id || cmd.exists::<_, bool>(keys::node(&n)).await? {
                alive.insert(n);
            }
        }
        Ok(alive)
    }
}

/// A test hook (`cluster-tests` builds only): with `SUDOKU_RACE_TEST_REBUILD_DELAY_MS=N` in its
/// environment, a node waits N ms between claiming a room and rebuilding it, so that a test
/// can send a command into that window (the channel is heard, the room not there yet).
#[cfg(feature = "cluster-tests")]
mod test_hook {
    use protocol::RoomCode;

    pub(super) async fn before_rebuild(code: &RoomCode) {
        let delay = std::env::var("SUDOKU_RACE_TEST_REBUILD_DELAY_MS")
            .ok()
            .and_then(|v| v.parse().ok());
        if let Some(ms) = delay {
            tracing::info!(room = %code, ms, "claimed, rebuilding after the test's delay");
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::room::journal::Entry;

    /// An entry of the log's format before `room::command` (a `place` of its own) among ones
    /// this node reads: the whole log is refused, not replayed without it.
    #[test]
    fn a_log_is_read_whole_or_not_at_all() {
        let tick = |at| Logged {
            at,
            entry: Entry::Tick { unix_ms: 7 },
        };
        let field = |l: Logged| ("e".to_owned(), l.encode());
        let ours = vec![("1-0".to_owned(), vec![field(tick(1)), field(tick(2))])];
        assert_eq!(decode_log(&ours).map(|l| l.len()).ok(), Some(2));
        let mut mixed = ours.clone();
        let old = br#"{"at":3,"t":"place","conn":1,"cell":0,"digit":1}"#.to_vec();
        mixed.push(("2-0".to_owned(), vec![("e".to_owned(), old)]));
        assert!(decode_log(&mixed).is_err());
    }
}
