//! The host between races (A5): next race's settings, and kicks with their bars.

use super::*;

#[test]
fn the_host_sets_the_next_races_settings_between_races() {
    let t = Instant::now();
    let mut r = lobby(2, settings(), t);
    let new = Settings {
        difficulty: engine::Difficulty::Hard,
        max_players: 2,
        public: false,
        ..settings()
    };
    r.set_settings(ConnId(2), new.clone());
    check_error(&r.take_effects(), 2, ErrorCode::NotHost);
    r.set_settings(ConnId(9), new.clone());
    check_error(&r.take_effects(), 9, ErrorCode::NotPlayer);
    let too_few = Settings {
        max_players: 1,
        ..new.clone()
    };
    r.set_settings(ConnId(1), too_few);
    check_error(&r.take_effects(), 1, ErrorCode::InvalidSettings);
    assert_eq!(r.settings(), &settings());
    r.set_settings(ConnId(1), new.clone());
    let fx = r.take_effects();
    for c in [1, 2, 9] {
        assert_eq!(
            to(&fx, c),
            [ServerMsg::SettingsChanged {
                settings: new.clone()
            }]
        );
    }
    assert_eq!(r.settings(), &new);
    // Mid-race: wrong_phase; after it, allowed again.
    let t0 = t + Duration::from_secs(1);
    let mut r = racing(2, settings(), t0);
    r.set_settings(ConnId(1), new.clone());
    check_error(&r.take_effects(), 1, ErrorCode::WrongPhase);
    r.forfeit(ConnId(1), t0);
    r.forfeit(ConnId(2), t0);
    assert_eq!(r.phase(), Phase::Finished);
    r.take_effects();
    r.set_settings(ConnId(1), new.clone());
    assert!(matches!(
        &to(&r.take_effects(), 2)[..],
        [ServerMsg::SettingsChanged { .. }]
    ));
}

#[test]
fn a_kicked_player_leaves_and_is_barred_by_name_and_address() {
    let t = Instant::now();
    let four = Settings {
        max_players: 4,
        ..settings()
    };
    let mut r = lobby(3, four, t);
    r.kick(ConnId(2), "p1", t);
    check_error(&r.take_effects(), 2, ErrorCode::NotHost);
    r.kick(ConnId(1), "p7", t);
    check_error(&r.take_effects(), 1, ErrorCode::BadMessage);
    r.kick(ConnId(1), "p1", t);
    check_error(&r.take_effects(), 1, ErrorCode::BadMessage);
    r.kick(ConnId(1), "p2", t);
    let fx = r.take_effects();
    check_error(&fx, 2, ErrorCode::Kicked);
    assert!(fx.iter().any(|f| matches!(f, Effect::Detach(ConnId(2)))));
    assert!(fx.iter().any(|f| matches!(f, Effect::TokenRevoked(_))));
    for c in [1, 3, 9] {
        assert!(
            matches!(&to(&fx, c)[..], [ServerMsg::PlayerLeft { player_id }] if player_id.as_str() == "p2")
        );
    }
    assert!(!r.has_conn(ConnId(2)));
    assert_eq!(r.n_players(), 2);
    // Barred by name (by key) from anywhere, and anyone from that address; watching too.
    let elsewhere = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));
    assert!(!r.join(
        ConnId(4),
        elsewhere,
        Some("P2"),
        Role::Player,
        Identity::default(),
        t
    ));
    check_error(&r.take_effects(), 4, ErrorCode::Kicked);
    assert!(!join(&mut r, 4, Some("other"), Role::Player, t));
    check_error(&r.take_effects(), 4, ErrorCode::Kicked);
    assert!(!join(&mut r, 4, None, Role::Spectator, t));
    check_error(&r.take_effects(), 4, ErrorCode::Kicked);
    assert!(r.join(
        ConnId(4),
        elsewhere,
        Some("other"),
        Role::Player,
        Identity::default(),
        t
    ));
    r.take_effects();
    // After the bar, both may come back.
    let later = t + Duration::from_secs(600);
    assert!(join(&mut r, 5, Some("p2"), Role::Player, later));
    // Not during a race.
    let t0 = later + Duration::from_secs(1);
    let mut r = racing(2, settings(), t0);
    r.kick(ConnId(1), "p2", t0);
    check_error(&r.take_effects(), 1, ErrorCode::WrongPhase);
}

#[test]
fn a_held_seat_can_be_kicked() {
    let t = Instant::now();
    let mut r = lobby(2, settings(), t);
    r.dropped(ConnId(2), t);
    r.take_effects();
    r.kick(ConnId(1), "p2", t);
    let fx = r.take_effects();
    assert!(matches!(&to(&fx, 1)[..], [ServerMsg::PlayerLeft { .. }]));
    assert!(!fx.iter().any(|f| matches!(f, Effect::Detach(_))));
    assert_eq!(r.n_players(), 1);
}
