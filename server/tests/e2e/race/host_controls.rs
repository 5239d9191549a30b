//! Amendment A5 over real sockets: the host's `set_settings` and `kick` between races, the
//! kick's bar on name and address, `room_list` between races, and `room_closed` before the
//! 1001 close when the server stops.

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{ann_and_bob, create, join, Client, Closed, TestServer};

/// A client whose address (by a trusted proxy's word) is `ip`.
async fn from(srv: &TestServer, ip: &str) -> Client {
    srv.client_with_headers(&[("x-forwarded-for", ip)])
        .await
        .expect("handshake")
}

async fn listed(c: &mut Client) -> Value {
    c.send(json!({"type": "list_rooms"})).await;
    c.expect("room_list").await["rooms"].clone()
}

#[tokio::test]
async fn the_host_changes_the_settings_for_the_next_race() {
    let srv = TestServer::start().await;
    let (mut a, mut b, room) = ann_and_bob(&srv, json!({"difficulty": "hard"})).await;
    let mut s = srv.client().await;
    s.send(json!({"type": "spectate", "room": room})).await;
    s.expect("room_joined").await;
    let easy = json!({"difficulty": "easy", "max_players": 3, "time_limit_s": 600});
    b.send(json!({"type": "set_settings", "settings": easy}))
        .await;
    b.expect_error("not_host").await;
    a.send(json!({"type": "set_settings", "settings": {"max_players": 17}}))
        .await;
    a.expect_error("invalid_settings").await;
    a.send(json!({"type": "set_settings", "settings": {"max_players": 1}}))
        .await;
    a.expect_error("invalid_settings").await;
    a.send(json!({"type": "set_settings", "settings": easy}))
        .await;
    for c in [&mut a, &mut b, &mut s] {
        let changed = c.expect("settings_changed").await;
        assert_eq!(changed["settings"]["difficulty"], "easy");
        assert_eq!(changed["settings"]["max_players"], 3);
        assert_eq!(changed["settings"]["time_limit_s"], 600);
        assert_eq!(
            changed["settings"]["max_mistakes"], 3,
            "absent: the default"
        );
    }
    let mut x = srv.client().await;
    let rooms = listed(&mut x).await;
    assert_eq!(rooms[0]["difficulty"], "easy");
    assert_eq!(rooms[0]["max_players"], 3);
    a.send(json!({"type": "start_race"})).await;
    let started = a.until("race_started").await;
    assert_eq!(started["difficulty"], "easy");
    assert_eq!(started["time_limit_s"], 600);
    a.send(json!({"type": "set_settings", "settings": easy}))
        .await;
    a.expect_error("wrong_phase").await;
    assert!(b.until("race_started").await["puzzle"].is_string());
    // Private from the next race on: no longer listed.
    a.send(json!({"type": "forfeit"})).await;
    b.send(json!({"type": "forfeit"})).await;
    a.until("race_over").await;
    a.send(json!({"type": "set_settings", "settings": {"public": false}}))
        .await;
    assert_eq!(
        a.until("settings_changed").await["settings"]["public"],
        false
    );
    assert_eq!(listed(&mut x).await, json!([]));
}

#[tokio::test]
async fn a_kicked_player_is_out_and_barred_by_name_and_address() {
    let srv = TestServer::start_with(|c| c.trust_proxy = true).await;
    let mut a = from(&srv, "10.0.0.1").await;
    let (room, _) = create(&mut a, "ann", json!({})).await;
    let mut b = from(&srv, "10.0.0.2").await;
    let jb = join(&mut b, &room, "bob").await;
    let bob = jb["you"]["player_id"].clone();
    let token = jb["you"]["token"].clone();
    let mut c = from(&srv, "10.0.0.3").await;
    join(&mut c, &room, "cy").await;
    a.until("player_joined").await;
    a.until("player_joined").await;
    b.expect("player_joined").await;

    c.send(json!({"type": "kick", "player_id": bob})).await;
    c.expect_error("not_host").await;
    a.send(json!({"type": "kick", "player_id": "nobody"})).await;
    a.expect_error("bad_message").await;
    a.send(json!({"type": "kick", "player_id": bob})).await;
    b.expect_error("kicked").await;
    for x in [&mut a, &mut c] {
        assert_eq!(x.expect("player_left").await["player_id"], bob);
    }
    // Bob's connection is in no room, his token is dead, and he cannot come back.
    b.send(json!({"type": "chat", "text": "hey"})).await;
    b.expect_error("not_in_room").await;
    b.send(json!({"type": "resume", "token": token})).await;
    b.expect_error("invalid_token").await;
    b.send(json!({"type": "join_room", "room": room, "name": "robert"}))
        .await;
    b.expect_error("kicked").await;
    b.send(json!({"type": "spectate", "room": room})).await;
    b.expect_error("kicked").await;
    let mut elsewhere = from(&srv, "10.0.0.4").await;
    elsewhere
        .send(json!({"type": "join_room", "room": room, "name": "BOB"}))
        .await;
    elsewhere.expect_error("kicked").await;
    join(&mut elsewhere, &room, "dan").await;
    assert!(a.sync().await.iter().any(|m| m["type"] == "player_joined"));
}

#[tokio::test]
async fn the_bar_ends() {
    let srv = TestServer::start_with(|c| c.kick_bar = Duration::from_secs(1)).await;
    let mut a = srv.client().await;
    let (room, _) = create(&mut a, "ann", json!({})).await;
    let mut b = srv.client().await;
    let pid = join(&mut b, &room, "bob").await["you"]["player_id"].clone();
    a.expect("player_joined").await;
    a.send(json!({"type": "kick", "player_id": pid})).await;
    b.expect_error("kicked").await;
    b.send(json!({"type": "join_room", "room": room, "name": "bob"}))
        .await;
    b.expect_error("kicked").await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    join(&mut b, &room, "bob").await;
}

#[tokio::test]
async fn room_list_shows_rooms_between_races_that_take_players() {
    let srv = TestServer::start().await;
    let mut open = srv.client().await;
    let (lobby, _) = create(&mut open, "ann", json!({})).await;
    let mut racer = srv.client().await;
    let (finished, _) = create(&mut racer, "bob", json!({"difficulty": "easy"})).await;
    racer.send(json!({"type": "start_race"})).await;
    racer.until("race_started").await;
    racer.send(json!({"type": "forfeit"})).await;
    racer.until("race_over").await;
    let mut full = srv.client().await;
    create(&mut full, "cy", json!({"max_players": 1})).await;
    let mut hidden = srv.client().await;
    create(&mut hidden, "dee", json!({"public": false})).await;
    let mut x = srv.client().await;
    let mut rooms: Vec<(Value, Value)> = listed(&mut x)
        .await
        .as_array()
        .expect("rooms")
        .iter()
        .map(|r| (r["room"].clone(), r["phase"].clone()))
        .collect();
    rooms.sort_by_key(|(r, _)| r.to_string());
    let mut expected = vec![
        (json!(lobby), json!("lobby")),
        (json!(finished), json!("finished")),
    ];
    expected.sort_by_key(|(r, _)| r.to_string());
    assert_eq!(rooms, expected);
}

#[tokio::test]
async fn shutdown_tells_players_and_spectators_the_room_closed_then_1001() {
    let mut srv = TestServer::start().await;
    let (mut a, _b, room) = ann_and_bob(&srv, json!({})).await;
    let mut s = srv.client().await;
    s.send(json!({"type": "spectate", "room": room})).await;
    s.expect("room_joined").await;
    a.sync().await;
    let mut idle = srv.client().await;
    srv.shutdown().await.expect("clean exit");
    for c in [&mut a, &mut s] {
        assert_eq!(c.expect("room_closed").await["room"], room);
        assert_eq!(c.closed().await, Closed::Code(1001));
    }
    assert_eq!(
        idle.closed().await,
        Closed::Code(1001),
        "in no room: just 1001"
    );
}
