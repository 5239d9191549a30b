//! The journal's files: a folder of numbered segments (`00000001.log`, …), read in number
//! order, each a run of record lines. A line is `HASH CODE SEQ ENTRY` (entry `SEQ` of room
//! `CODE`'s log, `ENTRY` as [`crate::room::journal::Logged::encode`] wrote it) or `HASH CODE
//! end` (the room closed: what came before of it is forgotten), where `HASH` is 16 hex digits
//! of FNV-1a over the rest of the line. A line without its newline (a crash mid-write) or whose
//! hash does not match is skipped; [`Rooms`] folds the lines into each live room's log.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Path, PathBuf};

/// A segment's file name ends so.
const EXT: &str = ".log";

/// What a compaction writes before it renames it over its last segment.
pub(super) const TMP_EXT: &str = ".log.tmp";

/// The file name of segment `n`.
pub(super) fn name(n: u64) -> String {
    format!("{n:08}{EXT}")
}

/// Segment `n` of the journal in `dir`.
pub(super) fn path(dir: &Path, n: u64) -> PathBuf {
    dir.join(name(n))
}

/// The segments in `dir`, by number.
pub(super) fn list(dir: &Path) -> io::Result<Vec<(u64, PathBuf)>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        let n = p
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(EXT))
            .and_then(|n| n.parse::<u64>().ok());
        if let Some(n) = n {
            out.push((n, p));
        }
    }
    out.sort();
    Ok(out)
}

/// Make what was renamed, created or removed in `dir` durable.
pub(super) fn sync_dir(dir: &Path) -> io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

/// FNV-1a, 64 bits: enough to tell a torn or scrambled line from a whole one.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Append to `out` the line of a record whose body (everything after the hash) `body` writes.
fn line(out: &mut Vec<u8>, body: impl FnOnce(&mut Vec<u8>)) {
    let at = out.len();
    out.extend_from_slice(b"0000000000000000 ");
    body(out);
    let hash = format!("{:016x}", fnv1a(&out[at + 17..]));
    out[at..at + 16].copy_from_slice(hash.as_bytes());
    out.push(b'\n');
}

/// Append entry `seq` of room `code`'s log.
pub(super) fn entry_line(out: &mut Vec<u8>, code: &str, seq: u64, entry: &[u8]) {
    line(out, |o| {
        o.extend_from_slice(code.as_bytes());
        o.extend_from_slice(format!(" {seq} ").as_bytes());
        o.extend_from_slice(entry);
    });
}

/// Append room `code`'s end.
pub(super) fn end_line(out: &mut Vec<u8>, code: &str) {
    line(out, |o| {
        o.extend_from_slice(code.as_bytes());
        o.extend_from_slice(b" end");
    });
}

/// One record, read back.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Record<'a> {
    /// Entry `seq` of room `code`'s log.
    Entry {
        code: &'a str,
        seq: u64,
        entry: &'a [u8],
    },
    /// Room `code` closed.
    End { code: &'a str },
}

/// A line (without its newline) read back; `None` if its hash or its shape is wrong.
pub(super) fn parse(line: &[u8]) -> Option<Record<'_>> {
    let (hash, body) = (line.get(..16)?, line.get(17..)?);
    let hash = u64::from_str_radix(std::str::from_utf8(hash).ok()?, 16).ok()?;
    if line.get(16) != Some(&b' ') || hash != fnv1a(body) {
        return None;
    }
    let mut parts = body.splitn(3, |&b| b == b' ');
    let code = std::str::from_utf8(parts.next()?).ok()?;
    let second = parts.next()?;
    match parts.next() {
        None if second == b"end" => Some(Record::End { code }),
        Some(entry) => {
            let seq = std::str::from_utf8(second).ok()?.parse().ok()?;
            Some(Record::Entry { code, seq, entry })
        }
        None => None,
    }
}

/// One live room's log as the lines tell it: each entry's whole line, by number (a number
/// given twice is kept once, the first time).
#[derive(Debug, Default)]
pub(super) struct Group {
    pub(super) lines: BTreeMap<u64, Vec<u8>>,
}

impl Group {
    /// Its entries' bytes, in order, if they are numbered 1, 2, … with none missing; else the
    /// first number missing.
    pub(super) fn entries(&self) -> Result<Vec<&[u8]>, u64> {
        let mut out = Vec::with_capacity(self.lines.len());
        for (want, (&seq, line)) in (1..).zip(&self.lines) {
            match parse(line) {
                Some(Record::Entry { entry, .. }) if seq == want => out.push(entry),
                _ => return Err(want),
            }
        }
        Ok(out)
    }

    /// The last entry's number.
    pub(super) fn last(&self) -> u64 {
        self.lines.keys().next_back().copied().unwrap_or(0)
    }
}

/// The rooms that segments read in order leave live: each one's log since its last end.
#[derive(Debug, Default)]
pub(super) struct Rooms {
    pub(super) live: HashMap<String, Group>,
    /// Lines skipped: a wrong hash or shape.
    pub(super) bad: usize,
    /// Segments that ended in a line without its newline (ignored).
    pub(super) torn: usize,
}

impl Rooms {
    /// Fold in one segment's bytes.
    pub(super) fn read(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while let Some(n) = rest.iter().position(|&b| b == b'\n') {
            let (line, next) = rest.split_at(n);
            rest = &next[1..];
            match parse(line) {
                Some(Record::Entry { code, seq, .. }) => {
                    let group = self.live.entry(code.to_owned()).or_default();
                    group.lines.entry(seq).or_insert_with(|| line.to_vec());
                }
                Some(Record::End { code }) => {
                    self.live.remove(code);
                }
                None => self.bad += 1,
            }
        }
        if !rest.is_empty() {
            self.torn += 1;
        }
    }

    /// Read the segments in `dir` numbered up to `upto` (all: `u64::MAX`).
    pub(super) fn read_dir(dir: &Path, upto: u64) -> io::Result<Rooms> {
        let mut rooms = Rooms::default();
        for (n, p) in list(dir)? {
            if n <= upto {
                rooms.read(&std::fs::read(p)?);
            }
        }
        Ok(rooms)
    }

    /// Every live line, room by room (by code) and in number order: a compacted segment.
    pub(super) fn lines(&self) -> Vec<u8> {
        let mut codes: Vec<&String> = self.live.keys().collect();
        codes.sort();
        let mut out = Vec::new();
        for code in codes {
            for l in self.live[code].lines.values() {
                out.extend_from_slice(l);
                out.push(b'\n');
            }
        }
        out
    }
}
