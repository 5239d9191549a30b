//! A standalone server's room journal: the command log of every running room (A9,
//! [`super::journal`]) kept on local disk, so that a server killed mid-race (`kill -9`, a
//! crash, the power) brings its rooms back when it starts again and their players `resume`
//! with their tokens. It is the [`DirectoryFeed`] a server without `--cluster` gives its
//! directory (a cluster keeps the same log in Redis instead).
//!
//! - `segment`: the files, a folder of numbered segments of checksummed lines, and how they
//!   read back (a torn last line is ignored).
//! - `writer`: the one thread that appends, `fdatasync`s in groups and answers `sync`.
//! - `compact`: the thread that rewrites sealed segments down to the rooms still live.
//!
//! One append-only file for every room, not a file per room: a group of rooms' entries
//! costs one `fdatasync`, where per-room files would cost one each (and a directory sync per
//! new room); a closed room costs a line (`end`) until the next compaction drops it.
//!
//! At start [`LocalJournal::open`] reads every segment; a room whose log does not read whole
//! (an entry missing, one that does not decode) is dropped with a warning, never replayed in
//! part. [`restore`] rebuilds the rest with [`crate::room::task::adopt`], no member kept:
//! every connection died with the process, each seat is held for a `resume` for the resume
//! grace from now, and the race clock stands still for the time the server was away.

use std::io;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use protocol::{ResumeToken, RoomCode};
use tokio::sync::oneshot;

use super::directory::{DirectoryFeed, LogError};
use super::handle::RoomInfo;
use super::journal::Logged;
use super::task::{self, RoomEnv};
pub use writer::Stats;
use writer::{Msg, Writer};

mod compact;
mod segment;
mod writer;

/// How the journal writes.
#[derive(Clone, Debug)]
pub struct Options {
    /// A segment past this many bytes is sealed, and compacted with those before it.
    pub segment_bytes: u64,
    /// How long the writer gathers a batch after its first message, at most: every `sync`
    /// in it costs one `fdatasync` between them.
    pub gather: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            segment_bytes: 8 << 20,
            gather: Duration::ZERO,
        }
    }
}

/// Why the journal cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("cannot open the room journal {dir}: {source}")]
pub struct JournalError {
    /// Its folder.
    pub dir: PathBuf,
    /// The cause.
    pub source: io::Error,
}

/// Why a room's log in the journal does not read whole.
#[derive(Debug, thiserror::Error)]
enum Unreadable {
    #[error("entry {0} is missing")]
    Missing(u64),
    #[error("an entry does not decode: {0}")]
    Decode(#[from] serde_json::Error),
}

/// The journal: a handle on its writer (and compactor) thread.
#[derive(Debug)]
pub struct LocalJournal {
    tx: mpsc::Sender<Msg>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    stats: Arc<Stats>,
}

/// A room's whole log, as the journal held it at start.
#[derive(Debug)]
pub struct Recovered {
    /// The room.
    pub code: RoomCode,
    /// Its log, from its opening.
    pub log: Vec<Logged>,
}

fn decode(group: &segment::Group) -> Result<Vec<Logged>, Unreadable> {
    let entries = group.entries().map_err(Unreadable::Missing)?;
    Ok(entries
        .into_iter()
        .map(Logged::decode)
        .collect::<Result<_, _>>()?)
}

/// Remove what a compaction left half done (it is in the segments still).
fn remove_tmp(dir: &Path) -> io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name.ends_with(segment::TMP_EXT) {
            std::fs::remove_file(&p)?;
        }
    }
    Ok(())
}

/// What the segments of a journal hold.
#[derive(Debug, Default)]
struct ReadBack {
    /// The rooms whose logs read whole.
    whole: Vec<Recovered>,
    /// Every live room with its last entry's number (the writer goes on from there).
    known: Vec<(RoomCode, u64)>,
    /// The rooms whose logs do not read whole.
    dropped: Vec<RoomCode>,
}

/// The rooms the segments in `dir` hold.
fn read(dir: &Path) -> io::Result<ReadBack> {
    let rooms = segment::Rooms::read_dir(dir, u64::MAX)?;
    if rooms.torn > 0 {
        tracing::info!(
            segments = rooms.torn,
            "the room journal ended mid-line (a crash mid-write): that line is ignored"
        );
    }
    if rooms.bad > 0 {
        tracing::warn!(
            lines = rooms.bad,
            "room journal lines that do not read: skipped"
        );
    }
    let mut out = ReadBack::default();
    for (code, group) in &rooms.live {
        let Ok(code) = RoomCode::try_from(code.as_str()) else {
            tracing::warn!(room = %code, "the room journal names a room code that is not one");
            continue;
        };
        out.known.push((code.clone(), group.last()));
        match decode(group) {
            Ok(log) => out.whole.push(Recovered { code, log }),
            Err(e) => {
                tracing::warn!(room = %code, error = %e, "a room's journal does not read whole: the room is dropped");
                out.dropped.push(code);
            }
        }
    }
    out.whole.sort_by(|a, b| a.code.cmp(&b.code));
    Ok(out)
}

impl LocalJournal {
    /// Open the journal in `dir` (created if missing), read back the rooms it holds, and
    /// start its threads. Rooms that do not read whole are ended in it already.
    pub fn open(
        dir: &Path,
        opts: Options,
    ) -> Result<(Arc<LocalJournal>, Vec<Recovered>), JournalError> {
        let fail = |source| JournalError {
            dir: dir.to_owned(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(fail)?;
        remove_tmp(dir).map_err(fail)?;
        let ReadBack {
            whole,
            known,
            dropped,
        } = read(dir).map_err(fail)?;
        let last = segment::list(dir)
            .map_err(fail)?
            .last()
            .map_or(0, |(n, _)| *n);
        let (compact_tx, compact_rx) = mpsc::channel();
        let stats = Arc::new(Stats::default());
        let writer = Writer::new(
            dir.to_owned(),
            last + 1,
            opts,
            known,
            compact_tx.clone(),
            stats.clone(),
        )
        .map_err(fail)?;
        let (tx, rx) = mpsc::channel();
        let spawn = |name: &str, f: Box<dyn FnOnce() + Send>| {
            std::thread::Builder::new()
                .name(name.to_owned())
                .spawn(f)
                .map_err(fail)
        };
        let compactor = spawn(
            "room-journal-compact",
            Box::new({
                let dir = dir.to_owned();
                move || compact::run(dir, compact_rx)
            }),
        )?;
        let writing = spawn("room-journal", Box::new(move || writer.run(rx)))?;
        if last > 0 {
            // What the last run left, down to the rooms still live, off the way of the writer.
            let _ = compact_tx.send(last);
        }
        drop(compact_tx);
        for code in dropped {
            let _ = tx.send(Msg::End { code });
        }
        let journal = LocalJournal {
            tx,
            threads: Mutex::new(vec![writing, compactor]),
            stats,
        };
        Ok((Arc::new(journal), whole))
    }

    /// Room `code` is not in the journal any more.
    pub fn forget(&self, code: &RoomCode) {
        let _ = self.tx.send(Msg::End { code: code.clone() });
    }

    /// Write what is queued, `fdatasync`, and stop the threads (blocking: at shutdown, once
    /// every room is done).
    pub fn stop(&self) {
        let _ = self.tx.send(Msg::Stop);
        let threads = self.threads.lock().map(|mut t| std::mem::take(&mut *t));
        for t in threads.unwrap_or_default() {
            if t.join().is_err() {
                tracing::error!("a room journal thread panicked");
            }
        }
        let s = self.stats();
        tracing::info!(
            entries = s.entries.load(Relaxed),
            batches = s.batches.load(Relaxed),
            fdatasyncs = s.fdatasyncs.load(Relaxed),
            "room journal stopped"
        );
    }

    /// What the writer did so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }
}

impl DirectoryFeed for LocalJournal {
    // Listings and tokens are this server's alone: a seat's token is in its room's log (its
    // hash), which is all a restart needs.
    fn changed(&self, _: &RoomCode, _: &RoomInfo) {}
    fn token_issued(&self, _: &ResumeToken, _: &RoomCode) {}
    fn token_revoked(&self, _: &ResumeToken) {}

    fn closed(&self, code: &RoomCode, _: IpAddr) {
        self.forget(code);
    }

    fn logged(&self, code: &RoomCode, seq: u64, entry: Vec<u8>) {
        let _ = self.tx.send(Msg::Entry {
            code: code.clone(),
            seq,
            bytes: entry,
        });
    }

    /// The writer stopped (the server is stopping): nothing to wait for.
    fn sync(&self, code: &RoomCode) -> Option<oneshot::Receiver<Result<(), LogError>>> {
        let (reply, answer) = oneshot::channel();
        let code = code.clone();
        self.tx
            .send(Msg::Sync { code, reply })
            .ok()
            .map(|()| answer)
    }

    fn abandoned(&self, code: &RoomCode) {
        self.forget(code);
    }
}

/// Run every room of `rooms` again (read back by [`LocalJournal::open`]), each rebuilt from
/// its log with no member kept; a room that does not rebuild is dropped from the journal.
/// How many run.
pub fn restore(env: &Arc<RoomEnv>, journal: &LocalJournal, rooms: Vec<Recovered>) -> usize {
    let mut running = 0;
    for Recovered { code, log } in rooms {
        let entries = log.len();
        if task::adopt(env, log, |_, _| None).is_some() {
            running += 1;
            tracing::info!(room = %code, entries, "room restored from the journal");
        } else {
            tracing::warn!(room = %code, "a room in the journal could not be restored: dropped");
            journal.forget(&code);
        }
    }
    running
}

#[cfg(test)]
mod tests;
