//! The cluster-wide pool's state in Redis ([`ClusterPool`], the pool layer's [`SharedPool`]):
//! one hash per difficulty (`sr:pool:DIFF`, `NODE:CONN` → the entry's JSON), the lease of the
//! node that forms the races (`sr:pool:lease`), and the pool's frames down a node's channel:
//! a seat order for one of its connections, or word that a pool is full.
//!
//! A race's entries leave the hash in one script that removes those still there, or none when
//! fewer than two are ([`TAKE`]): a connection that leaves at the same moment either removed
//! itself first, or finds itself taken; nobody is seated twice.

use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use engine::Difficulty;
use futures::future::BoxFuture;
use protocol::RoomCode;
use redis::aio::ConnectionManager;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Bytes;

use super::member::Sent;
use super::publisher::Publisher;
use super::wire;
use super::{keys, now, now_us, REDIS_TIMEOUT};
use crate::metrics::Metrics;
use crate::pool::shared::{Order, SeatOrder, Shared, SharedPool};
use crate::puzzles::slot;
use crate::room::handle::Identity;

/// Take the fields `ARGV` out of the hash `KEYS[1]` if two or more of them are there: the
/// fields and values removed, flat (none when fewer than two were there).
const TAKE: &str = r"
local found = {}
for _, f in ipairs(ARGV) do
  local v = redis.call('HGET', KEYS[1], f)
  if v then table.insert(found, f); table.insert(found, v) end
end
if #found < 4 then return {} end
for i = 1, #found, 2 do redis.call('HDEL', KEYS[1], found[i]) end
return found
";

/// The lease `KEYS[1]` for node `ARGV[1]`, for `ARGV[2]` ms, if it is free or its own: the
/// holder's id.
const LEAD: &str = r"
local cur = redis.call('GET', KEYS[1])
if cur == false or cur == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ARGV[1]
end
return cur
";

/// Delete the lease `KEYS[1]` if it is node `ARGV[1]`'s.
const RESIGN: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
";

/// A waiting connection in Redis.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Entry {
    node: String,
    conn: u64,
    name: String,
    who: Identity,
    addr: IpAddr,
    rating: Option<f64>,
    since: i64,
    chain: Option<u64>,
}

impl From<&Shared> for Entry {
    fn from(s: &Shared) -> Entry {
        Entry {
            node: s.node.clone(),
            conn: s.conn,
            name: s.name.clone(),
            who: s.who.clone(),
            addr: s.addr,
            rating: s.rating,
            since: s.since_unix_ms,
            chain: s.chain,
        }
    }
}

impl From<Entry> for Shared {
    fn from(e: Entry) -> Shared {
        Shared {
            node: e.node,
            conn: e.conn,
            name: e.name,
            who: e.who,
            addr: e.addr,
            rating: e.rating,
            since_unix_ms: e.since,
            chain: e.chain,
        }
    }
}

/// The pool's frames down a node's channel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
enum Frame {
    /// Seat connection `conn` in `room`.
    Seat {
        conn: u64,
        room: String,
        difficulty: String,
    },
    /// The pool of `difficulty` is full.
    Full { difficulty: String },
}

fn encode(frame: &Frame) -> Vec<u8> {
    let mut out = wire::head(wire::POOL, now_us(), 64);
    let _ = serde_json::to_writer(&mut out, frame);
    out
}

/// Whether a frame down a node's channel is the pool's.
pub(super) fn is_pool(frame: &[u8]) -> bool {
    frame.first() == Some(&wire::POOL)
}

/// What this node knows of the lease.
#[derive(Debug, Default)]
struct Lease {
    /// When it last asked Redis.
    asked: Option<tokio::time::Instant>,
    /// The holder it was told.
    holder: Option<String>,
}

/// This node's side of the cluster-wide pool.
#[derive(Debug)]
pub struct ClusterPool {
    id: Arc<str>,
    cmd: ConnectionManager,
    publisher: Publisher<Sent>,
    metrics: Arc<Metrics>,
    orders: mpsc::UnboundedSender<Order>,
    taken: Mutex<Option<mpsc::UnboundedReceiver<Order>>>,
    lease: Mutex<Lease>,
}

/// Redis's answer within [`REDIS_TIMEOUT`], or `None`.
async fn ask<T: redis::FromRedisValue>(
    cmd: &ConnectionManager,
    c: impl FnOnce(&mut redis::Pipeline),
) -> Option<T> {
    let mut pipe = redis::pipe();
    c(&mut pipe);
    let mut cmd = cmd.clone();
    match tokio::time::timeout(REDIS_TIMEOUT, pipe.query_async::<T>(&mut cmd)).await {
        Ok(Ok(v)) => Some(v),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "the cluster's pool is unreachable");
            None
        }
        Err(_) => None,
    }
}

impl ClusterPool {
    /// Node `id`'s side of the pool, on `cmd`, sending through `publisher`.
    pub(super) fn new(
        id: Arc<str>,
        cmd: ConnectionManager,
        publisher: Publisher<Sent>,
        metrics: Arc<Metrics>,
    ) -> ClusterPool {
        let (orders, rx) = mpsc::unbounded_channel();
        ClusterPool {
            id,
            cmd,
            publisher,
            metrics,
            orders,
            taken: Mutex::new(Some(rx)),
            lease: Mutex::new(Lease::default()),
        }
    }

    /// A pool frame down this node's channel (called by the subscription's task: never waits).
    pub(super) fn on_frame(&self, frame: &Bytes) {
        let order = frame
            .get(wire::HEAD..)
            .and_then(|body| serde_json::from_slice::<Frame>(body).ok())
            .and_then(|f| match f {
                Frame::Seat {
                    conn,
                    room,
                    difficulty,
                } => Some(Order::Seat(SeatOrder {
                    conn,
                    room: RoomCode::try_from(room.as_str()).ok()?,
                    difficulty: difficulty.parse().ok()?,
                })),
                Frame::Full { difficulty } => Some(Order::Full(difficulty.parse().ok()?)),
            });
        match order {
            Some(order) => {
                let _ = self.orders.send(order);
            }
            None => {
                self.metrics.relay_errors.inc();
                tracing::warn!("a pool frame did not decode");
            }
        }
    }

    fn send(&self, node: &str, frame: &Frame) {
        self.publisher
            .publish(keys::node_channel(node).into(), encode(frame));
    }

    /// The entries of `difficulty`'s pool, those of dead nodes removed.
    async fn live(&self, difficulty: Difficulty) -> Option<Vec<Shared>> {
        let key = keys::pool(difficulty);
        let (all,): (std::collections::HashMap<String, String>,) = ask(&self.cmd, |p| {
            p.hgetall(&key);
        })
        .await?;
        if all.is_empty() {
            return Some(Vec::new());
        }
        let mut entries: Vec<(String, Entry)> = Vec::with_capacity(all.len());
        let mut junk = Vec::new();
        for (field, value) in all {
            match serde_json::from_str::<Entry>(&value) {
                Ok(e) => entries.push((field, e)),
                Err(_) => junk.push(field),
            }
        }
        let mut nodes: Vec<String> = entries.iter().map(|(_, e)| e.node.clone()).collect();
        nodes.sort_unstable();
        nodes.dedup();
        let alive: Vec<bool> = ask(&self.cmd, |p| {
            for n in &nodes {
                p.exists(keys::node(n));
            }
        })
        .await?;
        let dead: Vec<String> = nodes
            .into_iter()
            .zip(alive)
            .filter(|(n, alive)| !alive && **n != *self.id)
            .map(|(n, _)| n)
            .collect();
        let (gone, live): (Vec<_>, Vec<_>) = entries
            .into_iter()
            .partition(|(_, e)| dead.contains(&e.node));
        junk.extend(gone.into_iter().map(|(f, _)| f));
        if !junk.is_empty() {
            tracing::info!(n = junk.len(), "pool entries of lost nodes removed");
            let _: Option<()> = ask(&self.cmd, |p| {
                p.hdel(&key, &junk).ignore();
            })
            .await;
        }
        Some(live.into_iter().map(|(_, e)| e.into()).collect())
    }
}

impl SharedPool for ClusterPool {
    fn node(&self) -> &str {
        &self.id
    }

    fn add(&self, difficulty: Difficulty, entries: Vec<Shared>) -> BoxFuture<'_, Option<usize>> {
        Box::pin(async move {
            let key = keys::pool(difficulty);
            let (n,): (usize,) = ask(&self.cmd, |p| {
                for s in &entries {
                    let json = serde_json::to_string(&Entry::from(s)).unwrap_or_default();
                    p.hset(&key, keys::pool_field(&s.node, s.conn), json)
                        .ignore();
                }
                p.hlen(&key);
            })
            .await?;
            Some(n)
        })
    }

    fn remove(&self, difficulty: Difficulty, conn: u64) -> BoxFuture<'_, Option<bool>> {
        Box::pin(async move {
            let field = keys::pool_field(&self.id, conn);
            let (n,): (u32,) = ask(&self.cmd, |p| {
                p.hdel(keys::pool(difficulty), field);
            })
            .await?;
            Some(n > 0)
        })
    }

    fn present(&self, difficulty: Difficulty, conns: Vec<u64>) -> BoxFuture<'_, Option<Vec<bool>>> {
        Box::pin(async move {
            let fields: Vec<String> = conns
                .iter()
                .map(|c| keys::pool_field(&self.id, *c))
                .collect();
            let (values,): (Vec<Option<String>>,) = ask(&self.cmd, |p| {
                p.cmd("HMGET").arg(keys::pool(difficulty)).arg(&fields);
            })
            .await?;
            Some(values.iter().map(Option::is_some).collect())
        })
    }

    fn counts(&self) -> BoxFuture<'_, Option<[usize; 4]>> {
        Box::pin(async move {
            let n: Vec<usize> = ask(&self.cmd, |p| {
                for d in Difficulty::ALL {
                    p.hlen(keys::pool(d));
                }
            })
            .await?;
            let mut out = [0; 4];
            for (d, n) in Difficulty::ALL.into_iter().zip(n) {
                out[slot(d)] = n;
            }
            Some(out)
        })
    }

    fn lead(&self) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            let fresh = |l: &Lease| {
                l.asked
                    .is_some_and(|t| now().saturating_duration_since(t) < keys::POOL_LEAD_EVERY)
            };
            if let Ok(l) = self.lease.lock() {
                if fresh(&l) {
                    return l.holder.as_deref() == Some(&*self.id);
                }
            }
            let ms = keys::POOL_LEASE.as_millis() as u64;
            let holder: Option<(String,)> = ask(&self.cmd, |p| {
                p.cmd("EVAL")
                    .arg(LEAD)
                    .arg(1)
                    .arg(keys::POOL_LEASE_KEY)
                    .arg(&*self.id)
                    .arg(ms);
            })
            .await;
            let holder = holder.map(|(h,)| h);
            let mine = holder.as_deref() == Some(&*self.id);
            if let Ok(mut l) = self.lease.lock() {
                if mine && l.holder.as_deref() != Some(&*self.id) {
                    tracing::info!(node = %self.id, "this node forms the pool's races now");
                }
                *l = Lease {
                    asked: Some(now()),
                    holder,
                };
            }
            mine
        })
    }

    fn resign(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let _: Option<(i64,)> = ask(&self.cmd, |p| {
                p.cmd("EVAL")
                    .arg(RESIGN)
                    .arg(1)
                    .arg(keys::POOL_LEASE_KEY)
                    .arg(&*self.id);
            })
            .await;
        })
    }

    fn waiting(&self, difficulty: Difficulty) -> BoxFuture<'_, Option<Vec<Shared>>> {
        Box::pin(self.live(difficulty))
    }

    fn take<'a>(
        &'a self,
        difficulty: Difficulty,
        race: &'a [Shared],
    ) -> BoxFuture<'a, Vec<Shared>> {
        Box::pin(async move {
            let fields: Vec<String> = race
                .iter()
                .map(|s| keys::pool_field(&s.node, s.conn))
                .collect();
            let found: Option<(Vec<String>,)> = ask(&self.cmd, |p| {
                p.cmd("EVAL")
                    .arg(TAKE)
                    .arg(1)
                    .arg(keys::pool(difficulty))
                    .arg(&fields);
            })
            .await;
            let Some((found,)) = found else {
                return Vec::new();
            };
            found
                .chunks_exact(2)
                .filter_map(|fv| serde_json::from_str::<Entry>(&fv[1]).ok())
                .map(Shared::from)
                .collect()
        })
    }

    fn seat(&self, node: &str, order: SeatOrder) {
        if node == &*self.id {
            // This node's own player: no need to go through Redis.
            let _ = self.orders.send(Order::Seat(order));
            return;
        }
        let frame = Frame::Seat {
            conn: order.conn,
            room: order.room.as_str().to_owned(),
            difficulty: order.difficulty.to_string(),
        };
        self.send(node, &frame);
    }

    fn full(&self, difficulty: Difficulty) {
        let holder = self.lease.lock().ok().and_then(|l| l.holder.clone());
        match holder {
            Some(h) if *h == *self.id => {
                let _ = self.orders.send(Order::Full(difficulty));
            }
            Some(h) => self.send(
                &h,
                &Frame::Full {
                    difficulty: difficulty.to_string(),
                },
            ),
            None => {}
        }
    }

    fn orders(&self) -> Option<mpsc::UnboundedReceiver<Order>> {
        self.taken.lock().ok()?.take()
    }
}
