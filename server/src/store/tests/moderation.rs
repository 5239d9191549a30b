//! The suite's cases for A8's moderation and rating rules: bans, flagged results, reports,
//! names, and the races that move no rating.

use engine::Difficulty;
use protocol::FinishStatus;

use super::{duel, race, register, Fixture, Racer, DAY, NOW};
use crate::store::{Period, ReportRecord};

pub(in crate::store) fn a_ban_unrates_and_hides_and_an_unban_restores(store: &Fixture) {
    register(&**store, &["hA", "hB", "hC"]);
    assert_eq!(
        store
            .save_race(&duel("r1", NOW - 3, "hA", "hB"))
            .unwrap()
            .len(),
        2
    );
    assert!(store.set_banned("hA", true).unwrap());
    assert!(!store.set_banned("nobody", true).unwrap(), "no such player");
    assert!(
        store
            .player_by_key(crate::store::key_hash("key-hA"))
            .unwrap()
            .unwrap()
            .banned
    );

    // Banned: off every board, still in its history, not rated again.
    let board = store
        .leaderboard(Difficulty::Easy, Period::All, NOW, 10, 0)
        .unwrap();
    let handles: Vec<&str> = board.iter().map(|r| r.handle.as_str()).collect();
    assert_eq!(handles, ["hB"]);
    assert_eq!(board[0].rank, 1, "positions close up over a banned player");
    assert_eq!(store.history("hA", 10, 0).unwrap().len(), 1);
    assert!(
        store
            .save_race(&duel("r2", NOW - 2, "hA", "hB"))
            .unwrap()
            .is_empty(),
        "a banned player and one other is no rated race"
    );
    let changes = store
        .save_race(&race(
            "r3",
            NOW - 1,
            &[
                Racer("p1", Some("hA"), FinishStatus::Solved, Some(60_000), 1),
                Racer("p2", Some("hB"), FinishStatus::Solved, Some(70_000), 2),
                Racer("p3", Some("hC"), FinishStatus::Forfeited, None, 3),
            ],
        ))
        .unwrap();
    let rated: Vec<&str> = changes.iter().map(|c| c.handle.as_str()).collect();
    assert_eq!(
        rated,
        ["hB", "hC"],
        "the race is rated without the banned seat"
    );
    assert_eq!(
        store.history("hA", 10, 0).unwrap().len(),
        3,
        "its results stay"
    );

    // Unbanned: back on the board with the rating it had.
    assert!(store.set_banned("hA", false).unwrap());
    let board = store
        .leaderboard(Difficulty::Easy, Period::All, NOW, 10, 0)
        .unwrap();
    let a = board.iter().find(|r| r.handle == "hA").expect("hA is back");
    assert_eq!(a.stats.races, 1);
}

pub(in crate::store) fn empty_seats_and_unsolved_races_move_no_rating(store: &Fixture) {
    register(&**store, &["hA", "hB", "hC"]);
    // Everyone forfeits with nothing placed: no rating moves (before A8, σ shrank on the
    // draw and every μ − 3σ climbed).
    let mut empty = race(
        "empty",
        NOW - 2,
        &[
            Racer("p1", Some("hA"), FinishStatus::Forfeited, None, 1),
            Racer("p2", Some("hB"), FinishStatus::Forfeited, None, 1),
        ],
    );
    empty.placements.clear();
    assert!(store.save_race(&empty).unwrap().is_empty());
    // Both placed, nobody solved: no rating moves either.
    let unsolved = race(
        "unsolved",
        NOW - 1,
        &[
            Racer("p1", Some("hA"), FinishStatus::TimedOut, None, 1),
            Racer("p2", Some("hB"), FinishStatus::Eliminated, None, 2),
        ],
    );
    assert!(store.save_race(&unsolved).unwrap().is_empty());
    assert!(store.ratings().unwrap().is_empty());
    // A seat that placed nothing is left out; the others are rated.
    let mut rec = race(
        "one-empty",
        NOW,
        &[
            Racer("p1", Some("hA"), FinishStatus::Solved, Some(70_000), 1),
            Racer("p2", Some("hB"), FinishStatus::Forfeited, None, 2),
            Racer("p3", Some("hC"), FinishStatus::Forfeited, None, 2),
        ],
    );
    rec.placements.retain(|p| p.player_id != "p3");
    let rated: Vec<String> = store
        .save_race(&rec)
        .unwrap()
        .into_iter()
        .map(|c| c.handle)
        .collect();
    assert_eq!(rated, ["hA", "hB"]);
    assert!(store.player("hC").unwrap().unwrap().ratings.is_empty());
}

pub(in crate::store) fn flagged_results_are_listed_newest_first(store: &Fixture) {
    register(&**store, &["hA", "hB"]);
    let mut old = duel("old", NOW - DAY, "hA", "hB");
    old.seats[0].flags = vec!["too_fast".into()];
    let mut new = duel("new", NOW, "hB", "hA");
    new.seats[0].flags = vec!["metronomic".into(), "unjustified".into()];
    store.save_race(&old).unwrap();
    store.save_race(&new).unwrap();
    store.save_race(&duel("clean", NOW, "hA", "hB")).unwrap();
    let got = store.flagged(10, 0).unwrap();
    let ids: Vec<(&str, &str)> = got
        .iter()
        .map(|f| (f.race_id.as_str(), f.handle.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(ids, [("new", "hB"), ("old", "hA")]);
    assert_eq!(got[0].flags, ["metronomic", "unjustified"]);
    assert_eq!(
        (got[0].time_ms, got[0].status.as_str()),
        (Some(70_000), "solved")
    );
    assert_eq!(got[1].finished_unix_ms, NOW - DAY);
    assert_eq!(store.flagged(10, 1).unwrap().len(), 1);
}

fn report(reporter: Option<&str>, name: &str, target: &str, at: i64) -> ReportRecord {
    ReportRecord {
        race_id: "ABCD-1".into(),
        room: "ABCD".into(),
        reporter_handle: reporter.map(str::to_owned),
        reporter_name: name.into(),
        target: target.into(),
        target_handle: Some("hB".into()),
        target_name: "Bob".into(),
        reason: format!("reason at {at}"),
        created_unix_ms: at,
    }
}

pub(in crate::store) fn a_report_is_kept_once(store: &Fixture) {
    let first = report(Some("hA"), "Ann", "p2", NOW - 5);
    store.save_report(&first).unwrap();
    // The same reporter, target and race again: the first is kept.
    store
        .save_report(&report(Some("hA"), "Ann", "p2", NOW - 4))
        .unwrap();
    let anon = report(None, "Zed", "p2", NOW - 3);
    store.save_report(&anon).unwrap();
    store
        .save_report(&report(Some("hA"), "Ann", "p3", NOW - 2))
        .unwrap();
    let got = store.reports(10, 0).unwrap();
    assert_eq!(got.len(), 3);
    assert_eq!(got[2], first);
    assert_eq!(got[1], anon);
    assert_eq!(got[0].target, "p3");
    assert_eq!(store.reports(1, 2).unwrap(), [first]);
}

pub(in crate::store) fn names_follow_the_latest_race(store: &Fixture) {
    register(&**store, &["hA", "hB", "hC"]);
    let mut rec = duel("r2", NOW, "hA", "hB");
    rec.standings[0].name = "Speedy".try_into().unwrap();
    store.save_race(&rec).unwrap();
    // A race that ended earlier, stored later, does not bring back an older name.
    let mut late = duel("r1", NOW - DAY, "hA", "hC");
    late.standings[0].name = "Old".try_into().unwrap();
    store.save_race(&late).unwrap();
    let board = store
        .leaderboard(Difficulty::Easy, Period::All, NOW, 10, 0)
        .unwrap();
    let a = board.iter().find(|r| r.handle == "hA").unwrap();
    assert_eq!(a.name, "Speedy");
    assert_eq!(store.player("hA").unwrap().unwrap().name, "Speedy");
    assert_eq!(store.handles_named("Speedy").unwrap(), ["hA"]);
    assert!(store.handles_named("Old").unwrap().is_empty());
    // Two players under one name: both handles.
    let mut twin = duel("r3", NOW + 1, "hB", "hC");
    twin.standings[0].name = "Speedy".try_into().unwrap();
    store.save_race(&twin).unwrap();
    assert_eq!(store.handles_named("Speedy").unwrap(), ["hA", "hB"]);
}
