//! The session around the room: a resume that keeps our marks, quitting that confirms, a
//! refusal, a closed room or a lost connection, and a server restarting (A9).

use super::*;

#[test]
fn resume_mid_race_keeps_local_pencil_marks_and_the_clock() {
    let mut app = racing();
    app.update(key('p'));
    app.update(key('l'));
    app.update(key('l'));
    app.update(key('1'));
    app.update(Event::Net(NetEvent::Reconnecting {
        attempt: 1,
        delay: std::time::Duration::from_millis(200),
    }));
    check_shows(&render(&app, 120, 40), "reconnecting… (attempt 1)");
    app.update(Event::Tick(20_000));
    app.update(Event::Net(NetEvent::Connected { reconnect: true }));
    let mut board = PUZZLE.to_owned();
    board.replace_range(3..4, "6");
    app.update(net(joined(
        "p1",
        Some(RaceView {
            race_id: "r1".into(),
            puzzle: Some(PUZZLE.parse().unwrap()),
            difficulty: Difficulty::Medium,
            time_limit_s: 1800,
            elapsed_ms: 19_500,
            board: Some(board.parse().unwrap()),
            mistakes: 1,
            progress: vec![],
            standings: None,
            reason: None,
            layout: Default::default(),
        }),
        Phase::Racing,
    )));
    assert_eq!(app.conn, Conn::Online);
    let r = race(&app);
    assert_eq!(
        app.play.pencil_cursor().pencil[2],
        Digit::new(1).expect("d").bit()
    );
    assert_eq!(
        app.play.pencil_cursor().cursor,
        Cell::at(0, 2).expect("cell")
    );
    assert_eq!(r.board.get(Cell::at(0, 3).expect("cell")), Digit::new(6));
    assert_eq!(r.elapsed_ms(20_000), 19_500);
    assert_eq!(r.mistakes, 1);
}

#[test]
fn an_in_process_host_confirms_a_quit_that_closes_the_room_on_others() {
    // Ann runs the server (an in-process host) and bob is connected: `q` asks first.
    let mut app = lobby().with_server_in_process();
    check_effects(app.update(key('q')), &[]);
    assert_eq!(app.status.confirm(), Some(&Confirm::Quit));
    let asked = app
        .status
        .notice()
        .map(|n| n.text.clone())
        .unwrap_or_default();
    assert!(
        asked.contains("1 other player(s) will be disconnected"),
        "{asked}"
    );
    // Any other key cancels; a second `q` quits.
    check_effects(app.update(key('x')), &[]);
    assert_eq!(app.status.confirm(), None);
    app.update(key('q'));
    let effects = app.update(key('q'));
    assert!(effects.contains(&Effect::Quit), "{effects:?}");
    // Alone in the room, or not the program that runs the server: no question.
    let mut alone = lobby().with_server_in_process();
    alone.update(net(ServerMsg::PlayerLeft {
        player_id: "p2".into(),
    }));
    assert!(alone.update(key('q')).contains(&Effect::Quit));
    let mut remote = lobby();
    assert!(remote.update(key('q')).contains(&Effect::Quit));
}

#[test]
fn quitting_mid_race_needs_a_second_press_and_sends_leave() {
    let mut app = racing();
    check_effects(app.update(key('q')), &[]);
    assert_eq!(app.status.confirm(), Some(&Confirm::Quit));
    check_effects(app.update(key('j')), &[]);
    assert_eq!(app.status.confirm(), None);
    app.update(key('q'));
    let effects = app.update(key('q'));
    assert_eq!(effects, vec![Effect::Send(ClientMsg::Leave), Effect::Quit]);
    let mut app = racing();
    app.update(key('f'));
    check_effects(app.update(key('f')), &[ClientMsg::Forfeit]);
}

#[test]
fn a_refusal_shows_only_the_refusal_and_a_closed_session_quits() {
    let mut app = App::new("ann").with_intent(&Intent::Join {
        room: "ZZZZ".into(),
        name: "ann".into(),
    });
    app.update(Event::Net(NetEvent::Connected { reconnect: false }));
    app.update(net(ServerMsg::Error {
        code: protocol::ErrorCode::UnknownRoom,
        message: "no room ZZZZ".into(),
        retry_ms: None,
    }));
    let buf = render(&app, 80, 24);
    check_shows(
        &buf,
        "could not join room ZZZZ: no room ZZZZ (unknown_room)",
    );
    assert_eq!(find(&buf, "joining"), None, "{}", lines(&buf).join("\n"));
    check_shows(&buf, "q quit");
    assert_eq!(
        app.update(Event::Net(NetEvent::Closed { error: None })),
        vec![Effect::Quit]
    );
}

#[test]
fn a_closed_room_or_a_lost_connection_is_said_once_and_q_quits() {
    let mut app = lobby();
    app.update(net(ServerMsg::RoomClosed {
        room: "K7QX".try_into().unwrap(),
        reason: None,
    }));
    assert_eq!(app.room(), None);
    // The connection task ends the session; the screen stays until a key.
    assert_eq!(
        app.update(Event::Net(NetEvent::Closed { error: None })),
        vec![]
    );
    let buf = render(&app, 80, 24);
    check_shows(&buf, "room K7QX was closed");
    check_shows(&buf, "the host left, or its server was lost");
    assert_eq!(app.update(key('q')), vec![Effect::Quit]);
    assert_eq!(app.conn, Conn::Closed(None), "a clean exit");
    let mut app = racing();
    app.update(Event::Net(NetEvent::Closed {
        error: Some("connection lost: gave up reconnecting".into()),
    }));
    let buf = render(&app, 120, 40);
    check_shows(&buf, "disconnected");
    check_shows(
        &buf,
        "connection lost: gave up reconnecting; press q to quit",
    );
    check_shows(&buf, "ann  disconnected");
    assert_eq!(find(&buf, "f forfeit"), None, "nothing to place any more");
    // No `leave` is sent over a dead connection, and no confirmation is asked.
    assert_eq!(app.update(key('q')), vec![Effect::Quit]);
}

#[test]
fn a_room_closed_for_a_drain_offers_a_new_room_or_the_pool_on_a_new_connection() {
    let mut app = racing();
    app.update(net(ServerMsg::RoomClosed {
        room: "K7QX".try_into().unwrap(),
        reason: Some(protocol::ClosedReason::Drain),
    }));
    assert_eq!(app.room(), None);
    let buf = render(&app, 100, 30);
    check_shows(
        &buf,
        "room K7QX was closed: the server is restarting for an update",
    );
    check_shows(
        &buf,
        "n a new room (medium), p play now (medium pool), q quit",
    );
    check_shows(&buf, "n new room");
    assert_eq!(
        app.update(key('p')),
        vec![Effect::Send(ClientMsg::QuickRace {
            difficulty: "medium".into(),
            name: "ann".into(),
            key: None,
            bot: false,
            variant: None,
            variants: crate::net::drawn(),
        })]
    );
    assert_eq!(app.outside, Outside::Entering);
    // The new connection's answer takes us on as ever.
    app.update(Event::Net(NetEvent::Connected { reconnect: true }));
    app.update(net(ServerMsg::Queued {
        difficulty: Difficulty::Medium,
        waiting: 1,
    }));
    assert!(
        matches!(app.outside, Outside::Queued { .. }),
        "{:?}",
        app.outside
    );
}

#[test]
fn server_draining_for_an_ask_offers_the_same_and_n_asks_for_a_new_room() {
    let mut app = App::new("ann").with_intent(&Intent::Quick {
        variant: engine::Variant::Classic,
        difficulty: Difficulty::Hard,
        name: "ann".into(),
    });
    app.update(Event::Net(NetEvent::Connected { reconnect: false }));
    app.update(net(ServerMsg::Error {
        code: protocol::ErrorCode::ServerDraining,
        message: "the server is restarting for an update".into(),
        retry_ms: None,
    }));
    let buf = render(&app, 100, 30);
    check_shows(&buf, "the server is restarting for an update");
    assert_eq!(find(&buf, "was closed"), None, "no room was closed");
    let effects = app.update(key('n'));
    let [Effect::Send(ClientMsg::CreateRoom { name, settings, .. })] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert_eq!(name, "ann");
    let difficulty = settings.as_ref().and_then(|s| s.difficulty.as_deref());
    assert_eq!(difficulty, Some("hard"));
    // A shutdown's room_closed reads the same; a host's close stays final.
    let mut app = lobby();
    app.update(net(ServerMsg::RoomClosed {
        room: "K7QX".try_into().unwrap(),
        reason: Some(protocol::ClosedReason::HostClosed),
    }));
    assert_eq!(app.update(key('n')), vec![]);
    check_shows(&render(&app, 80, 24), "room K7QX was closed");
}

/// A9: a pool ask answered `server_draining` is asked again by itself on a new connection
/// (which a balancer sends to a server that stays), backing off while servers keep draining.
#[test]
fn server_draining_for_the_pool_asks_again_by_itself_after_a_backoff() {
    let quick = ClientMsg::QuickRace {
        difficulty: "hard".into(),
        name: "ann".into(),
        key: None,
        bot: false,
        variant: None,
        variants: crate::net::drawn(),
    };
    let draining = |retry_ms| {
        net(ServerMsg::Error {
            code: protocol::ErrorCode::ServerDraining,
            message: "the server is restarting for an update".into(),
            retry_ms,
        })
    };
    let mut app = App::new("ann").with_intent(&Intent::Quick {
        variant: engine::Variant::Classic,
        difficulty: Difficulty::Hard,
        name: "ann".into(),
    });
    app.update(Event::Net(NetEvent::Connected { reconnect: false }));
    app.update(draining(Some(2000)));
    check_shows(
        &render(&app, 100, 30),
        "asking another server by itself in 3 s, or:",
    );
    check_effects(app.update(Event::Tick(1500)), &[]);
    check_effects(app.update(Event::Tick(2600)), std::slice::from_ref(&quick));
    assert_eq!(app.outside, Outside::Entering);
    // Drained too: again, later.
    app.update(draining(None));
    assert!(
        app.redo_at_ms().is_some_and(|at| at >= 2600 + 500),
        "{:?}",
        app.redo_at_ms()
    );
    check_effects(app.update(Event::Tick(2700)), &[]);
    check_effects(app.update(Event::Tick(4000)), &[quick]);
    app.update(net(ServerMsg::Queued {
        difficulty: Difficulty::Hard,
        waiting: 1,
    }));
    assert_eq!(app.redo_at_ms(), None);
    // A room asked for, or a room closed for the drain: the screen's offers only.
    let mut app = racing();
    app.update(net(ServerMsg::RoomClosed {
        room: "K7QX".try_into().unwrap(),
        reason: Some(protocol::ClosedReason::Drain),
    }));
    assert_eq!(app.redo_at_ms(), None);
}
