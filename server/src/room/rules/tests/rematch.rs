//! Race after race: a rematch from a finished race, and the room's seed deciding every
//! race's id and deal.

use super::*;

#[test]
fn rematch_from_finished() {
    let t0 = Instant::now();
    let mut r = racing(1, settings(), t0);
    r.forfeit(ConnId(1), t0);
    r.take_effects();
    assert_eq!(r.phase(), Phase::Finished);
    assert!(join(&mut r, 2, Some("bo"), Role::Player, t0));
    r.take_effects();
    r.start_race(ConnId(1), t0);
    let fx = r.take_effects();
    assert!(matches!(
        &to(&fx, 2)[0],
        ServerMsg::Countdown { starts_in_ms: 100 }
    ));
    assert_eq!(r.phase(), Phase::Countdown);
    // No puzzle yet: the countdown waits for it.
    r.tick(t0 + Duration::from_secs(1), 0);
    assert_eq!(r.phase(), Phase::Countdown);
}

/// The race id and the seed the deal comes from, as a new race in `r` asks for them.
fn race_seed(r: &mut Room, t: Instant) -> (String, u64) {
    r.start_race(ConnId(1), t);
    r.take_effects()
        .into_iter()
        .find_map(|f| match f {
            Effect::NeedPuzzle { race_id, seed } => Some((race_id.to_string(), seed)),
            _ => None,
        })
        .unwrap()
}

#[test]
fn the_room_seed_decides_race_ids_and_deals() {
    let t = Instant::now();
    let seeded = |seed| {
        let mut r = room_seeded(settings(), seed);
        assert!(join(&mut r, 1, Some("ann"), Role::Player, t));
        race_seed(&mut r, t)
    };
    let (a, b) = (seeded(7), seeded(7));
    assert_eq!(a, b, "same room seed, same race id and race seed");
    assert_eq!(dealt().transformed(a.1), dealt().transformed(b.1));
    let c = seeded(8);
    assert_ne!(a, c);
    assert_ne!(dealt().transformed(a.1), dealt().transformed(c.1));
}
