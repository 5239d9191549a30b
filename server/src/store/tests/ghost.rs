//! The suite's cases for ghosts (A7): best solves, `ghost_of`, and [`Store::ghost_source`].

use engine::Difficulty;
use protocol::FinishStatus;

use super::{race, register, Fixture, Racer, NOW};
use crate::store::{BestSolve, GhostMove, GhostRef, PlacementRecord, Store};

/// A one-seat race of `handle`, unrated.
fn solo(id: &str, handle: &'static str, time_ms: Option<u64>) -> crate::store::RaceRecord {
    let status = match time_ms {
        Some(_) => FinishStatus::Solved,
        None => FinishStatus::Forfeited,
    };
    let mut rec = race(id, NOW, &[Racer("p1", Some(handle), status, time_ms, 1)]);
    rec.rated = false;
    rec
}

fn best(store: &dyn Store, handle: &str) -> Vec<(String, u64, String)> {
    let page = store.player(handle).unwrap().unwrap();
    page.best
        .into_iter()
        .map(|b: BestSolve| (b.difficulty, b.time_ms, b.race_id))
        .collect()
}

#[track_caller]
fn check_best(store: &dyn Store, handle: &str, expected: &[(&str, u64, &str)]) {
    let expected: Vec<(String, u64, String)> = expected
        .iter()
        .map(|&(d, t, r)| (d.to_owned(), t, r.to_owned()))
        .collect();
    assert_eq!(best(store, handle), expected);
}

pub(in crate::store) fn a_best_solve_is_the_fastest_of_any_race(store: &Fixture) {
    register(&**store, &["hA", "hB"]);
    store
        .save_race(&super::duel("rated", NOW, "hA", "hB"))
        .unwrap();
    check_best(&**store, "hA", &[("easy", 70_000, "rated")]);
    check_best(&**store, "hB", &[]);
    // Unrated and daily races count; an equal time keeps the earlier race.
    let mut daily = solo("daily", "hA", Some(50_000));
    daily.daily = Some("2026-12-01".into());
    store.save_race(&daily).unwrap();
    store.save_race(&solo("tie", "hA", Some(50_000))).unwrap();
    store.save_race(&solo("slow", "hA", Some(60_000))).unwrap();
    check_best(&**store, "hA", &[("easy", 50_000, "daily")]);
    // A flagged seat's time does not count.
    let mut flagged = solo("flagged", "hA", Some(40_000));
    flagged.seats[0].flags = vec!["too_fast".into()];
    store.save_race(&flagged).unwrap();
    // A ghost race replays a puzzle its racer may have seen: it is no best, but it keeps what
    // it was the ghost of.
    let mut ghost = solo("ghost", "hA", Some(30_000));
    ghost.difficulty = "medium";
    ghost.ghost_of = Some("rated".into());
    store.save_race(&ghost).unwrap();
    store.save_race(&ghost).unwrap();
    check_best(&**store, "hA", &[("easy", 50_000, "daily")]);
    let replay = store.replay("ghost").unwrap().unwrap();
    assert_eq!(replay.race.ghost_of.as_deref(), Some("rated"));
    assert_eq!(store.replay("daily").unwrap().unwrap().race.ghost_of, None);
}

/// A race of hA (rank 1, 70 s) and hB (rank 2, 80 s) whose placements interleave.
fn two_solvers(id: &str) -> crate::store::RaceRecord {
    let mut rec = race(
        id,
        NOW,
        &[
            Racer("p1", Some("hA"), FinishStatus::Solved, Some(70_000), 1),
            Racer("p2", Some("hB"), FinishStatus::Solved, Some(80_000), 2),
        ],
    );
    rec.rated = false;
    let put = |player: &str, at_ms, cell, digit, outcome| PlacementRecord {
        player_id: player.into(),
        at_ms,
        cell,
        digit,
        outcome,
    };
    rec.placements = vec![
        put("p1", 5, 3, 4, "accepted"),
        put("p2", 7, 10, 2, "accepted"),
        put("p1", 9, 4, 5, "wrong"),
        put("p1", 12, 20, 9, "accepted"),
    ];
    rec
}

pub(in crate::store) fn a_ghost_is_found_by_race_best_and_daily(store: &Fixture) {
    register(&**store, &["hA", "hB"]);
    store.save_race(&two_solvers("g1")).unwrap();
    let got = store.ghost_source(&GhostRef::Race("g1")).unwrap().unwrap();
    assert_eq!(
        (
            got.race_id.as_str(),
            got.player_id.as_str(),
            got.name.as_str()
        ),
        ("g1", "p1", "name-hA")
    );
    assert_eq!((got.handle.as_deref(), got.time_ms), (Some("hA"), 70_000));
    assert_eq!(got.difficulty, Difficulty::Easy);
    assert_eq!((got.puzzle.len(), got.solution.len()), (81, 81));
    let step = |at_ms, cell, digit| GhostMove { at_ms, cell, digit };
    assert_eq!(got.moves, [step(5, 3, 4), step(12, 20, 9)]);

    let best_b = GhostRef::Best {
        handle: "hB",
        difficulty: Difficulty::Easy,
    };
    let got = store.ghost_source(&best_b).unwrap().unwrap();
    assert_eq!((got.player_id.as_str(), got.time_ms), ("p2", 80_000));
    assert_eq!(got.moves, [step(7, 10, 2)]);

    // Nothing to race: no such race, no solve, no best at that difficulty.
    let none = |g: GhostRef<'_>| store.ghost_source(&g).unwrap();
    assert_eq!(none(GhostRef::Race("nope")), None);
    store.save_race(&solo("unsolved", "hA", None)).unwrap();
    assert_eq!(none(GhostRef::Race("unsolved")), None);
    for (handle, difficulty) in [("hB", Difficulty::Hard), ("nobody", Difficulty::Easy)] {
        assert_eq!(none(GhostRef::Best { handle, difficulty }), None);
    }

    // The daily's winner is its fastest solver, whoever played first.
    let daily = |id, handle, time| {
        let mut rec = solo(id, handle, time);
        rec.daily = Some("2026-12-01".into());
        rec
    };
    let today = GhostRef::Daily {
        date: "2026-12-01",
        difficulty: Difficulty::Easy,
    };
    store.save_race(&daily("d1", "hA", None)).unwrap();
    assert_eq!(none(today), None, "nobody solved it yet");
    store.save_race(&daily("d2", "hB", Some(95_000))).unwrap();
    let got = store.ghost_source(&today).unwrap().unwrap();
    assert_eq!(
        (got.race_id.as_str(), got.handle.as_deref()),
        ("d2", Some("hB"))
    );
    assert_eq!(got.time_ms, 95_000);
    let other_day = GhostRef::Daily {
        date: "2026-12-02",
        difficulty: Difficulty::Easy,
    };
    assert_eq!(none(other_day), None);
}

#[test]
fn the_wire_names_a_ghost() {
    let easy = Difficulty::Easy;
    let today = "2026-12-01";
    assert_eq!(
        GhostRef::from_wire("best", Some("hA"), easy, today),
        Some(GhostRef::Best {
            handle: "hA",
            difficulty: easy
        })
    );
    assert_eq!(GhostRef::from_wire("best", None, easy, today), None);
    assert_eq!(
        GhostRef::from_wire("daily", None, easy, today),
        Some(GhostRef::Daily {
            date: today,
            difficulty: easy
        })
    );
    assert_eq!(
        GhostRef::from_wire("R1", Some("hA"), easy, today),
        Some(GhostRef::Race("R1"))
    );
}

/// Solves stored before `best_solves` existed (players inserted by the caller: the key hash's
/// literal is the dialect's own): hA's fastest easy solve is `b` (`c` is flagged, `e` ties it
/// later), its only hard one `d`; hB never solved.
pub(in crate::store) const OLD_SOLVES: &str = "
INSERT INTO races (race_id, room, difficulty, puzzle, solution, started_unix_ms, duration_ms,
        reason, rated, daily)
    VALUES ('a', 'R', 'easy', 'p', 's', 0, 100, 'all_done', FALSE, NULL),
        ('b', 'R', 'easy', 'p', 's', 0, 200, 'all_done', FALSE, NULL),
        ('c', 'R', 'easy', 'p', 's', 0, 300, 'all_done', FALSE, NULL),
        ('d', 'R', 'hard', 'p', 's', 0, 400, 'all_done', FALSE, NULL),
        ('e', 'R', 'easy', 'p', 's', 0, 500, 'all_done', FALSE, NULL);
INSERT INTO standings (race_id, rank, player_id, name, status, time_ms, filled, mistakes)
    VALUES ('a', 1, 'p1', 'ann', 'solved', 60000, 50, 0),
        ('b', 1, 'p1', 'ann', 'solved', 50000, 50, 0),
        ('c', 1, 'p1', 'ann', 'solved', 40000, 50, 0),
        ('d', 1, 'p1', 'ann', 'solved', 90000, 50, 0),
        ('d', 2, 'p2', 'bob', 'forfeited', NULL, 3, 0),
        ('e', 1, 'p1', 'ann', 'solved', 50000, 50, 0);
INSERT INTO seats (race_id, player_id, handle, bot, flags, finished_unix_ms)
    VALUES ('a', 'p1', 'hA', FALSE, '', 100), ('b', 'p1', 'hA', FALSE, '', 200),
        ('c', 'p1', 'hA', FALSE, 'too_fast', 300), ('d', 'p1', 'hA', FALSE, '', 400),
        ('d', 'p2', 'hB', FALSE, '', 400), ('e', 'p1', 'hA', FALSE, '', 500);
";

/// After the migration, the best solves of [`OLD_SOLVES`] are there, and races stored before
/// were no ghost races.
#[track_caller]
pub(in crate::store) fn check_old_solves(store: &dyn Store) {
    check_best(store, "hA", &[("easy", 50_000, "b"), ("hard", 90_000, "d")]);
    check_best(store, "hB", &[]);
    assert_eq!(store.replay("a").unwrap().unwrap().race.ghost_of, None);
}
