//! `report` (A8) from the results screen: `!`, a player, a reason, `reported`.

use super::*;

/// The racing app after a race bob won and ann forfeited.
fn finished() -> App {
    let mut app = racing();
    let standing = |rank, id: &str, name: &str, status, time_ms| Standing {
        rank,
        player_id: id.into(),
        name: name.try_into().unwrap(),
        status,
        time_ms,
        filled: 0,
        mistakes: 0,
        time_ms_raw: None,
        lag_ms: 0,
        puzzle: None,
        solution: None,
        layout: Default::default(),
    };
    app.update(net(ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::AllDone,
        standings: vec![
            standing(1, "p2", "bob", FinishStatus::Solved, Some(9_000)),
            standing(2, "p1", "ann", FinishStatus::Forfeited, None),
        ],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }));
    app
}

#[test]
fn a_player_is_reported_from_the_results_with_a_reason() {
    let mut app = finished();
    check_shows(&render(&app, 120, 40), "! report");
    assert!(app.update(key('!')).is_empty());
    assert_eq!(app.key_context().mode, Mode::Report);
    let buf = render(&app, 120, 40);
    check_shows(&buf, "report a player to the moderators");
    check_shows(&buf, " bob ");
    check_shows(&buf, "Enter give a reason");
    assert!(app.update(code(KeyCode::Enter)).is_empty());
    assert_eq!(app.key_context().mode, Mode::ReportReason);
    // An empty reason is not sent.
    assert!(app.update(code(KeyCode::Enter)).is_empty());
    for c in "too fast!".chars() {
        assert!(app.update(key(c)).is_empty(), "{c} is typed, not a command");
    }
    check_shows(&render(&app, 120, 40), "too fast!");
    check_effects(
        app.update(code(KeyCode::Enter)),
        &[ClientMsg::Report {
            player_id: "p2".into(),
            reason: "too fast!".into(),
        }],
    );
    assert_eq!(app.key_context().mode, Mode::Room);
    app.update(net(ServerMsg::Reported {
        player_id: "p2".into(),
    }));
    check_shows(&render(&app, 120, 40), "reported bob to the moderators");
}

#[test]
fn a_report_can_be_cancelled_and_is_only_offered_after_a_race() {
    let mut app = racing();
    assert!(app.update(key('!')).is_empty());
    assert_eq!(app.key_context().mode, Mode::Room, "not mid-race");
    let mut app = finished();
    app.update(key('!'));
    app.update(code(KeyCode::Enter));
    app.update(key('x'));
    assert!(app.update(code(KeyCode::Esc)).is_empty());
    assert_eq!(app.key_context().mode, Mode::Room);
    assert!(app.tool.is_none());
    app.update(key('!'));
    app.update(code(KeyCode::Esc));
    assert!(app.tool.is_none());
    // A reason stops at 200 characters, as the server takes it.
    app.update(key('!'));
    app.update(code(KeyCode::Enter));
    for _ in 0..250 {
        app.update(key('a'));
    }
    let [Effect::Send(ClientMsg::Report { reason, .. })] = &app.update(code(KeyCode::Enter))[..]
    else {
        panic!("one report");
    };
    assert_eq!(reason.chars().count(), 200);
}
