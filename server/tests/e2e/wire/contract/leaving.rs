//! Leaving and staying: leaving mid-race or in the countdown, held seats that expire, the
//! next host, idle pings, tokens, and the limits a closed room or connection frees.

use std::time::Duration;

use serde_json::json;

use super::start;
use crate::support::{create, join, Closed, TestServer};
use testkit::{solve, to_fill};

#[tokio::test]
async fn leaving_mid_race_is_player_left_and_forfeited_in_the_standings() {
    let srv = TestServer::start().await;
    let (mut a, mut b, mut c, mut s) = (
        srv.client().await,
        srv.client().await,
        srv.client().await,
        srv.client().await,
    );
    let (room, _) = create(&mut a, "ann", json!({"difficulty": "easy"})).await;
    join(&mut b, &room, "bob").await;
    let jc = join(&mut c, &room, "cy").await;
    let cy = jc["you"]["player_id"].clone();
    s.send(json!({"type": "spectate", "room": room})).await;
    s.expect("room_joined").await;
    let rs = start(&mut a, &mut [&mut b, &mut c, &mut s]).await;
    let race_id = rs["race_id"].as_str().unwrap().to_owned();
    let puzzle = rs["puzzle"].as_str().unwrap().to_owned();
    let solution = solve(&puzzle);
    let (cell, d) = to_fill(&puzzle, &solution)[0];
    c.send(json!({"type": "place", "cell": cell, "digit": d}))
        .await;
    c.until("placement").await;

    c.send(json!({"type": "leave"})).await;
    assert_eq!(c.until("player_left").await["player_id"], cy);
    let seen = c.sync().await;
    assert!(
        !seen.iter().any(|m| m.to_string().contains(&solution)),
        "{seen:?}"
    );
    for cl in [&mut a, &mut b, &mut s] {
        let msgs = cl.collect_until("player_left").await;
        assert_eq!(msgs.last().unwrap()["player_id"], cy);
        assert!(
            msgs.iter().any(|m| m["type"] == "player_finished"
                && m["player_id"] == cy
                && m["status"] == "forfeited"),
            "{msgs:?}"
        );
    }
    // The race goes on for the others.
    a.send(json!({"type": "forfeit"})).await;
    b.send(json!({"type": "forfeit"})).await;
    let over = s.until("race_over").await;
    let st = over["standings"].as_array().unwrap();
    assert_eq!(st.len(), 3, "{over}");
    let row = st.iter().find(|r| r["player_id"] == cy).expect("cy stays");
    assert_eq!(
        (
            row["status"].clone(),
            row["filled"].clone(),
            row["rank"].clone()
        ),
        (json!("forfeited"), json!(1), json!(1))
    );
    let stored = srv.store().standings(&race_id).unwrap();
    assert_eq!(
        stored.iter().find(|r| r.name == "cy").unwrap().status,
        "forfeited"
    );
}

#[tokio::test]
async fn a_held_seat_that_expires_mid_race_is_forfeited() {
    let srv = TestServer::start_with(|c| c.resume_grace = Duration::from_millis(200)).await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let (room, _) = create(&mut a, "ann", json!({"difficulty": "easy"})).await;
    let jb = join(&mut b, &room, "bob").await;
    let bob = jb["you"]["player_id"].clone();
    a.expect("player_joined").await;
    start(&mut a, &mut [&mut b]).await;
    b.vanish();
    let msgs = a.collect_until("player_left").await;
    assert!(msgs
        .iter()
        .any(|m| m["type"] == "player_updated" && m["player"]["connected"] == false));
    assert!(msgs.iter().any(|m| m["type"] == "player_finished"
        && m["player_id"] == bob
        && m["status"] == "forfeited"));
    a.send(json!({"type": "forfeit"})).await;
    let over = a.until("race_over").await;
    let row = over["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player_id"] == bob)
        .cloned();
    assert_eq!(row.unwrap()["status"], "forfeited");
}

#[tokio::test]
async fn the_longest_present_player_becomes_host() {
    let srv = TestServer::start().await;
    let (mut a, mut b, mut c) = (srv.client().await, srv.client().await, srv.client().await);
    let (room, _) = create(&mut a, "ann", json!({})).await;
    let jb = join(&mut b, &room, "bob").await;
    join(&mut c, &room, "cy").await;
    b.expect("player_joined").await;
    a.send(json!({"type": "leave"})).await;
    for cl in [&mut b, &mut c] {
        cl.expect("player_left").await;
        assert_eq!(
            cl.expect("host_changed").await["player_id"],
            jb["you"]["player_id"]
        );
    }
    // The new host starts; the old one is in no room and may join another.
    c.send(json!({"type": "start_race"})).await;
    c.expect_error("not_host").await;
    let mut d = srv.client().await;
    let (other, _) = create(&mut d, "dee", json!({})).await;
    a.send(json!({"type": "join_room", "room": other, "name": "ann"}))
        .await;
    assert_eq!(a.until("room_joined").await["room"], other.as_str());
}

#[tokio::test]
async fn a_client_that_answers_pings_is_not_idle() {
    let srv = TestServer::start_with(|c| c.limits.idle_timeout = Duration::from_millis(300)).await;
    let mut a = srv.client().await;
    // Reading for three idle timeouts: the server's pings are answered, nothing else arrives.
    let read = tokio::time::timeout(Duration::from_millis(900), a.recv()).await;
    assert!(read.is_err(), "no message while idle: {read:?}");
    a.send(json!({"type": "ping", "id": 1})).await;
    assert_eq!(a.expect("pong").await["id"], 1);
}

#[tokio::test]
async fn a_token_dies_with_a_deliberate_leave_and_a_terminal_switch_is_not_a_drop() {
    let srv = TestServer::start().await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let (room, ja) = create(&mut a, "ann", json!({})).await;
    let jb = join(&mut b, &room, "bob").await;
    a.expect("player_joined").await;
    // ann switches terminals: her old connection closes 1000, bob sees no drop.
    let token = ja["you"]["token"].as_str().unwrap().to_owned();
    let mut a2 = srv.client().await;
    a2.send(json!({"type": "resume", "token": token})).await;
    a2.expect("room_joined").await;
    assert_eq!(a.closed().await, Closed::Code(1000));
    let seen = b.sync().await;
    assert!(
        !seen.iter().any(|m| m["player"]["connected"] == false),
        "{seen:?}"
    );
    // bob leaves on purpose: his token no longer works.
    b.send(json!({"type": "leave"})).await;
    b.expect("player_left").await;
    b.send(json!({"type": "resume", "token": jb["you"]["token"]}))
        .await;
    b.expect_error("invalid_token").await;
    assert_eq!(
        a2.until("player_left").await["player_id"],
        jb["you"]["player_id"]
    );
}

#[tokio::test]
async fn leaving_during_the_countdown() {
    // Long enough that the leaves below land within it on a busy machine.
    let srv = TestServer::start_with(|c| c.countdown = Duration::from_millis(1500)).await;
    let (mut a, mut b, mut s) = (srv.client().await, srv.client().await, srv.client().await);
    let (room, _) = create(&mut a, "ann", json!({"difficulty": "easy"})).await;
    let jb = join(&mut b, &room, "bob").await;
    a.expect("player_joined").await;
    s.send(json!({"type": "spectate", "room": room})).await;
    s.expect("room_joined").await;
    a.send(json!({"type": "start_race"})).await;
    a.expect("countdown").await;
    // The host leaves during the countdown: bob is host and races alone.
    a.send(json!({"type": "leave"})).await;
    a.expect("player_left").await;
    let msgs = b.collect_until("race_started").await;
    assert!(
        msgs.iter()
            .any(|m| m["type"] == "host_changed" && m["player_id"] == jb["you"]["player_id"]),
        "{msgs:?}"
    );
    s.until("race_started").await;
    b.send(json!({"type": "forfeit"})).await;
    let over = s.until("race_over").await;
    assert_eq!(over["standings"].as_array().unwrap().len(), 1, "{over}");
    // A new countdown that every player leaves: the room closes, its spectator is told.
    b.send(json!({"type": "start_race"})).await;
    b.until("countdown").await;
    b.send(json!({"type": "leave"})).await;
    assert_eq!(s.until("room_closed").await["room"], room.as_str());
    let mut x = srv.client().await;
    x.send(json!({"type": "spectate", "room": room})).await;
    x.expect_error("unknown_room").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_room_no_longer_counts_against_its_address() {
    let srv = TestServer::start_with(|c| {
        c.limits.max_rooms_per_ip = 1;
        c.limits.max_rooms = 1;
    })
    .await;
    let mut a = srv.client().await;
    // Leave is answered once the room is gone: the next create never sees it.
    for _ in 0..200 {
        create(&mut a, "ann", json!({})).await;
        a.send(json!({"type": "leave"})).await;
        a.expect("player_left").await;
    }
    let (_, health) = srv.http_get("/healthz").await.unwrap();
    let health: serde_json::Value = serde_json::from_str(&health).unwrap();
    assert_eq!(health["rooms"], 0, "{health}");
    assert_eq!(health["connections"], 1, "{health}");
}

#[tokio::test]
async fn the_51st_message_over_the_limit_within_10_s_closes_1008() {
    // No refill: the first message takes the one token, every later one is over the limit.
    let srv = TestServer::start_with(|c| {
        c.limits.rate_limit = 0;
        c.limits.rate_burst = 1;
    })
    .await;
    let mut a = srv.client().await;
    for i in 0..52 {
        a.send(json!({"type": "ping", "id": i})).await;
    }
    assert_eq!(a.expect("pong").await["id"], 0);
    for _ in 0..50 {
        a.expect_error("rate_limited").await;
    }
    assert_eq!(a.closed().await, Closed::Code(1008));
}

#[tokio::test]
async fn a_closed_connection_frees_its_place_under_the_connection_limit() {
    let srv = TestServer::start_with(|c| c.limits.max_connections = 1).await;
    let a = srv.client().await;
    let mut refused = srv.raw_client().await;
    refused.expect("welcome").await;
    refused.expect_error("server_full").await;
    assert_eq!(refused.closed().await, Closed::Code(1013));
    assert_eq!(a.close().await, Closed::Code(1000));
    // The server counts the close once its side is done: retry a bounded number of times.
    for attempt in 0.. {
        let mut b = srv.client().await;
        b.send(json!({"type": "ping", "id": 1})).await;
        let v = b.recv().await.expect("an answer");
        if v["type"] == "pong" {
            break;
        }
        assert_eq!(v["code"], "server_full", "{v}");
        assert!(attempt < 100, "the place was never freed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
