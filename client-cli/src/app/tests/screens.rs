//! Every screen at any size, and no server string reaching the terminal unsafe.

use super::*;

#[test]
fn every_screen_draws_at_any_size_without_panicking() {
    let mut finished = racing();
    finished.update(net(ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::TimeLimit,
        standings: vec![],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }));
    let mut countdown = lobby();
    countdown.update(net(ServerMsg::Countdown { starts_in_ms: 3000 }));
    for app in [lobby(), countdown, racing(), finished, App::new("x")] {
        for (w, h) in [
            (1, 1),
            (79, 24),
            (80, 23),
            (10, 3),
            (31, 13),
            (40, 16),
            (67, 31),
            (90, 30),
            (200, 60),
        ] {
            render(&app, w, h);
        }
    }
}

/// What the connection task hands the app for this JSON: the server's text made terminal-safe.
fn wire(json: serde_json::Value) -> Event {
    let msg = crate::net::parse_server_msg(&json.to_string()).expect("a server message");
    net(msg)
}

/// A character that must never reach the terminal: control (Cc), bidi, or another format
/// character (Cf) other than the zero-width joiner.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || ('\u{202A}'..='\u{202E}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
        || matches!(
            c,
            '\u{200B}' | '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{FEFF}'
        )
}

#[track_caller]
fn check_safe(buf: &Buffer) {
    for line in lines(buf) {
        assert!(!line.chars().any(unsafe_char), "{line:?}");
    }
}

#[test]
fn no_server_string_reaches_the_screen_with_control_or_bidi_characters() {
    let mut app = lobby();
    // A name the server should have refused: it still arrives, made safe, with the message.
    app.update(wire(serde_json::json!({
        "type": "player_joined",
        "player": {"player_id": "p3", "name": "ev\u{1b}[31mil\u{7}", "ready": false,
                   "connected": true, "status": "waiting"},
    })));
    app.update(wire(serde_json::json!({
        "type": "chat", "player_id": "p3", "name": "ev\u{1b}[31mil\u{7}",
        "text": "\u{1b}]0;pwned\u{7}hi \u{1b}[2J\u{1b}[10;10Hthere \u{202E}olleh \u{9b}31m",
    })));
    let buf = render(&app, 120, 40);
    check_safe(&buf);
    check_shows(&buf, "ev\u{FFFD}[31mil\u{FFFD}");
    check_shows(&buf, "\u{FFFD}]0;pwned\u{FFFD}hi");
    check_shows(&buf, "\u{FFFD}olleh");
    // An error's message is server text too.
    app.update(wire(serde_json::json!({
        "type": "error", "code": "not_host", "message": "no\u{1b}[2J\u{202E}pe",
    })));
    let buf = render(&app, 120, 40);
    check_safe(&buf);
    check_shows(&buf, "not_host: no\u{FFFD}[2J\u{FFFD}pe");
}
