//! Whoever comes between races (phase `finished`) sees the last race as its players did:
//! `room_joined`'s race view carries the standings and reason of its `race_over` (ours,
//! additive), players who left included.

use super::*;

/// The `race_over` among `msgs`: its reason and standings.
fn over_in(msgs: &[ServerMsg]) -> (OverReason, Vec<Standing>) {
    msgs.iter()
        .find_map(|m| match m {
            ServerMsg::RaceOver {
                reason, standings, ..
            } => Some((*reason, standings.clone())),
            _ => None,
        })
        .expect("race_over")
}

/// The race view of the one `room_joined` among `msgs`.
fn view_in(msgs: &[ServerMsg]) -> protocol::RaceView {
    match msgs {
        [ServerMsg::RoomJoined {
            phase: Phase::Finished,
            race: Some(v),
            ..
        }, ..] => v.clone(),
        other => panic!("room_joined in phase finished: {other:?}"),
    }
}

#[test]
fn a_late_joiner_gets_the_standings_race_over_sent() {
    let t0 = Instant::now();
    let mut r = racing(3, settings(), t0);
    let first = empty_cells()[0];
    r.place(ConnId(1), cell(first), solution_digit(first), None, t0);
    // p3 leaves mid-race: it stays in the race's standings.
    assert!(r.leave(ConnId(3), t0));
    r.forfeit(ConnId(2), t0);
    r.forfeit(ConnId(1), t0);
    let (reason, standings) = over_in(&to(&r.take_effects(), 1));
    assert_eq!(reason, OverReason::AllDone);
    assert_eq!(standings.len(), 3);

    // A new player and a spectator, between races.
    assert!(join(&mut r, 7, Some("late"), Role::Player, t0));
    assert!(join(&mut r, 8, None, Role::Spectator, t0));
    let fx = r.take_effects();
    for c in [7, 8] {
        let v = view_in(&to(&fx, c));
        assert_eq!(v.standings.as_ref(), Some(&standings), "conn {c}");
        assert_eq!(v.reason, Some(OverReason::AllDone));
        assert!(v.board.is_none(), "no board of its own: it did not race");
    }
    let names: Vec<&str> = standings.iter().map(|s| s.name.as_str()).collect();
    assert!(
        names.contains(&"p3") && !names.contains(&"late"),
        "{names:?}"
    );

    // The next countdown's view has none of it.
    r.start_race(ConnId(1), t0);
    r.take_effects();
    assert!(join(&mut r, 9, None, Role::Spectator, t0));
    match &to(&r.take_effects(), 9)[..] {
        [ServerMsg::RoomJoined { race: Some(v), .. }] => {
            assert_eq!((&v.standings, v.reason), (&None, None));
        }
        other => panic!("room_joined: {other:?}"),
    }
}

#[test]
fn after_the_time_limit_the_reason_is_the_time_limit() {
    let t0 = Instant::now();
    let mut r = racing(2, settings(), t0);
    let first = empty_cells()[0];
    r.place(ConnId(2), cell(first), solution_digit(first), None, t0);
    r.forfeit(ConnId(1), t0);
    r.take_effects();
    r.tick(
        t0 + Duration::from_secs(u64::from(settings().time_limit_s)),
        0,
    );
    let (reason, standings) = over_in(&to(&r.take_effects(), 2));
    assert_eq!(reason, OverReason::TimeLimit);
    // p2 drops and resumes with its token: its own board, and the same standings.
    let token = "00000000000000000000000000000002";
    r.dropped(ConnId(2), t0);
    r.take_effects();
    assert!(r.resume(ConnId(12), token, Default::default(), t0));
    let v = view_in(&to(&r.take_effects(), 12));
    assert_eq!(v.standings, Some(standings));
    assert_eq!(v.reason, Some(OverReason::TimeLimit));
    let board = v.board.expect("its own board");
    assert_eq!(board.get(cell(first)), Some(solution_digit(first)));
}
