use engine::{Cell, Digit, Grid};

use serde::Serialize;

use super::*;

#[test]
fn client_messages_parse_from_contract_examples() {
    let m: ClientMsg =
        serde_json::from_str(r#"{"type":"place","cell":80,"digit":9,"id":"a1","extra":1}"#)
            .unwrap();
    assert_eq!(
        m,
        ClientMsg::Place {
            cell: 80,
            digit: 9,
            id: Some(MsgId::String("a1".into()))
        }
    );
    let m: ClientMsg = serde_json::from_str(r#"{"type":"list_rooms"}"#).unwrap();
    assert_eq!(m, ClientMsg::ListRooms);
    let m: ClientMsg = serde_json::from_str(r#"{"type":"create_room","name":"ann"}"#).unwrap();
    assert!(matches!(m, ClientMsg::CreateRoom { settings: None, .. }));
    assert!(serde_json::from_str::<ClientMsg>(r#"{"type":"place","cell":"x","digit":1}"#).is_err());
    assert!(serde_json::from_str::<ClientMsg>(r#"{"type":"nope"}"#).is_err());
}

#[test]
fn server_messages_keep_null_fields() {
    let m = ServerMsg::Placement {
        id: None,
        cell: Cell::new(3).unwrap(),
        digit: Digit::new(4).unwrap(),
        accepted: true,
        reason: None,
        conflicts: vec![],
        mistakes: 0,
        penalty_ms: 0,
    };
    let s = serde_json::to_string(&m).unwrap();
    assert_eq!(
        s,
        r#"{"type":"placement","id":null,"cell":3,"digit":4,"accepted":true,"reason":null,"conflicts":[],"mistakes":0,"penalty_ms":0}"#
    );
    let p = ServerMsg::Progress(Progress {
        player_id: "p1".into(),
        filled: 1,
        to_fill: 50,
        mistakes: 0,
    });
    assert_eq!(
        serde_json::to_string(&p).unwrap(),
        r#"{"type":"progress","player_id":"p1","filled":1,"to_fill":50,"mistakes":0}"#
    );
    assert_eq!(
        serde_json::from_str::<ServerMsg>(&serde_json::to_string(&p).unwrap()).unwrap(),
        p
    );
}

#[test]
fn settings_resolve_defaults_and_reject_out_of_range() {
    assert_eq!(
        SettingsRequest::default().resolve().unwrap(),
        Settings::default()
    );
    let bad = SettingsRequest {
        max_players: Some(17),
        ..Default::default()
    };
    assert_eq!(bad.resolve().unwrap_err().field, "max_players");
    let bad = SettingsRequest {
        difficulty: Some("insane".into()),
        ..Default::default()
    };
    assert_eq!(bad.resolve().unwrap_err().field, "difficulty");
    let ok = SettingsRequest {
        max_mistakes: Some(0),
        public: Some(false),
        ..Default::default()
    };
    let s = ok.resolve().unwrap();
    assert_eq!((s.max_mistakes, s.public), (0, false));
}

#[track_caller]
fn check_int_setting(json: &str, expected: Option<Option<i64>>) {
    let got = serde_json::from_str::<SettingsRequest>(json)
        .ok()
        .map(|r| r.max_players);
    assert_eq!(got, expected, "{json}");
}

#[test]
fn integer_settings_are_any_whole_number() {
    check_int_setting(r#"{"max_players":8}"#, Some(Some(8)));
    check_int_setting(r#"{"max_players":8.0}"#, Some(Some(8)));
    check_int_setting(r#"{"max_players":-3}"#, Some(Some(-3)));
    check_int_setting(r#"{"max_players":null}"#, Some(None));
    check_int_setting(r#"{}"#, Some(None));
    check_int_setting(
        r#"{"max_players":18446744073709551615}"#,
        Some(Some(i64::MAX)),
    );
    check_int_setting(r#"{"max_players":1e20}"#, Some(Some(i64::MAX)));
    check_int_setting(r#"{"max_players":-1e20}"#, Some(Some(i64::MIN)));
    check_int_setting(r#"{"max_players":8.5}"#, None);
    check_int_setting(r#"{"max_players":"8"}"#, None);
    check_int_setting(r#"{"max_players":true}"#, None);
    // Inside a client message too (internally tagged: buffered before it is read).
    let m: ClientMsg =
        serde_json::from_str(r#"{"type":"create_room","name":"x","settings":{"penalty_s":1e3}}"#)
            .unwrap();
    let ClientMsg::CreateRoom { settings, .. } = m else {
        panic!("create_room")
    };
    assert_eq!(settings.unwrap().penalty_s, Some(1000));
}

/// Every wire enum's `as_str` is serde's name for it.
#[track_caller]
fn check_names<T: Serialize + Copy>(all: &[T], as_str: impl Fn(T) -> &'static str) {
    for &v in all {
        assert_eq!(serde_json::to_value(v).unwrap(), as_str(v));
    }
}

#[test]
fn wire_names_equal_serde_names() {
    check_names(ErrorCode::ALL, ErrorCode::as_str);
    check_names(Role::ALL, Role::as_str);
    check_names(Phase::ALL, Phase::as_str);
    check_names(PlayerStatus::ALL, PlayerStatus::as_str);
    check_names(PlaceReason::ALL, PlaceReason::as_str);
    check_names(FinishStatus::ALL, FinishStatus::as_str);
    check_names(OverReason::ALL, OverReason::as_str);
    check_names(ClosedReason::ALL, ClosedReason::as_str);
    assert_eq!(
        ErrorCode::ALL.len(),
        25,
        "A6's 18, A7's four, A9's one and A12's one and A10's one"
    );
}

#[test]
fn room_codes_are_upper_cased_and_checked() {
    assert_eq!(RoomCode::try_from(" abcd2 ").unwrap(), "ABCD2");
    assert!(RoomCode::try_from("ABC").is_err());
    assert!(RoomCode::try_from("ABCDEFGHJ").is_err());
    assert!(RoomCode::try_from("AB1CD").is_err());
    assert!(RoomCode::try_from("AB-CD").is_err());
    assert!(serde_json::from_str::<RoomCode>(r#""wxyz""#).is_ok());
    assert!(serde_json::from_str::<RoomCode>(r#""w""#).is_err());
}

#[test]
fn names_follow_the_rules() {
    assert_eq!(PlayerName::try_from("  ann ").unwrap(), "ann");
    assert_eq!(PlayerName::try_from("   "), Err(InvalidName::Empty));
    assert_eq!(PlayerName::try_from("a\u{7}b"), Err(InvalidName::Control));
    // A3: format characters (bidi, zero-width, soft hyphen, BOM) and private use are refused.
    for bad in [
        "ann\u{202E}",
        "\u{2066}ann",
        "an\u{200B}n",
        "an\u{00AD}n",
        "\u{FEFF}ann",
        "an\u{E000}n",
        "a\u{2028}b",
    ] {
        assert_eq!(
            PlayerName::try_from(bad),
            Err(InvalidName::Control),
            "{bad:?}"
        );
    }
    assert_eq!(
        PlayerName::try_from("\u{0301}\u{0301}"),
        Err(InvalidName::Invisible)
    );
    // NFC: a decomposed é is stored composed (one character).
    assert_eq!(PlayerName::try_from("e\u{0301}").unwrap(), "\u{e9}");
    assert_eq!(
        PlayerName::try_from("x".repeat(25).as_str()),
        Err(InvalidName::TooLong)
    );
    assert!(PlayerName::try_from("é".repeat(24).as_str()).is_ok());
}

#[test]
fn resume_tokens_stay_out_of_debug_output() {
    let t = ResumeToken::from("00112233445566778899aabbccddeeff".to_owned());
    assert!(!format!("{t:?}").contains("0011"));
    assert_eq!(
        serde_json::to_string(&t).unwrap(),
        r#""00112233445566778899aabbccddeeff""#
    );
}

#[test]
fn puzzles_and_cells_become_engine_values() {
    let line = "1".repeat(81);
    let json = format!(
        r#"{{"type":"race_started","race_id":"R-1","puzzle":"{line}","difficulty":"hard","time_limit_s":60,"rated":false}}"#
    );
    let m: ServerMsg = serde_json::from_str(&json).unwrap();
    let ServerMsg::RaceStarted {
        puzzle, difficulty, ..
    } = &m
    else {
        panic!("race_started")
    };
    assert_eq!(*puzzle, Grid::parse(&line).unwrap());
    assert_eq!(difficulty.as_str(), "hard");
    assert_eq!(serde_json::to_string(&m).unwrap(), json);
    let bad = json.replace(&line, "12");
    assert!(serde_json::from_str::<ServerMsg>(&bad).is_err());
    let p = r#"{"type":"placement","id":7,"cell":80,"digit":9,"accepted":false,"reason":"conflict","conflicts":[0,80],"mistakes":1,"penalty_ms":0}"#;
    let m: ServerMsg = serde_json::from_str(p).unwrap();
    let ServerMsg::Placement { conflicts, .. } = &m else {
        panic!("placement")
    };
    assert_eq!(conflicts, &[Cell::new(0).unwrap(), Cell::new(80).unwrap()]);
    assert_eq!(serde_json::to_string(&m).unwrap(), p);
    assert!(serde_json::from_str::<ServerMsg>(&p.replace("[0,80]", "[81]")).is_err());
    assert_eq!(
        convert::place_target(80, 9),
        Ok((Cell::new(80).unwrap(), Digit::new(9).unwrap()))
    );
    assert!(convert::place_target(81, 9).is_err());
    assert!(convert::place_target(0, 0).is_err());
}

#[test]
fn names_that_look_alike_share_a_key() {
    let key = |s: &str| PlayerName::try_from(s).unwrap().key();
    assert_eq!(key("host"), key("HOST"));
    assert_eq!(key("host"), key("h\u{043E}st")); // Cyrillic о
    assert_eq!(key("host"), key("Host"));
    assert_ne!(key("host"), key("hose"));
    assert_ne!(key("ann"), key("bob"));
    // A3: marks added over letters do not make a new name (`hóst` beside `host`), composed or
    // not, stacked or enclosing.
    for marked in [
        "ho\u{0301}st",
        "h\u{00F3}st",
        "H\u{00D3}ST",
        "h\u{00F4}\u{0308}st",
        "ho\u{20DD}st",
    ] {
        assert_eq!(key("host"), key(marked), "{marked:?}");
    }
    assert_eq!(key("zoe"), key("Zo\u{00EB}"));
    assert_eq!(key("ann"), key("ann \u{0301}"));
    // Hangul fillers show nothing: a name with one is the name without it.
    assert_eq!(key("ann"), key("an\u{3164}n"));
    assert_ne!(key("h\u{00F3}st"), key("hast"));
}

#[test]
fn names_of_default_ignorable_characters_are_invisible() {
    for bad in [
        "\u{115F}",
        "\u{1160}",
        "\u{3164}",
        "\u{FFA0}",
        "\u{115F}\u{1160}\u{3164}\u{FFA0}",
        " \u{3164} \u{3164} ",
        "\u{3164}\u{0301}",
    ] {
        assert_eq!(
            PlayerName::try_from(bad),
            Err(InvalidName::Invisible),
            "{bad:?}"
        );
    }
    assert!(PlayerName::try_from("a\u{3164}b").is_ok());
    // Every Default_Ignorable_Code_Point (the TS #39 skeleton drops exactly those) is invisible.
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        if unicode_security::skeleton(c.encode_utf8(&mut [0; 4]))
            .next()
            .is_none()
        {
            assert!(
                !crate::text::is_visible(c),
                "U+{:04X} counts as visible",
                u32::from(c)
            );
        }
    }
}

#[test]
fn chat_refuses_controls_and_bidi() {
    use crate::text::{check_chat, BadChat};
    assert_eq!(check_chat("gl hf"), Ok(()));
    assert_eq!(check_chat(""), Err(BadChat::Length));
    assert_eq!(check_chat(&"x".repeat(201)), Err(BadChat::Length));
    assert_eq!(check_chat(&"é".repeat(200)), Ok(()));
    for bad in [
        "\u{1b}]0;pwned\u{7}",
        "\u{1b}[2J",
        "a\nb",
        "abc\u{202E}def",
        "x\u{2067}",
    ] {
        assert_eq!(check_chat(bad), Err(BadChat::Control), "{bad:?}");
    }
}

#[test]
fn terminal_text_carries_no_control_characters() {
    use crate::text::terminal_safe;
    assert!(matches!(
        terminal_safe("plain"),
        std::borrow::Cow::Borrowed("plain")
    ));
    let scrubbed = terminal_safe("\u{1b}]0;title\u{7}\u{1b}[2Jhi\u{9b}31m\u{202E}");
    assert!(!scrubbed
        .chars()
        .any(|c| c.is_control() || crate::text::is_bidi_control(c)));
    assert!(scrubbed.contains("hi"));
    assert_eq!(
        terminal_safe("\u{1F468}\u{200D}\u{1F469}"),
        "\u{1F468}\u{200D}\u{1F469}"
    );
}

#[track_caller]
fn check_id_echo(id: &str) {
    let m = ClientMsg::from_json(&format!(r#"{{"type":"ping","id":{id}}}"#)).unwrap();
    let ClientMsg::Ping { id: got } = m else {
        panic!("ping")
    };
    let pong = serde_json::to_string(&ServerMsg::Pong { id: got }).unwrap();
    assert_eq!(pong, format!(r#"{{"type":"pong","id":{id}}}"#));
}

#[test]
fn ids_echo_byte_for_byte() {
    for id in [
        "7",
        "-3",
        "18446744073709551615",
        "18446744073709551616",
        "123456789012345678901234567890",
        "1.50",
        "1e2",
        "-0.0",
        "3.141592653589793238462643383279",
        "1e400",
        "-1E-400",
        "999999999999999999999999999999",
        r#""a1""#,
        "null",
    ] {
        check_id_echo(id);
        if id != "null" {
            // The text between nodes reads back the same (cluster frames carry it).
            let back = MsgId::from_json(id).unwrap();
            assert_eq!(serde_json::to_string(&back).unwrap(), id);
        }
    }
    // A place with an overflowing id keeps its other fields and its id's text.
    let m = ClientMsg::from_json(r#"{"type":"place", "cell":4,"digit":2,"id": 1e400 }"#).unwrap();
    let ClientMsg::Place {
        cell: 4,
        digit: 2,
        id: Some(id),
    } = m
    else {
        panic!("place: {m:?}")
    };
    assert_eq!(serde_json::to_string(&id).unwrap(), "1e400");
    // An unknown field that overflows is still ignored; a bad message stays bad.
    assert!(ClientMsg::from_json(r#"{"type":"ping","id":1e400,"x":1}"#).is_ok());
    assert!(ClientMsg::from_json(r#"{"type":"nope","id":1e400}"#).is_err());
    assert!(ClientMsg::from_json(r#"{"type":"ping","id":1e400,"id":2}"#).is_err());
    assert!(MsgId::from_json("{}").is_err() && MsgId::from_json("true").is_err());
    let m = ClientMsg::from_json(r#"{"type":"place","cell":1,"digit":2,"id":1.0}"#).unwrap();
    assert!(matches!(
        m,
        ClientMsg::Place {
            id: Some(MsgId::Raw(_)),
            ..
        }
    ));
    assert!(ClientMsg::from_json(r#"{"type":"ping","id":{}}"#).is_err());
}

#[test]
fn identity_messages_follow_amendment_a6() {
    let m: ClientMsg = serde_json::from_str(r#"{"type":"register","name":"ann"}"#).unwrap();
    assert_eq!(m, ClientMsg::Register { name: "ann".into() });
    let m: ClientMsg = serde_json::from_str(
        r#"{"type":"join_room","room":"ABCD","name":"b","key":"k1","bot":true}"#,
    )
    .unwrap();
    assert!(matches!(
        &m,
        ClientMsg::JoinRoom { key: Some(k), bot: true, .. } if k.as_str() == "k1"
    ));
    // Absent identity fields stay off the wire, so old servers see the message they know.
    let anon = ClientMsg::CreateRoom {
        name: "ann".into(),
        settings: None,
        key: None,
        bot: false,
        variants: None,
    };
    assert_eq!(
        serde_json::to_string(&anon).unwrap(),
        r#"{"type":"create_room","name":"ann","settings":null}"#
    );
    let m: ClientMsg =
        serde_json::from_str(r#"{"type":"start_daily","difficulty":"easy","key":"k2"}"#).unwrap();
    assert!(format!("{m:?}").contains("IdentityKey(…)"), "{m:?}");
    assert!(!format!("{m:?}").contains("k2"));
    // A Player from an older server (no handle, no bot) still parses.
    let p: Player = serde_json::from_str(
        r#"{"player_id":"p1","name":"ann","ready":false,"connected":true,"status":"waiting"}"#,
    )
    .unwrap();
    assert_eq!((p.handle, p.bot), (None, false));
    let s: Settings = serde_json::from_str(
        r#"{"difficulty":"easy","max_players":2,"time_limit_s":60,"max_mistakes":0,"penalty_s":0,"public":true}"#,
    )
    .unwrap();
    assert!(!s.rated);
    let req: SettingsRequest = serde_json::from_str(r#"{"rated":true}"#).unwrap();
    assert!(req.resolve().unwrap().rated);
}

#[test]
fn a_finished_race_view_carries_the_last_standings_only_when_set() {
    let view = RaceView {
        race_id: "ABCD-1".to_owned().into(),
        puzzle: None,
        difficulty: engine::Difficulty::Easy,
        time_limit_s: 600,
        elapsed_ms: 1234,
        board: None,
        mistakes: 0,
        progress: vec![],
        standings: None,
        reason: None,
        layout: Default::default(),
    };
    let json = serde_json::to_value(&view).unwrap();
    assert!(
        json.get("standings").is_none() && json.get("reason").is_none(),
        "{json}"
    );
    // A view from a server before the addition parses, without them.
    assert_eq!(serde_json::from_value::<RaceView>(json).unwrap(), view);

    let standing = Standing {
        rank: 1,
        player_id: "p1".into(),
        name: PlayerName::try_from("ann").unwrap(),
        status: FinishStatus::Forfeited,
        time_ms: None,
        filled: 3,
        mistakes: 1,
        time_ms_raw: None,
        lag_ms: 0,
        puzzle: None,
        solution: None,
        layout: Default::default(),
    };
    let finished = RaceView {
        standings: Some(vec![standing]),
        reason: Some(OverReason::TimeLimit),
        ..view
    };
    let json = serde_json::to_value(&finished).unwrap();
    assert_eq!(json["reason"], "time_limit");
    assert_eq!(json["standings"][0]["status"], "forfeited");
    assert_eq!(serde_json::from_value::<RaceView>(json).unwrap(), finished);
}

#[test]
fn room_moving_carries_its_retry_and_other_errors_do_not() {
    let moving = ServerMsg::Error {
        code: ErrorCode::RoomMoving,
        message: "the race is moving to another server".into(),
        retry_ms: Some(250),
    };
    let v = serde_json::to_value(&moving).unwrap();
    assert_eq!(v["code"], "room_moving");
    assert_eq!(v["retry_ms"], 250);
    let full = ServerMsg::Error {
        code: ErrorCode::ServerFull,
        message: "full".into(),
        retry_ms: None,
    };
    let v = serde_json::to_value(&full).unwrap();
    assert!(v.get("retry_ms").is_none(), "{v}");
    // A client that knows the field reads an `error` without it.
    let back: ServerMsg =
        serde_json::from_str(r#"{"type":"error","code":"room_moving","message":"m"}"#).unwrap();
    assert!(matches!(back, ServerMsg::Error { retry_ms: None, .. }));
}
