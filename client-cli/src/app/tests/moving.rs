//! The race moving to another server (A12): `room_moving` to our placements holds them (on the
//! board, as pending) and sends them again after `retry_ms`; a drop and a resume answered
//! `room_moving` hold them until the room is back; a `room_joined` from the new server keeps the
//! pencil marks and cursor and sends what its board does not show; the screen counts down to the
//! next try, and says so plainly when the room has closed.

use super::*;
use crate::net::GIVE_UP_AFTER;
use std::time::Duration;

fn place(cell: i64, digit: i64, id: u64) -> ClientMsg {
    ClientMsg::Place {
        cell,
        digit,
        id: Some(MsgId::Number(id.into())),
    }
}

fn room_moving(retry_ms: Option<u64>) -> Event {
    net(ServerMsg::Error {
        code: protocol::ErrorCode::RoomMoving,
        message: "the race is moving to another server".into(),
        retry_ms,
    })
}

/// The room as its new server shows it mid-race (no token: A12), with `board`.
fn shown_again(board: &str) -> Event {
    let mut msg = joined(
        "p1",
        Some(RaceView {
            race_id: "r1".into(),
            puzzle: Some(PUZZLE.parse().unwrap()),
            difficulty: Difficulty::Medium,
            time_limit_s: 1800,
            elapsed_ms: 5_000,
            board: Some(board.parse().unwrap()),
            mistakes: 0,
            progress: vec![],
            standings: None,
            reason: None,
            layout: Default::default(),
        }),
        Phase::Racing,
    );
    if let ServerMsg::RoomJoined { you, .. } = &mut msg {
        you.token = None;
    }
    net(msg)
}

/// Racing, with a pencil 1 in r1c3 (cell 2) and the cursor on r1c4 (cell 3).
fn racing_with_a_mark() -> App {
    let mut app = racing();
    for k in ['p', 'l', 'l', '1', 'p', 'l'] {
        app.update(key(k));
    }
    app
}

#[track_caller]
fn check_kept(app: &App, cursor: (u8, u8)) {
    let local = app.play.pencil_cursor();
    assert_eq!(local.pencil[2], Digit::new(1).expect("d").bit(), "the mark");
    assert_eq!(local.cursor, Cell::at(cursor.0, cursor.1).expect("cell"));
}

#[test]
fn room_moving_holds_placements_on_the_board_and_sends_them_again_after_retry_ms() {
    let mut app = racing_with_a_mark();
    check_effects(app.update(key('6')), &[place(3, 6, 1)]);
    app.update(room_moving(Some(1000)));
    assert!(
        matches!(app.conn, Conn::Moving { attempt: 1, retry_at_ms } if (2000..=2250).contains(&retry_at_ms)),
        "{:?}",
        app.conn
    );
    let buf = render(&app, 80, 24);
    check_shows(
        &buf,
        "the race moved to another server and goes on — back in ",
    );
    check_shows(&buf, "playing as ann  moving…");
    // Typed while the room moves: held, not sent; both stay on the board as pending.
    app.update(key('l'));
    app.update(key('l'));
    check_effects(app.update(key('8')), &[]);
    assert_eq!(app.play.pending().count(), 2);
    check_effects(app.update(Event::Tick(1500)), &[]);
    check_shows(&render(&app, 80, 24), "back in 1 s");
    check_effects(
        app.update(Event::Tick(2300)),
        &[place(3, 6, 1), place(5, 8, 2)],
    );
    // Still moving: held again, and sent again once the new server shows the room. Its board
    // has r1c4 (the owner took it before it was lost): only r1c6 goes.
    app.update(room_moving(Some(1000)));
    let mut board = PUZZLE.to_owned();
    board.replace_range(3..4, "6");
    check_effects(app.update(shown_again(&board)), &[place(5, 8, 2)]);
    assert_eq!(app.conn, Conn::Online);
    check_kept(&app, (0, 5));
    assert_eq!(race(&app).board.get(Cell::new(3).unwrap()), Digit::new(6));
    assert_eq!(find(&render(&app, 80, 24), "moved to another server"), None);
}

#[test]
fn an_answer_to_a_placement_means_the_room_is_back_and_the_held_go_at_once() {
    let mut app = racing_with_a_mark();
    check_effects(app.update(key('6')), &[place(3, 6, 1)]);
    app.update(room_moving(None));
    app.update(key('l'));
    app.update(key('l'));
    check_effects(app.update(key('8')), &[]);
    // A late answer from before: the room answers again.
    let answer = ServerMsg::Placement {
        id: Some(MsgId::Number(1.into())),
        cell: Cell::new(3).unwrap(),
        digit: Digit::new(6).unwrap(),
        accepted: true,
        reason: None,
        conflicts: vec![],
        mistakes: 0,
        penalty_ms: 0,
    };
    check_effects(app.update(net(answer)), &[place(5, 8, 2)]);
    assert_eq!(app.conn, Conn::Online);
}

#[test]
fn a_dropped_socket_holds_placements_until_the_resumed_room_answers() {
    let mut app = racing_with_a_mark();
    check_effects(app.update(key('6')), &[place(3, 6, 1)]);
    app.update(Event::Net(NetEvent::Reconnecting {
        attempt: 2,
        delay: Duration::from_millis(1500),
    }));
    check_shows(
        &render(&app, 80, 24),
        "connection lost; the race goes on — reconnecting in 2 s (try 2)",
    );
    app.update(key('l'));
    app.update(key('l'));
    check_effects(app.update(key('8')), &[]);
    app.update(Event::Net(NetEvent::Connected { reconnect: true }));
    // The resume is answered `room_moving`: the connection task asks again by itself.
    app.update(Event::Net(NetEvent::Moving {
        attempt: 1,
        delay: Duration::from_millis(3000),
    }));
    check_shows(
        &render(&app, 80, 24),
        "the race moved to another server and goes on — back in 3 s",
    );
    app.update(Event::Tick(2500));
    check_shows(&render(&app, 80, 24), "back in 2 s");
    check_effects(
        app.update(shown_again(PUZZLE)),
        &[place(3, 6, 1), place(5, 8, 2)],
    );
    assert_eq!(app.conn, Conn::Online);
    check_kept(&app, (0, 5));
}

#[test]
fn a_room_that_does_not_come_back_has_closed_and_says_so() {
    let mut app = racing_with_a_mark();
    app.update(room_moving(Some(250)));
    let gave_up_at = 1000 + GIVE_UP_AFTER.as_millis() as u64;
    app.update(Event::Tick(gave_up_at - 100));
    assert!(matches!(app.conn, Conn::Moving { .. }), "{:?}", app.conn);
    app.update(Event::Tick(gave_up_at));
    let buf = render(&app, 100, 30);
    check_shows(
        &buf,
        "the room has closed: it did not come back on another server within 60 s; press q to quit",
    );
    assert_eq!(app.update(key('q')), vec![Effect::Quit], "no leave to send");
    // The connection task's word when a resume finds the room gone.
    let mut app = racing();
    app.update(Event::Net(NetEvent::Closed {
        error: Some("the room has closed: its server was lost and no other server took it over (invalid_token: no such seat)".into()),
    }));
    check_shows(
        &render(&app, 140, 30),
        "the room has closed: its server was lost and no other server took it over",
    );
}

/// A placement relayed to an owner in the moment it died is answered by nobody: the new
/// server's view does not show it; still unanswered a moment later, it goes again.
#[test]
fn a_placement_nobody_answered_goes_again_a_moment_after_the_new_server_shows_the_room() {
    let mut app = racing_with_a_mark();
    check_effects(app.update(key('6')), &[place(3, 6, 1)]);
    check_effects(app.update(shown_again(PUZZLE)), &[]);
    // Shown at 1000 ms: looked at again at 2000 ms.
    check_effects(app.update(Event::Tick(1900)), &[]);
    check_effects(app.update(Event::Tick(2100)), &[place(3, 6, 1)]);
    assert_eq!(
        app.play.pending_in(Cell::at(0, 3).expect("cell")),
        Digit::new(6)
    );
    check_effects(app.update(Event::Tick(5000)), &[]);
}
