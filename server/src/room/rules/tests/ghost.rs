//! A ghost room's rules: the ghost's placements at their race times, its finish at its
//! stored time (penalties carried), and its early finish once every human is done.

use super::*;
use crate::room::rules::{GhostRun, GhostStep};

/// A ghost that fills every empty cell, one every 100 ms from 100 ms, and whose stored time
/// is 2 s past its last digit (its penalties).
fn run() -> GhostRun {
    let steps: Vec<GhostStep> = empty_cells()
        .into_iter()
        .enumerate()
        .map(|(k, i)| GhostStep {
            at_ms: 100 * (k as u64 + 1),
            cell: cell(i),
            digit: solution_digit(i),
        })
        .collect();
    let last = steps.last().unwrap().at_ms;
    GhostRun {
        of_race: "OLD-1".into(),
        name: super::super::ghost::ghost_name("a very long name indeed, yes"),
        difficulty: engine::Difficulty::Medium,
        puzzle: dealt(),
        steps,
        time_ms: last + 2000,
        lag_ms: 0,
    }
}

/// A ghost room with one human (conn 1), raced from `t0`.
fn ghost_room(t0: Instant) -> Room {
    ghost_room_of(t0, run())
}

/// [`ghost_room`] with the ghost `ghost`.
fn ghost_room_of(t0: Instant, ghost: GhostRun) -> Room {
    let mut r = room(Settings {
        max_players: 1,
        public: false,
        ..Settings::default()
    });
    r.race_ghost(ghost);
    let before = t0 - Duration::from_millis(100);
    assert!(join(&mut r, 1, Some("bob"), Role::Player, before));
    let joined = to(&r.take_effects(), 1);
    let ServerMsg::RoomJoined { players, .. } = &joined[0] else {
        panic!("{joined:?}")
    };
    assert_eq!(players.len(), 2);
    assert!(players[1].ghost && !players[0].ghost);
    assert_eq!(
        players[1].name.as_str(),
        "ghost of a very long nam",
        "cut to 24"
    );
    r.start_race(ConnId(1), before);
    let fx = r.take_effects();
    let race_id = needed_race(&fx);
    // The room deals the ghost's puzzle as it is.
    assert_eq!(r.fixed_puzzle(), Some(dealt()));
    r.puzzle_ready(&race_id, dealt(), before, 0);
    r.tick(t0, 0);
    assert_eq!(r.phase(), Phase::Racing);
    r.take_effects();
    r
}

fn ghost_progress(fx: &[Effect]) -> Vec<u32> {
    to(fx, 1)
        .into_iter()
        .filter_map(|m| match m {
            ServerMsg::Progress(p) if p.player_id.as_str() == "ghost" => Some(p.filled),
            _ => None,
        })
        .collect()
}

#[test]
fn the_ghost_places_at_its_times_and_finishes_at_its_stored_time() {
    let t0 = Instant::now();
    let mut r = ghost_room(t0);
    let n = empty_cells().len() as u64;
    assert_eq!(r.next_deadline(), Some(t0 + Duration::from_millis(100)));
    r.tick(t0 + Duration::from_millis(99), 0);
    assert!(ghost_progress(&r.take_effects()).is_empty(), "not yet");
    // A late tick catches up, each digit at its own time.
    r.tick(t0 + Duration::from_millis(350), 0);
    assert_eq!(ghost_progress(&r.take_effects()), vec![1, 2, 3]);
    assert_eq!(r.next_deadline(), Some(t0 + Duration::from_millis(400)));
    r.tick(t0 + Duration::from_millis(100 * n), 0);
    let fx = r.take_effects();
    let finished = to(&fx, 1).into_iter().find_map(|m| match m {
        ServerMsg::PlayerFinished {
            player_id, time_ms, ..
        } if player_id.as_str() == "ghost" => Some(time_ms),
        _ => None,
    });
    assert_eq!(finished, Some(Some(100 * n + 2000)), "its stored time");
    // The human is still racing: the race goes on.
    assert_eq!(r.phase(), Phase::Racing);
    r.forfeit(ConnId(1), t0 + Duration::from_millis(100 * n + 10));
    let fx = r.take_effects();
    let stored = fx.iter().find_map(|f| match f {
        Effect::Store(rec) => Some(rec.clone()),
        _ => None,
    });
    let stored = stored.expect("stored");
    assert_eq!(stored.ghost_of.as_deref(), Some("OLD-1"));
    assert!(!stored.rated);
    assert_eq!(stored.standings[0].player_id.as_str(), "ghost");
}

#[test]
fn a_human_done_first_ends_the_race_with_the_ghost_at_its_time() {
    let t0 = Instant::now();
    let mut r = ghost_room(t0);
    let n = empty_cells().len() as u64;
    let t = t0 + Duration::from_millis(250);
    r.tick(t, 0);
    r.take_effects();
    for i in empty_cells() {
        r.place(ConnId(1), cell(i), solution_digit(i), None, t);
    }
    assert_eq!(r.phase(), Phase::Finished);
    let fx = r.take_effects();
    let over = to(&fx, 1).into_iter().find_map(|m| match m {
        ServerMsg::RaceOver { standings, .. } => Some(standings),
        _ => None,
    });
    let over = over.expect("race over");
    assert_eq!(over[0].name.as_str(), "bob");
    assert_eq!(over[1].player_id.as_str(), "ghost");
    assert_eq!(over[1].status, FinishStatus::Solved);
    assert_eq!(over[1].time_ms, Some(100 * n + 2000));
    // No ghost timer is left once the race is over.
    assert_eq!(r.next_deadline(), None);
    // The host races the same ghost again.
    r.start_race(ConnId(1), t);
    assert_eq!(r.phase(), Phase::Countdown);
}

/// A8: a ghost keeps its stored figures (its raw time, its lag, the time they come to),
/// whatever is measured in the new race; the human's time is compensated by her own lag.
#[test]
fn a_ghost_keeps_its_stored_lag_and_a_human_gets_her_own() {
    let t0 = Instant::now();
    let ghost = GhostRun {
        lag_ms: 300,
        ..run()
    };
    let mut r = ghost_room_of(t0, ghost);
    let n = empty_cells().len() as u64;
    r.lag_sample(ConnId(1), 100);
    let t = t0 + Duration::from_millis(250);
    r.tick(t, 0);
    r.take_effects();
    for i in empty_cells() {
        r.place(ConnId(1), cell(i), solution_digit(i), None, t);
    }
    let fx = r.take_effects();
    let over = to(&fx, 1).into_iter().find_map(|m| match m {
        ServerMsg::RaceOver { standings, .. } => Some(standings),
        _ => None,
    });
    let over = over.expect("race over");
    let figures = |s: &Standing| (s.name.to_string(), s.time_ms, s.time_ms_raw, s.lag_ms);
    assert_eq!(figures(&over[0]), ("bob".into(), Some(150), Some(250), 100));
    let raw = 100 * n + 2000;
    assert_eq!(
        figures(&over[1]),
        (
            "ghost of a very long nam".into(),
            Some(raw - 300),
            Some(raw),
            300
        )
    );
}
