//! The pool across a cluster's nodes (A7): this node's part of it. Its waiting connections stay
//! here (their outboxes, tickets, `queued` and `pool_alone`), each mirrored by one entry in the
//! [`SharedPool`]. On every tick:
//!
//! - the node holding the pool's lease runs the matcher over every node's entries, takes each
//!   race's entries out of the shared pool atomically (only those it removed are seated),
//!   opens the race's room on itself (it starts once its players are seated, or after
//!   [`SEAT_WITHIN`] with whoever is), and sends every player's node a seat order;
//! - every node tells its waiting connections the cluster-wide count when it changed;
//! - every [`CHECK_EVERY`], every node looks for its waiting connections in the shared pool:
//!   one missing for [`MISSING_GRACE`] with no seat order (the race that took it was lost with
//!   its node before the order went out, or Redis lost it) is put back, its wait kept.
//!
//! A seat order seats its connection in the room (through the relay when the room is
//! elsewhere), once: the order takes the entry out of this node's queue. A room lost before it
//! seated its player puts the player back in the pool.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use engine::Difficulty;
use protocol::ServerMsg;
use tokio::sync::oneshot;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::{Entrant, Entry, Leaving, Pool, Seat, Ticket, TICK};
use crate::outbox::ConnId;
use crate::pool::matcher::{self, Waiting};
use crate::pool::shared::{Order, SeatOrder, Shared, SharedPool};
use crate::puzzles::slot;
use crate::room::handle::JoinOutcome;

/// How long a pool room waits for its players' nodes to seat them before it starts with
/// whoever is seated.
const SEAT_WITHIN: Duration = Duration::from_secs(3);
/// How long a waiting connection may be missing from the shared pool, with no seat order, before
/// its node puts it back.
const MISSING_GRACE: Duration = Duration::from_secs(2);
/// How often a node looks for its waiting connections in the shared pool.
const CHECK_EVERY: Duration = Duration::from_secs(1);

#[allow(clippy::disallowed_methods)] // the pool's clock
fn now() -> Instant {
    Instant::now()
}

impl Pool {
    /// `enqueue` in a cluster: here first (so a seat order finds it), then in the shared pool,
    /// whose count it is told.
    pub(super) async fn enqueue_shared(
        &self,
        shared: &Arc<dyn SharedPool>,
        difficulty: Difficulty,
        entrant: Entrant,
    ) -> Arc<Ticket> {
        let ticket = Arc::new(Ticket {
            difficulty,
            seat: Mutex::new(Seat::Waiting),
        });
        let conn = entrant.outbox.id;
        let outbox = entrant.outbox.clone();
        let entry = Entry::new(entrant, ticket.clone(), 0);
        let me = entry.shared(shared.node());
        let here = {
            let mut queues = self.lock();
            let queue = &mut queues[slot(difficulty)];
            queue.entries.push(entry);
            queue.entries.len()
        };
        // Unreachable: it waits here, and is put in the shared pool by the next check.
        let n = shared.add(difficulty, vec![me]).await.unwrap_or(here);
        let untold = {
            let mut queues = self.lock();
            let queue = &mut queues[slot(difficulty)];
            match queue
                .entries
                .iter_mut()
                .find(|e| e.entrant.outbox.id == conn)
            {
                Some(e) if e.told == 0 => {
                    e.told = n;
                    true
                }
                _ => false,
            }
        };
        if untold {
            let waiting = u32::try_from(n).unwrap_or(u32::MAX);
            let msg = ServerMsg::Queued {
                difficulty,
                waiting,
            };
            outbox.send(&msg, &self.rooms.env().metrics);
        }
        if n >= self.rules.size {
            shared.full(difficulty);
        }
        ticket
    }

    /// `leave` in a cluster: out of the shared pool first; if a race took it meanwhile, it
    /// stays here for its seat order (seated if it asked, `gone`: nobody seated).
    pub(super) async fn leave_shared(
        &self,
        shared: &Arc<dyn SharedPool>,
        difficulty: Difficulty,
        conn: ConnId,
        gone: bool,
    ) -> bool {
        if !self.lock()[slot(difficulty)]
            .entries
            .iter()
            .any(|e| e.entrant.outbox.id == conn)
        {
            return false;
        }
        if shared.remove(difficulty, conn.0).await == Some(false) {
            let mut queues = self.lock();
            let queue = &mut queues[slot(difficulty)];
            if let Some(e) = queue
                .entries
                .iter_mut()
                .find(|e| e.entrant.outbox.id == conn)
            {
                e.leaving = if gone { Leaving::Gone } else { Leaving::Asked };
            }
            return false;
        }
        // Removed (or Redis is unreachable: an entry left there seats nobody, see `seat_order`).
        self.leave(difficulty, conn)
    }

    /// The cluster's loop: seat orders as they come, and a tick that forms races (on the
    /// lease's node), tells counts, and checks this node's entries, until `shutdown`.
    pub(super) async fn run_shared(
        self: Arc<Pool>,
        shared: Arc<dyn SharedPool>,
        shutdown: CancellationToken,
    ) {
        let Some(mut orders) = shared.orders() else {
            return tracing::error!("the shared pool's orders were taken already");
        };
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut checked = now();
        let draining = self.rooms.env().draining.clone();
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return self.withdraw(&shared).await,
                // A draining node (A9) leaves the pool to the others: its waiting connections
                // out, the lease given up, no race formed or seated here.
                () = draining.cancelled() => {
                    self.withdraw(&shared).await;
                    return self.turn_away();
                }
                _ = tick.tick() => {}
                order = orders.recv() => {
                    let Some(order) = order else { return };
                    let full = self.take_orders(&shared, order, &mut orders);
                    if full.iter().any(|f| *f) && shared.lead().await {
                        for d in Difficulty::ALL.into_iter().filter(|d| full[slot(*d)]) {
                            self.form_shared(&shared, d).await;
                        }
                    }
                    continue;
                }
            }
            if shared.lead().await {
                for d in Difficulty::ALL {
                    self.form_shared(&shared, d).await;
                }
            }
            self.tell_shared(&shared).await;
            if now().duration_since(checked) >= CHECK_EVERY {
                checked = now();
                for d in Difficulty::ALL {
                    self.check_shared(&shared, d).await;
                }
            }
        }
    }

    /// `first` and every order already queued behind it: seat orders carried out, `full` words
    /// gathered (one pass over each full pool for all of them).
    fn take_orders(
        self: &Arc<Pool>,
        shared: &Arc<dyn SharedPool>,
        first: Order,
        orders: &mut tokio::sync::mpsc::UnboundedReceiver<Order>,
    ) -> [bool; 4] {
        let mut full = [false; 4];
        let mut next = Some(first);
        while let Some(order) = next {
            match order {
                Order::Seat(order) => self.seat_order(shared, order),
                Order::Full(d) => full[slot(d)] = true,
            }
            next = orders.try_recv().ok();
        }
        full
    }

    /// At shutdown: this node's waiting connections out of the shared pool (they are closed
    /// with the node), so no race takes them.
    async fn withdraw(&self, shared: &Arc<dyn SharedPool>) {
        for d in Difficulty::ALL {
            let conns: Vec<u64> = self.lock()[slot(d)]
                .entries
                .iter()
                .map(|e| e.entrant.outbox.id.0)
                .collect();
            for conn in conns {
                shared.remove(d, conn).await;
            }
        }
        shared.resign().await;
    }

    /// On the lease's node: the races of `difficulty`'s pool across every node, each taken
    /// out of the shared pool and opened here.
    async fn form_shared(self: &Arc<Pool>, shared: &Arc<dyn SharedPool>, difficulty: Difficulty) {
        let Some(waiting) = shared.waiting(difficulty).await else {
            return;
        };
        if waiting.len() < 2 {
            return;
        }
        let rules = matcher::Rules {
            size: self.rules.size,
            wait_ms: u64::try_from(self.rules.wait.as_millis()).unwrap_or(u64::MAX),
        };
        let as_ms = |unix_ms: i64| u64::try_from(unix_ms).unwrap_or(0);
        let list: Vec<Waiting> = (0u64..)
            .zip(&waiting)
            .map(|(id, e)| Waiting {
                id,
                rating: e.rating,
                since_ms: as_ms(e.since_unix_ms),
                chain: e.chain,
            })
            .collect();
        let now_ms = as_ms(crate::clock::unix_ms());
        for ids in matcher::form_races(&list, now_ms, &rules) {
            let race: Vec<Shared> = ids
                .iter()
                .filter_map(|&i| waiting.get(usize::try_from(i).ok()?).cloned())
                .collect();
            let taken = shared.take(difficulty, &race).await;
            if taken.len() < 2 {
                continue;
            }
            let (pool, shared) = (self.clone(), shared.clone());
            let tasks = &self.rooms.env().tasks;
            tasks.spawn(async move { pool.open_race(&shared, difficulty, taken).await });
        }
    }

    /// Open `race`'s room here and send each player's node its seat order; a room that cannot
    /// open puts its players back.
    async fn open_race(
        &self,
        shared: &Arc<dyn SharedPool>,
        difficulty: Difficulty,
        race: Vec<Shared>,
    ) {
        let Some(first) = race.first() else { return };
        let settings = self.settings(difficulty);
        match self
            .rooms
            .open_pool(first.addr, settings, race.len(), SEAT_WITHIN)
            .await
        {
            Ok(room) => {
                for e in &race {
                    let order = SeatOrder {
                        conn: e.conn,
                        room: room.code.clone(),
                        difficulty,
                    };
                    shared.seat(&e.node, order);
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot open a pool room: its players wait on");
                shared.add(difficulty, race).await;
            }
        }
    }

    /// A seat order for one of this node's connections: out of the queue (once), then seated.
    fn seat_order(self: &Arc<Pool>, shared: &Arc<dyn SharedPool>, order: SeatOrder) {
        let entry = {
            let mut queues = self.lock();
            let queue = &mut queues[slot(order.difficulty)];
            let at = queue
                .entries
                .iter()
                .position(|e| e.entrant.outbox.id.0 == order.conn);
            at.map(|i| queue.entries.remove(i))
        };
        // Gone already (it left, or another order seated it): nobody to seat.
        let Some(entry) = entry else { return };
        if entry.leaving == Leaving::Gone {
            return entry.ticket.set(Seat::Out);
        }
        let (pool, shared) = (self.clone(), shared.clone());
        let tasks = &self.rooms.env().tasks;
        tasks.spawn(async move { pool.seat_one(&shared, order, entry).await });
    }

    /// Seat `entry` in the order's room, wherever it runs; a room lost before it seated the
    /// player puts it back in the pool.
    async fn seat_one(&self, shared: &Arc<dyn SharedPool>, order: SeatOrder, entry: Entry) {
        let Some(room) = self.rooms.find(&order.room).await else {
            return self.back(shared, order.difficulty, entry).await;
        };
        let generation = entry.entrant.outbox.room_gen();
        let (reply, answer) = oneshot::channel();
        let cmd = entry.join(reply);
        if room.tx.send(cmd).await.is_err() {
            return self.back(shared, order.difficulty, entry).await;
        }
        match answer.await {
            Ok(JoinOutcome::Player(_)) => entry.ticket.set(Seat::Seated { room, generation }),
            // The room told the client why.
            Ok(_) => entry.ticket.set(Seat::Out),
            Err(_) => self.back(shared, order.difficulty, entry).await,
        }
    }

    /// `entry`'s room was lost before it was seated: back in the pool, its wait kept (unless
    /// it was leaving: then it is out, and told so).
    async fn back(&self, shared: &Arc<dyn SharedPool>, difficulty: Difficulty, mut entry: Entry) {
        if entry.leaving != Leaving::No {
            return self.out(entry);
        }
        tracing::info!(
            conn = entry.entrant.outbox.id.0,
            "a pool room was lost before its race: its player waits on"
        );
        entry.missing = None;
        let me = entry.shared(shared.node());
        self.lock()[slot(difficulty)].entries.push(entry);
        shared.add(difficulty, vec![me]).await;
    }

    /// Out of the pool without a seat; one who asked to leave hears `left_queue`.
    fn out(&self, entry: Entry) {
        entry.ticket.set(Seat::Out);
        if entry.leaving == Leaving::Asked {
            let metrics = &self.rooms.env().metrics;
            entry.entrant.outbox.send(&ServerMsg::LeftQueue, metrics);
        }
    }

    /// Tell this node's waiting connections the cluster-wide counts.
    async fn tell_shared(&self, shared: &Arc<dyn SharedPool>) {
        if self.lock().iter().all(|q| q.entries.is_empty()) {
            return;
        }
        let Some(counts) = shared.counts().await else {
            return;
        };
        let now = now();
        let mut queues = self.lock();
        for d in Difficulty::ALL {
            let queue = &mut queues[slot(d)];
            if !queue.entries.is_empty() {
                self.tell(queue, d, counts[slot(d)], now);
            }
        }
    }

    /// Put back in the shared pool this node's connections of `difficulty` missing from it for
    /// [`MISSING_GRACE`] with no seat order; let go of those that were leaving.
    async fn check_shared(&self, shared: &Arc<dyn SharedPool>, difficulty: Difficulty) {
        let conns: Vec<u64> = self.lock()[slot(difficulty)]
            .entries
            .iter()
            .map(|e| e.entrant.outbox.id.0)
            .collect();
        if conns.is_empty() {
            return;
        }
        let Some(present) = shared.present(difficulty, conns.clone()).await else {
            return;
        };
        let now = now();
        let mut back = Vec::new();
        let mut out = Vec::new();
        {
            let mut queues = self.lock();
            let queue = &mut queues[slot(difficulty)];
            for (conn, here) in conns.iter().zip(present) {
                let Some(i) = queue
                    .entries
                    .iter()
                    .position(|e| e.entrant.outbox.id.0 == *conn)
                else {
                    continue;
                };
                let e = &mut queue.entries[i];
                if here {
                    e.missing = None;
                    continue;
                }
                let since = *e.missing.get_or_insert(now);
                if now.duration_since(since) < MISSING_GRACE {
                    continue;
                }
                e.missing = None;
                if e.leaving == Leaving::No {
                    back.push(e.shared(shared.node()));
                } else {
                    out.push(queue.entries.remove(i));
                }
            }
        }
        out.into_iter().for_each(|e| self.out(e));
        if !back.is_empty() {
            tracing::warn!(
                n = back.len(),
                "waiting players lost from the shared pool: put back"
            );
            shared.add(difficulty, back).await;
        }
    }
}
