//! Bad input and faults over real sockets: each gets the contract's answer, nothing panics,
//! and the other players in the room see no difference.

use std::time::Duration;

use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

use crate::support::{
    ann_and_bob, chat_until_a_drop, create, host_and_slow_reader, join, Client, Closed, TestServer,
};

/// A room with a host `a` and a player `b`, both past the joins.
async fn pair(srv: &TestServer) -> (Client, Client, String) {
    ann_and_bob(srv, json!({"difficulty": "easy"})).await
}

#[track_caller]
fn check_bad(raw: &'static str) -> (&'static str, &'static str) {
    (raw, "bad_message")
}

#[tokio::test]
async fn malformed_unknown_missing_mistyped_and_out_of_range() {
    let srv = TestServer::start().await;
    let (mut a, mut b, _) = pair(&srv).await;
    let cases = [
        check_bad("not json"),
        check_bad("[1,2,3]"),
        check_bad("42"),
        check_bad(r#"{"no_type":1}"#),
        check_bad(r#"{"type":"fly"}"#),
        check_bad(r#"{"type":7}"#),
        check_bad(r#"{"type":"join_room","room":"ABCD"}"#),
        check_bad(r#"{"type":"set_ready","ready":"yes"}"#),
        check_bad(r#"{"type":"place","cell":"4","digit":1}"#),
        check_bad(r#"{"type":"place","cell":81,"digit":1}"#),
        check_bad(r#"{"type":"place","cell":-1,"digit":1}"#),
        check_bad(r#"{"type":"place","cell":0,"digit":0}"#),
        check_bad(r#"{"type":"place","cell":0,"digit":10}"#),
        check_bad(r#"{"type":"place","cell":1.5,"digit":1}"#),
        check_bad(r#"{"type":"chat","text":""}"#),
        check_bad(r#"{"type":"chat"}"#),
        check_bad(r#"{"type":"create_room","name":"x","settings":{"max_players":"8"}}"#),
    ];
    for (raw, code) in cases {
        a.send_raw(Message::Text(raw.into())).await;
        let e = a.expect_error(code).await;
        assert!(e["message"].is_string(), "{raw}: {e}");
    }
    let long = "x".repeat(201);
    a.send(json!({"type": "chat", "text": long})).await;
    a.expect_error("bad_message").await;
    // Exactly 200 characters (multi-byte) is fine.
    a.send(json!({"type": "chat", "text": "é".repeat(200)}))
        .await;
    a.expect("chat").await;
    // Binary frames: an error, and the connection stays open.
    a.send_raw(Message::Binary(vec![1, 2, 3].into())).await;
    a.expect_error("bad_message").await;
    // Unknown fields are ignored.
    a.send(json!({"type": "ping", "id": 5, "extra": {"x": 1}}))
        .await;
    assert_eq!(a.expect("pong").await["id"], 5);
    a.send(json!({"type": "ping", "id": "abc"})).await;
    assert_eq!(a.expect("pong").await["id"], "abc");
    a.send(json!({"type": "ping"})).await;
    assert_eq!(a.expect("pong").await["id"], Value::Null);
    // bob saw nothing but the one chat.
    let seen = b.sync().await;
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0]["type"], "chat");
}

#[tokio::test]
async fn wrong_phase_wrong_role_and_room_errors() {
    let srv = TestServer::start().await;
    let mut x = srv.client().await;
    for m in [
        json!({"type": "set_ready", "ready": true}),
        json!({"type": "start_race"}),
        json!({"type": "place", "cell": 0, "digit": 1}),
        json!({"type": "forfeit"}),
        json!({"type": "chat", "text": "hi"}),
        json!({"type": "leave"}),
    ] {
        x.send(m).await;
        x.expect_error("not_in_room").await;
    }
    x.send(json!({"type": "join_room", "room": "ZZZZZ", "name": "x"}))
        .await;
    x.expect_error("unknown_room").await;
    x.send(json!({"type": "spectate", "room": "Q"})).await;
    x.expect_error("unknown_room").await;
    for settings in [
        json!({"max_players": 17}),
        json!({"max_players": 0}),
        json!({"time_limit_s": 59}),
        json!({"time_limit_s": 7201}),
        json!({"max_mistakes": 11}),
        json!({"penalty_s": 121}),
        json!({"difficulty": "insane"}),
    ] {
        x.send(json!({"type": "create_room", "name": "x", "settings": settings}))
            .await;
        x.expect_error("invalid_settings").await;
    }
    for name in ["", "   ", "a\u{1b}[31mred", "tab\there", &"n".repeat(25)] {
        x.send(json!({"type": "create_room", "name": name})).await;
        x.expect_error("invalid_name").await;
    }
    x.send(json!({"type": "list_rooms"})).await;
    assert_eq!(
        x.expect("room_list").await["rooms"],
        json!([]),
        "no room was created"
    );

    let (mut a, mut b, room) = pair(&srv).await;
    // Lobby: placing and forfeiting are for racing; only the host starts.
    a.send(json!({"type": "place", "cell": 0, "digit": 1}))
        .await;
    a.expect_error("wrong_phase").await;
    a.send(json!({"type": "forfeit"})).await;
    a.expect_error("wrong_phase").await;
    b.send(json!({"type": "start_race"})).await;
    b.expect_error("not_host").await;
    // Two rooms from one connection.
    b.send(json!({"type": "create_room", "name": "bob2"})).await;
    b.expect_error("already_in_room").await;
    b.send(json!({"type": "join_room", "room": room, "name": "bob3"}))
        .await;
    b.expect_error("already_in_room").await;
    b.send(json!({"type": "spectate", "room": room})).await;
    b.expect_error("already_in_room").await;
    // Names: unique in a room, control characters refused.
    let mut c = srv.client().await;
    c.send(json!({"type": "join_room", "room": room, "name": " Bob "}))
        .await;
    c.expect_error("name_taken").await;
    c.send(json!({"type": "join_room", "room": room, "name": "c\u{7}y"}))
        .await;
    c.expect_error("invalid_name").await;
    // Racing: ready marks are for the lobby; start_race twice is the wrong phase.
    a.send(json!({"type": "start_race"})).await;
    a.until("race_started").await;
    a.send(json!({"type": "set_ready", "ready": true})).await;
    a.expect_error("wrong_phase").await;
    a.send(json!({"type": "start_race"})).await;
    a.expect_error("wrong_phase").await;
    b.until("race_started").await;
    let seen = b.sync().await;
    assert!(seen.is_empty(), "bob saw {seen:?}");
}

#[tokio::test]
async fn full_room_and_list_rooms() {
    let srv = TestServer::start().await;
    let mut a = srv.client().await;
    let (room, _) = create(
        &mut a,
        "ann",
        json!({"max_players": 2, "difficulty": "hard"}),
    )
    .await;
    let mut hidden = srv.client().await;
    create(&mut hidden, "hid", json!({"public": false})).await;
    let mut x = srv.client().await;
    x.send(json!({"type": "list_rooms"})).await;
    let list = x.expect("room_list").await;
    assert_eq!(
        list["rooms"],
        json!([{"room": room, "players": 1, "max_players": 2, "phase": "lobby", "difficulty": "hard"}])
    );
    let mut b = srv.client().await;
    join(&mut b, &room, "bob").await;
    x.send(json!({"type": "join_room", "room": room, "name": "cy"}))
        .await;
    x.expect_error("room_full").await;
    a.expect("player_joined").await;
    assert!(a.sync().await.is_empty());
    // A full room is not listed (A5), and a held seat still counts: the room stays full.
    x.send(json!({"type": "list_rooms"})).await;
    assert_eq!(x.expect("room_list").await["rooms"], json!([]));
    b.vanish();
    a.until("player_updated").await;
    x.send(json!({"type": "list_rooms"})).await;
    assert_eq!(x.expect("room_list").await["rooms"], json!([]));
    x.send(json!({"type": "join_room", "room": room, "name": "cy"}))
        .await;
    x.expect_error("room_full").await;
    a.send(json!({"type": "start_race"})).await;
    a.until("countdown").await;
    x.send(json!({"type": "list_rooms"})).await;
    assert_eq!(x.expect("room_list").await["rooms"], json!([]));
}

#[tokio::test]
async fn oversized_message_closes_1009() {
    let srv = TestServer::start().await;
    let (mut a, mut b, _) = pair(&srv).await;
    let big = json!({"type": "chat", "text": "x".repeat(5000)}).to_string();
    assert!(big.len() > 4096);
    a.send_raw(Message::Text(big.into())).await;
    assert_eq!(a.closed().await, Closed::Code(1009));
    // 4096 bytes exactly is accepted (and answered: the chat text is too long).
    let mut c = srv.client().await;
    let pad = 4096 - json!({"type": "ping", "id": ""}).to_string().len();
    let exact = json!({"type": "ping", "id": "y".repeat(pad)}).to_string();
    assert_eq!(exact.len(), 4096);
    c.send_raw(Message::Text(exact.into())).await;
    c.expect("pong").await;
    // bob sees ann's seat held, nothing else.
    let u = b.until("player_updated").await;
    assert_eq!(u["player"]["connected"], false);
}

#[tokio::test]
async fn flood_past_the_rate_limit_is_refused_then_closed_1008() {
    let srv = TestServer::start_with(|c| {
        c.limits.rate_limit = 20;
        c.limits.rate_burst = 40;
    })
    .await;
    let (mut a, mut b, _) = pair(&srv).await;
    for i in 0..120 {
        a.send_raw(Message::Text(
            json!({"type": "ping", "id": i}).to_string().into(),
        ))
        .await;
    }
    let (mut pongs, mut limited) = (0, 0);
    let code = loop {
        match a.recv().await {
            Ok(v) if v["type"] == "pong" => pongs += 1,
            Ok(v) if v["code"] == "rate_limited" => limited += 1,
            Ok(v) => panic!("unexpected {v}"),
            Err(_) => break a.closed().await,
        }
    };
    // Depending on where the read stopped, the close frame may already have been consumed.
    assert!(
        matches!(code, Closed::Code(1008) | Closed::NoFrame),
        "{code:?}"
    );
    // The burst of 40 includes the create_room sent before the flood.
    assert!((39..60).contains(&pongs), "pongs {pongs}");
    assert!(limited >= 40, "limited {limited}");
    let u = b.until("player_updated").await;
    assert_eq!(u["player"]["connected"], false);
    let (_, metrics) = srv.http_get("/metrics").await.unwrap();
    assert!(
        metrics.contains("sudoku_race_rate_limit_closes_total 1"),
        "{metrics}"
    );
}

#[tokio::test]
async fn a_client_that_never_reads_is_closed_and_does_not_stall_the_room() {
    // Judged by bytes (A4): a small byte cap, and a chat budget that does not get in the way.
    let srv = TestServer::start_with(|c| {
        c.limits.slow_queue_bytes = 16 * 1024;
        c.limits.chat_rate = 100_000;
        c.limits.chat_burst = 100_000;
    })
    .await;
    let (mut a, mut slow, joined) = host_and_slow_reader(&srv).await;
    let token = joined["you"]["token"].clone();
    let updated = chat_until_a_drop(&mut a).await;
    let (round, u) = updated.expect("the slow client was closed");
    eprintln!("slow client closed after {round} rounds");
    assert_eq!(u["player"]["name"], "slow");
    assert_eq!(u["player"]["connected"], false);
    let (_, metrics) = srv.http_get("/metrics").await.unwrap();
    assert!(
        metrics.contains("sudoku_race_slow_consumer_closes_total 1"),
        "{metrics}"
    );
    // Once it reads again, what was already on its way arrives, then the close: 1008.
    assert_eq!(slow.closed().await, Closed::Code(1008));
    // Its seat is held like any drop's.
    let mut back = srv.client().await;
    back.send(json!({"type": "resume", "token": token})).await;
    assert_eq!(
        back.until("room_joined").await["players"][1]["name"],
        "slow"
    );
}

#[tokio::test]
async fn server_full_at_the_connection_limit_and_room_limits() {
    let srv = TestServer::start_with(|c| {
        c.limits.max_connections = 2;
        c.limits.max_rooms_per_ip = 1;
    })
    .await;
    let mut a = srv.client().await;
    let mut b = srv.client().await;
    let mut c = srv.raw_client().await;
    c.expect("welcome").await;
    c.expect_error("server_full").await;
    assert_eq!(c.closed().await, Closed::Code(1013));
    create(&mut a, "ann", json!({})).await;
    b.send(json!({"type": "create_room", "name": "bob"})).await;
    b.expect_error("server_full").await;

    let srv2 = TestServer::start_with(|c| c.limits.max_rooms = 1).await;
    let (mut x, mut y) = (srv2.client().await, srv2.client().await);
    create(&mut x, "x", json!({})).await;
    y.send(json!({"type": "create_room", "name": "y"})).await;
    y.expect_error("server_full").await;
}

#[tokio::test]
async fn idle_connections_are_closed_1000_and_clean_close_is_answered() {
    let srv = TestServer::start_with(|c| c.limits.idle_timeout = Duration::from_millis(300)).await;
    let mut a = srv.raw_client().await;
    a.expect("welcome").await;
    // A tungstenite client answers the server's pings only while it reads: this one sends
    // nothing and reads nothing, so the server hears nothing from it.
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(a.closed().await, Closed::Code(1000));
    // A client's clean close is answered with the same code.
    let b = srv.client().await;
    assert_eq!(b.close().await, Closed::Code(1000));
}

/// A3: marks added over a player's letters do not make a new name (`name_taken`), and a name of
/// Hangul fillers alone (Default_Ignorable_Code_Point) shows nothing (`invalid_name`).
#[tokio::test]
async fn marked_names_are_taken_and_filler_names_are_invisible() {
    let srv = TestServer::start().await;
    let mut host = srv.client().await;
    let (room, _) = create(&mut host, "host", json!({})).await;
    let mut c = srv.client().await;
    for name in [
        "ho\u{0301}st",
        "h\u{00F3}st",
        "HO\u{0308}ST",
        "h\u{3164}ost",
    ] {
        for ty in ["join_room", "spectate"] {
            c.send(json!({"type": ty, "room": room, "name": name}))
                .await;
            c.expect_error("name_taken").await;
        }
    }
    for name in ["\u{115F}", "\u{1160}", "\u{3164}\u{3164}", " \u{FFA0} "] {
        for ty in ["join_room", "spectate"] {
            c.send(json!({"type": ty, "room": room, "name": name}))
                .await;
            c.expect_error("invalid_name").await;
        }
        c.send(json!({"type": "create_room", "name": name})).await;
        c.expect_error("invalid_name").await;
    }
    // The other way round: a marked name first, the bare one is then taken; a real other name
    // still joins.
    let mut m = srv.client().await;
    let (marked_room, _) = create(&mut m, "zo\u{00EB}", json!({})).await;
    c.send(json!({"type": "join_room", "room": marked_room, "name": "Zoe"}))
        .await;
    c.expect_error("name_taken").await;
    c.send(json!({"type": "join_room", "room": marked_room, "name": "zed"}))
        .await;
    c.expect("room_joined").await;
}
