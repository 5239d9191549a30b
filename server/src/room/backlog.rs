//! Results that could not be stored yet (A9: a result is never lost). A finished race the
//! database cannot take now (a full disk, an I/O error, a database away or restarting: what
//! [`StoreError::is_transient`] says) is written to the local [`Spool`] and race_over goes out
//! at once; one task ([`Backlog::run`]) lands the spooled results oldest first when the store
//! answers, after a restart too (the spool is read at start-up). A result that lands late
//! and was rated sends its rating changes to its room's members, if the room is still open
//! on this node (`ratings`). While anything waits, new results queue behind it, in order.
//!
//! A result the database answers but refuses (a constraint, a value it does not take) is not
//! retried (it would block every result behind it): it is logged, counted and set aside in
//! the spool's `refused/` folder. When the spool itself cannot be written (its disk is full
//! too, or there is no spool), the result waits in memory instead, bounded by [`CAPACITY`],
//! and is counted; past that the newest is dropped and counted.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use protocol::RoomCode;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::directory::Directory;
use super::handle::RoomCmd;
use crate::metrics::Metrics;
use crate::store::spool::{Spool, SpoolError};
use crate::store::{RaceRecord, RatingChange, Store, StoreError};

/// Results kept in memory when the spool cannot be written (a few KB each: ~10k is tens of
/// MB at most).
pub const CAPACITY: usize = 10_000;
/// The first wait before a retry; it doubles up to [`MAX_WAIT`].
const FIRST_WAIT: Duration = Duration::from_millis(250);
const MAX_WAIT: Duration = Duration::from_secs(5);

/// What became of a finished race handed to [`Backlog::keep`].
#[derive(Debug)]
pub enum Kept {
    /// Stored now: its rating changes.
    Stored(Vec<RatingChange>),
    /// Waiting (spooled or in memory) for the database.
    Waiting,
    /// Refused by the database, set aside.
    Refused,
    /// Lost: neither the spool nor the memory queue could take it.
    Lost,
}

/// The results waiting for the database: the spool on disk, and the memory queue behind it.
#[derive(Debug, Default)]
pub struct Backlog {
    spool: Option<Spool>,
    on_disk: AtomicUsize,
    memory: Mutex<VecDeque<RaceRecord>>,
    wake: Notify,
}

/// One waiting result, oldest first: the spool's files, then the memory queue.
enum Next {
    File(PathBuf),
    Memory(Box<RaceRecord>),
}

impl Backlog {
    /// The backlog over the spool at `dir` (its waiting results counted); without a usable
    /// spool (it cannot be created: said in the log) results wait in memory only.
    pub fn open(dir: &Path, metrics: &Metrics) -> Backlog {
        let spool = match Spool::open(dir) {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(spool = %dir.display(), error = %e,
                    "the results spool cannot be opened: results wait in memory only");
                return Backlog::default();
            }
        };
        let waiting = spool.pending().map_or(0, |p| p.len());
        if waiting > 0 {
            tracing::warn!(waiting, spool = %dir.display(), "results wait in the spool");
        }
        metrics.results_queued.set(waiting as i64);
        Backlog {
            spool: Some(spool),
            on_disk: AtomicUsize::new(waiting),
            ..Backlog::default()
        }
    }

    /// Results waiting.
    pub fn len(&self) -> usize {
        self.on_disk.load(Ordering::Relaxed) + self.memory.lock().map_or(0, |q| q.len())
    }

    /// Nothing waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Store a finished race now, or (while others wait, or the database cannot take it)
    /// queue it behind them. It blocks: call it on a blocking thread.
    pub fn keep(&self, store: &dyn Store, rec: RaceRecord, metrics: &Metrics) -> Kept {
        if self.is_empty() {
            match store.save_race(&rec) {
                Ok(changes) => return Kept::Stored(changes),
                Err(e) if e.is_transient() => {
                    metrics.store_errors.inc();
                    tracing::warn!(race_id = rec.race_id, error = %e,
                        "the database cannot take the result now: it waits in the spool");
                }
                Err(e) => {
                    metrics.store_errors.inc();
                    self.refuse(rec, &e, metrics);
                    return Kept::Refused;
                }
            }
        }
        if self.push(rec, metrics) {
            Kept::Waiting
        } else {
            Kept::Lost
        }
    }

    /// Queue a result behind the others: in the spool, else in memory; false (and counted)
    /// when neither takes it.
    pub fn push(&self, rec: RaceRecord, metrics: &Metrics) -> bool {
        if let Some(spool) = &self.spool {
            match spool.put(&rec) {
                Ok(_) => {
                    self.on_disk.fetch_add(1, Ordering::Relaxed);
                    metrics.results_spooled.inc();
                    self.changed(metrics);
                    self.wake.notify_one();
                    return true;
                }
                Err(e) => tracing::error!(race_id = rec.race_id, error = %e,
                    "the results spool cannot be written: the result waits in memory"),
            }
        }
        let Ok(mut q) = self.memory.lock() else {
            return false;
        };
        if q.len() >= CAPACITY {
            metrics.results_dropped.inc();
            tracing::error!(
                race_id = rec.race_id,
                "the results spool and memory queue are full: a result is lost"
            );
            return false;
        }
        q.push_back(rec);
        drop(q);
        metrics.results_unspooled.inc();
        self.changed(metrics);
        self.wake.notify_one();
        true
    }

    /// The database refused `rec`: count it and keep it in `refused/` (or in the log).
    fn refuse(&self, rec: RaceRecord, e: &StoreError, metrics: &Metrics) {
        metrics.results_refused.inc();
        let kept = self.spool.as_ref().map(|s| s.put_refused(&rec));
        match kept {
            Some(Ok(path)) => tracing::error!(race_id = rec.race_id, error = %e,
                kept = %path.display(), "the database refuses a result: set aside"),
            _ => tracing::error!(race_id = rec.race_id, error = %e,
                "the database refuses a result, and it cannot be set aside: lost"),
        }
    }

    /// A spool file is gone (landed or set aside); never below zero.
    fn one_less_on_disk(&self) {
        let _ = self
            .on_disk
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }

    fn changed(&self, metrics: &Metrics) {
        metrics.results_queued.set(self.len() as i64);
    }

    fn next(&self) -> Option<Next> {
        if self.on_disk.load(Ordering::Relaxed) > 0 {
            if let Some(spool) = &self.spool {
                match spool.pending() {
                    Ok(p) => {
                        if let Some(first) = p.into_iter().next() {
                            return Some(Next::File(first));
                        }
                        // Gone meanwhile (an operator moved them): nothing waits on disk.
                        self.on_disk.store(0, Ordering::Relaxed);
                    }
                    Err(e) => tracing::error!(error = %e, "the results spool cannot be read"),
                }
            }
        }
        self.memory
            .lock()
            .ok()?
            .front()
            .cloned()
            .map(|r| Next::Memory(Box::new(r)))
    }

    /// The oldest waiting result is done with (landed or set aside).
    fn done(&self, next: &Next, metrics: &Metrics) {
        match next {
            Next::File(path) => {
                if let Some(spool) = &self.spool {
                    if let Err(e) = spool.remove(path) {
                        // It would land again: harmless, a second save is a no-op.
                        tracing::error!(error = %e, file = %path.display(),
                            "a landed result's spool file cannot be removed");
                    }
                }
                self.one_less_on_disk();
            }
            Next::Memory(_) => {
                if let Ok(mut q) = self.memory.lock() {
                    q.pop_front();
                }
            }
        }
        self.changed(metrics);
    }

    /// Land the waiting results, oldest first, until `shutdown`; a rated one's changes go to
    /// its room's members through `directory` (`ratings`).
    pub async fn run(
        self: Arc<Self>,
        store: Arc<dyn Store>,
        directory: Arc<Directory>,
        metrics: Arc<Metrics>,
        shutdown: CancellationToken,
    ) {
        let mut wait = FIRST_WAIT;
        loop {
            let me = self.clone();
            let (s, m) = (store.clone(), metrics.clone());
            let step = tokio::task::spawn_blocking(move || me.land_one(&*s, &m)).await;
            match step {
                Ok(Step::Idle) => {
                    tokio::select! {
                        () = self.wake.notified() => continue,
                        () = shutdown.cancelled() => return,
                    }
                }
                Ok(Step::Landed(late)) => {
                    if let Some(late) = late {
                        let (room, cmd) = *late;
                        tell_room(&directory, &room, cmd);
                    }
                    wait = FIRST_WAIT;
                    continue;
                }
                Ok(Step::Later) => {}
                Err(e) => tracing::error!(error = %e, "the results retry panicked"),
            }
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = shutdown.cancelled() => return,
            }
            wait = (wait * 2).min(MAX_WAIT);
        }
    }

    /// Try the oldest waiting result once (blocking).
    fn land_one(&self, store: &dyn Store, metrics: &Metrics) -> Step {
        let Some(next) = self.next() else {
            return Step::Idle;
        };
        let rec = match &next {
            Next::Memory(rec) => (**rec).clone(),
            Next::File(path) => match Spool::load(path) {
                Ok(rec) => rec,
                Err(SpoolError::Io(e)) => {
                    tracing::error!(error = %e, file = %path.display(), "a spooled result cannot be read");
                    return Step::Later;
                }
                Err(e @ SpoolError::Format(_)) => {
                    self.refuse_file(path, &e.to_string(), metrics);
                    return Step::Landed(None);
                }
            },
        };
        match store.save_race(&rec) {
            Ok(changes) => {
                metrics.results_retried.inc();
                metrics.races_finished.inc();
                self.done(&next, metrics);
                tracing::info!(
                    race_id = rec.race_id,
                    waiting = self.len(),
                    "a waiting result landed"
                );
                Step::Landed(late_ratings(rec, changes))
            }
            Err(e) if e.is_transient() => {
                tracing::warn!(error = %e, waiting = self.len(), "the database still cannot take results");
                Step::Later
            }
            Err(e) => {
                match &next {
                    Next::File(path) => self.refuse_file(path, &e.to_string(), metrics),
                    Next::Memory(_) => {
                        self.done(&next, metrics);
                        self.refuse(rec, &e, metrics);
                    }
                }
                Step::Landed(None)
            }
        }
    }

    fn refuse_file(&self, path: &Path, why: &str, metrics: &Metrics) {
        metrics.results_refused.inc();
        let Some(spool) = &self.spool else {
            return;
        };
        match spool.refuse(path) {
            Ok(kept) => {
                tracing::error!(error = why, kept = %kept.display(), "a spooled result is refused: set aside");
                self.one_less_on_disk();
                self.changed(metrics);
            }
            Err(e) => tracing::error!(error = %e, file = %path.display(),
                "a refused result cannot be set aside"),
        }
    }
}

/// What one landing try did.
enum Step {
    /// Nothing waits.
    Idle,
    /// The oldest is done with; a rated one's `ratings` for its room.
    Landed(Option<Box<(String, RoomCmd)>>),
    /// The database cannot take it yet: wait, then try again.
    Later,
}

/// The room's `ratings` command for a result that landed late, if it moved any rating.
fn late_ratings(rec: RaceRecord, changes: Vec<RatingChange>) -> Option<Box<(String, RoomCmd)>> {
    if changes.is_empty() {
        return None;
    }
    let cmd = RoomCmd::Ratings {
        race_id: rec.race_id.into(),
        ratings: changes.into_iter().map(wire_change).collect(),
    };
    Some(Box::new((rec.room, cmd)))
}

/// Hand `cmd` to the room `code` if it is open on this node (closed: nothing).
fn tell_room(directory: &Directory, code: &str, cmd: RoomCmd) {
    let Ok(code) = RoomCode::try_from(code) else {
        return;
    };
    if let Some(room) = directory.find(&code) {
        // A full command queue loses only this late notice; the ratings are stored.
        let _ = room.tx.try_send(cmd);
    }
}

/// A stored rating change as `race_over` and `ratings` carry it.
pub fn wire_change(c: RatingChange) -> protocol::RatingChange {
    protocol::RatingChange {
        player_id: protocol::PlayerId::from(c.player_id),
        handle: c.handle,
        before: c.before,
        after: c.after,
    }
}

#[cfg(test)]
mod tests {
    use protocol::{FinishStatus, Standing};

    use super::*;
    use crate::store::{SeatRecord, SqliteStore};

    fn record(race_id: &str, handle: Option<&str>) -> RaceRecord {
        RaceRecord {
            race_id: race_id.into(),
            room: "ABCD".into(),
            difficulty: "easy",
            puzzle: ".".repeat(81),
            solution: "1".repeat(81),
            started_unix_ms: 1_796_130_855_000,
            duration_ms: 1000,
            reason: "all_done",
            rated: false,
            daily: None,
            ghost_of: None,
            standings: vec![Standing {
                rank: 1,
                player_id: "p1".into(),
                name: "ann".try_into().unwrap(),
                status: FinishStatus::Solved,
                time_ms: Some(1000),
                filled: 81,
                mistakes: 0,
                time_ms_raw: None,
                lag_ms: 0,
                puzzle: None,
                solution: None,
                layout: protocol::variant::WireLayout::default(),
            }],
            seats: vec![SeatRecord {
                player_id: "p1".into(),
                handle: handle.map(Into::into),
                bot: false,
                flags: Vec::new(),
            }],
            placements: Vec::new(),
        }
    }

    #[test]
    fn a_result_waits_in_memory_when_the_spool_cannot_be_written_and_lands_later() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("db.sqlite3")).unwrap();
        let metrics = Metrics::default();
        let spool = dir.path().join("spool");
        let backlog = Backlog::open(&spool, &metrics);
        // The spool's directory turns into a file: every write to it fails (ENOTDIR).
        std::fs::remove_dir_all(&spool).unwrap();
        std::fs::write(&spool, b"not a directory").unwrap();
        assert!(backlog.push(record("r1", None), &metrics));
        assert_eq!((backlog.len(), metrics.results_unspooled.get()), (1, 1));
        assert_eq!(metrics.results_spooled.get(), 0);
        assert!(matches!(
            backlog.land_one(&store, &metrics),
            Step::Landed(None)
        ));
        assert!(backlog.is_empty());
        assert_eq!(metrics.results_retried.get(), 1);
        assert_eq!(metrics.results_queued.get(), 0);
        assert_eq!(
            store.race_reason("r1").unwrap().as_deref(),
            Some("all_done")
        );
        assert!(matches!(backlog.land_one(&store, &metrics), Step::Idle));
    }

    #[test]
    fn a_refused_result_is_set_aside_and_the_next_one_lands() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("db.sqlite3")).unwrap();
        let metrics = Metrics::default();
        let spool = dir.path().join("spool");
        let backlog = Backlog::open(&spool, &metrics);
        // Queued behind nothing, yet spooled: as while the database was away.
        assert!(backlog.push(record("bad", Some("hNobody")), &metrics));
        assert!(backlog.push(record("good", None), &metrics));
        assert_eq!(metrics.results_queued.get(), 2);
        assert!(matches!(
            backlog.land_one(&store, &metrics),
            Step::Landed(None)
        ));
        assert_eq!(metrics.results_refused.get(), 1);
        assert_eq!(std::fs::read_dir(spool.join("refused")).unwrap().count(), 1);
        assert!(matches!(
            backlog.land_one(&store, &metrics),
            Step::Landed(None)
        ));
        assert_eq!(
            store.race_reason("good").unwrap().as_deref(),
            Some("all_done")
        );
        assert_eq!(store.race_reason("bad").unwrap(), None);
        assert!(backlog.is_empty());
        // A new backlog over the same spool finds nothing waiting: the refused one is aside.
        assert!(Backlog::open(&spool, &metrics).is_empty());
        // And one over a spool with a result waiting counts it at once.
        backlog
            .spool
            .as_ref()
            .unwrap()
            .put(&record("later", None))
            .unwrap();
        let reopened = Backlog::open(&spool, &metrics);
        assert_eq!((reopened.len(), metrics.results_queued.get()), (1, 1));
    }
}
