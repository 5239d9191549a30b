//! The journal on a real folder: what a room logs and syncs is read back at the next open,
//! whole or not at all; closed rooms and compacted segments leave only live rooms behind.

use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use protocol::{RoomCode, Settings};

use super::segment::{self, Rooms};
use super::{compact, LocalJournal, Options, Recovered};
use crate::room::directory::DirectoryFeed;
use crate::room::journal::{Entry, Logged};

const IP: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

fn code(s: &str) -> RoomCode {
    RoomCode::try_from(s).expect("a room code")
}

/// Entry `seq` of room `c`'s log: its opening first, then ticks.
fn entry(c: &str, seq: u64) -> Vec<u8> {
    let entry = match seq {
        1 => Entry::Open {
            code: code(c),
            settings: Settings::default(),
            seed: 7,
            unix_ms: 1_000,
            ip: IP,
            daily: None,
        },
        _ => Entry::Tick {
            unix_ms: 1_000 + i64::try_from(seq).expect("small"),
        },
    };
    Logged { at: seq, entry }.encode()
}

fn opts() -> Options {
    Options {
        segment_bytes: 1 << 20,
        gather: Duration::ZERO,
    }
}

fn open(dir: &Path, opts: Options) -> (std::sync::Arc<LocalJournal>, Vec<Recovered>) {
    LocalJournal::open(dir, opts).expect("the journal opens")
}

/// Log entries `seqs` of room `c`, then wait for its sync.
fn log(j: &LocalJournal, c: &str, seqs: impl IntoIterator<Item = u64>) {
    for seq in seqs {
        j.logged(&code(c), seq, entry(c, seq));
    }
    sync(j, c);
}

fn sync(j: &LocalJournal, c: &str) {
    let answer = j.sync(&code(c)).expect("a sync to wait for");
    assert_eq!(answer.blocking_recv(), Ok(Ok(())));
}

/// Every room read back: its code and how many entries its log has (each a tick after its
/// opening, at the time of its number).
#[track_caller]
fn check(rooms: &[Recovered], expected: &[(&str, u64)]) {
    let got: Vec<(&str, u64)> = rooms
        .iter()
        .map(|r| (r.code.as_str(), r.log.len() as u64))
        .collect();
    assert_eq!(got, expected);
    for r in rooms {
        assert!(matches!(r.log[0].entry, Entry::Open { .. }));
        let ats: Vec<u64> = r.log.iter().map(|l| l.at).collect();
        assert_eq!(ats, (1..=r.log.len() as u64).collect::<Vec<_>>());
    }
}

/// Every segment's bytes (one the compactor removes meanwhile reads as none).
fn all_bytes(dir: &Path) -> Vec<u8> {
    let segments = segment::list(dir).expect("the segments");
    segments
        .iter()
        .flat_map(|(_, p)| std::fs::read(p).unwrap_or_default())
        .collect()
}

#[test]
fn what_a_room_logs_and_syncs_is_read_back_at_the_next_open() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (j, rooms) = open(dir.path(), opts());
    check(&rooms, &[]);
    log(&j, "ABCDE", 1..=3);
    log(&j, "FGHJK", 1..=2);
    log(&j, "ABCDE", 4..=5);
    // The process dies here: no stop, no last fdatasync; what was synced is on disk.
    drop(j);
    let (j, rooms) = open(dir.path(), opts());
    check(&rooms, &[("ABCDE", 5), ("FGHJK", 2)]);
    // A room read back goes on from its last number.
    log(&j, "ABCDE", 6..=6);
    j.stop();
    let (_, rooms) = open(dir.path(), opts());
    check(&rooms, &[("ABCDE", 6), ("FGHJK", 2)]);
}

#[test]
fn a_sync_is_answered_once_the_entries_before_it_are_written_and_fdatasynced() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (j, _) = open(dir.path(), opts());
    log(&j, "ABCDE", 1..=2);
    let written = Rooms::read_dir(dir.path(), u64::MAX).expect("read");
    assert_eq!(
        written.live["ABCDE"].lines.len(),
        2,
        "on disk before the answer"
    );
    assert_eq!(j.stats().fdatasyncs.load(Relaxed), 1);
    // Nothing new since: answered without another fdatasync.
    sync(&j, "ABCDE");
    assert_eq!(j.stats().fdatasyncs.load(Relaxed), 1);
    // Another room's sync does not wait for a room with nothing new either.
    j.logged(&code("FGHJK"), 1, entry("FGHJK", 1));
    sync(&j, "ABCDE");
    assert_eq!(j.stats().fdatasyncs.load(Relaxed), 1);
    sync(&j, "FGHJK");
    assert_eq!(j.stats().fdatasyncs.load(Relaxed), 2);
}

#[test]
fn syncs_gathered_in_one_batch_share_one_fdatasync() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let gather = Options {
        gather: Duration::from_millis(500),
        ..opts()
    };
    let (j, _) = open(dir.path(), gather);
    let rooms = ["ABCDE", "FGHJK", "MNPQR"];
    let answers: Vec<_> = rooms
        .iter()
        .map(|c| {
            j.logged(&code(c), 1, entry(c, 1));
            j.sync(&code(c)).expect("a sync")
        })
        .collect();
    for a in answers {
        assert_eq!(a.blocking_recv(), Ok(Ok(())));
    }
    assert_eq!(j.stats().entries.load(Relaxed), 3);
    assert_eq!(j.stats().fdatasyncs.load(Relaxed), 1);
}

#[test]
fn a_closed_room_is_not_read_back() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (j, _) = open(dir.path(), opts());
    log(&j, "ABCDE", 1..=3);
    log(&j, "FGHJK", 1..=3);
    j.closed(&code("ABCDE"), IP);
    // A room that never logged anything (a ghost room) leaves no line when it closes.
    j.closed(&code("ZZZZZ"), IP);
    j.stop();
    let (j, rooms) = open(dir.path(), opts());
    check(&rooms, &[("FGHJK", 3)]);
    let text = String::from_utf8(all_bytes(dir.path())).expect("text");
    assert!(!text.contains("ZZZZZ"), "{text}");
    // A code used again after its room closed is a new room.
    log(&j, "ABCDE", 1..=2);
    j.stop();
    let (_, rooms) = open(dir.path(), opts());
    check(&rooms, &[("ABCDE", 2), ("FGHJK", 3)]);
}

#[test]
fn the_same_number_given_twice_is_kept_once() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (j, _) = open(dir.path(), opts());
    log(&j, "ABCDE", [1, 2, 2, 3, 1, 3, 4]);
    j.stop();
    let lines = Rooms::read_dir(dir.path(), u64::MAX).expect("read");
    let text = String::from_utf8(all_bytes(dir.path())).expect("text");
    assert_eq!(text.lines().count(), 4, "{text}");
    // Read twice over (a compaction's copy beside the segments it came from): kept once.
    let mut twice = Rooms::default();
    twice.read(text.as_bytes());
    twice.read(text.as_bytes());
    assert_eq!(twice.live["ABCDE"].lines, lines.live["ABCDE"].lines);
    let (_, rooms) = open(dir.path(), opts());
    check(&rooms, &[("ABCDE", 4)]);
}

#[test]
fn a_torn_last_line_is_ignored_and_a_room_missing_an_entry_is_dropped_whole() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (j, _) = open(dir.path(), opts());
    log(&j, "ABCDE", 1..=4);
    log(&j, "FGHJK", 1..=3);
    log(&j, "MNPQR", 1..=3);
    j.stop();
    let (_, path) = segment::list(dir.path())
        .expect("list")
        .pop()
        .expect("a segment");
    let text = std::fs::read_to_string(&path).expect("read");
    // FGHJK's second entry scrambled (its hash no longer matches), and a crash mid-write of
    // MNPQR's fourth.
    let scrambled = text.replacen("FGHJK 2 {\"at\":2", "FGHJK 2 {\"at\":9", 1);
    assert_ne!(scrambled, text);
    let mut torn = Vec::new();
    segment::entry_line(&mut torn, "MNPQR", 4, &entry("MNPQR", 4));
    let torn = &torn[..torn.len() / 2];
    let mut bytes = scrambled.into_bytes();
    bytes.extend_from_slice(torn);
    std::fs::write(&path, bytes).expect("write");
    let (j, rooms) = open(dir.path(), opts());
    check(&rooms, &[("ABCDE", 4), ("MNPQR", 3)]);
    // The room dropped is ended in the journal: it is not read at the next start either,
    // and the rest goes on after the torn line, in a segment of its own.
    log(&j, "MNPQR", 4..=4);
    j.stop();
    let (_, rooms) = open(dir.path(), opts());
    check(&rooms, &[("ABCDE", 4), ("MNPQR", 4)]);
}

#[test]
fn a_room_given_up_is_ended_before_its_sync_is_answered_and_never_read_back() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (j, _) = open(dir.path(), opts());
    log(&j, "ABCDE", 1..=2);
    log(&j, "FGHJK", 1..=2);
    // Entry 3 never reaches the journal: what it has of the room would replay as another room.
    // The room goes on without it once its end is on disk.
    log(&j, "ABCDE", [4, 5]);
    let text = String::from_utf8(all_bytes(dir.path())).expect("text");
    assert!(text.contains("ABCDE end"), "{text}");
    assert!(!text.contains("ABCDE 4 "), "{text}");
    log(&j, "FGHJK", 3..=3);
    // The process dies here.
    drop(j);
    let (_, rooms) = open(dir.path(), opts());
    check(&rooms, &[("FGHJK", 3)]);
}

#[test]
fn an_entry_that_does_not_decode_drops_its_room_whole() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (j, _) = open(dir.path(), opts());
    log(&j, "ABCDE", 1..=2);
    j.logged(&code("FGHJK"), 1, entry("FGHJK", 1));
    // An entry of a format this server does not read (a newer one), checksummed and whole.
    j.logged(&code("FGHJK"), 2, br#"{"at":2,"t":"warp"}"#.to_vec());
    log(&j, "FGHJK", 3..=3);
    j.stop();
    let (_, rooms) = open(dir.path(), opts());
    check(&rooms, &[("ABCDE", 2)]);
}

#[test]
fn compaction_keeps_the_live_rooms_only() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (j, _) = open(dir.path(), opts());
    log(&j, "ABCDE", 1..=20);
    log(&j, "FGHJK", 1..=20);
    j.closed(&code("ABCDE"), IP);
    log(&j, "MNPQR", 1..=5);
    j.stop();
    let before = all_bytes(dir.path()).len();
    let (last, _) = *segment::list(dir.path())
        .expect("list")
        .last()
        .expect("one");
    let done = compact::compact(dir.path(), last).expect("compacted");
    assert_eq!(done.rooms, 2);
    let text = String::from_utf8(all_bytes(dir.path())).expect("text");
    assert!(!text.contains("ABCDE"), "{text}");
    assert!(text.len() < before);
    let (_, rooms) = open(dir.path(), opts());
    check(&rooms, &[("FGHJK", 20), ("MNPQR", 5)]);
}

#[test]
fn sealed_segments_are_compacted_off_the_writer_down_to_the_live_rooms() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let small = Options {
        segment_bytes: 2_000,
        ..opts()
    };
    let (j, _) = open(dir.path(), small.clone());
    log(&j, "FGHJK", 1..=5);
    for round in 0..40 {
        // A room opens, runs and closes: its lines go with the next compaction.
        log(&j, "ABCDE", 1..=10);
        j.closed(&code("ABCDE"), IP);
        log(&j, "FGHJK", 6 + round..=6 + round);
    }
    // The compactor works on its own thread: wait until it has caught up with the writer
    // (the sealed segments are one, beside the one written to).
    let deadline = testkit::wait::Deadline::after(Duration::from_secs(20));
    while segment::list(dir.path()).map_or(true, |s| s.len() > 2) {
        deadline.check("the sealed segments compacted");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Of the 40 closed rooms, at most the last few are still there: one whose end came after
    // the last seal, and those in the segment written to (about 600 bytes a room).
    let text = String::from_utf8(all_bytes(dir.path())).expect("text");
    assert!(text.matches("ABCDE 1 ").count() <= 6, "{text}");
    j.stop();
    let (_, rooms) = open(dir.path(), small);
    check(&rooms, &[("FGHJK", 45)]);
}
