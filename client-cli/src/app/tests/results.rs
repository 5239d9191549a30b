//! The results: standings, times and the solution against our board, and a rated race's
//! rating change.

use super::*;

#[test]
fn race_over_shows_standings_time_and_the_solution_against_the_board() {
    let mut app = racing();
    app.update(net(ServerMsg::PlayerFinished {
        player_id: "p2".into(),
        status: FinishStatus::Solved,
        time_ms: Some(312_000),
    }));
    app.update(net(ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::AllDone,
        standings: vec![
            Standing {
                rank: 1,
                player_id: "p2".into(),
                name: "bob".try_into().unwrap(),
                status: FinishStatus::Solved,
                time_ms: Some(312_000),
                filled: 51,
                mistakes: 0,
                time_ms_raw: None,
                lag_ms: 0,
                puzzle: None,
                solution: None,
                layout: Default::default(),
            },
            Standing {
                rank: 2,
                player_id: "p1".into(),
                name: "ann".try_into().unwrap(),
                status: FinishStatus::Forfeited,
                time_ms: None,
                filled: 0,
                mistakes: 1,
                time_ms_raw: None,
                lag_ms: 0,
                puzzle: None,
                solution: None,
                layout: Default::default(),
            },
        ],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }));
    let room = app.room().expect("room");
    assert_eq!(room.phase, Phase::Finished);
    // At the size of a common terminal the table's words fit whole.
    let small = render(&app, 110, 36);
    let table: Vec<String> = lines(&small)
        .into_iter()
        .filter(|l| l.contains(" ann "))
        .collect();
    assert!(
        table.iter().any(|l| l.contains("forfeited")),
        "status cut: {table:?}"
    );
    check_shows(&small, "lag");
    let buf = render(&app, 120, 40);
    check_shows(&buf, "solved");
    check_shows(&buf, "5:12");
    check_shows(&buf, "You forfeited (rank 2)");
    check_shows(&buf, "s rematch");
    // r1c3 was empty on ann's board: the solution's 4 is revealed in its own colour.
    let (x, y) = big_cell_centre(0, 2);
    assert_eq!(buf[(x, y)].symbol(), "4");
    assert_eq!(buf[(x, y)].fg, Color::Magenta);
    check_effects(app.update(key('s')), &[ClientMsg::StartRace]);
}

#[test]
fn a_rated_race_over_shows_how_our_rating_moved() {
    let mut app = racing();
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
        ratings: vec![protocol::RatingChange {
            player_id: "p1".into(),
            handle: "hABCDEFG".into(),
            before: 1.5,
            after: 3.75,
        }],
    }));
    let buf = render(&app, 120, 40);
    check_shows(&buf, "rating 1.5 → 3.8 (+2.2)");
}
