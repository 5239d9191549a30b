//! The results spool: finished races the database could not take yet, kept on local disk until
//! they land (A9: a result is never lost to a full disk, an I/O error or an unreachable
//! database). One file per result, `<seq>.json` with a 20-digit sequence, so that the oldest
//! lands first and a landed one is gone with one unlink. A file is written under a temporary
//! name, fsync'd, renamed into place and its directory fsync'd: after a crash a result is
//! either whole under its final name or an ignored `.tmp` (removed at the next open). A result
//! the database refuses is moved into `refused/`, kept for an operator, never deleted.
//!
//! Why one file per result rather than a log: landing is a delete (a log needs compaction or a
//! cursor kept durably beside it), a torn write cannot damage the results before it, and an
//! operator can read, move or replay a single result with ordinary tools.
//!
//! This module only reads and writes the files; `crate::room::backlog` decides when.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use protocol::Standing;
use serde::{Deserialize, Serialize};

use super::{PlacementRecord, RaceRecord, SeatRecord};

/// Where refused results are set aside, under the spool.
pub const REFUSED: &str = "refused";
const EXT: &str = "json";
const TMP: &str = "tmp";
/// The on-disk format's version, first in every file.
const VERSION: u32 = 1;

/// A spool directory.
#[derive(Debug)]
pub struct Spool {
    dir: PathBuf,
    next: AtomicU64,
}

/// A spooled file could not be read back as a result.
#[derive(Debug, thiserror::Error)]
pub enum SpoolError {
    /// Reading it failed.
    #[error("spool file: {0}")]
    Io(#[from] io::Error),
    /// It is not a result of this format.
    #[error("spool file is not a result: {0}")]
    Format(String),
}

impl Spool {
    /// Open (or create) the spool at `dir` and its `refused/` folder; temporary files a crash
    /// left are removed, and new results number after the highest found.
    pub fn open(dir: &Path) -> io::Result<Spool> {
        fs::create_dir_all(dir.join(REFUSED))?;
        let mut top = 0;
        for folder in [dir.to_owned(), dir.join(REFUSED)] {
            for entry in fs::read_dir(&folder)? {
                let path = entry?.path();
                if path.extension().is_some_and(|e| e == TMP) {
                    let _ = fs::remove_file(&path);
                } else if let Some(seq) = seq_of(&path) {
                    top = top.max(seq);
                }
            }
        }
        Ok(Spool {
            dir: dir.to_owned(),
            next: AtomicU64::new(top + 1),
        })
    }

    /// The spool's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The results waiting, oldest first.
    pub fn pending(&self) -> io::Result<Vec<PathBuf>> {
        let mut found = Vec::new();
        for entry in fs::read_dir(&self.dir)? {
            let path = entry?.path();
            if let Some(seq) = seq_of(&path) {
                found.push((seq, path));
            }
        }
        found.sort_unstable_by_key(|(seq, _)| *seq);
        Ok(found.into_iter().map(|(_, p)| p).collect())
    }

    /// Write `rec` durably behind the others; its file.
    pub fn put(&self, rec: &RaceRecord) -> io::Result<PathBuf> {
        self.write_into(&self.dir, rec)
    }

    /// Keep a result the database refused (it never reached the spool) in `refused/`.
    pub fn put_refused(&self, rec: &RaceRecord) -> io::Result<PathBuf> {
        self.write_into(&self.dir.join(REFUSED), rec)
    }

    fn write_into(&self, dir: &Path, rec: &RaceRecord) -> io::Result<PathBuf> {
        let seq = self.next.fetch_add(1, Ordering::Relaxed);
        let body = serde_json::to_vec(&OnDisk::from(rec)).map_err(io::Error::other)?;
        let name = format!("{seq:020}.{EXT}");
        let tmp = dir.join(format!(".{name}.{TMP}"));
        let path = dir.join(name);
        let written = (|| {
            let mut f = File::create(&tmp)?;
            f.write_all(&body)?;
            f.sync_all()?;
            fs::rename(&tmp, &path)?;
            File::open(dir)?.sync_all()
        })();
        if let Err(e) = written {
            // A full disk leaves a partial temporary file: take it back.
            let _ = fs::remove_file(&tmp);
            let _ = fs::remove_file(&path);
            return Err(e);
        }
        Ok(path)
    }

    /// Read a spooled result back.
    pub fn load(path: &Path) -> Result<RaceRecord, SpoolError> {
        let bytes = fs::read(path)?;
        let disk: OnDisk =
            serde_json::from_slice(&bytes).map_err(|e| SpoolError::Format(e.to_string()))?;
        disk.into_record()
    }

    /// A result landed: forget it (already gone is fine: it landed all the same).
    pub fn remove(&self, path: &Path) -> io::Result<()> {
        match fs::remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// The database refused a spooled result: set it aside in `refused/`.
    pub fn refuse(&self, path: &Path) -> io::Result<PathBuf> {
        let name = path.file_name().ok_or(io::ErrorKind::InvalidInput)?;
        let to = self.dir.join(REFUSED).join(name);
        fs::rename(path, &to)?;
        File::open(&self.dir)?.sync_all()?;
        Ok(to)
    }
}

/// The sequence of a result's file name (`None`: not a result file).
fn seq_of(path: &Path) -> Option<u64> {
    if path.extension()? != EXT {
        return None;
    }
    let stem = path.file_stem()?.to_str()?;
    if stem.len() != 20 {
        return None;
    }
    stem.parse().ok()
}

/// The words a record keeps as `&'static str`, read back to the same.
const WORDS: &[&str] = &[
    "easy",
    "medium",
    "hard",
    "expert",
    "extreme",
    "all_done",
    "time_limit",
    "shutdown",
    "accepted",
    "wrong",
    "conflict",
    "given",
    "filled",
];

fn word(s: &str) -> Result<&'static str, SpoolError> {
    WORDS
        .iter()
        .find(|w| **w == s)
        .copied()
        .ok_or_else(|| SpoolError::Format(format!("unknown word {s:?}")))
}

/// A [`RaceRecord`] as a spool file holds it.
#[derive(Serialize, Deserialize)]
struct OnDisk {
    v: u32,
    race_id: String,
    room: String,
    difficulty: String,
    puzzle: String,
    solution: String,
    started_unix_ms: i64,
    duration_ms: u64,
    reason: String,
    rated: bool,
    daily: Option<String>,
    ghost_of: Option<String>,
    standings: Vec<Standing>,
    seats: Vec<(String, Option<String>, bool, Vec<String>)>,
    placements: Vec<(String, u64, u8, u8, String)>,
}

impl From<&RaceRecord> for OnDisk {
    fn from(r: &RaceRecord) -> OnDisk {
        OnDisk {
            v: VERSION,
            race_id: r.race_id.clone(),
            room: r.room.clone(),
            difficulty: r.difficulty.to_owned(),
            puzzle: r.puzzle.clone(),
            solution: r.solution.clone(),
            started_unix_ms: r.started_unix_ms,
            duration_ms: r.duration_ms,
            reason: r.reason.to_owned(),
            rated: r.rated,
            daily: r.daily.clone(),
            ghost_of: r.ghost_of.clone(),
            standings: r.standings.clone(),
            seats: r
                .seats
                .iter()
                .map(|s| {
                    (
                        s.player_id.clone(),
                        s.handle.clone(),
                        s.bot,
                        s.flags.clone(),
                    )
                })
                .collect(),
            placements: r
                .placements
                .iter()
                .map(|p| {
                    (
                        p.player_id.clone(),
                        p.at_ms,
                        p.cell,
                        p.digit,
                        p.outcome.into(),
                    )
                })
                .collect(),
        }
    }
}

impl OnDisk {
    fn into_record(self) -> Result<RaceRecord, SpoolError> {
        if self.v != VERSION {
            return Err(SpoolError::Format(format!("version {}", self.v)));
        }
        let mut placements = Vec::with_capacity(self.placements.len());
        for (player_id, at_ms, cell, digit, outcome) in self.placements {
            placements.push(PlacementRecord {
                player_id,
                at_ms,
                cell,
                digit,
                outcome: word(&outcome)?,
            });
        }
        Ok(RaceRecord {
            race_id: self.race_id,
            room: self.room,
            difficulty: word(&self.difficulty)?,
            puzzle: self.puzzle,
            solution: self.solution,
            started_unix_ms: self.started_unix_ms,
            duration_ms: self.duration_ms,
            reason: word(&self.reason)?,
            rated: self.rated,
            daily: self.daily,
            ghost_of: self.ghost_of,
            standings: self.standings,
            seats: self
                .seats
                .into_iter()
                .map(|(player_id, handle, bot, flags)| SeatRecord {
                    player_id,
                    handle,
                    bot,
                    flags,
                })
                .collect(),
            placements,
        })
    }
}
