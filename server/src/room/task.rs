//! The room task: the one owner of a room's [`Room`] state. It receives [`RoomCmd`]s, reads
//! the clocks, drives the state machine's timers, and carries out its effects in order: each
//! broadcast is serialized once and the same bytes are queued to every recipient; a finished
//! race is stored (on a blocking thread) before anything after it is sent. It counts the
//! room's metrics from those effects.
//!
//! [`open`] creates a room in the [`Directory`] and starts its task.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use protocol::{Role, ServerMsg, Settings};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::Instrument;

use super::command::{Answer, Command};
use super::directory::{Directory, OpenError};
use super::endpoint::{self, Endpoint};
use super::handle::{ArenaRace, Identity, JoinOutcome, Link, Requeued, RoomCmd, RoomHandle};
use super::journal::Entry;
use super::listing::{self, Listing};
use super::rules::{Effect, GhostRun, Room, RoomOpts};
use crate::clock::unix_ms;
use crate::metrics::Metrics;
use crate::outbox::{encode, ConnId};
use crate::puzzles::stock::PuzzleStock;
use crate::puzzles::SolvedPuzzle;
use crate::store::Store;

mod adopt;
mod batch;
mod durable;
mod journaling;
mod results;
mod timer;

pub use adopt::adopt;
pub use durable::room_moving;
use journaling::Journal;
use results::keep_report;
use timer::Timer;

/// Everything a room task needs from the server.
#[derive(Debug)]
pub struct RoomEnv {
    /// Where rooms and tokens are registered.
    pub directory: Arc<Directory>,
    /// Puzzles.
    pub puzzles: Arc<PuzzleStock>,
    /// Race results.
    pub store: Arc<dyn Store>,
    /// Results waiting for the store to come back.
    pub backlog: Arc<super::backlog::Backlog>,
    /// The daily challenge's puzzles and attempts.
    pub daily: Arc<crate::puzzles::daily::Daily>,
    /// Counters.
    pub metrics: Arc<Metrics>,
    /// Timers every room gets.
    pub opts: RoomOpts,
    /// Cancelled when the server begins to shut down.
    pub shutdown: CancellationToken,
    /// Cancelled when the server begins to drain (A9): no new rooms, pool entries or races.
    pub draining: CancellationToken,
    /// Every room task and puzzle wait, so shutdown can wait for them.
    pub tasks: TaskTracker,
    /// Arena rooms' finished races, for the arenas to score (A7).
    pub arena_races: tokio::sync::broadcast::Sender<ArenaRace>,
}

/// The monotonic clock: read here, never by the rules.
#[allow(clippy::disallowed_methods)] // the room task is where a room's clock is read
fn now() -> Instant {
    Instant::now()
}

/// A room about to open: who creates it, from where, and how.
pub struct NewRoom {
    /// The creator's address (its rooms-per-address count, and a kick bars it).
    pub ip: IpAddr,
    /// The room's settings.
    pub settings: Settings,
    /// The creator, its host.
    pub creator: Endpoint,
    /// The creator's name.
    pub name: String,
    /// The identity behind the creator.
    pub who: Identity,
    /// The daily challenge's date and puzzle, for a daily room.
    pub daily: Option<(String, SolvedPuzzle)>,
    /// The ghost a ghost room races (A7), there from the creator's `room_joined` on.
    pub ghost: Option<Box<GhostRun>>,
}

/// Open `new` under `code` (a cluster claims its codes first), or a fresh code when `None`,
/// and start its task; answers whether the creator got in.
pub fn open(
    env: &Arc<RoomEnv>,
    code: Option<protocol::RoomCode>,
    new: NewRoom,
) -> Result<(RoomHandle, oneshot::Receiver<JoinOutcome>), OpenError> {
    let NewRoom {
        ip,
        settings,
        creator,
        name,
        who,
        daily,
        ghost,
    } = new;
    let (reply, answer) = oneshot::channel();
    let first = RoomCmd::join(creator, ip, Some(name), Role::Player, who, reply);
    let handle = start(env, code, ip, settings, first, daily, ghost)?;
    Ok((handle, answer))
}

/// Open a pool room of a cluster-wide pool (A7) under `code` (claimed already), with no seat
/// yet: the `seats` players the pool formed it for join from their own nodes, and it starts
/// by itself once they are seated, or `within` from now with whoever is.
pub fn open_pool(
    env: &Arc<RoomEnv>,
    code: protocol::RoomCode,
    ip: IpAddr,
    settings: Settings,
    seats: usize,
    within: std::time::Duration,
) -> Result<RoomHandle, OpenError> {
    let first = RoomCmd::PoolExpect {
        seats,
        by: now() + within,
    };
    start(env, Some(code), ip, settings, first, None, None)
}

/// Register a room whose first command is `first`, and start its task.
fn start(
    env: &Arc<RoomEnv>,
    code: Option<protocol::RoomCode>,
    ip: IpAddr,
    settings: Settings,
    first: RoomCmd,
    daily: Option<(String, SolvedPuzzle)>,
    ghost: Option<Box<GhostRun>>,
) -> Result<RoomHandle, OpenError> {
    let opened = env.directory.open(ip, &settings, first, code)?;
    env.metrics.rooms.inc();
    let handle = opened.handle;
    let code = handle.code.clone();
    // Logged when the room opens: the room's race ids and race seeds replay from it.
    let seed: u64 = rand::rngs::OsRng.gen();
    // A ghost room is not logged: its ghost's stored race is not in the log.
    let journal = (env.directory.journals() && ghost.is_none())
        .then(|| Journal::new(env.directory.clone(), code.clone(), now()));
    let mint = Journal::mint(journal.as_ref(), env.directory.clone(), code.clone());
    if let Some(journal) = &journal {
        let open = Entry::Open {
            code: code.clone(),
            settings: settings.clone(),
            seed,
            unix_ms: unix_ms(),
            ip,
            daily: daily
                .as_ref()
                .map(|(date, p)| (date.clone(), p.puzzle.to_line(), p.solution.to_line())),
        };
        journal.log(journal.epoch(), open);
    }
    let room = Room::new(
        code.clone(),
        settings,
        env.opts.clone(),
        Xoshiro256PlusPlus::seed_from_u64(seed),
        mint,
    );
    let mut room = room;
    if let Some((date, puzzle)) = daily {
        room.make_daily(date, puzzle);
    }
    if let Some(run) = ghost {
        room.race_ghost(*run);
    }
    let span = tracing::info_span!("room", room = %code);
    let task = Task::new(env, room, &handle, ip, journal);
    env.tasks.spawn(run(task, opened.rx, seed).instrument(span));
    Ok(handle)
}

/// Who waits for a member's command's answer.
enum Waiting {
    Nobody,
    Enter(oneshot::Sender<JoinOutcome>),
    Leave(oneshot::Sender<bool>),
    Requeue(oneshot::Sender<Option<Requeued>>),
}

/// An answer, sent once the command's effects are queued.
enum Reply {
    Join(oneshot::Sender<JoinOutcome>, JoinOutcome),
    Leave(oneshot::Sender<bool>, bool),
    Requeue(oneshot::Sender<Option<Requeued>>, Option<Requeued>),
}

struct Task {
    env: Arc<RoomEnv>,
    room: Room,
    conns: HashMap<ConnId, Endpoint>,
    /// A weak sender to the room itself (for puzzles that arrive later): the room must still
    /// close once no connection holds it.
    tx: mpsc::WeakSender<RoomCmd>,
    /// The summary `list_rooms` shows.
    listing: Listing,
    /// Answers to send once the command's effects are queued, so that the connection's own
    /// later output (a pong, an error) never overtakes them.
    replies: Vec<Reply>,
    /// Connections that failed to join: forgotten once their error is queued.
    forget: Vec<ConnId>,
    /// The address that created the room (its rooms-per-address count).
    ip: IpAddr,
    /// Whether the room is out of the directory already.
    unregistered: bool,
    /// A cluster-wide pool room still waiting for its seats: how many, and until when.
    expect: Option<(usize, Instant)>,
    /// The room's command log (A9), when it keeps one.
    journal: Option<Journal>,
    /// Why this server stopped running the room, if it did: its log could not keep what the
    /// room would have sent (another server holds it now).
    abandoned: Option<super::directory::LogError>,
    /// Commands that came while the room was frozen and must still be carried out (a
    /// dropped connection, the room's own), in order.
    deferred: Vec<RoomCmd>,
}

async fn run(mut t: Task, mut rx: mpsc::Receiver<RoomCmd>, seed: u64) {
    tracing::info!(settings = ?t.room.settings(), seed, "room opened");
    let shutdown = t.env.shutdown.clone();
    let draining = t.env.draining.clone();
    // The waits are made once and the timers moved only when their deadline changes: made
    // anew for every command, each registered in the timer wheel and in the tokens' waiter
    // lists (locks shared by every room) on every placement.
    let (on_shutdown, on_drain) = (shutdown.cancelled(), draining.cancelled());
    let (mut tick, mut expect) = (Timer::default(), Timer::default());
    tokio::pin!(on_shutdown, on_drain);
    loop {
        for cmd in std::mem::take(&mut t.deferred) {
            t.command(cmd);
            t.apply(&mut rx).await;
        }
        tick.set(t.room.next_deadline());
        expect.set(t.expect.map(|(_, by)| by));
        tokio::select! {
            biased;
            cmd = rx.recv() => match cmd {
                Some(cmd) => {
                    t.command(cmd);
                    batch::more(&mut t, &mut rx);
                }
                None => break,
            },
            () = tick.wait() => t.tick(),
            () = expect.wait() => t.expected(now()),
            () = &mut on_shutdown => {
                t.room.shutdown(now());
                t.apply(&mut rx).await;
                break;
            }
            () = &mut on_drain, if !t.room.draining() => t.room.drain(),
        }
        t.apply(&mut rx).await;
        if t.room.is_closed() || t.abandoned.is_some() {
            break;
        }
        if let Some(now_info) = t.listing.changed(&t.room) {
            // A shared directory lists the room on every node: it hears of changes only.
            t.env.directory.changed(t.room.code(), &now_info);
        }
        if t.room.is_empty() && t.expect.is_none() {
            break;
        }
    }
    if let Some(why) = t.abandoned {
        t.abandon(why, &mut rx);
    } else {
        t.unregister();
    }
    // Commands still queued are dropped with the receiver: a pending join's reply channel
    // closes, and its connection answers `unknown_room`.
    rx.close();
    tracing::info!("room closed");
}

impl Task {
    /// A room's task, before its first connection; `journal` in a cluster (its log).
    fn new(
        env: &Arc<RoomEnv>,
        room: Room,
        handle: &RoomHandle,
        ip: IpAddr,
        journal: Option<Journal>,
    ) -> Task {
        Task {
            env: env.clone(),
            room,
            conns: HashMap::new(),
            tx: handle.tx.downgrade(),
            listing: Listing::new(handle.info.clone()),
            replies: Vec::new(),
            forget: Vec::new(),
            ip,
            unregistered: false,
            expect: None,
            journal,
            abandoned: None,
            deferred: Vec::new(),
        }
    }

    /// A timer fired.
    /// Log `entry` as given to the rules at `now`, if the room keeps a log.
    fn log(&self, now: Instant, entry: Entry) {
        if let Some(j) = &self.journal {
            j.log(now, entry);
        }
    }

    fn tick(&mut self) {
        let (now, unix_ms) = (now(), unix_ms());
        self.room.tick(now, unix_ms);
        self.log(now, Entry::Tick { unix_ms });
    }

    fn command(&mut self, cmd: RoomCmd) {
        let now = now();
        match cmd {
            RoomCmd::Member { conn, cmd, link } => self.member(conn, cmd, link, now),
            RoomCmd::PoolStart => self.room.start_pool_race(now),
            RoomCmd::PoolExpect { seats, by } => self.expect = Some((seats, by)),
            RoomCmd::Ratings { race_id, ratings } => {
                let to: Vec<ConnId> = self.conns.keys().copied().collect();
                self.deliver(&to, &ServerMsg::Ratings { race_id, ratings });
            }
            RoomCmd::PuzzleReady { race_id, dealt } => self.puzzle_ready(&race_id, dealt, now),
        }
    }

    /// Member `conn`'s command: logged, handed to the rules, and answered once its effects
    /// are queued.
    fn member(&mut self, conn: ConnId, cmd: Command, link: Link, now: Instant) {
        let journal = self.journal.as_ref();
        let mut entry = journal.and_then(|_| journaling::entry(conn, &cmd, &link));
        let joining = matches!(cmd, Command::Join { .. });
        if let (Some(j), false) = (journal, joining) {
            // A join is logged once it is in: with the token it was minted.
            j.log_entry(now, entry.take());
        }
        let dropped = matches!(cmd, Command::Dropped);
        let waiting = match link {
            Link::None => Waiting::Nobody,
            Link::Enter(endpoint, reply) => {
                self.conns.insert(conn, endpoint);
                Waiting::Enter(reply)
            }
            Link::Leave(reply) => Waiting::Leave(reply),
            Link::Requeue(reply) => Waiting::Requeue(reply),
        };
        let answer = cmd.apply(&mut self.room, conn, now);
        if dropped {
            self.conns.remove(&conn);
        }
        match (waiting, answer) {
            (Waiting::Enter(reply), Answer::Entered(ok)) => self.joined(conn, ok, reply),
            (Waiting::Leave(reply), Answer::Left(ok)) => self.replies.push(Reply::Leave(reply, ok)),
            (Waiting::Requeue(reply), Answer::Requeued(left)) => {
                self.replies.push(Reply::Requeue(reply, left));
            }
            // A command without a waiter, or a waiter whose command answers otherwise (only
            // a broken caller pairs them so): its channel closes unanswered.
            _ => {}
        }
        if let (Some(j), true) = (&self.journal, joining) {
            j.log_entry(now, entry);
        }
        if joining {
            self.expected(now);
        }
    }

    /// A pool room waiting for its seats starts once they are all taken, or at its deadline
    /// with whoever is seated (none: it closes).
    fn expected(&mut self, now: Instant) {
        let Some((seats, by)) = self.expect else {
            return;
        };
        if self.room.n_players() >= seats || now >= by {
            self.expect = None;
            self.log(now, Entry::PoolStart);
            self.room.start_pool_race(now);
        }
    }

    fn joined(&mut self, id: ConnId, ok: bool, reply: oneshot::Sender<JoinOutcome>) {
        let answer = if ok {
            match self.room.player_id_of(id) {
                Some(p) => JoinOutcome::Player(p.clone()),
                None => JoinOutcome::Spectator,
            }
        } else {
            self.forget.push(id);
            JoinOutcome::Refused
        };
        self.replies.push(Reply::Join(reply, answer));
    }

    fn deliver(&self, to: &[ConnId], msg: &ServerMsg) {
        if to.is_empty() {
            return;
        }
        let bytes = encode(msg);
        let members = to.iter().filter_map(|id| self.conns.get(id));
        endpoint::deliver(members, &bytes, &self.env.metrics);
    }

    /// Take the room out of the directory: nobody can find it any more, and it no longer
    /// counts against the server's or its creator's room limits.
    fn unregister(&mut self) {
        if std::mem::replace(&mut self.unregistered, true) {
            return;
        }
        // Every seat is gone by now, and each seat's token was revoked as it went.
        self.env.directory.close(self.room.code(), self.ip);
        self.env.metrics.rooms.dec();
    }

    /// Carry out the state machine's effects, in order.
    async fn apply(&mut self, rx: &mut mpsc::Receiver<RoomCmd>) {
        if self.room.is_empty() && self.expect.is_none() {
            // Before anyone hears of it (`player_left`, the leave's answer): a client that
            // reacts by creating a room must find the limits already freed.
            self.unregister();
        }
        loop {
            let effects = self.room.take_effects();
            if effects.is_empty() {
                break;
            }
            self.apply_batch(effects, rx).await;
        }
        for id in self.forget.drain(..) {
            if !self.room.has_conn(id) {
                self.conns.remove(&id);
            }
        }
        for reply in self.replies.drain(..) {
            match reply {
                Reply::Join(tx, answer) => {
                    let _ = tx.send(answer);
                }
                Reply::Leave(tx, ok) => {
                    let _ = tx.send(ok);
                }
                Reply::Requeue(tx, left) => {
                    let _ = tx.send(left);
                }
            }
        }
    }

    async fn apply_batch(&mut self, effects: Vec<Effect>, rx: &mut mpsc::Receiver<RoomCmd>) {
        // Nothing goes out that the log does not keep yet: a client is never told of a
        // command a replay would not have (write-ahead, for takeovers and crashes alike).
        if !self.settled(rx).await {
            return;
        }
        let metrics = self.env.metrics.clone();
        // The rating changes the store computed, for the `race_over` that follows it.
        let mut ratings: Option<Vec<protocol::RatingChange>> = None;
        // An arena race, told to the arenas once its `race_over` is queued (their standings
        // follow it).
        let mut arena = None;
        for fx in effects {
            match fx {
                Effect::Send(to, mut msg) => {
                    // Only `race_over` takes them: a message sent between the store and it keeps
                    // them waiting.
                    if let ServerMsg::RaceOver { ratings: slot, .. } = &mut msg {
                        if let Some(r) = ratings.take() {
                            *slot = r;
                        }
                    }
                    self.deliver(&to, &msg);
                }
                Effect::Detach(id) => {
                    if let Some(c) = self.conns.remove(&id) {
                        c.detach();
                    }
                }
                Effect::Close(id, code) => {
                    if let Some(c) = self.conns.remove(&id) {
                        c.close(code);
                    }
                }
                Effect::TokenRevoked(token) => self.env.directory.revoke_token(&token),
                Effect::RaceStarted => {
                    metrics.races_started.inc();
                    let info = self.listing.info();
                    listing::rate_race(&self.env.store, &self.env.tasks, info, &self.room);
                }
                Effect::Placed(reason) => metrics.placement(reason),
                Effect::Probe(to) => {
                    for c in to.iter().filter_map(|id| self.conns.get(id)) {
                        c.probe();
                    }
                }
                Effect::NeedPuzzle { race_id, seed } => self.need_puzzle(race_id, seed),
                Effect::Report(report) => keep_report(self.env.store.clone(), *report).await,
                Effect::Store(record) => {
                    arena = self.arena_race(&record);
                    if let Some(changes) = results::store(&self.env, record).await {
                        ratings = Some(changes);
                    }
                }
            }
        }
        if let Some(race) = arena {
            // Nobody listening (no arenas configured) is no error.
            let _ = self.env.arena_races.send(race);
        }
    }

    /// The puzzle for `race_id` is dealt (logged before the rules see it).
    fn puzzle_ready(&mut self, race_id: &protocol::RaceId, dealt: SolvedPuzzle, now: Instant) {
        let unix_ms = unix_ms();
        if let Some(j) = &self.journal {
            j.log_puzzle(now, race_id, &dealt, unix_ms);
        }
        self.room.puzzle_ready(race_id, dealt, now, unix_ms);
    }

    /// What the arenas hear of an arena room's finished race.
    fn arena_race(&self, record: &crate::store::RaceRecord) -> Option<ArenaRace> {
        let arena_id = self.room.settings().arena.clone()?;
        let finishes = record
            .standings
            .iter()
            .map(|s| {
                let seat = record
                    .seats
                    .iter()
                    .find(|seat| seat.player_id == s.player_id.as_str());
                let handle = seat.and_then(|seat| seat.handle.clone());
                (handle, s.rank, s.status == protocol::FinishStatus::Solved)
            })
            .collect();
        Some(ArenaRace { arena_id, finishes })
    }

    /// Take a puzzle from the stock now if one is ready, else have one delivered later; either
    /// way it is dealt under the transform the race's `seed` draws.
    fn need_puzzle(&mut self, race_id: protocol::RaceId, seed: u64) {
        // The daily is the same grid for everyone that day, and a ghost race replays its race's
        // grid: both are dealt as they are, untransformed.
        if let Some(day) = self.room.fixed_puzzle() {
            self.puzzle_ready(&race_id, day, now());
            return;
        }
        let (variant, difficulty) = (
            self.room.settings().variant,
            self.room.settings().difficulty,
        );
        if let Some(base) = self.env.puzzles.try_take(variant, difficulty) {
            // Its effects (race_started, when the countdown is zero) are applied by `apply`'s loop.
            self.puzzle_ready(&race_id, base.transformed(seed), now());
            return;
        }
        let stock = self.env.puzzles.clone();
        let tx = self.tx.clone();
        let shutdown = self.env.shutdown.clone();
        self.env.tasks.spawn(async move {
            tokio::select! {
                base = stock.take(variant, difficulty) => {
                    let dealt = base.transformed(seed);
                    if let Some(tx) = tx.upgrade() {
                        let _ = tx.send(RoomCmd::PuzzleReady { race_id, dealt }).await;
                    }
                }
                () = shutdown.cancelled() => {}
            }
        });
    }
}
