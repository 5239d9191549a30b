//! A drain (A9): a room between races closes at once with `room_closed` `drain`; a race under
//! way finishes and is stored, and its room closes [`DRAIN_READ`] after `race_over`; nothing new
//! starts meanwhile.

use protocol::ClosedReason;

use super::super::DRAIN_READ;
use super::*;

/// Whether `fx` tells `conn` `room_closed` for `reason`, then closes it with 1001.
#[track_caller]
fn closed_for(fx: &[Effect], conn: u64, reason: ClosedReason) {
    let conn = ConnId(conn);
    let told = fx.iter().position(|f| {
        matches!(f, Effect::Send(to, ServerMsg::RoomClosed { reason: Some(r), .. })
            if to.contains(&conn) && *r == reason)
    });
    let closed = fx
        .iter()
        .position(|f| matches!(f, Effect::Close(x, CloseCode::GoingAway) if *x == conn));
    assert!(
        matches!((told, closed), (Some(a), Some(b)) if a < b),
        "{fx:?}"
    );
}

#[test]
fn a_lobby_closes_at_once_for_the_drain() {
    let t = Instant::now();
    let mut r = room(settings());
    assert!(join(&mut r, 1, Some("ann"), Role::Player, t));
    assert!(join(&mut r, 9, None, Role::Spectator, t));
    r.take_effects();
    r.drain();
    let fx = r.take_effects();
    closed_for(&fx, 1, ClosedReason::Drain);
    closed_for(&fx, 9, ClosedReason::Drain);
    assert!(r.is_closed());
    // A shutdown after it says nothing more.
    r.shutdown(t);
    assert!(r.take_effects().is_empty());
}

#[test]
fn a_race_under_way_finishes_is_stored_and_its_room_closes_after_the_results() {
    let t0 = Instant::now();
    let mut r = racing(2, settings(), t0);
    r.drain();
    assert!(r.take_effects().is_empty(), "the race goes on untouched");
    assert!(r.draining() && !r.is_closed());
    // Nobody new takes a seat (the race is on anyway), but one may still watch.
    assert!(!join(&mut r, 3, Some("cy"), Role::Player, t0));
    check_error(&r.take_effects(), 3, ErrorCode::ServerDraining);
    assert!(join(&mut r, 9, None, Role::Spectator, t0));
    r.take_effects();

    let t1 = t0 + Duration::from_secs(1);
    r.forfeit(ConnId(1), t1);
    r.forfeit(ConnId(2), t1);
    let fx = r.take_effects();
    let stored = fx.iter().position(|f| matches!(f, Effect::Store(_)));
    let over = fx
        .iter()
        .position(|f| matches!(f, Effect::Send(_, ServerMsg::RaceOver { .. })));
    assert!(
        matches!((stored, over), (Some(a), Some(b)) if a < b),
        "{fx:?}"
    );
    assert!(!fx.iter().any(|f| matches!(f, Effect::Close(..))), "{fx:?}");
    assert_eq!(r.next_deadline(), Some(t1 + DRAIN_READ));

    // Between the results and the close, no new race starts.
    r.start_race(ConnId(1), t1);
    check_error(&r.take_effects(), 1, ErrorCode::ServerDraining);
    r.tick(t1 + DRAIN_READ - Duration::from_millis(1), 0);
    assert!(!r.is_closed());
    r.tick(t1 + DRAIN_READ, 0);
    let fx = r.take_effects();
    for c in [1, 2, 9] {
        closed_for(&fx, c, ClosedReason::Drain);
    }
    assert!(r.is_closed());
}

#[test]
fn a_shutdown_during_the_drain_ends_the_race_as_a_shutdown_does() {
    let t0 = Instant::now();
    let mut r = racing(2, settings(), t0);
    r.drain();
    r.shutdown(t0 + Duration::from_secs(1));
    let fx = r.take_effects();
    closed_for(&fx, 1, ClosedReason::Shutdown);
    closed_for(&fx, 2, ClosedReason::Shutdown);
    assert!(fx.iter().any(|f| matches!(f, Effect::Store(_))));
    assert!(r.is_closed());
}

#[test]
fn a_host_run_server_shuts_its_rooms_as_closed_by_the_host() {
    let t0 = Instant::now();
    let mut r = racing(2, settings(), t0);
    // `sudoku-race host` runs the server in-process: its rooms end because the host quit.
    r.opts.shutdown_reason = ClosedReason::HostClosed;
    r.shutdown(t0);
    closed_for(&r.take_effects(), 2, ClosedReason::HostClosed);
}

#[test]
fn shutdown_tells_everyone_the_room_closed_then_closes_1001() {
    let t0 = Instant::now();
    let mut r = racing(2, settings(), t0);
    assert!(join(&mut r, 9, None, Role::Spectator, t0));
    r.take_effects();
    r.shutdown(t0);
    let fx = r.take_effects();
    for c in [1, 2, 9] {
        let conn = ConnId(c);
        let closed_at = fx.iter().position(
            |f| matches!(f, Effect::Send(to, ServerMsg::RoomClosed { .. }) if to.contains(&conn)),
        );
        let close_at = fx
            .iter()
            .position(|f| matches!(f, Effect::Close(x, CloseCode::GoingAway) if *x == conn));
        assert!(
            matches!((closed_at, close_at), (Some(a), Some(b)) if a < b),
            "{fx:?}"
        );
    }
    assert!(fx.iter().any(|f| matches!(f, Effect::Store(_))));
}
