//! Properties of client input, checked by the fuzz targets (`fuzz/`) and by their proptest
//! twins in the normal suite: one statement of each property, two drivers. The functions panic
//! when a property fails, so they are for test harnesses only.

use crate::ids::{PlayerName, RoomCode};
use crate::{convert, text, ClientMsg};

/// One text frame from a client: parsing never panics; whatever parses is checked by the rules
/// the server applies next (names, codes, settings, chat, cells) without a panic, their results
/// keep their promises, and the message serializes back to text that parses to the same message.
pub fn client_frame(frame: &str) {
    check_terminal_safe(frame);
    let Ok(msg) = ClientMsg::from_json(frame) else {
        return;
    };
    match &msg {
        ClientMsg::CreateRoom { name, settings, .. } => {
            check_name(name);
            if let Some(Ok(s)) = settings.as_ref().map(|s| s.resolve()) {
                assert!((1..=16).contains(&s.max_players));
                assert!((60..=7200).contains(&s.time_limit_s));
                assert!(s.max_mistakes <= 10 && s.penalty_s <= 120);
            }
        }
        ClientMsg::JoinRoom { room, name, .. } => {
            check_code(room);
            check_name(name);
        }
        ClientMsg::Spectate { room, name, .. } => {
            check_code(room);
            if let Some(name) = name {
                check_name(name);
            }
        }
        ClientMsg::Chat { text: t } if text::check_chat(t).is_ok() => {
            assert!(!t
                .chars()
                .any(|c| c.is_control() || text::is_bidi_control(c)));
        }
        ClientMsg::Place { cell, digit, .. } => {
            let ok = convert::place_target(*cell, *digit).is_ok();
            assert_eq!(ok, (0..=80).contains(cell) && (1..=9).contains(digit));
        }
        _ => {}
    }
    let again = serde_json::to_string(&msg).expect("a parsed message serializes");
    let back = ClientMsg::from_json(&again).expect("a serialized message parses");
    assert_eq!(back, msg, "round trip of {frame:?} via {again:?}");
}

fn check_name(raw: &str) {
    if let Ok(name) = PlayerName::try_from(raw) {
        let n = name.chars().count();
        assert!((1..=crate::MAX_NAME_CHARS).contains(&n));
        assert!(!name.chars().any(text::is_forbidden_in_name));
        assert!(name.chars().any(text::is_visible));
        // Normalising is idempotent, and the key is defined for every valid name.
        assert_eq!(PlayerName::try_from(name.as_str()).as_ref(), Ok(&name));
        let _ = name.key();
    }
}

fn check_code(raw: &str) {
    if let Ok(code) = RoomCode::try_from(raw) {
        assert!((4..=8).contains(&code.len()));
        assert_eq!(RoomCode::try_from(code.as_str()).as_ref(), Ok(&code));
    }
}

fn check_terminal_safe(s: &str) {
    let safe = text::terminal_safe(s);
    assert!(!safe
        .chars()
        .any(|c| c.is_control() || text::is_bidi_control(c)));
}
