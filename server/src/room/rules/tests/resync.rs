//! A member's fresh view after a cluster relay gap: `room_joined` as `resume` sends it (the
//! member's own board, everyone's progress), and after an announced race its `race_over` again.

use super::*;

#[test]
fn a_resync_sends_the_member_a_fresh_view_and_the_results_again() {
    let t0 = Instant::now();
    let mut r = racing(2, settings(), t0);
    assert!(join(&mut r, 9, Some("watcher"), Role::Spectator, t0));
    let first = empty_cells()[0];
    r.place(ConnId(1), cell(first), solution_digit(first), None, t0);
    r.take_effects();
    r.resync(ConnId(1), t0);
    let fx = r.take_effects();
    let [ServerMsg::RoomJoined {
        you, race: Some(v), ..
    }] = &to(&fx, 1)[..]
    else {
        panic!("one room_joined: {fx:?}");
    };
    assert_eq!(you.role, Role::Player);
    let board = v.board.as_ref().expect("the player's board");
    assert_eq!(board.get(cell(first)), Some(solution_digit(first)));
    assert!(to(&fx, 2).is_empty(), "only the member asked gets it");
    // A spectator's view has no board; someone not in the room gets nothing.
    r.resync(ConnId(9), t0);
    r.resync(ConnId(42), t0);
    let fx = r.take_effects();
    assert!(
        matches!(&to(&fx, 9)[..], [ServerMsg::RoomJoined { race: Some(v), .. }] if v.board.is_none())
    );
    assert!(to(&fx, 42).is_empty());
    // After the race: the view, then the race's results again.
    r.forfeit(ConnId(1), t0);
    r.forfeit(ConnId(2), t0);
    let fx = r.take_effects();
    let over = to(&fx, 2)
        .into_iter()
        .find(|m| matches!(m, ServerMsg::RaceOver { .. }))
        .expect("race_over");
    r.resync(ConnId(2), t0);
    let again = to(&r.take_effects(), 2);
    assert!(matches!(
        again[0],
        ServerMsg::RoomJoined {
            phase: Phase::Finished,
            ..
        }
    ));
    assert_eq!(again[1], over, "the same results, again");
}
