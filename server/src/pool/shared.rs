//! The seam of a cluster-wide pool (A7): what the pool needs from the place every node's
//! waiting players are kept, when the server is one node of a cluster. The pool layer defines
//! it and knows nothing of Redis; `crate::cluster` implements it (as the room layer's
//! `OtherNodes` is implemented there).
//!
//! The shape: every node keeps its own waiting connections (their outboxes and tickets) and
//! puts one [`Shared`] entry per connection in the shared pool. One node at a time holds the
//! pool's lease ([`SharedPool::lead`]); it runs the matcher over every node's entries, takes
//! each race's entries out atomically ([`SharedPool::take`]: only what it removed is seated),
//! opens the race's room on itself, and sends each player's own node a [`SeatOrder`]
//! ([`SharedPool::seat`]); that node seats its connection in the room (relayed, when the room
//! is elsewhere).

use std::fmt;
use std::net::IpAddr;

use engine::Difficulty;
use futures::future::BoxFuture;
use protocol::RoomCode;
use tokio::sync::mpsc;

use crate::room::handle::Identity;

/// One waiting connection, as every node sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Shared {
    /// The node it is connected to.
    pub node: String,
    /// Its connection id there.
    pub conn: u64,
    /// Its display name.
    pub name: String,
    /// The identity behind it (handle, bot), as the room seats it.
    pub who: Identity,
    /// Its address (a pool room counts against its first player's address).
    pub addr: IpAddr,
    /// Its conservative rating at the difficulty, or `None`.
    pub rating: Option<f64>,
    /// When its wait began, in Unix milliseconds (every node's matcher reads the same).
    pub since_unix_ms: i64,
    /// The rematch chain it requeued with, if any.
    pub chain: Option<u64>,
}

/// The pool's word to a player's node: seat connection `conn` in `room`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatOrder {
    /// The connection, on the node the order went to.
    pub conn: u64,
    /// The pool room, open on the node that formed the race.
    pub room: RoomCode,
    /// The pool it waited in.
    pub difficulty: Difficulty,
}

/// What the shared pool tells this node's pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// Seat one of this node's waiting connections.
    Seat(SeatOrder),
    /// A pool is full (another node's player made it so): form its races now, without
    /// waiting for the tick, if this node holds the lease.
    Full(Difficulty),
}

/// The cluster-wide pool's shared state. Every answer that needs it says `None` (or nothing)
/// when it cannot be had; the pool then keeps its connections waiting and tries again.
pub trait SharedPool: Send + Sync + fmt::Debug {
    /// This node's id.
    fn node(&self) -> &str;
    /// Put `entries` (this node's, or a race's put back) in the pool of `difficulty`: how many wait there now.
    fn add(&self, difficulty: Difficulty, entries: Vec<Shared>) -> BoxFuture<'_, Option<usize>>;
    /// Take this node's connection `conn` out of the pool of `difficulty`: whether it was
    /// there (`false`: a race took it a moment ago, and its seat order is on its way).
    fn remove(&self, difficulty: Difficulty, conn: u64) -> BoxFuture<'_, Option<bool>>;
    /// Which of this node's connections `conns` are in the pool of `difficulty`.
    fn present(&self, difficulty: Difficulty, conns: Vec<u64>) -> BoxFuture<'_, Option<Vec<bool>>>;
    /// How many wait in each difficulty's pool ([`Difficulty::ALL`] order).
    fn counts(&self) -> BoxFuture<'_, Option<[usize; 4]>>;
    /// Hold the pool's lease (take it if it is free, renew it if it is this node's): whether
    /// this node forms the races now.
    fn lead(&self) -> BoxFuture<'_, bool>;
    /// Give up the pool's lease if this node holds it (at shutdown: another node takes it at
    /// once rather than when it lapses).
    fn resign(&self) -> BoxFuture<'_, ()>;
    /// Every entry of `difficulty`'s pool whose node is alive (a dead node's are removed).
    fn waiting(&self, difficulty: Difficulty) -> BoxFuture<'_, Option<Vec<Shared>>>;
    /// Take `race`'s entries out of `difficulty`'s pool, atomically: those that were still
    /// there, or none when fewer than two were.
    fn take<'a>(&'a self, difficulty: Difficulty, race: &'a [Shared])
        -> BoxFuture<'a, Vec<Shared>>;
    /// Send `order` to node `node` (queued; never waits).
    fn seat(&self, node: &str, order: SeatOrder);
    /// The pool of `difficulty` is full: the node holding the lease is told to form its races
    /// now (queued; never waits).
    fn full(&self, difficulty: Difficulty);
    /// What is sent to this node's pool; given once (the pool's loop takes it).
    fn orders(&self) -> Option<mpsc::UnboundedReceiver<Order>>;
}
