//! Joining a room: the lobby's rules for seats, A3 names (a spectator never passes for a
//! player) and the spectator cap.

use super::*;

#[test]
fn lobby_join_rules() {
    let t = Instant::now();
    let mut r = room(settings());
    assert!(join(&mut r, 1, Some("ann"), Role::Player, t));
    let fx = r.take_effects();
    assert!(
        matches!(&to(&fx, 1)[0], ServerMsg::RoomJoined { host, you, .. } if host.as_ref().is_some_and(|h| h == "p1") && you.token.as_ref().is_some_and(|t| t.len() == 32))
    );
    assert!(!join(&mut r, 2, Some("ANN"), Role::Player, t));
    check_error(&r.take_effects(), 2, ErrorCode::NameTaken);
    assert!(
        join(&mut r, 2, Some("\tbob "), Role::Player, t),
        "names are trimmed"
    );
    r.take_effects();
    assert!(!join(&mut r, 3, Some("b\u{0}b"), Role::Player, t));
    check_error(&r.take_effects(), 3, ErrorCode::InvalidName);
    assert!(join(&mut r, 4, Some("cy"), Role::Player, t));
    let fx = r.take_effects();
    assert!(matches!(&to(&fx, 1)[0], ServerMsg::PlayerJoined { player } if player.name == "cy"));
    assert!(!join(&mut r, 5, Some("dee"), Role::Player, t));
    check_error(&r.take_effects(), 5, ErrorCode::RoomFull);
    assert!(join(&mut r, 6, None, Role::Spectator, t));
    let fx = r.take_effects();
    assert!(
        matches!(&to(&fx, 6)[0], ServerMsg::RoomJoined { you, .. } if you.player_id.is_none() && you.role == Role::Spectator)
    );
    r.set_ready(ConnId(6), true);
    check_error(&r.take_effects(), 6, ErrorCode::NotPlayer);
    r.start_race(ConnId(2), t);
    check_error(&r.take_effects(), 2, ErrorCode::NotHost);
    r.place(ConnId(1), cell(0), digit(4), None, t);
    check_error(&r.take_effects(), 1, ErrorCode::WrongPhase);
}

#[test]
fn names_by_a3_spectators_never_pass_for_players() {
    let t = Instant::now();
    let mut r = room(settings());
    assert!(join(&mut r, 1, Some("host"), Role::Player, t));
    r.take_effects();
    // A case variant, a Cyrillic `о`, or NFC-equal spelling of a player's name is that name,
    // for a player and for a spectator alike.
    for (c, name) in [(2, "HOST"), (3, "h\u{043e}st"), (4, " Host ")] {
        for role in [Role::Player, Role::Spectator] {
            assert!(
                !r.join(ConnId(c), LOCAL, Some(name), role, Identity::default(), t),
                "{name:?}"
            );
            check_error(&r.take_effects(), c, ErrorCode::NameTaken);
        }
    }
    // Bidi controls, zero-width characters, the soft hyphen and the BOM are refused.
    for (c, name) in [
        (5, "\u{202E}tsoh"),
        (6, "ho\u{2066}st"),
        (7, "ho\u{200B}st"),
        (8, "ho\u{00AD}st"),
        (9, "\u{FEFF}host"),
        (10, "\u{0301}"),
    ] {
        for role in [Role::Player, Role::Spectator] {
            assert!(
                !r.join(ConnId(c), LOCAL, Some(name), role, Identity::default(), t),
                "{name:?}"
            );
            check_error(&r.take_effects(), c, ErrorCode::InvalidName);
        }
    }
    // Spectators share names with each other (the default one too); a player may then take a
    // spectator's name: seats have priority, and chat tells them apart by `player_id`.
    assert!(join(&mut r, 11, None, Role::Spectator, t));
    assert!(join(&mut r, 12, Some("Spectator"), Role::Spectator, t));
    r.take_effects();
    assert!(join(&mut r, 13, Some("spectator"), Role::Player, t));
    r.take_effects();
    r.chat(ConnId(11), "hi".into(), t);
    let fx = r.take_effects();
    assert!(matches!(
        &to(&fx, 13)[..],
        [ServerMsg::Chat { player_id: None, name, .. }] if name == "spectator"
    ));
}

#[test]
fn spectators_are_capped() {
    let t = Instant::now();
    let mut r = room(settings());
    assert!(join(&mut r, 1, Some("ann"), Role::Player, t));
    assert!(join(&mut r, 2, None, Role::Spectator, t));
    assert!(join(&mut r, 3, None, Role::Spectator, t));
    r.take_effects();
    assert!(!join(&mut r, 4, None, Role::Spectator, t));
    check_error(&r.take_effects(), 4, ErrorCode::RoomFull);
    // A place frees up when one leaves; players do not count.
    assert!(r.leave(ConnId(2), t));
    assert!(join(&mut r, 4, None, Role::Spectator, t));
    assert!(join(&mut r, 5, Some("bob"), Role::Player, t));
}
