//! The Redis side of the directory: the leases a node renews (itself, its rooms, their
//! listings, their seats' tokens), finding a room or a token's room on another node, the room
//! list of every node, codes claimed cluster-wide and the per-address count ([`ClusterRooms`],
//! the room layer's [`OtherNodes`]), and the facts the node's own [`Directory`] reports
//! ([`DirectoryFeed`]).

use std::net::IpAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use futures::future::BoxFuture;
use protocol::{ResumeToken, RoomCode, RoomSummary};
use redis::AsyncCommands;
use tokio_util::sync::CancellationToken;

use super::{keys, Node, Op, REDIS_TIMEOUT};
use crate::room::directory::{self, Directory, DirectoryFeed};
use crate::room::handle::{RoomHandle, RoomInfo};
use crate::room::rooms::{NodeHealth, OtherNodes, Unreachable};

impl Node {
    /// Renew this node's leases: itself, its rooms, their listings and their seats' tokens.
    /// Writing them whole (not only extending them) brings them back after Redis restarts.
    pub(super) async fn renew(&self, dir: &Directory) {
        // The subscription connection only listens: a manager whose reconnect attempts ran out
        // during an outage tries again on its next command, and this is it (it resubscribes
        // every channel once it is back).
        let mut sub = self.sub.clone();
        let _ = tokio::time::timeout(
            REDIS_TIMEOUT,
            redis::cmd("PING").query_async::<()>(&mut sub),
        )
        .await;
        let ms = keys::LEASE.as_millis() as u64;
        let mut pipe = redis::pipe();
        // GET: the key's old value; none means Redis lost it (restarted) since the last renewal.
        pipe.cmd("SET")
            .arg(keys::node(&self.id))
            .arg(1)
            .arg("PX")
            .arg(ms)
            .arg("GET");
        for (code, info) in dir.rooms() {
            pipe.pset_ex(keys::room(&code), &*self.id, ms).ignore();
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
        let ok = match tokio::time::timeout(
            REDIS_TIMEOUT,
            pipe.query_async::<(Option<String>,)>(&mut cmd),
        )
        .await
        {
            Ok(Ok((old,))) => {
                // The very first renewal finds no key of course.
                if old.is_none() && self.renewed.swap(true, Relaxed) {
                    self.reset();
                }
                true
            }
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "renewing the cluster leases failed");
                false
            }
            Err(_) => {
                tracing::warn!("renewing the cluster leases timed out");
                false
            }
        };
        if self.redis_up.swap(ok, Relaxed) != ok {
            tracing::info!(up = ok, "redis state changed");
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
        // A clean stop: the other nodes need not wait out the lease (rooms delete their own
        // keys as they close).
        let mut cmd = self.cmd.clone();
        let _ = tokio::time::timeout(REDIS_TIMEOUT, cmd.del::<_, ()>(keys::node(&self.id))).await;
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

    /// A room on another node, reached through this node's relay.
    async fn find(self: &Arc<Self>, code: &RoomCode) -> Option<RoomHandle> {
        let owner = self.owner_of(code).await?;
        Some(self.stub(code.clone(), owner))
    }

    /// The room a resume token belongs to, on another node.
    async fn find_by_token(self: &Arc<Self>, token: &ResumeToken) -> Option<RoomHandle> {
        let mut cmd = self.cmd.clone();
        let code: Option<String> = tokio::time::timeout(REDIS_TIMEOUT, cmd.get(keys::token(token)))
            .await
            .ok()?
            .ok()?;
        let code = RoomCode::try_from(code?.as_str()).ok()?;
        self.find(&code).await
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
        let mut live = 0;
        for c in codes {
            let Ok(code) = RoomCode::try_from(c.as_str()) else {
                continue;
            };
            if cmd.exists::<_, bool>(keys::room(&code)).await? {
                live += 1;
            } else {
                let _: () = cmd.srem(keys::address(ip), &c).await?;
            }
        }
        Ok(live)
    }
}

/// The other nodes of the cluster, as this node's room layer reaches them.
#[derive(Debug)]
pub struct ClusterRooms(Arc<Node>);

impl ClusterRooms {
    /// The other nodes, reached through `node`.
    pub fn new(node: Arc<Node>) -> ClusterRooms {
        ClusterRooms(node)
    }
}

/// A Redis failure on a lookup the room layer needs: said once here, with its cause.
fn unreachable(e: redis::RedisError) -> Unreachable {
    tracing::warn!(error = %e, "the cluster directory is unreachable");
    Unreachable
}

impl OtherNodes for ClusterRooms {
    fn find<'a>(&'a self, code: &'a RoomCode) -> BoxFuture<'a, Option<RoomHandle>> {
        Box::pin(self.0.find(code))
    }

    fn find_by_token<'a>(&'a self, token: &'a ResumeToken) -> BoxFuture<'a, Option<RoomHandle>> {
        Box::pin(self.0.find_by_token(token))
    }

    fn list_public(&self) -> BoxFuture<'_, Option<Vec<RoomSummary>>> {
        Box::pin(async move {
            match tokio::time::timeout(REDIS_TIMEOUT, self.0.listings()).await {
                Ok(Ok(rows)) => Some(rows),
                _ => None,
            }
        })
    }

    fn rooms_from(&self, ip: IpAddr) -> BoxFuture<'_, Result<usize, Unreachable>> {
        Box::pin(async move { self.0.rooms_from(ip).await.map_err(unreachable) })
    }

    fn claim<'a>(
        &'a self,
        code: &'a RoomCode,
        ip: IpAddr,
    ) -> BoxFuture<'a, Result<bool, Unreachable>> {
        Box::pin(async move { self.0.claim(code, ip).await.map_err(unreachable) })
    }

    fn release(&self, code: &RoomCode, ip: IpAddr) {
        self.0.closed(code, ip);
    }

    fn health(&self) -> NodeHealth {
        NodeHealth {
            node: self.0.id().to_owned(),
            bus_up: self.0.redis_up(),
        }
    }
}

impl DirectoryFeed for Node {
    fn changed(&self, code: &RoomCode, info: &RoomInfo) {
        match directory::summary(code, info) {
            Some(row) => self.queue(Op::Set {
                key: keys::listing(code),
                value: serde_json::to_string(&row).unwrap_or_default(),
            }),
            None => self.queue(Op::Del {
                keys: vec![keys::listing(code)],
            }),
        }
    }

    fn closed(&self, code: &RoomCode, ip: IpAddr) {
        self.queue(Op::Del {
            keys: vec![keys::room(code), keys::listing(code)],
        });
        self.queue(Op::Srem {
            key: keys::address(ip),
            member: code.as_str().to_owned(),
        });
        self.queue(Op::Unsubscribe {
            channel: keys::room_channel(code),
        });
    }

    fn token_issued(&self, token: &ResumeToken, code: &RoomCode) {
        self.queue(Op::Set {
            key: keys::token(token),
            value: code.as_str().to_owned(),
        });
    }

    fn token_revoked(&self, token: &ResumeToken) {
        self.queue(Op::Del {
            keys: vec![keys::token(token)],
        });
    }
}
