//! The store's behaviour through the trait, as one suite that every implementation passes:
//! each case is a function of a [`Fixture`], and [`store_suite!`] makes a `#[test]` of each
//! for one backend (SQLite in `sqlite/tests.rs`, PostgreSQL in `postgres/tests.rs`).

use engine::Difficulty;
use protocol::{FinishStatus, Standing};

use std::sync::Arc;

use super::*;
use crate::store::recompute::recompute;

mod arena;
mod ghost;
mod idempotent;
mod isomorph;
mod moderation;
mod spool;
pub(super) use arena::an_arena_is_kept_and_replaced;
pub(super) use ghost::{
    a_best_solve_is_the_fastest_of_any_race, a_ghost_is_found_by_race_best_and_daily,
    check_old_solves, OLD_SOLVES,
};
pub(super) use idempotent::{
    a_race_stored_twice_is_a_no_op_with_its_first_changes, a_refused_race_is_no_transient_failure,
};
pub(super) use isomorph::a_seat_keeps_its_own_isomorph;
pub(super) use moderation::{
    a_ban_unrates_and_hides_and_an_unban_restores, a_report_is_kept_once,
    empty_seats_and_unsolved_races_move_no_rating, flagged_results_are_listed_newest_first,
    names_follow_the_latest_race,
};

/// 2026-12-01 13:14:15 UTC, a Tuesday.
pub(super) const NOW: i64 = 1_796_130_855_000;
pub(super) const DAY: i64 = 86_400_000;

/// A fresh, empty store, and what keeps its database alive.
pub(super) struct Fixture {
    /// The store under test.
    pub store: Arc<dyn Store>,
    /// Run SQL on the database behind the store's back (to damage it on purpose).
    pub exec: Box<dyn Fn(&str)>,
    /// The temp dir or scratch database, dropped after the store.
    pub _keep: Box<dyn std::any::Any>,
}

impl std::ops::Deref for Fixture {
    type Target = dyn Store;
    fn deref(&self) -> &(dyn Store + 'static) {
        &*self.store
    }
}

/// One `#[test]` per case of the suite, each on a fresh store from `$open: fn() -> Fixture`.
macro_rules! store_suite {
    ($open:path) => {
        $crate::store::tests::store_suite!(@cases $open;
            save_and_read_back,
            registration_and_lookup_by_key,
            a_rated_race_moves_ratings_and_shows_everywhere,
            flagged_doubled_and_lone_seats_are_not_rated,
            boards_keep_to_their_periods,
            a_daily_attempt_is_remembered,
            ratings_recompute_from_history,
            a_best_solve_is_the_fastest_of_any_race,
            a_ghost_is_found_by_race_best_and_daily,
            an_arena_is_kept_and_replaced,
            a_ban_unrates_and_hides_and_an_unban_restores,
            a_report_is_kept_once,
            empty_seats_and_unsolved_races_move_no_rating,
            flagged_results_are_listed_newest_first,
            names_follow_the_latest_race,
            a_seat_keeps_its_own_isomorph,
            a_race_stored_twice_is_a_no_op_with_its_first_changes,
            a_refused_race_is_no_transient_failure
        );
    };
    (@cases $open:path; $($case:ident),*) => {
        $(
            #[test]
            fn $case() {
                $crate::store::tests::$case(&$open());
            }
        )*
    };
}
pub(super) use store_suite;

/// A racer: player id, handle, status, time (if solved), rank.
pub(super) struct Racer(
    pub(super) &'static str,
    pub(super) Option<&'static str>,
    pub(super) FinishStatus,
    pub(super) Option<u64>,
    pub(super) u32,
);

pub(super) fn race(id: &str, finished: i64, racers: &[Racer]) -> RaceRecord {
    RaceRecord {
        race_id: id.into(),
        room: "ABCD".into(),
        difficulty: "easy",
        puzzle: ".".repeat(81),
        solution: "1".repeat(81),
        started_unix_ms: finished - 60_000,
        duration_ms: 60_000,
        reason: "all_done",
        rated: true,
        daily: None,
        ghost_of: None,
        standings: racers
            .iter()
            .map(|r| Standing {
                rank: r.4,
                player_id: r.0.into(),
                // A seat's name becomes its player's (A8): keep the registered one here.
                name: r
                    .1
                    .map_or_else(|| r.0.to_owned(), |h| format!("name-{h}"))
                    .as_str()
                    .try_into()
                    .unwrap(),
                status: r.2,
                time_ms: r.3,
                filled: 40,
                mistakes: 1,
                time_ms_raw: None,
                lag_ms: 0,
                puzzle: None,
                solution: None,
                layout: protocol::variant::WireLayout::default(),
            })
            .collect(),
        seats: racers
            .iter()
            .map(|r| SeatRecord {
                player_id: r.0.into(),
                handle: r.1.map(str::to_owned),
                bot: false,
                flags: Vec::new(),
            })
            .collect(),
        placements: [
            PlacementRecord {
                player_id: racers[0].0.into(),
                at_ms: 5,
                cell: 3,
                digit: 4,
                outcome: "accepted",
            },
            PlacementRecord {
                player_id: racers[0].0.into(),
                at_ms: 9,
                cell: 4,
                digit: 5,
                outcome: "wrong",
            },
        ]
        .into_iter()
        // Every other seat placed something too (A8: a seat that placed nothing is unrated).
        .chain(racers.iter().skip(1).map(|r| PlacementRecord {
            player_id: r.0.into(),
            at_ms: 11,
            cell: 5,
            digit: 6,
            outcome: "accepted",
        }))
        .collect(),
    }
}

pub(super) fn duel(
    id: &str,
    finished: i64,
    winner: &'static str,
    loser: &'static str,
) -> RaceRecord {
    race(
        id,
        finished,
        &[
            Racer("p1", Some(winner), FinishStatus::Solved, Some(70_000), 1),
            Racer("p2", Some(loser), FinishStatus::Forfeited, None, 2),
        ],
    )
}

pub(super) fn register(store: &dyn Store, handles: &[&str]) {
    for h in handles {
        store
            .register(
                h,
                key_hash(&format!("key-{h}")),
                &format!("name-{h}"),
                NOW - 10 * DAY,
            )
            .unwrap();
    }
}

pub(super) fn save_and_read_back(store: &Fixture) {
    let mut rec = race(
        "r1",
        NOW,
        &[Racer("p1", None, FinishStatus::Solved, Some(1234), 1)],
    );
    rec.rated = false;
    // A8: the raw time and the lag the time was compensated by are kept beside it.
    rec.standings[0].time_ms_raw = Some(1234 + 312);
    rec.standings[0].lag_ms = 312;
    assert!(store.save_race(&rec).unwrap().is_empty());
    let got = store.standings("r1").unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(
        (got[0].status.as_str(), got[0].time_ms),
        ("solved", Some(1234))
    );
    assert_eq!((got[0].time_ms_raw, got[0].lag_ms), (Some(1546), 312));
    assert_eq!(store.placement_count("r1").unwrap(), 2);
    assert_eq!(
        store.race_reason("r1").unwrap().as_deref(),
        Some("all_done")
    );
    assert!(store.standings("nope").unwrap().is_empty());
    assert!(store.replay("nope").unwrap().is_none());
}

pub(super) fn registration_and_lookup_by_key(store: &Fixture) {
    register(&**store, &["hA"]);
    let got = store.player_by_key(key_hash("key-hA")).unwrap();
    assert_eq!(
        got,
        Some(PlayerRow {
            handle: "hA".into(),
            name: "name-hA".into(),
            banned: false,
        })
    );
    assert_eq!(store.player_by_key(key_hash("other")).unwrap(), None);
    let taken = store.register("hA", key_hash("fresh"), "x", NOW);
    assert!(matches!(taken, Err(StoreError::HandleTaken { handle }) if handle == "hA"));
    let key_again = store.register("hB", key_hash("key-hA"), "x", NOW);
    assert!(matches!(key_again, Err(StoreError::KeyTaken)));
    let page = store.player("hA").unwrap().unwrap();
    assert_eq!((page.name.as_str(), page.ratings.len()), ("name-hA", 0));
    assert_eq!(store.player("nobody").unwrap(), None);
}

pub(super) fn a_rated_race_moves_ratings_and_shows_everywhere(store: &Fixture) {
    register(&**store, &["hA", "hB", "hC"]);
    let mut rec = race(
        "r1",
        NOW,
        &[
            Racer("p1", Some("hA"), FinishStatus::Solved, Some(70_000), 1),
            Racer("p2", Some("hB"), FinishStatus::Solved, Some(80_000), 2),
            Racer("p3", Some("hC"), FinishStatus::Solved, Some(60_000), 3),
            Racer("p4", None, FinishStatus::Eliminated, None, 4),
        ],
    );
    rec.seats[2].bot = true;
    let changes = store.save_race(&rec).unwrap();
    let handles: Vec<&str> = changes.iter().map(|c| c.handle.as_str()).collect();
    assert_eq!(
        handles,
        ["hA", "hB"],
        "the bot and the anonymous seat are not rated"
    );
    assert!(changes[0].after > changes[0].before);
    assert!(changes[1].after < changes[0].after);
    assert_eq!(changes[0].player_id, "p1");

    let board = store
        .leaderboard(Difficulty::Easy, Period::Day, NOW, 10, 0)
        .unwrap();
    assert_eq!(board.len(), 2);
    assert_eq!((board[0].rank, board[0].handle.as_str()), (1, "hA"));
    assert_eq!(
        (
            board[0].stats.races,
            board[0].stats.wins,
            board[0].stats.best_time_ms
        ),
        (1, 1, Some(70_000))
    );
    assert_eq!(board[0].stats.rating, changes[0].after);
    assert_eq!(board[1].stats.wins, 0);
    assert_eq!(board[0].name, "name-hA");
    let second = store
        .leaderboard(Difficulty::Easy, Period::All, NOW, 10, 1)
        .unwrap();
    assert_eq!((second[0].rank, second[0].handle.as_str()), (2, "hB"));
    assert!(store
        .leaderboard(Difficulty::Hard, Period::All, NOW, 10, 0)
        .unwrap()
        .is_empty());

    let page = store.player("hA").unwrap().unwrap();
    assert_eq!(page.ratings.len(), 1);
    assert_eq!(
        (
            page.ratings[0].difficulty.as_str(),
            page.ratings[0].stats.races
        ),
        ("easy", 1)
    );
    assert_eq!(page.ratings[0].stats.rating, changes[0].after);

    let hist = store.history("hA", 10, 0).unwrap();
    assert_eq!(hist.len(), 1);
    let h = &hist[0];
    assert_eq!(
        (h.race_id.as_str(), h.rank, h.players, h.rated),
        ("r1", 1, 4, true)
    );
    assert_eq!(
        (h.rating_before, h.rating_after),
        (Some(changes[0].before), Some(changes[0].after))
    );
    assert_eq!(h.finished_unix_ms, NOW);
    let bot_hist = store.history("hC", 10, 0).unwrap();
    assert_eq!((bot_hist[0].rating_before, bot_hist[0].rated), (None, true));

    let replay = store.replay("r1").unwrap().unwrap();
    assert!(replay.race.rated);
    assert_eq!(replay.players.len(), 4);
    assert_eq!(replay.players[2].handle.as_deref(), Some("hC"));
    assert!(replay.players[2].bot);
    let at: Vec<(u64, &str)> = replay
        .placements
        .iter()
        .filter(|p| p.player_id == "p1")
        .map(|p| (p.at_ms, p.outcome.as_str()))
        .collect();
    assert_eq!(at, [(5, "accepted"), (9, "wrong")]);
}

pub(super) fn flagged_doubled_and_lone_seats_are_not_rated(store: &Fixture) {
    register(&**store, &["hA", "hB", "hC"]);
    let mut rec = duel("flagged", NOW, "hA", "hB");
    rec.seats[0].flags = vec!["too_fast".into()];
    assert!(
        store.save_race(&rec).unwrap().is_empty(),
        "one rated seat is no race"
    );
    assert_eq!(store.history("hA", 1, 0).unwrap()[0].flags, ["too_fast"]);
    let twice = duel("twice", NOW, "hA", "hA");
    assert!(store.save_race(&twice).unwrap().is_empty());
    let mut unrated = duel("unrated", NOW, "hA", "hB");
    unrated.rated = false;
    assert!(store.save_race(&unrated).unwrap().is_empty());
    assert!(store.ratings().unwrap().is_empty());
    // Stored twice, a rated race counts once.
    let rec = duel("once", NOW, "hA", "hC");
    let first = store.save_race(&rec).unwrap();
    assert_eq!(first.len(), 2);
    assert_eq!(store.save_race(&rec).unwrap(), first);
    assert_eq!(
        store.player("hA").unwrap().unwrap().ratings[0].stats.races,
        1
    );
}

pub(super) fn boards_keep_to_their_periods(store: &Fixture) {
    register(&**store, &["hA", "hB", "hC"]);
    // Yesterday (Monday, same week and month): hB beats hA.
    store
        .save_race(&duel("mon", NOW - DAY, "hB", "hA"))
        .unwrap();
    // Last month: hC beats hB.
    store
        .save_race(&duel("nov", NOW - 5 * DAY, "hC", "hB"))
        .unwrap();
    // Today: hA beats hC.
    store.save_race(&duel("tue", NOW, "hA", "hC")).unwrap();
    let who = |p: Period| -> Vec<(String, u32)> {
        store
            .leaderboard(Difficulty::Easy, p, NOW, 10, 0)
            .unwrap()
            .into_iter()
            .map(|r| (r.handle, r.stats.races))
            .collect()
    };
    let mut day = who(Period::Day);
    day.sort();
    assert_eq!(day, [("hA".into(), 1), ("hC".into(), 1)]);
    let mut week = who(Period::Week);
    week.sort();
    assert_eq!(week, [("hA".into(), 2), ("hB".into(), 1), ("hC".into(), 1)]);
    let mut all = who(Period::All);
    all.sort();
    assert_eq!(all, [("hA".into(), 2), ("hB".into(), 2), ("hC".into(), 2)]);
    // The week board's rating is the one after the player's last race.
    let page = store.player("hA").unwrap().unwrap();
    let week_a = store
        .leaderboard(Difficulty::Easy, Period::Week, NOW, 10, 0)
        .unwrap()
        .into_iter()
        .find(|r| r.handle == "hA")
        .unwrap();
    assert_eq!(week_a.stats.rating, page.ratings[0].stats.rating);
    // Newest first.
    let ids: Vec<String> = store
        .history("hA", 10, 0)
        .unwrap()
        .into_iter()
        .map(|h| h.race_id)
        .collect();
    assert_eq!(ids, ["tue", "mon"]);
    let ids: Vec<String> = store
        .history("hA", 1, 1)
        .unwrap()
        .into_iter()
        .map(|h| h.race_id)
        .collect();
    assert_eq!(ids, ["mon"]);
}

pub(super) fn a_daily_attempt_is_remembered(store: &Fixture) {
    register(&**store, &["hA"]);
    let mut rec = race(
        "d1",
        NOW,
        &[Racer(
            "p1",
            Some("hA"),
            FinishStatus::Solved,
            Some(90_000),
            1,
        )],
    );
    rec.daily = Some(period::utc_date(NOW));
    rec.rated = false;
    store.save_race(&rec).unwrap();
    assert!(store
        .daily_played("hA", "2026-12-01", Difficulty::Easy)
        .unwrap());
    assert!(!store
        .daily_played("hA", "2026-12-01", Difficulty::Hard)
        .unwrap());
    assert!(!store
        .daily_played("hA", "2026-12-02", Difficulty::Easy)
        .unwrap());
    assert_eq!(
        store.replay("d1").unwrap().unwrap().race.daily.as_deref(),
        Some("2026-12-01")
    );
    // The day's board: solvers by time, then the rest; a second attempt does not count.
    register(&**store, &["hB", "hC"]);
    let solo = |id: &str, h: &'static str, status, time| {
        let mut r = race(id, NOW, &[Racer("p1", Some(h), status, time, 1)]);
        r.daily = Some("2026-12-01".into());
        r.rated = false;
        r
    };
    store
        .save_race(&solo("d2", "hB", FinishStatus::Forfeited, None))
        .unwrap();
    store
        .save_race(&solo("d3", "hC", FinishStatus::Solved, Some(80_000)))
        .unwrap();
    store
        .save_race(&solo("d4", "hA", FinishStatus::Solved, Some(10_000)))
        .unwrap();
    let board = store
        .daily_board("2026-12-01", Difficulty::Easy, 10, 0)
        .unwrap();
    let got: Vec<(u64, &str, Option<u64>)> = board
        .iter()
        .map(|r| (r.rank, r.handle.as_str(), r.time_ms))
        .collect();
    assert_eq!(
        got,
        [
            (1, "hC", Some(80_000)),
            (2, "hA", Some(90_000)),
            (3, "hB", None)
        ]
    );
    assert_eq!(board[1].race_id, "d1");
    assert!(store
        .daily_board("2026-12-02", Difficulty::Easy, 10, 0)
        .unwrap()
        .is_empty());
}

pub(super) fn ratings_recompute_from_history(store: &Fixture) {
    let handles = ["hA", "hB", "hC", "hD"];
    register(&**store, &handles);
    for i in 0..12u32 {
        let pick = |k: u32| handles[((i * 7 + k * 3) % 4) as usize];
        let (a, b, c) = (pick(0), pick(1), pick(2));
        if a == b || b == c || a == c {
            continue;
        }
        let mut rec = race(
            &format!("r{i}"),
            NOW - i64::from(12 - i) * DAY,
            &[
                Racer(
                    "p1",
                    Some(a),
                    FinishStatus::Solved,
                    Some(60_000 + u64::from(i)),
                    1,
                ),
                Racer("p2", Some(b), FinishStatus::Solved, Some(61_000), 2),
                Racer("p3", Some(c), FinishStatus::TimedOut, None, 3),
            ],
        );
        if i % 3 == 0 {
            rec.difficulty = "medium";
        }
        store.save_race(&rec).unwrap();
    }
    let got = recompute(&**store).unwrap();
    assert!(got.races >= 6, "only {} rated races", got.races);
    assert_eq!(got.mismatches, Vec::<String>::new());
    assert_eq!(got.ratings.len(), store.ratings().unwrap().len());
    // A rating edited behind the store's back no longer follows from history.
    (store.exec)("UPDATE ratings SET mu = mu + 1 WHERE handle = 'hA'");
    assert!(!recompute(&**store).unwrap().mismatches.is_empty());
}

#[test]
fn seat_flags_come_from_the_placements() {
    let mut rec = race(
        "f",
        NOW,
        &[Racer(
            "p1",
            Some("hA"),
            FinishStatus::Solved,
            Some(10_000),
            1,
        )],
    );
    rec.puzzle = ".".repeat(81);
    assert_eq!(crate::fairplay::seat_flags(&rec, "p1"), ["too_fast"]);
    rec.standings[0].time_ms = Some(50_000);
    assert!(crate::fairplay::seat_flags(&rec, "p1").is_empty());
    assert!(crate::fairplay::seat_flags(&rec, "nobody").is_empty());
}

#[test]
fn a_key_is_kept_as_its_sha256() {
    let h = key_hash("abc");
    assert_eq!(
        (h[0], h[1], h[30], h[31]),
        (0xba, 0x78, 0x15, 0xad),
        "SHA-256 of \"abc\""
    );
    assert_ne!(key_hash("abd"), h);
}
