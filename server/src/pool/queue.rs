//! The pool on this node (A7): per difficulty, the players waiting for a race. A tick runs the
//! [`matcher`](super::matcher) over each difficulty's waiting players, tells them how many wait
//! when that changed, offers a ghost to one waiting alone too long, and seats every race formed
//! in a new pool room: the first player opens it, the others join it, then the pool starts it.
//!
//! A connection in the pool holds a [`Ticket`]; once the pool has seated it, the ticket holds
//! the room, and the connection's session takes it from there.
//!
//! In a cluster the pool is given a [`SharedPool`]: each difficulty's pool is then one across
//! every node, and the tick is [`across`]'s instead (the same matcher, run by the node that
//! holds the pool's lease, over every node's waiting players).

mod across;

use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use engine::Difficulty;
use protocol::{Role, ServerMsg, Settings};
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::matcher::{self, Waiting};
use super::shared::{Shared, SharedPool};
use crate::config::PoolRules;
use crate::outbox::{encode, ConnId, Outbox};
use crate::puzzles::slot;
use crate::room::endpoint::Endpoint;
use crate::room::handle::{Identity, JoinOutcome, RoomCmd, RoomHandle};
use crate::room::rooms::Rooms;
use crate::room::task::NewRoom;

/// How often the pool looks for races to form.
const TICK: Duration = Duration::from_millis(100);

/// Where a queued connection stands.
#[derive(Clone, Debug)]
pub enum Seat {
    /// Still waiting (or being seated).
    Waiting,
    /// Seated in this room; `generation` is the connection's room generation at the join.
    Seated {
        /// The pool room.
        room: RoomHandle,
        /// The outbox's room generation when the pool sent the join.
        generation: u64,
    },
    /// Out of the pool without a seat (it left, or its room could not open).
    Out,
}

/// A connection's place in the pool, shared by the pool and the connection's session.
#[derive(Debug)]
pub struct Ticket {
    /// The pool it waits in.
    pub difficulty: Difficulty,
    seat: Mutex<Seat>,
}

impl Ticket {
    /// Where the connection stands now.
    pub fn seat(&self) -> Seat {
        self.seat.lock().expect("ticket lock poisoned").clone()
    }

    fn set(&self, seat: Seat) {
        *self.seat.lock().expect("ticket lock poisoned") = seat;
    }
}

/// A player entering the pool.
#[derive(Debug)]
pub struct Entrant {
    /// The connection.
    pub outbox: Outbox,
    /// Its address.
    pub addr: IpAddr,
    /// Its display name (checked by the room when seated).
    pub name: String,
    /// The identity behind it.
    pub who: Identity,
    /// Its conservative rating at the difficulty (identified humans), else `None`.
    pub rating: Option<f64>,
    /// The stored race `pool_alone` offers it as a ghost (A7), if any.
    pub ghost: Option<String>,
    /// A rematch chain it requeued with (A7), if any.
    pub chain: Option<u64>,
}

#[derive(Debug)]
struct Entry {
    entrant: Entrant,
    ticket: Arc<Ticket>,
    since: Instant,
    /// When the wait began on the wall clock (a cluster's nodes compare waits by it).
    since_unix_ms: i64,
    alone_told: bool,
    /// The `waiting` count this entry was last told.
    told: usize,
    /// In a cluster: since when the shared pool has been found without this entry.
    missing: Option<Instant>,
    /// In a cluster: it asked to leave (or its connection dropped) after a race took it.
    leaving: Leaving,
}

/// An entry that a race took as it was leaving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leaving {
    /// Still waiting.
    No,
    /// `leave_queue` came too late: it is seated when its order comes (it was told so).
    Asked,
    /// Its connection is gone: nobody is seated for it.
    Gone,
}

impl Entry {
    /// The room command that seats this connection as a player.
    fn join(&self, reply: oneshot::Sender<JoinOutcome>) -> RoomCmd {
        RoomCmd::join(
            Endpoint::Local(self.entrant.outbox.clone()),
            self.entrant.addr,
            Some(self.entrant.name.clone()),
            Role::Player,
            self.entrant.who.clone(),
            reply,
        )
    }
}

#[derive(Debug, Default)]
struct Queue {
    entries: Vec<Entry>,
}

/// The pools of every difficulty on this node.
#[derive(Debug)]
pub struct Pool {
    rules: PoolRules,
    /// An arena's pool (A7): its rooms' `settings.arena`.
    arena: Option<String>,
    rooms: Rooms,
    /// In a cluster: the pools every node shares.
    shared: Option<Arc<dyn SharedPool>>,
    born: Instant,
    queues: Mutex<[Queue; 4]>,
    /// Woken when a pool reaches its size, so a full race forms without waiting for the tick.
    full: tokio::sync::Notify,
}

impl Pool {
    /// An empty pool that seats its races in rooms opened through `rooms`; in a cluster, one
    /// pool per difficulty across every node, kept in `shared`.
    #[allow(clippy::disallowed_methods)] // the pool's clock: waits are measured from here
    pub fn new(rules: PoolRules, rooms: Rooms, shared: Option<Arc<dyn SharedPool>>) -> Arc<Pool> {
        Arc::new(Pool {
            rules,
            arena: None,
            rooms,
            shared,
            born: Instant::now(),
            queues: Mutex::new(Default::default()),
            full: tokio::sync::Notify::new(),
        })
    }

    /// The pool of one arena's members (A7): its rooms carry the arena's id.
    #[allow(clippy::disallowed_methods)] // the pool's clock: waits are measured from here
    pub fn for_arena(rules: PoolRules, rooms: Rooms, arena_id: String) -> Arc<Pool> {
        Arc::new(Pool {
            rules,
            arena: Some(arena_id),
            rooms,
            // An arena's members are pooled on their own node (the arena runs there).
            shared: None,
            born: Instant::now(),
            queues: Mutex::new(Default::default()),
            full: tokio::sync::Notify::new(),
        })
    }

    /// Everyone out (an arena is over): each waiting connection is told `left_queue`.
    pub fn close(&self) {
        let metrics = &self.rooms.env().metrics;
        for queue in self.lock().iter_mut() {
            for e in queue.entries.drain(..) {
                e.ticket.set(Seat::Out);
                e.entrant.outbox.send(&ServerMsg::LeftQueue, metrics);
            }
        }
    }

    /// The server drains (A9): everyone waiting here is told `server_draining` and let go, to
    /// queue again on a node that stays.
    fn turn_away(&self) {
        let metrics = &self.rooms.env().metrics;
        let msg = ServerMsg::Error {
            code: protocol::ErrorCode::ServerDraining,
            message: "the server is restarting for an update".to_owned(),
            retry_ms: None,
        };
        for queue in self.lock().iter_mut() {
            for e in queue.entries.drain(..) {
                e.ticket.set(Seat::Out);
                e.entrant.outbox.send(&msg, metrics);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, [Queue; 4]> {
        self.queues.lock().expect("pool lock poisoned")
    }

    /// Put `entrant` in the pool of `difficulty`; it is told `queued` at once (in a cluster,
    /// once the shared pool has it, with the count of every node's).
    pub async fn enqueue(&self, difficulty: Difficulty, entrant: Entrant) -> Arc<Ticket> {
        match &self.shared {
            Some(shared) => self.enqueue_shared(shared, difficulty, entrant).await,
            None => self.enqueue_here(difficulty, entrant),
        }
    }

    #[allow(clippy::disallowed_methods)] // the pool's clock: when this wait began
    fn enqueue_here(&self, difficulty: Difficulty, entrant: Entrant) -> Arc<Ticket> {
        let ticket = Arc::new(Ticket {
            difficulty,
            seat: Mutex::new(Seat::Waiting),
        });
        let mut queues = self.lock();
        let queue = &mut queues[slot(difficulty)];
        let waiting = queue.entries.len() + 1;
        let metrics = &self.rooms.env().metrics;
        entrant.outbox.send(
            &ServerMsg::Queued {
                difficulty,
                waiting: u32::try_from(waiting).unwrap_or(u32::MAX),
            },
            metrics,
        );
        queue
            .entries
            .push(Entry::new(entrant, ticket.clone(), waiting));
        if queue.entries.len() >= self.rules.size {
            self.full.notify_one();
        }
        ticket
    }

    /// Take `conn` out of the pool, wherever it is kept; whether it was waiting there (`false`:
    /// a race has just taken it). `gone`: its connection dropped, so a race that took it seats
    /// nobody for it.
    pub async fn quit(&self, difficulty: Difficulty, conn: ConnId, gone: bool) -> bool {
        match &self.shared {
            Some(shared) => self.leave_shared(shared, difficulty, conn, gone).await,
            None => self.leave(difficulty, conn),
        }
    }

    /// Take `conn` out of this node's queue; whether it was waiting there (a pool kept on
    /// this node alone: one node's, or an arena's).
    pub fn leave(&self, difficulty: Difficulty, conn: ConnId) -> bool {
        let mut queues = self.lock();
        let queue = &mut queues[slot(difficulty)];
        let Some(i) = queue
            .entries
            .iter()
            .position(|e| e.entrant.outbox.id == conn)
        else {
            return false;
        };
        let entry = queue.entries.remove(i);
        entry.ticket.set(Seat::Out);
        true
    }

    /// Form races until `shutdown`, or until the server drains (A9): then the waiting are
    /// turned away and no race forms here.
    pub async fn run(self: Arc<Pool>, shutdown: tokio_util::sync::CancellationToken) {
        if let Some(shared) = self.shared.clone() {
            return self.run_shared(shared, shutdown).await;
        }
        let draining = self.rooms.env().draining.clone();
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                () = draining.cancelled() => return self.turn_away(),
                _ = tick.tick() => {}
                _ = self.full.notified() => {}
            }
            for d in Difficulty::ALL {
                for race in self.form(d) {
                    let pool = self.clone();
                    let tasks = &self.rooms.env().tasks;
                    tasks.spawn(async move { pool.seat_race(d, race).await });
                }
            }
        }
    }

    /// One tick of one difficulty: the races formed (taken out of the queue), with the waiting
    /// told their new count and the lonely offered a ghost.
    #[allow(clippy::disallowed_methods)] // the pool's clock: the matcher takes the time as an argument
    fn form(&self, difficulty: Difficulty) -> Vec<Vec<Entry>> {
        let now = Instant::now();
        let now_ms = self.ms(now);
        let rules = matcher::Rules {
            size: self.rules.size,
            wait_ms: u64::try_from(self.rules.wait.as_millis()).unwrap_or(u64::MAX),
        };
        let mut queues = self.lock();
        let queue = &mut queues[slot(difficulty)];
        if queue.entries.is_empty() {
            return Vec::new();
        }
        let waiting: Vec<Waiting> = queue
            .entries
            .iter()
            .map(|e| Waiting {
                id: e.entrant.outbox.id.0,
                rating: e.entrant.rating,
                since_ms: self.ms(e.since),
                chain: e.entrant.chain,
            })
            .collect();
        let races = take(
            &mut queue.entries,
            matcher::form_races(&waiting, now_ms, &rules),
        );
        let n = queue.entries.len();
        self.tell(queue, difficulty, n, now);
        races
    }

    /// Tell the waiting of a changed count `n`, and anyone alone past the alone time of that.
    fn tell(&self, queue: &mut Queue, difficulty: Difficulty, n: usize, now: Instant) {
        let metrics = &self.rooms.env().metrics;
        // Serialized once for everyone it goes to, as a room's broadcasts are.
        let msg = encode(&ServerMsg::Queued {
            difficulty,
            waiting: u32::try_from(n).unwrap_or(u32::MAX),
        });
        for e in &mut queue.entries {
            // 0: a cluster's entry whose `enqueue` has yet to answer (with the count it gives).
            if e.told != n && e.told != 0 {
                e.told = n;
                e.entrant.outbox.send_text(msg.clone(), metrics);
            }
        }
        for e in &mut queue.entries {
            if !e.alone_told && now.duration_since(e.since) >= self.rules.alone {
                e.alone_told = true;
                // The ghost offer: the player's own best, else today's daily winner, found as
                // it queued (on its own node in a cluster, so a cluster's pool offers it too).
                let ghost = e.entrant.ghost.clone();
                e.entrant
                    .outbox
                    .send(&ServerMsg::PoolAlone { ghost }, metrics);
            }
        }
    }

    fn ms(&self, at: Instant) -> u64 {
        u64::try_from(at.duration_since(self.born).as_millis()).unwrap_or(u64::MAX)
    }

    /// A pool room's settings: the difficulty's defaults, unlisted, rated when it can be.
    fn settings(&self, difficulty: Difficulty) -> Settings {
        Settings {
            difficulty,
            max_players: u8::try_from(self.rules.size.clamp(2, 16)).unwrap_or(16),
            public: false,
            rated: true,
            // A8: every seat its own isomorph (the rules force it too).
            isomorphs: true,
            pool: true,
            arena: self.arena.clone(),
            ..Settings::default()
        }
    }

    /// Open a pool room for `race` (its first player opens it), seat the rest, and start it.
    async fn seat_race(&self, difficulty: Difficulty, race: Vec<Entry>) {
        let settings = self.settings(difficulty);
        let mut entries = race.into_iter();
        let Some(first) = entries.next() else { return };
        let generation = first.entrant.outbox.room_gen();
        let new = NewRoom {
            ip: first.entrant.addr,
            settings,
            creator: Endpoint::Local(first.entrant.outbox.clone()),
            name: first.entrant.name.clone(),
            who: first.entrant.who.clone(),
            daily: None,
            ghost: None,
        };
        let room = match self.rooms.open(new).await {
            Ok((room, answer)) => {
                settle(&first, &room, generation, answer).await;
                room
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot open a pool room");
                let msg = ServerMsg::Error {
                    code: e.code(),
                    message: e.to_string(),
                    retry_ms: None,
                };
                for entry in std::iter::once(first).chain(entries) {
                    entry.entrant.outbox.send(&msg, &self.rooms.env().metrics);
                    entry.ticket.set(Seat::Out);
                }
                return;
            }
        };
        for entry in entries {
            let generation = entry.entrant.outbox.room_gen();
            let (reply, answer) = oneshot::channel();
            let cmd = entry.join(reply);
            if room.tx.send(cmd).await.is_err() {
                entry.ticket.set(Seat::Out);
                continue;
            }
            settle(&entry, &room, generation, answer).await;
        }
        let _ = room.tx.send(RoomCmd::PoolStart).await;
    }
}

impl Entry {
    #[allow(clippy::disallowed_methods)] // the pool's clock: when this wait began
    fn new(entrant: Entrant, ticket: Arc<Ticket>, told: usize) -> Entry {
        Entry {
            entrant,
            ticket,
            since: Instant::now(),
            since_unix_ms: crate::clock::unix_ms(),
            alone_told: false,
            told,
            missing: None,
            leaving: Leaving::No,
        }
    }

    /// This entry as every node sees it, from node `node`.
    fn shared(&self, node: &str) -> Shared {
        let e = &self.entrant;
        Shared {
            node: node.to_owned(),
            conn: e.outbox.id.0,
            name: e.name.clone(),
            who: e.who.clone(),
            addr: e.addr,
            rating: e.rating,
            since_unix_ms: self.since_unix_ms,
            chain: e.chain,
        }
    }
}

/// Record where the room's answer to `entry`'s join left it.
async fn settle(
    entry: &Entry,
    room: &RoomHandle,
    generation: u64,
    answer: oneshot::Receiver<JoinOutcome>,
) {
    match answer.await {
        Ok(JoinOutcome::Player(_)) => entry.ticket.set(Seat::Seated {
            room: room.clone(),
            generation,
        }),
        // The room told the client why (a name already taken in this room, say).
        _ => entry.ticket.set(Seat::Out),
    }
}

/// The entries of each race of `races` (lists of ids), taken out of `entries`, in order.
fn take(entries: &mut Vec<Entry>, races: Vec<Vec<u64>>) -> Vec<Vec<Entry>> {
    if races.is_empty() {
        return Vec::new();
    }
    let wanted: std::collections::HashSet<u64> = races.iter().flatten().copied().collect();
    let mut taken: std::collections::HashMap<u64, Entry> = std::collections::HashMap::new();
    let mut kept = Vec::with_capacity(entries.len());
    for e in entries.drain(..) {
        if wanted.contains(&e.entrant.outbox.id.0) {
            taken.insert(e.entrant.outbox.id.0, e);
        } else {
            kept.push(e);
        }
    }
    *entries = kept;
    races
        .into_iter()
        .map(|ids| {
            ids.iter()
                .filter_map(|id| taken.remove(id))
                .collect::<Vec<_>>()
        })
        .filter(|race| !race.is_empty())
        .collect()
}
