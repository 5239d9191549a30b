//! The journal's one writer, on a thread of its own (group commit): it takes what the rooms
//! queued — entries, ends, and `sync`s waiting for them — for at most [`super::Options::gather`]
//! after the first, appends the batch to the current segment in one write, `fdatasync`s once
//! if a `sync` waits for anything written since the last, and then answers every `sync` of the
//! batch. Past [`super::Options::segment_bytes`] it starts the next segment and hands the
//! sealed ones to the compactor.
//!
//! A room whose entries the disk does not take (full, failing) is given up by the journal, not
//! by the server: an end is written for it, and once that is on disk its race goes on without
//! the journal (a crash never brings back part of it). Until then its `sync`s are answered
//! [`LogError::Unavailable`], and it waits: a client is never told of a command that neither
//! its log holds nor an end forgets. A full disk leaves room for those ends: a reserve file
//! the writer keeps beside the segments, which it removes to write them.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{mpsc, Arc};
use std::time::Instant;

use protocol::RoomCode;
use tokio::sync::oneshot;

use super::segment;
use crate::room::directory::LogError;

/// What the rooms ask of the writer.
#[derive(Debug)]
pub(super) enum Msg {
    /// Entry `seq` of room `code`'s log.
    Entry {
        code: RoomCode,
        seq: u64,
        bytes: Vec<u8>,
    },
    /// Answer once every entry of room `code` queued before this is on disk.
    Sync {
        code: RoomCode,
        reply: oneshot::Sender<Result<(), LogError>>,
    },
    /// Room `code` closed: its log is forgotten.
    End { code: RoomCode },
    /// Write what is queued, `fdatasync`, and stop.
    Stop,
}

/// The most messages one batch takes.
const MAX_BATCH: usize = 4096;

/// The reserve file's name and size: room for the ends of some 2,000 rooms on a full disk.
const RESERVE: &str = "reserve";
const RESERVE_BYTES: usize = 64 << 10;

/// While the reserve is used up, a new one is tried once per this many batches.
const RESERVE_EVERY: u64 = 1000;

/// What the writer knows of a room it wrote for.
#[derive(Debug, Default)]
struct Room {
    /// Its last entry's number written.
    last: u64,
    /// Written since the last `fdatasync`.
    dirty: bool,
    /// Given up: the disk did not take one of its entries (or one went missing).
    lost: bool,
    /// Given up, and its end is on disk: it goes on without the journal.
    ended: bool,
}

/// The writer and the segment it appends to.
#[derive(Debug)]
pub(super) struct Writer {
    dir: PathBuf,
    file: File,
    /// The current segment's number and length.
    number: u64,
    len: u64,
    opts: super::Options,
    rooms: HashMap<RoomCode, Room>,
    /// Ends to write (rooms given up, and closed rooms whose end a failed batch held).
    ends: Vec<RoomCode>,
    /// Whether the reserve file is there.
    reserve: bool,
    /// Batches committed.
    commits: u64,
    /// Where sealed segments go to be compacted (up to the number sent).
    compact: mpsc::Sender<u64>,
    stats: Arc<Stats>,
}

/// What the writer did, for its log line at stop and for tests.
#[derive(Debug, Default)]
pub struct Stats {
    /// Entries written.
    pub entries: AtomicU64,
    /// Batches written.
    pub batches: AtomicU64,
    /// `fdatasync`s that succeeded.
    pub fdatasyncs: AtomicU64,
}

/// Open segment `number` in `dir` to append to.
fn open_segment(dir: &Path, number: u64) -> io::Result<File> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(segment::path(dir, number))?;
    segment::sync_dir(dir)?;
    Ok(file)
}

/// Make the reserve file in `dir` (whole and on disk, or not at all).
fn make_reserve(dir: &Path) -> io::Result<()> {
    let path = dir.join(RESERVE);
    let made = std::fs::File::create(&path).and_then(|mut f| {
        f.write_all(&[0; RESERVE_BYTES])?;
        f.sync_all()
    });
    if made.is_err() {
        let _ = std::fs::remove_file(&path);
    }
    made
}

impl Writer {
    /// A writer appending to a new segment `number` in `dir`, knowing the rooms whose logs
    /// the journal holds already (by their last entry's number).
    pub(super) fn new(
        dir: PathBuf,
        number: u64,
        opts: super::Options,
        known: impl IntoIterator<Item = (RoomCode, u64)>,
        compact: mpsc::Sender<u64>,
        stats: Arc<Stats>,
    ) -> io::Result<Writer> {
        let file = open_segment(&dir, number)?;
        let reserve = dir.join(RESERVE).exists() || make_reserve(&dir).is_ok();
        let rooms = known
            .into_iter()
            .map(|(code, last)| {
                let room = Room {
                    last,
                    ..Room::default()
                };
                (code, room)
            })
            .collect();
        Ok(Writer {
            dir,
            file,
            number,
            len: 0,
            opts,
            rooms,
            ends: Vec::new(),
            reserve,
            commits: 0,
            compact,
            stats,
        })
    }

    /// Take batches from `rx` until it is told to stop or every sender is gone.
    pub(super) fn run(mut self, rx: mpsc::Receiver<Msg>) {
        while let Ok(first) = rx.recv() {
            let batch = self.gather(first, &rx);
            if !self.commit(batch) {
                break;
            }
        }
        if let Err(e) = self.file.sync_data() {
            tracing::error!(error = %e, "the room journal's last fdatasync failed");
        }
    }

    /// `first` and what else arrives within the gather time (what is queued already, when
    /// it is zero).
    #[allow(clippy::disallowed_methods)] // the gather window runs from the first message
    fn gather(&self, first: Msg, rx: &mpsc::Receiver<Msg>) -> Vec<Msg> {
        let until = Instant::now() + self.opts.gather;
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            let left = until.saturating_duration_since(Instant::now());
            let next = if left.is_zero() {
                rx.try_recv().ok()
            } else {
                rx.recv_timeout(left).ok()
            };
            match next {
                Some(m) => batch.push(m),
                None => break,
            }
        }
        batch
    }

    /// Write one batch and answer its `sync`s. `false`: stop.
    fn commit(&mut self, batch: Vec<Msg>) -> bool {
        let mut buf = Vec::new();
        let mut syncs = Vec::new();
        let mut go_on = true;
        let mut ending = std::mem::take(&mut self.ends);
        for code in &ending {
            segment::end_line(&mut buf, code.as_str());
        }
        for msg in batch {
            match msg {
                Msg::Entry { code, seq, bytes } => self.entry(&mut buf, code, seq, &bytes),
                Msg::End { code } => {
                    if self.rooms.remove(&code).is_some() {
                        segment::end_line(&mut buf, code.as_str());
                        ending.push(code);
                    }
                }
                Msg::Sync { code, reply } => syncs.push((code, reply)),
                Msg::Stop => go_on = false,
            }
        }
        // Rooms given up in this batch (an entry missing) end in it.
        for code in std::mem::take(&mut self.ends) {
            segment::end_line(&mut buf, code.as_str());
            ending.push(code);
        }
        let written = buf.is_empty() || self.append(&buf, &mut ending);
        let waits = syncs
            .iter()
            .any(|(code, _)| self.rooms.get(code).is_some_and(|r| r.dirty && !r.lost));
        if waits || (written && !ending.is_empty()) {
            self.fdatasync(&ending);
        }
        for (code, reply) in syncs {
            let answer = match self.rooms.get(&code) {
                Some(r) if r.lost && !r.ended => Err(LogError::Unavailable),
                _ => Ok(()),
            };
            let _ = reply.send(answer);
        }
        if self.len >= self.opts.segment_bytes {
            self.rotate();
        }
        self.commits += 1;
        if !self.reserve && self.commits.is_multiple_of(RESERVE_EVERY) {
            self.reserve = make_reserve(&self.dir).is_ok();
        }
        go_on
    }

    /// Entry `seq` of room `code`: added to `buf` unless written already (a number given
    /// again) or the room was given up.
    fn entry(&mut self, buf: &mut Vec<u8>, code: RoomCode, seq: u64, bytes: &[u8]) {
        let room = self.rooms.entry(code.clone()).or_default();
        if room.lost || seq <= room.last {
            return;
        }
        if seq != room.last + 1 || bytes.is_empty() {
            // An entry missing before it: what the journal has of the room would replay as
            // another room.
            let why = format!("entry {} of {seq} is missing", room.last + 1);
            self.give_up(&why, vec![code]);
            return;
        }
        room.last = seq;
        room.dirty = true;
        segment::entry_line(buf, code.as_str(), seq, bytes);
        self.stats.entries.fetch_add(1, Relaxed);
    }

    /// Append `buf` to the segment; if the disk does not take it, give up the rooms it
    /// wrote for (`ending`, the ends it held, are written again) and say so.
    fn append(&mut self, buf: &[u8], ending: &mut Vec<RoomCode>) -> bool {
        match self.file.write_all(buf) {
            Ok(()) => {
                self.len += buf.len() as u64;
                self.stats.batches.fetch_add(1, Relaxed);
                true
            }
            Err(e) => {
                self.ends.append(ending);
                self.write_failed(&e, buf);
                false
            }
        }
    }

    /// `fdatasync` the segment: every room written since the last one is on disk, and the
    /// rooms given up whose ends were written (`ending`) go on without the journal; or, if
    /// it fails, every room written since is given up, and `ending` is written again.
    fn fdatasync(&mut self, ending: &[RoomCode]) {
        match self.file.sync_data() {
            Ok(()) => {
                self.stats.fdatasyncs.fetch_add(1, Relaxed);
                for r in self.rooms.values_mut() {
                    r.dirty = false;
                }
                for code in ending {
                    if let Some(r) = self.rooms.get_mut(code) {
                        r.ended = true;
                    }
                }
            }
            Err(e) => {
                let dirty: Vec<RoomCode> = self
                    .rooms
                    .iter()
                    .filter(|(_, r)| r.dirty)
                    .map(|(c, _)| c.clone())
                    .collect();
                self.ends.extend(ending.iter().cloned());
                self.give_up(&e, dirty);
            }
        }
    }

    /// A batch's write failed: cut the segment back to its last whole line (or, failing that,
    /// go on in a new one), give up every room the batch wrote for, and, if the disk is full,
    /// free the reserve and write their ends now.
    fn write_failed(&mut self, e: &io::Error, buf: &[u8]) {
        if self.file.set_len(self.len).is_err() {
            self.rotate();
        }
        let mut hit: Vec<RoomCode> = Vec::new();
        let mut rest = buf;
        while let Some(n) = rest.iter().position(|&b| b == b'\n') {
            if let Some(segment::Record::Entry { code, .. }) = segment::parse(&rest[..n]) {
                if let Ok(code) = RoomCode::try_from(code) {
                    hit.push(code);
                }
            }
            rest = &rest[n + 1..];
        }
        hit.sort();
        hit.dedup();
        self.give_up(e, hit);
        if self.reserve && std::fs::remove_file(self.dir.join(RESERVE)).is_ok() {
            self.reserve = false;
            tracing::warn!(error = %e, "the room journal's disk is full: its reserve makes room for the ends of the rooms it gives up");
            let mut ending = std::mem::take(&mut self.ends);
            let mut ends = Vec::new();
            for code in &ending {
                segment::end_line(&mut ends, code.as_str());
            }
            match self.file.write_all(&ends) {
                Ok(()) => {
                    self.len += ends.len() as u64;
                    self.fdatasync(&ending);
                }
                Err(_) => {
                    let _ = self.file.set_len(self.len);
                    self.ends.append(&mut ending);
                }
            }
        }
    }

    /// The journal keeps nothing more of `rooms` (`why`), and ends them on disk as soon as
    /// it can.
    fn give_up(&mut self, why: &dyn std::fmt::Display, rooms: Vec<RoomCode>) {
        for code in rooms {
            if let Some(r) = self.rooms.get_mut(&code) {
                r.dirty = false;
                if !std::mem::replace(&mut r.lost, true) {
                    tracing::error!(room = %code, error = %why,
                        "the room journal cannot keep this room: it goes on without, and would not come back after a crash");
                    self.ends.push(code);
                }
            }
        }
    }

    /// Seal the segment (on disk first) and go on in the next; the compactor gets the sealed.
    fn rotate(&mut self) {
        if self.file.sync_data().is_ok() {
            for r in self.rooms.values_mut() {
                r.dirty = false;
            }
        }
        match open_segment(&self.dir, self.number + 1) {
            Ok(file) => {
                let _ = self.compact.send(self.number);
                self.file = file;
                self.number += 1;
                self.len = 0;
            }
            Err(e) => tracing::error!(error = %e, "the room journal cannot start a new segment"),
        }
    }
}
