//! Entering: `welcome` and the default settings, settings' types and ranges, names at their
//! limits, room codes, ids echoed and unknown fields ignored, and the dealt puzzle.

use std::time::Duration;

use serde_json::{json, Value};

use super::start;
use crate::support::{create, join, TestServer};
use testkit::solve;

#[tokio::test]
async fn welcome_and_default_settings() {
    let srv = TestServer::start().await;
    let mut a = srv.raw_client().await;
    let w = a.expect("welcome").await;
    assert_eq!(w["protocol"], 1);
    let name = w["server"].as_str().expect("server name");
    assert!(name.contains('/'), "<name>/<version>: {name}");
    // `settings` omitted: every default.
    a.send(json!({"type": "create_room", "name": "ann"})).await;
    let j = a.expect("room_joined").await;
    assert_eq!(
        j["settings"],
        json!({"difficulty": "medium", "max_players": 8, "time_limit_s": 1800,
               "max_mistakes": 3, "penalty_s": 10, "public": true, "rated": false, "isomorphs": false})
    );
    assert_eq!(j["you"]["role"], "player");
    let players = j["players"].as_array().unwrap();
    assert_eq!(players.len(), 1);
    let p = &players[0];
    assert_eq!(
        (
            p["player_id"].clone(),
            p["name"].clone(),
            p["ready"].clone(),
            p["connected"].clone(),
            p["status"].clone()
        ),
        (
            j["you"]["player_id"].clone(),
            json!("ann"),
            json!(false),
            json!(true),
            json!("waiting")
        )
    );
}

#[track_caller]
fn check_settings(settings: Value, code: &'static str) -> (Value, &'static str) {
    (settings, code)
}

#[tokio::test]
async fn settings_wrong_type_is_bad_message_out_of_range_is_invalid_settings() {
    let srv = TestServer::start().await;
    let mut x = srv.client().await;
    let cases = [
        check_settings(json!({"difficulty": 2}), "bad_message"),
        check_settings(json!({"max_players": "8"}), "bad_message"),
        check_settings(json!({"time_limit_s": true}), "bad_message"),
        check_settings(json!({"max_mistakes": "3"}), "bad_message"),
        check_settings(json!({"penalty_s": [10]}), "bad_message"),
        check_settings(json!({"public": "yes"}), "bad_message"),
        check_settings(json!({"public": 1}), "bad_message"),
        check_settings(json!("easy"), "bad_message"),
        check_settings(json!({"difficulty": "extreme"}), "invalid_settings"),
        check_settings(json!({"max_players": -1}), "invalid_settings"),
        check_settings(json!({"max_players": 17}), "invalid_settings"),
        check_settings(json!({"time_limit_s": 0}), "invalid_settings"),
        check_settings(json!({"max_mistakes": -1}), "invalid_settings"),
        check_settings(json!({"penalty_s": -1}), "invalid_settings"),
        check_settings(json!({"penalty_s": 121}), "invalid_settings"),
        check_settings(json!({"max_players": 2.5}), "bad_message"),
        check_settings(
            json!({"time_limit_s": null, "max_players": 1e20}),
            "invalid_settings",
        ),
        check_settings(json!({"max_players": u64::MAX}), "invalid_settings"),
    ];
    for (settings, code) in cases {
        x.send(json!({"type": "create_room", "name": "x", "settings": settings}))
            .await;
        let e = x.expect_error(code).await;
        assert!(e["message"].is_string(), "{settings}: {e}");
    }
    // The bounds themselves are accepted, never clamped.
    for settings in [
        json!({"difficulty": "easy", "max_players": 1, "time_limit_s": 60, "max_mistakes": 0,
               "penalty_s": 0, "public": false}),
        json!({"difficulty": "expert", "max_players": 16, "time_limit_s": 7200,
               "max_mistakes": 10, "penalty_s": 120}),
        json!({"difficulty": "hard", "max_players": 4.0}),
    ] {
        x.send(json!({"type": "create_room", "name": "x", "settings": settings}))
            .await;
        let j = x.expect("room_joined").await;
        for (k, v) in settings.as_object().unwrap() {
            match v.as_f64() {
                // `4.0` is a whole number: sent back as `4`.
                Some(f) => assert_eq!(j["settings"][k].as_f64(), Some(f), "{k}"),
                None => assert_eq!(&j["settings"][k], v, "{k}"),
            }
        }
        x.send(json!({"type": "leave"})).await;
        x.expect("player_left").await;
    }
}

#[tokio::test]
async fn names_at_their_limits() {
    let srv = TestServer::start().await;
    let mut x = srv.client().await;
    let n24 = "é".repeat(24);
    let n25 = "n".repeat(25);
    for bad in [
        "",
        " \t ",
        &n25,
        "nul\u{0}",
        "del\u{7f}",
        "line\nbreak",
        "c\u{85}1",
    ] {
        x.send(json!({"type": "create_room", "name": bad})).await;
        x.expect_error("invalid_name").await;
    }
    // 24 characters (48 bytes) after trimming is fine; the name is stored trimmed.
    x.send(json!({"type": "create_room", "name": format!("  {n24}  ")}))
        .await;
    let j = x.expect("room_joined").await;
    assert_eq!(j["players"][0]["name"], n24.as_str());
    let room = j["room"].as_str().unwrap().to_owned();
    let mut y = srv.client().await;
    y.send(json!({"type": "join_room", "room": room, "name": n25}))
        .await;
    y.expect_error("invalid_name").await;
    y.send(json!({"type": "spectate", "room": room, "name": "\u{1b}[2J"}))
        .await;
    y.expect_error("invalid_name").await;
    // A spectator's name defaults to `spectator`.
    y.send(json!({"type": "spectate", "room": room})).await;
    y.expect("room_joined").await;
    y.send(json!({"type": "chat", "text": "hi"})).await;
    assert_eq!(y.expect("chat").await["name"], "spectator");
}

#[tokio::test]
async fn room_codes_are_upper_cased() {
    let srv = TestServer::start().await;
    let mut a = srv.client().await;
    let (room, _) = create(&mut a, "ann", json!({})).await;
    let lower = room.to_lowercase();
    let mut b = srv.client().await;
    let j = join(&mut b, &lower, "bob").await;
    assert_eq!(j["room"], room.as_str());
    let mut s = srv.client().await;
    s.send(json!({"type": "spectate", "room": lower})).await;
    assert_eq!(s.expect("room_joined").await["room"], room.as_str());
}

#[tokio::test]
async fn ids_are_echoed_verbatim_and_unknown_fields_are_ignored() {
    let srv = TestServer::start().await;
    let mut a = srv.client().await;
    for id in [
        json!(1.5),
        json!(-3),
        json!(12_345_678_901_234_567_890u64),
        json!(""),
        json!("élan"),
    ] {
        a.send(json!({"type": "ping", "id": id})).await;
        assert_eq!(a.expect("pong").await["id"], id);
    }
    a.send(
        json!({"type": "create_room", "name": "ann", "colour": "red",
                  "settings": {"difficulty": "easy", "theme": "dark"}}),
    )
    .await;
    assert_eq!(
        a.expect("room_joined").await["settings"]["difficulty"],
        "easy"
    );
    let rs = start(&mut a, &mut []).await;
    let given = rs["puzzle"].as_str().unwrap().find(|c| c != '.').unwrap();
    a.send(json!({"type": "place", "cell": given, "digit": 1, "id": null, "why": 1}))
        .await;
    let p = a.expect("placement").await;
    assert_eq!(
        (p["id"].clone(), p["reason"].clone()),
        (Value::Null, json!("given"))
    );
    a.send(json!({"type": "place", "cell": given, "digit": 1, "id": {"a": 1}}))
        .await;
    a.expect_error("bad_message").await;
}

#[tokio::test]
async fn a_dealt_puzzle_has_one_solution_and_the_asked_difficulty() {
    use engine::{grader, Grid};
    let srv = TestServer::start().await;
    for difficulty in ["easy", "medium", "hard", "expert"] {
        let mut a = srv.client().await;
        a.set_timeout(Duration::from_secs(60));
        create(&mut a, "ann", json!({"difficulty": difficulty})).await;
        let rs = start(&mut a, &mut []).await;
        assert_eq!(rs["difficulty"], difficulty);
        let puzzle = Grid::parse(rs["puzzle"].as_str().unwrap()).unwrap();
        solve(&puzzle.to_line());
        let level = grader::grade(&puzzle).level;
        assert_eq!(
            level.difficulty().map(|d| d.as_str()),
            Some(difficulty),
            "graded {level:?}"
        );
        a.send(json!({"type": "leave"})).await;
        a.until("player_left").await;
    }
}
