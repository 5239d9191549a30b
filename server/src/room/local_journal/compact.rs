//! Compaction, off the writer's path: the sealed segments up to `n` are read, the lines of the
//! rooms still live in them are written to a new file, which (once on disk) replaces segment
//! `n`, and the segments before it are removed, oldest first. A crash at any step leaves a
//! journal that reads the same: before the rename the old segments are all there; after it,
//! a live room's lines are in both the old segments left and segment `n`, and a number read
//! twice is kept once; a room whose end is in a removed segment had all its lines there too.

use std::path::{Path, PathBuf};
use std::sync::mpsc;

use super::segment::{self, Rooms};

/// What one compaction did.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Compacted {
    /// Segments read (and all but the last removed).
    pub(super) segments: usize,
    /// Bytes read, and bytes kept.
    pub(super) read: u64,
    pub(super) kept: u64,
    /// Live rooms kept.
    pub(super) rooms: usize,
}

/// Compact the segments of `dir` numbered up to `upto` into segment `upto`.
pub(super) fn compact(dir: &Path, upto: u64) -> std::io::Result<Compacted> {
    let sealed: Vec<(u64, PathBuf)> = segment::list(dir)?
        .into_iter()
        .filter(|(n, _)| *n <= upto)
        .collect();
    let mut rooms = Rooms::default();
    let mut read = 0;
    for (_, p) in &sealed {
        let bytes = std::fs::read(p)?;
        read += bytes.len() as u64;
        rooms.read(&bytes);
    }
    let kept = rooms.lines();
    let tmp = dir.join(format!("{upto:08}{}", segment::TMP_EXT));
    {
        let mut f = std::fs::File::create(&tmp)?;
        std::io::Write::write_all(&mut f, &kept)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, segment::path(dir, upto))?;
    segment::sync_dir(dir)?;
    for (n, p) in &sealed {
        if *n < upto {
            std::fs::remove_file(p)?;
        }
    }
    Ok(Compacted {
        segments: sealed.len(),
        read,
        kept: kept.len() as u64,
        rooms: rooms.live.len(),
    })
}

/// Compact `dir` up to each number `rx` gives (the latest of those queued), until it closes.
pub(super) fn run(dir: PathBuf, rx: mpsc::Receiver<u64>) {
    while let Ok(mut upto) = rx.recv() {
        while let Ok(n) = rx.try_recv() {
            upto = upto.max(n);
        }
        match compact(&dir, upto) {
            Ok(c) => tracing::info!(
                segments = c.segments,
                read = c.read,
                kept = c.kept,
                rooms = c.rooms,
                "room journal compacted"
            ),
            Err(e) => tracing::error!(error = %e, dir = %dir.display(),
                "the room journal could not be compacted (tried again at the next segment)"),
        }
    }
}
