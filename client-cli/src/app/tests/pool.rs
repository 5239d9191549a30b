//! The pool (Amendment A7) on screen: the queue while we wait, leaving it, a pool room with no
//! host, and racing again from its results.

use super::*;

fn queued(waiting: u32) -> Event {
    net(ServerMsg::Queued {
        difficulty: Difficulty::Hard,
        waiting,
    })
}

/// ann, asking the hard pool, has her first `queued` at local time 1000.
fn in_the_queue() -> App {
    let mut app = App::new("ann").with_intent(&Intent::Quick {
        variant: engine::Variant::Classic,
        difficulty: Difficulty::Hard,
        name: "ann".into(),
    });
    app.update(Event::Net(NetEvent::Connected { reconnect: false }));
    app.update(Event::Tick(1000));
    app.update(queued(1));
    app
}

/// The pool room the server seats ann (p1) and bob (p2) in: no host, `pool` set.
fn pool_joined(phase: Phase) -> ServerMsg {
    let ServerMsg::RoomJoined {
        room,
        you,
        players,
        race,
        ..
    } = joined("p1", None, phase)
    else {
        unreachable!("joined is a room_joined")
    };
    ServerMsg::RoomJoined {
        room,
        you,
        host: None,
        settings: Settings {
            difficulty: Difficulty::Hard,
            public: false,
            pool: true,
            ..Settings::default()
        },
        phase,
        players,
        race,
    }
}

/// ann in a finished pool race, on its results screen.
fn pool_results() -> App {
    let mut app = in_the_queue();
    app.update(net(pool_joined(Phase::Lobby)));
    app.update(net(ServerMsg::Countdown { starts_in_ms: 3000 }));
    app.update(net(ServerMsg::RaceStarted {
        race_id: "r1".into(),
        puzzle: PUZZLE.parse().unwrap(),
        difficulty: Difficulty::Hard,
        time_limit_s: 1800,
        rated: false,
        layout: Default::default(),
        variant: Default::default(),
    }));
    app.update(net(ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::AllDone,
        standings: vec![],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }));
    app
}

#[test]
fn the_queue_shows_the_difficulty_who_waits_and_for_how_long() {
    let mut app = in_the_queue();
    let buf = render(&app, 80, 24);
    check_shows(&buf, "Looking for a hard race with strangers");
    check_shows(&buf, "players waiting: 1 (just you)");
    check_shows(&buf, "time in the queue: 0:00");
    check_shows(&buf, "Esc or q leaves the queue.");
    check_shows(&buf, "Esc leave the queue");
    check_shows(&buf, "quick race  ·  hard  ·  waiting as ann");
    assert!(find(&buf, "nobody else is waiting").is_none());
    // The count changes; the time we began waiting stays.
    app.update(Event::Tick(73_000));
    app.update(queued(3));
    let buf = render(&app, 80, 24);
    check_shows(&buf, "players waiting: 3 (you and 2 others)");
    check_shows(&buf, "time in the queue: 1:12");
    app.update(net(ServerMsg::PoolAlone { ghost: None }));
    check_shows(
        &render(&app, 80, 24),
        "nobody else is waiting right now: you stay in the queue",
    );
}

#[test]
fn esc_or_q_in_the_queue_leaves_it_and_quits() {
    for k in [KeyCode::Esc, KeyCode::Char('q')] {
        let mut app = in_the_queue();
        let effects = app.update(code(k));
        assert_eq!(
            effects,
            [Effect::Send(ClientMsg::LeaveQueue), Effect::Quit],
            "{k:?}"
        );
        assert!(app.quit);
    }
}

#[test]
fn a_pool_room_has_no_host_no_ready_marks_and_starts_by_itself() {
    let mut app = in_the_queue();
    app.update(net(pool_joined(Phase::Lobby)));
    let buf = render(&app, 80, 24);
    check_shows(&buf, "A race with strangers: it starts by itself");
    check_shows(&buf, "Enter chat  q quit");
    for absent in ["r ready", "s start", "★ host", "· ann", "e settings"] {
        assert!(find(&buf, absent).is_none(), "{absent:?} on screen");
    }
    for c in ['r', 's', 'e', 'k'] {
        check_effects(app.update(key(c)), &[]);
        assert_eq!(app.tool, None);
    }
}

#[test]
fn the_results_of_a_pool_race_offer_to_race_again_and_requeue_shows_the_queue() {
    let mut app = pool_results();
    let buf = render(&app, 120, 40);
    check_shows(&buf, "r race again");
    check_shows(&buf, "next: press r to race again (hard pool)");
    assert!(find(&buf, "s rematch").is_none());
    check_effects(app.update(key('s')), &[]);
    check_effects(app.update(key('r')), &[ClientMsg::Requeue]);
    // Until the server answers, the results stay; the room tells us of our own leaving.
    assert!(app.room().is_some());
    app.update(Event::Tick(5000));
    app.update(net(ServerMsg::PlayerLeft {
        player_id: "p1".into(),
    }));
    app.update(queued(2));
    assert_eq!(app.room(), None);
    let buf = render(&app, 80, 24);
    check_shows(&buf, "players waiting: 2 (you and 1 other)");
    check_shows(&buf, "time in the queue: 0:00");
    assert!(find(&buf, "ann left").is_none(), "we did not leave anyone");
    app.update(net(pool_joined(Phase::Lobby)));
    check_shows(&render(&app, 80, 24), "A race with strangers");
}
