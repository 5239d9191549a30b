//! What the newcomer trial found on the screens (issue 10), and the host's controls between
//! races (Amendment A5): recorded server messages in, keys in, the buffer and the sent
//! messages checked at 80×24 and 120×40.

use protocol::ErrorCode;

use super::*;

fn error(code: ErrorCode, message: &str) -> Event {
    net(ServerMsg::Error {
        code,
        message: message.into(),
        retry_ms: None,
    })
}

fn bob_joining() -> App {
    let mut app = App::new("bob").with_intent(&Intent::Join {
        room: "K7QX".into(),
        name: "bob".into(),
    });
    app.update(Event::Net(NetEvent::Connected { reconnect: false }));
    app
}

fn finished(mut app: App) -> App {
    app.update(net(ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::AllDone,
        standings: vec![],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }));
    app
}

/// Every key the footer names in this state is on screen, whole.
#[track_caller]
fn check_footer_whole(app: &App, w: u16, h: u16) {
    let buf = render(app, w, h);
    let footer = &lines(&buf)[usize::from(h) - 1];
    for (k, what) in keys::help(&app.key_context()) {
        assert!(
            footer.contains(&format!("{k} {what}")),
            "{k} {what} is cut at {w}×{h}: {footer:?}"
        );
    }
}

#[test]
fn race_in_progress_offers_to_watch_then_takes_a_seat_when_it_ends() {
    let mut app = bob_joining();
    app.update(error(ErrorCode::RaceInProgress, "a race is running"));
    let buf = render(&app, 120, 40);
    let offer = "room K7QX is racing now: press s to watch, and you join it when the race ends";
    check_shows(&buf, offer);
    let screen = lines(&buf).join("\n");
    assert_eq!(screen.matches("race").count(), 2, "said once:\n{screen}");
    check_shows(&buf, "s watch, then join");
    check_shows(&render(&app, 80, 24), "room K7QX is racing now: press s to");
    check_effects(
        app.update(key('s')),
        &[ClientMsg::Spectate {
            room: "K7QX".into(),
            name: Some("bob".into()),
            key: None,
            boards: false,
            variants: crate::net::drawn(),
        }],
    );
    // The race has run 54 s when we arrive, 300 ms after the program started.
    app.update(Event::Tick(300));
    let view = RaceView {
        race_id: "r1".into(),
        puzzle: PUZZLE.parse().ok(),
        difficulty: Difficulty::Medium,
        time_limit_s: 1800,
        elapsed_ms: 54_000,
        board: None,
        mistakes: 0,
        progress: vec![],
        standings: None,
        reason: None,
        layout: Default::default(),
    };
    app.update(net(spectator_joined(Some(view), Phase::Racing)));
    app.update(Event::Tick(1300));
    check_shows(&render(&app, 120, 40), "clock 0:55 / 30:00");
    let effects = app.update(net(ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::AllDone,
        standings: vec![],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }));
    check_effects(
        effects,
        &[
            ClientMsg::Leave,
            ClientMsg::JoinRoom {
                room: "K7QX".into(),
                name: "bob".into(),
                bot: false,
                key: None,
                variants: crate::net::drawn(),
            },
        ],
    );
    app.update(net(joined("p2", None, Phase::Finished)));
    assert_eq!(app.room().map(|r| r.role), Some(Role::Player));
    assert!(!app.seating.seat_after_race());
}

#[test]
fn a_taken_name_is_typed_again_in_place_and_the_join_sent_again() {
    let mut app = bob_joining();
    app.update(error(
        ErrorCode::NameTaken,
        "someone in the room is called bob",
    ));
    let buf = render(&app, 80, 24);
    check_shows(&buf, "the name bob is taken in room K7QX");
    check_shows(&buf, "another name:");
    check_shows(&buf, "Enter try it  Esc quit");
    for c in "bob2".chars() {
        check_effects(app.update(key(c)), &[]);
    }
    check_shows(&render(&app, 80, 24), "another name: bob2");
    check_effects(
        app.update(code(KeyCode::Enter)),
        &[ClientMsg::JoinRoom {
            room: "K7QX".into(),
            name: "bob2".into(),
            bot: false,
            key: None,
            variants: crate::net::drawn(),
        }],
    );
    check_shows(&render(&app, 80, 24), "joining…");
    app.update(net(joined("p2", None, Phase::Lobby)));
    check_shows(&render(&app, 80, 24), "playing as bob2");
}

#[test]
fn the_host_edits_the_next_races_settings_and_everyone_sees_the_change() {
    let mut app = lobby();
    app.update(key('e'));
    let buf = render(&app, 80, 24);
    check_shows(&buf, "next race's settings");
    check_shows(&buf, "difficulty  ◂ medium ▸");
    check_shows(&buf, "↑↓ setting  ←→ change  Enter apply  Esc cancel");
    app.update(code(KeyCode::Right));
    app.update(code(KeyCode::Down));
    app.update(code(KeyCode::Left));
    app.update(code(KeyCode::Left));
    check_shows(&render(&app, 80, 24), "time limit  ◂ 15:00 ▸");
    let sent = Settings {
        difficulty: Difficulty::Hard,
        time_limit_s: 900,
        ..Settings::default()
    };
    check_effects(
        app.update(code(KeyCode::Enter)),
        &[ClientMsg::SetSettings {
            settings: room_host::request(&sent),
        }],
    );
    assert_eq!(app.tool, None);
    app.update(net(ServerMsg::SettingsChanged { settings: sent }));
    let buf = render(&app, 80, 24);
    check_shows(
        &buf,
        "settings changed: hard, 15:00, out after 3 mistakes, 10 s penalty",
    );
    check_shows(&buf, "Settings: hard");
    // Esc closes the editor without sending.
    app.update(key('e'));
    check_effects(app.update(code(KeyCode::Esc)), &[]);
    assert_eq!(app.tool, None);
}

#[test]
fn the_host_removes_a_player_after_a_confirmation() {
    let mut app = finished(lobby());
    app.update(key('k'));
    check_shows(&render(&app, 80, 24), "remove a player");
    check_shows(&render(&app, 80, 24), "↑↓ player  Enter kick  Esc cancel");
    check_effects(app.update(code(KeyCode::Enter)), &[]);
    check_shows(
        &render(&app, 80, 24),
        "remove bob from the room? press y (any other key cancels)",
    );
    check_effects(
        app.update(key('y')),
        &[ClientMsg::Kick {
            player_id: "p2".into(),
        }],
    );
    app.update(net(ServerMsg::PlayerLeft {
        player_id: "p2".into(),
    }));
    check_shows(&render(&app, 80, 24), "bob left");
    app.update(key('k'));
    assert_eq!(app.tool, None, "nobody left to remove");
}

#[test]
fn host_controls_are_absent_for_others_and_during_races() {
    let mut app = App::new("bob");
    app.update(net(joined("p2", None, Phase::Lobby)));
    for app in [app.clone(), finished(app.clone())] {
        let buf = render(&app, 120, 40);
        assert_eq!(find(&buf, "e settings"), None);
        assert_eq!(find(&buf, "k kick"), None);
        let mut app = app;
        check_effects(app.update(key('e')), &[]);
        assert_eq!(app.tool, None);
    }
    let mut host = racing();
    check_effects(host.update(key('e')), &[]);
    assert_eq!(host.tool, None);
    assert_eq!(find(&render(&host, 120, 40), "e settings"), None);
    // The editor closes when the countdown begins.
    let mut host = lobby();
    host.update(key('e'));
    host.update(net(ServerMsg::Countdown { starts_in_ms: 3000 }));
    assert_eq!(host.tool, None);
}

#[test]
fn a_kicked_player_is_told_who_removed_them_and_quits_on_a_key() {
    let mut app = App::new("bob");
    app.update(net(joined("p2", None, Phase::Lobby)));
    app.update(error(ErrorCode::Kicked, "removed by the host"));
    assert_eq!(app.room(), None);
    assert_eq!(
        app.update(Event::Net(NetEvent::Closed {
            error: Some("closed".into())
        })),
        vec![]
    );
    for (w, h) in [(80, 24), (120, 40)] {
        let buf = render(&app, w, h);
        check_shows(&buf, "you were removed from room K7QX by the host");
        check_shows(&buf, "q quit");
    }
    assert_eq!(app.update(key('q')), vec![Effect::Quit]);
}

#[test]
fn the_results_screen_shows_who_is_in_the_room_and_arrivals_are_announced() {
    let mut app = finished(lobby());
    app.update(net(ServerMsg::PlayerJoined {
        player: player("p3", "cyd"),
    }));
    let buf = render(&app, 120, 40);
    check_shows(&buf, "cyd joined");
    check_shows(&buf, "in the room (3)");
    check_shows(&buf, "· cyd");
    check_shows(&buf, "next: medium, 30:00, out after 3 mistakes");
    check_shows(&render(&app, 80, 24), "in the room (3)");
}

#[test]
fn out_of_the_race_the_footer_offers_no_placing() {
    for status in [FinishStatus::Forfeited, FinishStatus::Eliminated] {
        let mut app = racing();
        check_shows(&render(&app, 80, 24), "f forfeit");
        app.update(net(ServerMsg::PlayerFinished {
            player_id: "p1".into(),
            status,
            time_ms: None,
        }));
        let buf = render(&app, 80, 24);
        assert_eq!(find(&buf, "1-9 place"), None);
        assert_eq!(find(&buf, "f forfeit"), None);
        check_footer_whole(&app, 80, 24);
    }
}

#[test]
fn a_seat_lost_while_away_stops_saying_racing() {
    let mut app = racing();
    app.update(Event::Net(NetEvent::Reconnecting {
        attempt: 1,
        delay: std::time::Duration::from_millis(200),
    }));
    app.update(Event::Net(NetEvent::Connected { reconnect: true }));
    app.update(error(ErrorCode::InvalidToken, "no such seat"));
    let buf = render(&app, 120, 40);
    check_shows(&buf, "ann  forfeited");
    check_shows(&buf, "your seat expired while you were away");
    assert_eq!(find(&buf, "f forfeit"), None);
}

#[test]
fn every_footer_fits_80_by_24() {
    let mut countdown = lobby();
    countdown.update(net(ServerMsg::Countdown { starts_in_ms: 3000 }));
    let mut editing = lobby();
    editing.update(key('e'));
    let mut kicking = finished(lobby());
    kicking.update(key('k'));
    let mut offered = bob_joining();
    offered.update(error(ErrorCode::RaceInProgress, "a race is running"));
    let mut watching = App::new("eve");
    watching.update(net(spectator_joined(None, Phase::Lobby)));
    for app in [
        lobby(),
        countdown,
        racing(),
        finished(racing()),
        editing,
        kicking,
        offered,
        watching,
        bob_joining(),
    ] {
        check_footer_whole(&app, 80, 24);
        check_footer_whole(&app, 120, 40);
    }
    check_shows(
        &render(&racing(), 80, 24),
        "←↓↑→ move  1-9 place  p pencil  x erase  f forfeit  Enter chat  q quit",
    );
}

#[test]
fn a_small_terminal_is_told_the_size_needed() {
    let buf = render(&racing(), 60, 20);
    check_shows(&buf, "terminal too small: need at least 80×24, have 60×20");
}
