//! Proptest twins of the fuzz targets in `fuzz/`: the same property
//! (`protocol::fuzzing::client_frame`) over generated client frames, in the normal suite.

use proptest::prelude::*;

const TYPES: &[&str] = &[
    "create_room",
    "join_room",
    "spectate",
    "resume",
    "list_rooms",
    "set_ready",
    "start_race",
    "place",
    "forfeit",
    "chat",
    "leave",
    "ping",
    "nope",
];

const FIELDS: &[&str] = &[
    "name", "room", "settings", "token", "ready", "cell", "digit", "id", "text",
];

/// A JSON value of a kind a client might put in any field.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:?}")),
        "[0-9]{19,30}".prop_map(|s| s),
        any::<bool>().prop_map(|b| b.to_string()),
        Just("null".to_owned()),
        any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap()),
        "[ a-zA-Z2-9\\u{0300}\\u{200B}\\u{202E}\\u{1b}\\u{43e}]{0,30}"
            .prop_map(|s| serde_json::to_string(&s).unwrap()),
        Just(r#"{"difficulty":"hard","max_players":8.0,"penalty_s":1e3}"#.to_owned()),
        Just("{}".to_owned()),
    ]
}

/// A frame shaped like a client message, with random values in its fields.
fn frame() -> impl Strategy<Value = String> {
    (
        prop::sample::select(TYPES),
        prop::collection::vec((prop::sample::select(FIELDS), value()), 0..6),
    )
        .prop_map(|(t, kv)| {
            let mut s = format!(r#"{{"type":"{t}""#);
            for (k, v) in kv {
                s.push_str(&format!(r#","{k}":{v}"#));
            }
            s.push('}');
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn shaped_frames_keep_the_properties(f in frame()) {
        protocol::fuzzing::client_frame(&f);
    }

    #[test]
    fn arbitrary_text_keeps_the_properties(f in any::<String>()) {
        protocol::fuzzing::client_frame(&f);
    }
}
