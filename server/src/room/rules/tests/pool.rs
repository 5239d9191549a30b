//! A pool room (A7): no host, started by the pool, requeued from once finished.

use super::*;

#[test]
fn a_pool_room_has_no_host_starts_when_the_pool_says_and_requeues_once_finished() {
    let t = Instant::now();
    let pool = Settings {
        pool: true,
        public: false,
        ..settings()
    };
    let mut r = room(pool);
    assert!(join(&mut r, 1, Some("ann"), Role::Player, t));
    assert!(join(&mut r, 2, Some("bob"), Role::Player, t));
    let fx = r.take_effects();
    assert!(
        matches!(&to(&fx, 1)[0], ServerMsg::RoomJoined { host: None, .. }),
        "{fx:?}"
    );
    // Nobody starts a pool room, and nobody requeues before its race is over.
    r.start_race(ConnId(1), t);
    check_error(&r.take_effects(), 1, ErrorCode::NotHost);
    assert!(r.requeue(ConnId(2), t).is_none());
    check_error(&r.take_effects(), 2, ErrorCode::WrongPhase);

    r.start_pool_race(t);
    assert_eq!(r.phase(), Phase::Countdown);
    let race_id = r
        .take_effects()
        .iter()
        .find_map(|f| match f {
            Effect::NeedPuzzle { race_id, .. } => Some(race_id.clone()),
            _ => None,
        })
        .expect("the pool's start asks for a puzzle");
    // Once started, the pool's seats are all there are; watching is open.
    assert!(!join(&mut r, 3, Some("cy"), Role::Player, t));
    check_error(&r.take_effects(), 3, ErrorCode::WrongPhase);
    assert!(join(&mut r, 4, None, Role::Spectator, t));

    r.puzzle_ready(&race_id, dealt(), t, 0);
    let t1 = t + Duration::from_millis(200);
    r.tick(t1, 0);
    assert_eq!(r.phase(), Phase::Racing);
    r.forfeit(ConnId(1), t1);
    r.forfeit(ConnId(2), t1);
    assert_eq!(r.phase(), Phase::Finished);
    r.take_effects();
    let left = r.requeue(ConnId(1), t1).expect("ann leaves for the pool");
    assert_eq!(
        (left.name.as_str(), left.difficulty),
        ("ann", settings().difficulty)
    );
    assert!(
        r.player_id_of(ConnId(1)).is_none(),
        "ann's seat is given up"
    );
}
