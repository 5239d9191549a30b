//! Lag compensation in the rules (A8): probes only while a race counts down or runs, the
//! median of a seat's samples capped, compensated times in `player_finished`, `race_over` and
//! the ranking, and lag 0 without samples.

use super::*;

/// Conn `c` places every empty cell correctly at `t`.
fn solve(r: &mut Room, c: u64, t: Instant) {
    for i in empty_cells() {
        r.place(ConnId(c), cell(i), solution_digit(i), None, t);
    }
}

/// The `player_finished` time of `player` in `fx`.
fn finished_time(fx: &[Effect], player: &str) -> Option<Option<u64>> {
    fx.iter().find_map(|f| match f {
        Effect::Send(
            _,
            ServerMsg::PlayerFinished {
                player_id, time_ms, ..
            },
        ) if player_id.as_str() == player => Some(*time_ms),
        _ => None,
    })
}

/// The standings of the `race_over` in `fx`.
fn race_over(fx: &[Effect]) -> Vec<Standing> {
    fx.iter()
        .find_map(|f| match f {
            Effect::Send(_, ServerMsg::RaceOver { standings, .. }) => Some(standings.clone()),
            _ => None,
        })
        .expect("race_over")
}

fn probes(fx: &[Effect]) -> Vec<Vec<ConnId>> {
    fx.iter()
        .filter_map(|f| match f {
            Effect::Probe(to) => Some(to.clone()),
            _ => None,
        })
        .collect()
}

/// `(name, rank, time_ms, time_ms_raw, lag_ms)`.
type Row = (String, u32, Option<u64>, Option<u64>, u32);

fn rows(table: &[Standing]) -> Vec<Row> {
    table
        .iter()
        .map(|s| {
            let name = s.name.to_string();
            (name, s.rank, s.time_ms, s.time_ms_raw, s.lag_ms)
        })
        .collect()
}

#[test]
fn racing_seats_are_probed_only_while_the_room_counts_down_or_races() {
    let t0 = Instant::now();
    let mut r = room(settings());
    assert!(join(&mut r, 1, Some("ann"), Role::Player, t0));
    assert!(join(&mut r, 2, Some("bob"), Role::Player, t0));
    assert!(join(&mut r, 3, None, Role::Spectator, t0));
    r.take_effects();
    assert_eq!(r.next_deadline(), None, "an idle room keeps no timer");
    r.start_race(ConnId(1), t0);
    let race_id = needed_race(&r.take_effects());
    assert_eq!(
        r.next_deadline(),
        Some(t0),
        "the first probe is due at once"
    );
    r.tick(t0, 0);
    assert_eq!(probes(&r.take_effects()), [vec![ConnId(1), ConnId(2)]]);
    r.puzzle_ready(&race_id, dealt(), t0, 0);
    let t1 = t0 + Duration::from_millis(100);
    r.tick(t1, 0);
    assert_eq!(r.phase(), Phase::Racing);
    assert!(probes(&r.take_effects()).is_empty(), "one probe a second");
    let t2 = t0 + Duration::from_secs(1);
    assert_eq!(r.next_deadline(), Some(t2));
    r.tick(t2, 0);
    assert_eq!(probes(&r.take_effects()).len(), 1);
    // Bob forfeits: only Ann is asked from then on; then she forfeits and the race is over.
    r.forfeit(ConnId(2), t2);
    let t3 = t2 + Duration::from_secs(1);
    r.tick(t3, 0);
    assert_eq!(probes(&r.take_effects()), [vec![ConnId(1)]]);
    r.forfeit(ConnId(1), t3);
    r.take_effects();
    assert_eq!(r.phase(), Phase::Finished);
    assert_eq!(
        r.next_deadline(),
        None,
        "a finished room keeps no probe timer"
    );
}

#[test]
fn times_are_compensated_by_the_capped_median_and_ranks_use_them() {
    let t0 = Instant::now();
    let mut r = racing(4, settings_for(4), t0);
    // p1: 300 ms away, one slow outlier; p2: 12 ms, one outlier; p3: beyond the cap; p4: none.
    for (c, samples) in [
        (1, &[300, 310, 290, 2500][..]),
        (2, &[10, 2000, 12]),
        (3, &[900, 800, 1000]),
    ] {
        for &s in samples {
            r.lag_sample(ConnId(c), s);
        }
    }
    // A spectator's or a stranger's sample counts for nobody.
    r.lag_sample(ConnId(99), 400);
    // By the server's clock p2 is 95 ms ahead of p1; compensated, p1 is first.
    solve(&mut r, 2, t0 + Duration::from_millis(9_900));
    assert_eq!(
        finished_time(&r.take_effects(), "p2"),
        Some(Some(9_900 - 12))
    );
    solve(&mut r, 1, t0 + Duration::from_millis(9_995));
    // p1's median of four: (300 + 310) / 2.
    assert_eq!(
        finished_time(&r.take_effects(), "p1"),
        Some(Some(9_995 - 305))
    );
    // A sample after a seat finished changes nothing: its lag was fixed at its finish.
    r.lag_sample(ConnId(1), 5);
    r.lag_sample(ConnId(1), 5);
    r.lag_sample(ConnId(1), 5);
    solve(&mut r, 3, t0 + Duration::from_millis(10_000));
    solve(&mut r, 4, t0 + Duration::from_millis(10_000));
    let table = race_over(&r.take_effects());
    let own = |n: &str| n.to_owned();
    assert_eq!(
        rows(&table),
        [
            (own("p3"), 1, Some(9_500), Some(10_000), 500),
            (own("p1"), 2, Some(9_690), Some(9_995), 305),
            (own("p2"), 3, Some(9_888), Some(9_900), 12),
            (own("p4"), 4, Some(10_000), Some(10_000), 0),
        ]
    );
}

#[test]
fn countdown_samples_count_and_unsolved_rows_keep_their_lag_without_times() {
    let t0 = Instant::now();
    let mut r = room(settings());
    assert!(join(&mut r, 1, Some("ann"), Role::Player, t0));
    assert!(join(&mut r, 2, Some("bob"), Role::Player, t0));
    r.start_race(ConnId(1), t0);
    let race_id = needed_race(&r.take_effects());
    r.lag_sample(ConnId(1), 200);
    r.lag_sample(ConnId(2), 40);
    r.puzzle_ready(&race_id, dealt(), t0, 0);
    r.tick(t0 + Duration::from_millis(100), 0);
    assert_eq!(r.phase(), Phase::Racing);
    r.lag_sample(ConnId(1), 220);
    r.lag_sample(ConnId(1), 210);
    r.take_effects();
    let t1 = t0 + Duration::from_secs(20);
    solve(&mut r, 1, t1);
    r.forfeit(ConnId(2), t1);
    let table = race_over(&r.take_effects());
    let own = |n: &str| n.to_owned();
    assert_eq!(
        rows(&table),
        [
            (own("ann"), 1, Some(19_900 - 210), Some(19_900), 210),
            (own("bob"), 2, None, None, 40),
        ]
    );
}

fn settings_for(n: u8) -> Settings {
    Settings {
        max_players: n,
        ..settings()
    }
}
