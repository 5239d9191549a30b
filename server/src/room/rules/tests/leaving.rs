//! Seats that go: a dropped seat held, resumed and expired, and the last leaver ending the
//! race and closing the room.

use super::*;

#[test]
fn held_seat_resume_and_expiry() {
    let t0 = Instant::now();
    let mut r = racing(2, settings(), t0);
    let token = |r: &mut Room, c: u64| r.seats.seat_of_conn(ConnId(c)).unwrap().token.clone();
    let tok1 = token(&mut r, 1);
    r.place(ConnId(1), cell(0), digit(4), None, t0);
    r.dropped(ConnId(1), t0);
    let fx = r.take_effects();
    assert!(
        matches!(&to(&fx, 2).last().unwrap(), ServerMsg::PlayerUpdated { player } if !player.connected)
    );
    // Resume within the grace period: same board, mistakes and clock.
    let t1 = t0 + Duration::from_secs(4);
    assert!(r.resume(ConnId(7), &tok1, Default::default(), t1));
    let fx = r.take_effects();
    match &to(&fx, 7)[0] {
        ServerMsg::RoomJoined {
            race: Some(view), ..
        } => {
            assert_eq!(view.elapsed_ms, 4000);
            assert_eq!(view.board.unwrap().to_line().as_bytes()[0], b'4');
        }
        m => panic!("{m:?}"),
    }
    // A second resume moves the seat and closes the old connection with 1000.
    assert!(r.resume(ConnId(8), &tok1, Default::default(), t1));
    let fx = r.take_effects();
    assert!(fx
        .iter()
        .any(|f| matches!(f, Effect::Close(ConnId(7), CloseCode::Normal))));
    assert!(!r.resume(
        ConnId(9),
        "00000000000000000000000000000000",
        Default::default(),
        t1
    ));
    check_error(&r.take_effects(), 9, ErrorCode::InvalidToken);
    // The host (p1, conn 8) drops and its seat expires: forfeited, p2 becomes host.
    r.dropped(ConnId(8), t1);
    r.take_effects();
    assert_eq!(
        r.next_deadline_but_probes(),
        Some(t1 + Duration::from_secs(5))
    );
    r.tick(t1 + Duration::from_secs(5), 0);
    let fx = r.take_effects();
    let msgs = to(&fx, 2);
    assert!(msgs.iter().any(|m| matches!(m, ServerMsg::PlayerFinished { player_id, status: FinishStatus::Forfeited, .. } if player_id == "p1")));
    assert!(msgs
        .iter()
        .any(|m| matches!(m, ServerMsg::PlayerLeft { player_id } if player_id == "p1")));
    assert!(msgs
        .iter()
        .any(|m| matches!(m, ServerMsg::HostChanged { player_id } if player_id == "p2")));
    assert!(fx
        .iter()
        .any(|f| matches!(f, Effect::TokenRevoked(t) if *t == tok1)));
    assert_eq!(r.phase(), Phase::Racing);
}

#[test]
fn last_leaver_ends_race_and_closes_room() {
    let t0 = Instant::now();
    let mut r = racing(1, settings(), t0);
    assert!(join(&mut r, 5, Some("watcher"), Role::Spectator, t0));
    r.take_effects();
    r.chat(ConnId(5), "hi".into(), t0);
    let fx = r.take_effects();
    assert!(
        matches!(&to(&fx, 1)[0], ServerMsg::Chat { player_id: None, name, .. } if name == "watcher")
    );
    assert!(!join(&mut r, 6, Some("late"), Role::Player, t0));
    check_error(&r.take_effects(), 6, ErrorCode::RaceInProgress);
    assert!(r.leave(ConnId(1), t0));
    let fx = r.take_effects();
    let spec = to(&fx, 5);
    let kinds: Vec<&str> = spec
        .iter()
        .map(|m| match m {
            ServerMsg::PlayerFinished { .. } => "finished",
            ServerMsg::PlayerLeft { .. } => "left",
            ServerMsg::RaceOver { .. } => "over",
            ServerMsg::RoomClosed { .. } => "closed",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["finished", "left", "over", "closed"]);
    assert!(r.is_empty());
}
