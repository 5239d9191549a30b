//! Joining between races (phase `finished`): the room view carries the last race's standings
//! (ours, additive), so the results screen shows that race as its players saw it (times, a
//! player who left), not us, and no board of a race we did not play.

use super::*;

fn standing(
    rank: u32,
    id: &str,
    name: &str,
    status: FinishStatus,
    time_ms: Option<u64>,
) -> Standing {
    Standing {
        rank,
        player_id: id.into(),
        name: name.try_into().unwrap(),
        status,
        time_ms,
        filled: 51,
        mistakes: 0,
        time_ms_raw: time_ms,
        lag_ms: 0,
        puzzle: Some(PUZZLE.parse().unwrap()),
        solution: Some(SOLUTION.parse().unwrap()),
        layout: Default::default(),
    }
}

fn finished_view() -> RaceView {
    RaceView {
        race_id: "r1".into(),
        puzzle: Some(PUZZLE.parse().unwrap()),
        difficulty: Difficulty::Medium,
        time_limit_s: 1800,
        elapsed_ms: 200_000,
        board: None,
        mistakes: 0,
        progress: vec![],
        standings: Some(vec![
            standing(1, "p1", "ann", FinishStatus::Solved, Some(200_000)),
            // bob left mid-race: his seat is gone, his forfeit is not.
            standing(2, "p9", "bob", FinishStatus::Forfeited, None),
        ]),
        reason: Some(OverReason::AllDone),
        layout: Default::default(),
    }
}

#[test]
fn a_late_joiner_sees_the_last_race_as_its_players_did() {
    let mut app = App::new("cy");
    app.update(Event::Net(NetEvent::Connected { reconnect: false }));
    app.update(net(joined("p3", Some(finished_view()), Phase::Finished)));
    let buf = render(&app, 120, 40);
    check_shows(&buf, " results ");
    check_shows(&buf, "3:20.0");
    check_shows(&buf, "forfeited");
    check_shows(&buf, "You came after this race.");
    // No board of givens posing as the solution.
    assert!(
        !lines(&buf).iter().any(|l| l.contains("solution")),
        "{:#?}",
        lines(&buf)
    );
    let shown = app
        .room()
        .and_then(|r| r.results.as_ref())
        .expect("results");
    assert!(!shown.standings.iter().any(|s| s.name == "cy"));
}

#[test]
fn a_seat_that_raced_gets_its_own_solution_back() {
    let mut app = App::new("ann");
    app.update(Event::Net(NetEvent::Connected { reconnect: false }));
    let view = RaceView {
        board: Some(SOLUTION.parse().unwrap()),
        ..finished_view()
    };
    app.update(net(joined("p1", Some(view), Phase::Finished)));
    let buf = render(&app, 120, 40);
    check_shows(&buf, "Your time: 3:20.0 (rank 1)");
    check_shows(&buf, "solution");
}
