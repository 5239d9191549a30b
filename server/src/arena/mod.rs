//! Arenas (A7): scheduled windows in which members race each other back to back, scored by
//! points with a streak bonus. [`schedule`] says when each configured series runs, [`points`]
//! how a race scores; this module is the state around them on this node: each arena's members
//! and standings, the pool its members wait in between races (a [`Pool`] whose rooms carry
//! `settings.arena`), and the task that opens and closes arenas on time and scores each arena
//! room's race as the room layer reports it ([`ArenaRace`]).
//!
//! An arena exists from when it is the next of its series until it is one of the last
//! [`KEEP`] finished. Its standings are written to the store after each of its races and when
//! it ends, and read back at start, so a restart keeps them (a running arena's members come
//! back by `join_arena`, their points kept).

pub mod points;
pub mod schedule;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use protocol::{ArenaInfo, ArenaStanding, ArenaState, ErrorCode, PlayerName, ServerMsg};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::clock::unix_ms;
pub use crate::config::ArenaSpec;
use crate::config::PoolRules;
use crate::outbox::{encode, ConnId, Outbox};
use crate::pool::queue::Pool;
use crate::room::handle::ArenaRace;
use crate::room::rooms::Rooms;
use crate::store::ArenaRecord;
use points::{Finish, Member};

/// Finished arenas kept for `/api/arenas/ID`.
pub const KEEP: usize = 64;

/// How often arenas are opened and closed.
const TICK: Duration = Duration::from_millis(200);

/// How an arena's pool seats its members: all who wait, up to a full room, a few seconds
/// after the second of them is back (so those who finish together race together again), or
/// the open pool's wait if that is shorter.
fn arena_rules(pool: &PoolRules) -> PoolRules {
    PoolRules {
        size: 16,
        wait: pool.wait.min(Duration::from_secs(3)),
        // Members wait for each other; nobody is offered a ghost.
        alone: Duration::from_secs(86_400 * 365),
    }
}

/// A refusal: the contract's code and a message.
pub type Refused = (ErrorCode, String);

#[derive(Debug)]
struct Arena {
    id: String,
    name: String,
    difficulty: engine::Difficulty,
    starts: i64,
    ends: i64,
    members: Vec<Member>,
    /// The connection of each member who is in the arena now (left ones keep their row).
    present: Vec<(String, Outbox)>,
    pool: Arc<Pool>,
    /// Set while its pool forms races.
    running: Option<CancellationToken>,
    over: bool,
}

impl Arena {
    fn state(&self, now_ms: i64) -> ArenaState {
        if now_ms < self.starts {
            ArenaState::Upcoming
        } else if now_ms < self.ends && !self.over {
            ArenaState::Running
        } else {
            ArenaState::Finished
        }
    }

    fn info(&self, now_ms: i64) -> ArenaInfo {
        ArenaInfo {
            arena_id: self.id.clone(),
            name: self.name.clone(),
            difficulty: self.difficulty,
            starts_unix_ms: self.starts,
            ends_unix_ms: self.ends,
            state: self.state(now_ms),
            players: u32::try_from(self.members.len()).unwrap_or(u32::MAX),
        }
    }

    /// What the store keeps of it.
    fn record(&self, now_ms: i64) -> ArenaRecord {
        ArenaRecord {
            info: self.info(now_ms),
            standings: points::table(&self.members),
        }
    }

    /// An arena as the store kept it (over, unless it is still to end at `now_ms`).
    fn kept(rec: ArenaRecord, pool: Arc<Pool>, now_ms: i64) -> Arena {
        let members = members(rec.standings);
        Arena {
            id: rec.info.arena_id,
            name: rec.info.name,
            difficulty: rec.info.difficulty,
            starts: rec.info.starts_unix_ms,
            ends: rec.info.ends_unix_ms,
            members,
            present: Vec::new(),
            pool,
            running: None,
            over: rec.info.ends_unix_ms <= now_ms,
        }
    }

    fn standings_msg(&self) -> ServerMsg {
        ServerMsg::ArenaStandings {
            arena_id: self.id.clone(),
            standings: points::table(&self.members),
        }
    }

    /// Send the standings to everyone in the arena, serialized once.
    fn tell(&self, metrics: &crate::metrics::Metrics) {
        let msg = encode(&self.standings_msg());
        for (_, outbox) in &self.present {
            outbox.send_text(msg.clone(), metrics);
        }
    }
}

/// Members as the store kept their rows.
fn members(standings: Vec<ArenaStanding>) -> Vec<Member> {
    standings
        .into_iter()
        .map(|s| Member {
            handle: s.handle,
            name: s.name,
            points: s.points,
            races: s.races,
            wins: s.wins,
            streak: s.streak,
        })
        .collect()
}

/// Every arena this node knows of.
#[derive(Debug)]
pub struct Arenas {
    specs: Vec<ArenaSpec>,
    rules: PoolRules,
    rooms: Rooms,
    arenas: Mutex<Vec<Arena>>,
}

impl Arenas {
    /// The arenas of `specs`, seating their races in rooms opened through `rooms`; opened,
    /// scored and closed by [`Arenas::run`]; their members gather as [`arena_rules`] says.
    pub fn new(specs: Vec<ArenaSpec>, pool: &PoolRules, rooms: Rooms) -> Arc<Arenas> {
        let arenas = Arc::new(Arenas {
            specs,
            rules: arena_rules(pool),
            rooms,
            arenas: Mutex::new(Vec::new()),
        });
        arenas.refresh(unix_ms());
        arenas
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arena>> {
        self.arenas.lock().expect("arenas lock poisoned")
    }

    /// Open and close arenas on time, and score arena races, until `shutdown`.
    pub async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        if self.specs.is_empty() {
            return;
        }
        let mut races = self.rooms.env().arena_races.subscribe();
        self.load().await;
        let mut tick = tokio::time::interval(TICK);
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                _ = tick.tick() => self.refresh(unix_ms()),
                race = races.recv() => match race {
                    Ok(race) => self.score(&race),
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        tracing::error!(missed = n, "arena results were missed");
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
            }
        }
    }

    /// The finished arenas the store kept, back in memory (those it does not know already).
    async fn load(&self) {
        let store = self.rooms.env().store.clone();
        let kept = tokio::task::spawn_blocking(move || store.recent_arenas(KEEP as u32)).await;
        let kept = match kept {
            Ok(Ok(kept)) => kept,
            Ok(Err(e)) => return tracing::error!(error = %e, "reading kept arenas failed"),
            Err(e) => return tracing::error!(error = %e, "reading kept arenas panicked"),
        };
        let now = unix_ms();
        let mut arenas = self.lock();
        for rec in kept {
            match arenas.iter_mut().find(|a| a.id == rec.info.arena_id) {
                // Running again after a restart: its points so far.
                Some(a) if a.members.is_empty() => a.members = members(rec.standings),
                Some(_) => {}
                None => {
                    let id = rec.info.arena_id.clone();
                    let pool = Pool::for_arena(self.rules.clone(), self.rooms.clone(), id);
                    arenas.push(Arena::kept(rec, pool, now));
                }
            }
        }
        arenas.sort_by_key(|a| a.starts);
    }

    /// Keep an ended arena's standings in the store, off the async workers.
    fn save(&self, a: &Arena, now_ms: i64) {
        let store = self.rooms.env().store.clone();
        let rec = a.record(now_ms);
        self.rooms.env().tasks.spawn_blocking(move || {
            if let Err(e) = store.save_arena(&rec) {
                tracing::error!(arena = rec.info.arena_id, error = %e, "keeping an arena failed");
            }
        });
    }

    /// Bring every series up to `now_ms`: its current or next arena exists, arenas due start
    /// their pool, arenas past their end stop it, and old finished ones are let go.
    fn refresh(&self, now_ms: i64) {
        let mut arenas = self.lock();
        for spec in &self.specs {
            let (starts, ends) = spec.window_at(now_ms);
            let id = spec.arena_id(starts);
            if !arenas.iter().any(|a| a.id == id) {
                let pool = Pool::for_arena(self.rules.clone(), self.rooms.clone(), id.clone());
                arenas.push(Arena {
                    id,
                    name: spec.name.clone(),
                    difficulty: spec.difficulty,
                    starts,
                    ends,
                    members: Vec::new(),
                    present: Vec::new(),
                    pool,
                    running: None,
                    over: false,
                });
            }
        }
        let env = self.rooms.env();
        for a in arenas.iter_mut() {
            if now_ms >= a.ends && !a.over {
                a.over = true;
                if let Some(token) = a.running.take() {
                    token.cancel();
                }
                a.pool.close();
                tracing::info!(arena = %a.id, members = a.members.len(), "arena over");
                a.tell(&env.metrics);
                self.save(a, now_ms);
            } else if now_ms >= a.starts && a.running.is_none() && !a.over {
                let token = env.shutdown.child_token();
                env.tasks.spawn(a.pool.clone().run(token.clone()));
                a.running = Some(token);
                tracing::info!(arena = %a.id, members = a.members.len(), "arena started");
            }
        }
        arenas.sort_by_key(|a| a.starts);
        let finished = arenas.iter().filter(|a| a.over).count();
        if finished > KEEP {
            let mut drop = finished - KEEP;
            arenas.retain(|a| {
                let gone = a.over && drop > 0;
                drop -= usize::from(gone);
                !gone
            });
        }
    }

    /// Count one arena race and tell the arena's members the new standings.
    fn score(&self, race: &ArenaRace) {
        let mut arenas = self.lock();
        let Some(a) = arenas.iter_mut().find(|a| a.id == race.arena_id) else {
            return;
        };
        let finishes: Vec<Finish> = race
            .finishes
            .iter()
            .filter_map(|(handle, rank, solved)| {
                Some(Finish {
                    handle: handle.clone()?,
                    rank: *rank,
                    solved: *solved,
                })
            })
            .collect();
        points::score(&mut a.members, &finishes);
        a.tell(&self.rooms.env().metrics);
        self.save(a, unix_ms());
    }

    /// Every arena known, by start.
    pub fn list(&self) -> Vec<ArenaInfo> {
        let now = unix_ms();
        self.lock().iter().map(|a| a.info(now)).collect()
    }

    /// One arena and its standings.
    pub fn get(&self, arena_id: &str) -> Option<(ArenaInfo, Vec<ArenaStanding>)> {
        let now = unix_ms();
        let arenas = self.lock();
        let a = arenas.iter().find(|a| a.id == arena_id)?;
        Some((a.info(now), points::table(&a.members)))
    }

    /// `handle` (named `name`, on `outbox`) joins `arena_id`, upcoming or running: the arena,
    /// its standings and the pool to wait in.
    pub fn join(
        &self,
        arena_id: &str,
        handle: &str,
        name: PlayerName,
        outbox: &Outbox,
    ) -> Result<(ArenaInfo, ServerMsg, Arc<Pool>), Refused> {
        let now = unix_ms();
        let mut arenas = self.lock();
        let Some(a) = arenas.iter_mut().find(|a| a.id == arena_id) else {
            return Err((ErrorCode::UnknownArena, "no such arena".into()));
        };
        if a.state(now) == ArenaState::Finished {
            return Err((ErrorCode::ArenaNotRunning, "that arena is over".into()));
        }
        match a.members.iter_mut().find(|m| m.handle == handle) {
            Some(m) => m.name = name,
            None => a.members.push(Member::new(handle.to_owned(), name)),
        }
        a.present.retain(|(h, _)| h != handle);
        a.present.push((handle.to_owned(), outbox.clone()));
        Ok((a.info(now), a.standings_msg(), a.pool.clone()))
    }

    /// The pool of `arena_id` for a member back from a race, while the arena runs.
    pub fn back(&self, arena_id: &str, handle: &str) -> Result<Arc<Pool>, Refused> {
        let arenas = self.lock();
        let Some(a) = arenas.iter().find(|a| a.id == arena_id) else {
            return Err((ErrorCode::UnknownArena, "no such arena".into()));
        };
        if a.state(unix_ms()) != ArenaState::Running {
            return Err((ErrorCode::ArenaNotRunning, "that arena is over".into()));
        }
        if !a.present.iter().any(|(h, _)| h == handle) {
            return Err((ErrorCode::WrongPhase, "you left that arena".into()));
        }
        Ok(a.pool.clone())
    }

    /// The connection `conn` is out of `arena_id` (it left, or dropped); its row stays.
    pub fn leave(&self, arena_id: &str, conn: ConnId) {
        let mut arenas = self.lock();
        if let Some(a) = arenas.iter_mut().find(|a| a.id == arena_id) {
            a.present.retain(|(_, o)| o.id != conn);
            a.pool.leave(a.difficulty, conn);
        }
    }
}
