//! The Redis side of the directory: the leases a node renews (itself, its rooms, their
//! listings, their seats' tokens), finding a room or a token's room on another node, the room
//! list of every node, opening a room under a code claimed cluster-wide, and the facts the
//! node's own [`Directory`] reports ([`Shared`]).

use std::net::IpAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use protocol::{ResumeToken, RoomCode, RoomSummary};
use redis::AsyncCommands;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::{keys, Node, Op, CODE_TRIES, REDIS_TIMEOUT};
use crate::room::directory::{self, Directory, OpenError, Shared};
use crate::room::handle::{JoinOutcome, RoomHandle, RoomInfo};
use crate::room::task::{self, NewRoom, RoomEnv};

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
    pub async fn find(self: &Arc<Self>, code: &RoomCode) -> Option<RoomHandle> {
        let owner = self.owner_of(code).await?;
        Some(self.stub(code.clone(), owner))
    }

    /// The room a resume token belongs to, on another node.
    pub async fn find_by_token(self: &Arc<Self>, token: &ResumeToken) -> Option<RoomHandle> {
        let mut cmd = self.cmd.clone();
        let code: Option<String> = tokio::time::timeout(REDIS_TIMEOUT, cmd.get(keys::token(token)))
            .await
            .ok()?
            .ok()?;
        let code = RoomCode::try_from(code?.as_str()).ok()?;
        self.find(&code).await
    }

    /// Every node's listed rooms, by code. Redis down: this node's own.
    pub async fn list_public(&self, dir: &Directory) -> Vec<RoomSummary> {
        match tokio::time::timeout(REDIS_TIMEOUT, self.listings()).await {
            Ok(Ok(mut rows)) => {
                rows.sort_by(|a, b| a.room.cmp(&b.room));
                rows
            }
            _ => dir.list_public(),
        }
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

    /// Open a room owned by this node: its code claimed cluster-wide, the creator's address
    /// under the cluster-wide per-address limit, its channel subscribed before anyone can
    /// find it.
    pub async fn open(
        self: &Arc<Self>,
        env: &Arc<RoomEnv>,
        new: NewRoom,
    ) -> Result<(RoomHandle, oneshot::Receiver<JoinOutcome>), OpenError> {
        let ip = new.ip;
        let unavailable = |e: redis::RedisError| {
            tracing::warn!(error = %e, "the cluster directory is unreachable");
            OpenError::Unavailable
        };
        let limit = env.directory.max_rooms_per_ip();
        if self.rooms_from(ip).await.map_err(unavailable)? >= limit {
            return Err(OpenError::AddressFull { ip, limit });
        }
        let mut cmd = self.cmd.clone();
        let mut sub = self.sub.clone();
        for _ in 0..CODE_TRIES {
            let code = directory::new_code();
            if env.directory.find(&code).is_some() {
                continue;
            }
            let channel = keys::room_channel(&code);
            sub.subscribe(&channel).await.map_err(unavailable)?;
            let claimed: Option<String> = redis::cmd("SET")
                .arg(keys::room(&code))
                .arg(&*self.id)
                .arg("NX")
                .arg("PX")
                .arg(keys::LEASE.as_millis() as u64)
                .query_async(&mut cmd)
                .await
                .map_err(unavailable)?;
            if claimed.is_none() {
                let _ = sub.unsubscribe(&channel).await;
                continue;
            }
            let _: redis::RedisResult<()> = redis::pipe()
                .sadd(keys::address(ip), code.as_str())
                .ignore()
                .pexpire(keys::address(ip), (keys::LEASE.as_millis() * 360) as i64)
                .ignore()
                .query_async(&mut cmd)
                .await;
            let info = RoomInfo {
                phase: protocol::Phase::Lobby,
                players: 1,
                settings: new.settings.clone(),
            };
            let opened = task::open(env, Some(code.clone()), new);
            match &opened {
                // Listed at once: the room task tells of changes only.
                Ok(_) => self.changed(&code, &info),
                Err(_) => self.closed(&code, ip),
            }
            return opened;
        }
        Err(OpenError::NoFreeCode { tries: CODE_TRIES })
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

impl Shared for Node {
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
