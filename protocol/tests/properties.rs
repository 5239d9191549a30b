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
        "-?[1-9]{1,3}(\\.[0-9]{1,3})?[eE][+-]?[3-9][0-9]{2,3}".prop_map(|s| s),
        any::<bool>().prop_map(|b| b.to_string()),
        Just("null".to_owned()),
        any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap()),
        "[ a-zA-Z2-9\\u{0300}\\u{200B}\\u{202E}\\u{1b}\\u{43e}\\u{3164}\\u{FFA0}]{0,30}"
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

/// A combining mark that sits over or around a letter (Mn or Me).
fn mark() -> impl Strategy<Value = char> {
    prop_oneof![
        (0x0300u32..=0x036F).prop_map(|c| char::from_u32(c).unwrap()),
        (0x20D0u32..=0x20F0).prop_map(|c| char::from_u32(c).unwrap()),
    ]
}

proptest! {
    /// A3: adding marks to a name's letters (any, anywhere after a letter) never makes a new
    /// name: the key is the key of the bare name.
    #[test]
    fn marks_added_to_a_name_keep_its_key(
        base in "[a-zA-Z][a-zA-Z ]{0,10}",
        marks in prop::collection::vec((0usize..12, mark()), 1..6),
    ) {
        let mut chars: Vec<char> = base.chars().collect();
        for (at, m) in marks {
            // After a letter, so the mark has something to sit on.
            let at = 1 + at % chars.len();
            chars.insert(at, m);
        }
        let marked: String = chars.into_iter().collect();
        let key = |s: &str| protocol::PlayerName::try_from(s).map(|n| n.key());
        if let (Ok(a), Ok(b)) = (key(&base), key(&marked)) {
            prop_assert_eq!(a, b, "{:?} vs {:?}", base, marked);
        }
    }

    /// A name of fillers, white space and marks alone has nothing visible: `invalid_name`.
    #[test]
    fn fillers_alone_are_invisible(
        s in "[ \\u{115F}\\u{1160}\\u{3164}\\u{FFA0}\\u{0301}\\u{034F}\\u{FE0F}]{1,20}"
    ) {
        prop_assert!(protocol::PlayerName::try_from(s.as_str()).is_err(), "{:?}", s);
    }
}
