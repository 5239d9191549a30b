//! The lobby and who is in the room: the host's keys, the code and the join command, chat
//! (a spectator's line marked), and bots marked wherever players are listed.

use super::*;

#[test]
fn lobby_keys_send_ready_and_start_for_the_host_only() {
    let mut app = lobby();
    check_effects(app.update(key('r')), &[ClientMsg::SetReady { ready: true }]);
    app.update(net(ServerMsg::PlayerUpdated {
        player: Player {
            ready: true,
            ..player("p1", "ann")
        },
    }));
    check_effects(
        app.update(key('r')),
        &[ClientMsg::SetReady { ready: false }],
    );
    check_effects(app.update(key('s')), &[ClientMsg::StartRace]);
    app.update(net(ServerMsg::HostChanged {
        player_id: "p2".into(),
    }));
    check_effects(app.update(key('s')), &[]);
    assert!(app.status.notice().is_some_and(|n| n.bad));
}

#[test]
fn lobby_shows_code_join_command_players_and_marks() {
    let mut app = lobby();
    app.update(net(ServerMsg::PlayerUpdated {
        player: Player {
            ready: true,
            connected: false,
            ..player("p2", "bob")
        },
    }));
    let buf = render(&app, 120, 40);
    check_shows(&buf, "Room code: K7QX");
    check_shows(&buf, "sudoku-race join K7QX --server ws://10.1.2.3:7878/ws");
    check_shows(&buf, "ann ★ host (you)");
    check_shows(&buf, "✓ bob (reconnecting)");
    check_shows(&buf, "Players (2/8)");
    check_shows(&buf, "r ready  s start");
}

#[test]
fn chat_is_typed_sent_and_shown() {
    let mut app = lobby();
    app.update(code(KeyCode::Enter));
    for c in "gl hf".chars() {
        check_effects(app.update(key(c)), &[]);
    }
    check_effects(
        app.update(code(KeyCode::Enter)),
        &[ClientMsg::Chat {
            text: "gl hf".into(),
        }],
    );
    assert_eq!(app.chat.input(), None);
    app.update(net(ServerMsg::Chat {
        player_id: Some("p2".into()),
        name: "bob".try_into().unwrap(),
        text: "you too".into(),
    }));
    check_shows(&render(&app, 120, 40), "bob: you too");
}

#[test]
fn a_spectators_chat_line_is_marked_watching() {
    let mut app = lobby();
    app.update(net(ServerMsg::Chat {
        player_id: None,
        name: "eve".try_into().unwrap(),
        text: "go ann".into(),
    }));
    app.update(net(ServerMsg::Chat {
        player_id: Some("p2".into()),
        name: "bob".try_into().unwrap(),
        text: "hi".into(),
    }));
    let buf = render(&app, 120, 40);
    check_shows(&buf, "eve (watching): go ann");
    check_shows(&buf, "bob: hi");
    assert!(find(&buf, "bob (watching)").is_none());
}

/// robo (p3), a bot, takes a seat.
fn robo_joins() -> Event {
    net(ServerMsg::PlayerJoined {
        player: Player {
            bot: true,
            ..player("p3", "robo")
        },
    })
}

#[test]
fn bots_are_marked_in_the_lobby_the_progress_panel_the_results_and_to_spectators() {
    let mut app = lobby();
    app.update(robo_joins());
    let buf = render(&app, 120, 40);
    check_shows(&buf, "robo [bot]");
    assert_eq!(find(&buf, "ann [bot]"), None, "people are not marked");
    app.update(net(ServerMsg::Countdown { starts_in_ms: 3000 }));
    app.update(net(ServerMsg::RaceStarted {
        race_id: "r1".into(),
        puzzle: PUZZLE.parse().unwrap(),
        difficulty: Difficulty::Medium,
        time_limit_s: 1800,
        rated: false,
        layout: Default::default(),
        variant: Default::default(),
    }));
    check_shows(&render(&app, 120, 40), "robo [bot]  racing");
    let standing = |rank, id: &str, name: &str| Standing {
        rank,
        player_id: id.into(),
        name: name.try_into().unwrap(),
        status: FinishStatus::Solved,
        time_ms: Some(300_000 + u64::from(rank)),
        filled: 51,
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
        standings: vec![standing(1, "p3", "robo"), standing(2, "p1", "ann")],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }));
    let buf = render(&app, 120, 40);
    let rows: Vec<String> = lines(&buf)
        .into_iter()
        .filter(|l| l.contains("5:00"))
        .collect();
    assert!(rows.iter().any(|l| l.contains("robo [bot]")), "{rows:?}");
    assert!(!rows.iter().any(|l| l.contains("ann [bot]")), "{rows:?}");

    let mut eve = App::new("eve");
    eve.update(net(spectator_joined(None, Phase::Lobby)));
    eve.update(robo_joins());
    check_shows(&render(&eve, 120, 40), "robo [bot]");
}
