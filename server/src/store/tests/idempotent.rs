//! The suite's case for a race stored twice (A9): a spooled result lands again after a crash
//! between its commit and its file's removal, and two nodes may store one race at a takeover.
//! The second save writes nothing and answers the rating changes of the first.

use super::{duel, register, Fixture, NOW};

pub(in crate::store) fn a_race_stored_twice_is_a_no_op_with_its_first_changes(store: &Fixture) {
    register(&**store, &["hA", "hB"]);
    let rec = duel("twice-stored", NOW, "hA", "hB");
    let first = store.save_race(&rec).unwrap();
    assert_eq!(first.len(), 2, "{first:?}");
    let standings = store.standings("twice-stored").unwrap();
    let placements = store.placement_count("twice-stored").unwrap();
    // The same race again, even with different contents, changes nothing.
    let mut again = rec.clone();
    again.standings.reverse();
    again.placements.truncate(1);
    again.reason = "time_limit";
    assert_eq!(store.save_race(&again).unwrap(), first);
    assert_eq!(store.save_race(&rec).unwrap(), first);
    assert_eq!(store.standings("twice-stored").unwrap(), standings);
    assert_eq!(store.placement_count("twice-stored").unwrap(), placements);
    assert_eq!(
        store.race_reason("twice-stored").unwrap().as_deref(),
        Some(rec.reason)
    );
    let page = store.player("hA").unwrap().unwrap();
    assert_eq!(page.ratings[0].stats.races, 1, "{page:?}");
    // An unrated race stored twice answers no change either time.
    let mut unrated = duel("unrated-twice", NOW, "hA", "hB");
    unrated.rated = false;
    assert!(store.save_race(&unrated).unwrap().is_empty());
    assert!(store.save_race(&unrated).unwrap().is_empty());
}

/// A race the database refuses (a seat of a handle nobody registered breaks a foreign key) is
/// a refusal, not a failure to retry: the spool sets it aside rather than wait on it (A9).
pub(in crate::store) fn a_refused_race_is_no_transient_failure(store: &Fixture) {
    let rec = duel("nobody", NOW, "hNobody", "hNobodyElse");
    let err = store
        .save_race(&rec)
        .expect_err("unknown handles are refused");
    assert!(!err.is_transient(), "{err}");
    assert_eq!(
        store.race_reason("nobody").unwrap(),
        None,
        "nothing of it is kept"
    );
}
