//! Ratings that land late (A9): `race_over` came without rating changes (the server's
//! database could not take the result yet); `ratings` for the race on the results screen fills
//! them in, and `ratings` for another race changes nothing.

use super::*;

fn over_unrated_yet(app: &mut App) {
    app.update(net(ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::AllDone,
        standings: vec![Standing {
            rank: 1,
            player_id: "p1".into(),
            name: "ann".try_into().unwrap(),
            status: FinishStatus::Solved,
            time_ms: Some(200_000),
            filled: 51,
            mistakes: 0,
            time_ms_raw: None,
            lag_ms: 0,
            puzzle: None,
            solution: None,
            layout: Default::default(),
        }],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }));
}

fn ratings(race_id: &str, before: f64, after: f64) -> ServerMsg {
    ServerMsg::Ratings {
        race_id: race_id.into(),
        ratings: vec![protocol::RatingChange {
            player_id: "p1".into(),
            handle: "hABCDEFG".into(),
            before,
            after,
        }],
    }
}

#[test]
fn late_ratings_for_the_race_shown_fill_in_the_results() {
    let mut app = racing();
    over_unrated_yet(&mut app);
    let buf = render(&app, 120, 40);
    assert!(
        !lines(&buf).iter().any(|l| l.contains("rating ")),
        "no rating line before they land"
    );
    // Another race's ratings are not ours to show.
    app.update(net(ratings("r0", 9.0, 1.0)));
    let buf = render(&app, 120, 40);
    assert!(!lines(&buf).iter().any(|l| l.contains("rating ")));
    app.update(net(ratings("r1", 1.5, 3.75)));
    let buf = render(&app, 120, 40);
    check_shows(&buf, "rating 1.5 → 3.8 (+2.2)");
}
