//! The results spool's files: written whole, read back equal, oldest first, set aside when
//! refused, and a crash's leftovers ignored.

use protocol::FinishStatus;

use super::{duel, race, Racer, NOW};
use crate::store::spool::{Spool, REFUSED};

fn same(a: &crate::store::RaceRecord, b: &crate::store::RaceRecord) {
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
}

#[test]
fn a_spooled_result_reads_back_whole_in_order_and_survives_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let spool = Spool::open(&dir.path().join("s")).unwrap();
    assert!(spool.pending().unwrap().is_empty());
    let mut first = duel("one", NOW, "hA", "hB");
    first.seats[0].flags = vec!["too_fast".into()];
    first.daily = Some("2026-12-01".into());
    let second = race(
        "two",
        NOW,
        &[Racer("p1", None, FinishStatus::Solved, Some(9), 1)],
    );
    let a = spool.put(&first).unwrap();
    let b = spool.put(&second).unwrap();
    assert_eq!(spool.pending().unwrap(), [a.clone(), b.clone()]);
    same(&Spool::load(&a).unwrap(), &first);
    same(&Spool::load(&b).unwrap(), &second);
    // A crash mid-write leaves a temporary file: the next open removes it and numbers after
    // the highest result.
    std::fs::write(dir.path().join("s/.00000000000000000099.json.tmp"), b"{").unwrap();
    drop(spool);
    let spool = Spool::open(&dir.path().join("s")).unwrap();
    assert_eq!(spool.pending().unwrap(), [a.clone(), b.clone()]);
    let c = spool.put(&first).unwrap();
    assert!(c > b, "{c:?} after {b:?}");
    assert!(!dir.path().join("s/.00000000000000000099.json.tmp").exists());
    spool.remove(&a).unwrap();
    spool.remove(&a).unwrap();
    assert_eq!(spool.pending().unwrap(), [b, c]);
}

#[test]
fn a_refused_result_is_set_aside_not_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let spool = Spool::open(dir.path()).unwrap();
    let rec = duel("bad", NOW, "hA", "hB");
    let path = spool.put(&rec).unwrap();
    let kept = spool.refuse(&path).unwrap();
    assert!(spool.pending().unwrap().is_empty());
    assert!(kept.starts_with(dir.path().join(REFUSED)), "{kept:?}");
    same(&Spool::load(&kept).unwrap(), &rec);
    let direct = spool.put_refused(&rec).unwrap();
    assert!(direct.starts_with(dir.path().join(REFUSED)), "{direct:?}");
    // A file that is not a result is refused, never a panic.
    let junk = dir.path().join("00000000000000000777.json");
    std::fs::write(&junk, br#"{"v":1,"race_id":3}"#).unwrap();
    assert!(Spool::load(&junk).is_err());
    let mut odd = rec.clone();
    odd.reason = "exploded";
    let p = spool.put(&odd).unwrap();
    assert!(Spool::load(&p).is_err());
}
