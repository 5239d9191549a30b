//! Resume: within the grace period, after it, from a second terminal, forged tokens, and a
//! client that vanishes without a close frame.

use std::time::Duration;

use serde_json::json;

use crate::support::{create, join, Closed, TestServer};
use testkit::{solve, to_fill};

#[tokio::test]
async fn vanish_then_resume_within_grace_keeps_board_and_clock() {
    let srv = TestServer::start().await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let (room, _) = create(&mut a, "ann", json!({"difficulty": "easy"})).await;
    let jb = join(&mut b, &room, "bob").await;
    let token = jb["you"]["token"].as_str().unwrap().to_owned();
    let bob = jb["you"]["player_id"].clone();
    a.expect("player_joined").await;
    a.send(json!({"type": "start_race"})).await;
    let rs = a.until("race_started").await;
    let puzzle = rs["puzzle"].as_str().unwrap().to_owned();
    let solution = solve(&puzzle);
    let cells = to_fill(&puzzle, &solution);
    let (c0, d0) = cells[0];
    b.until("race_started").await;
    b.send(json!({"type": "place", "cell": c0, "digit": d0}))
        .await;
    b.until("placement").await;
    let wrong = (1..=9).find(|&d| d != cells[1].1).unwrap();
    b.send(json!({"type": "place", "cell": cells[1].0, "digit": wrong}))
        .await;
    b.until("placement").await;

    // bob's connection drops without a close frame: his seat is held.
    b.vanish();
    let u = a.until("player_updated").await;
    assert_eq!(
        (
            u["player"]["player_id"].clone(),
            u["player"]["connected"].clone()
        ),
        (bob.clone(), json!(false))
    );

    let mut b2 = srv.client().await;
    b2.send(json!({"type": "resume", "token": token})).await;
    let j = b2.expect("room_joined").await;
    assert_eq!(j["phase"], "racing");
    assert_eq!(j["you"]["player_id"], bob);
    let race = &j["race"];
    assert_eq!(race["puzzle"], puzzle.as_str());
    let board = race["board"].as_str().unwrap();
    assert_eq!(board.as_bytes()[c0], b'0' + d0, "accepted digit kept");
    assert_eq!(race["mistakes"], 1);
    assert!(race["elapsed_ms"].as_u64().is_some());
    assert_eq!(race["progress"].as_array().unwrap().len(), 2);
    let u = a.until("player_updated").await;
    assert_eq!(u["player"]["connected"], true);
    // The resumed seat plays on.
    b2.send(json!({"type": "place", "cell": cells[2].0, "digit": cells[2].1}))
        .await;
    let p = b2.until("placement").await;
    assert_eq!(
        (p["accepted"].clone(), p["mistakes"].clone()),
        (json!(true), json!(1))
    );
}

#[tokio::test]
async fn resume_from_a_second_terminal_closes_the_first_with_1000() {
    let srv = TestServer::start().await;
    let mut a = srv.client().await;
    let (_, j) = create(&mut a, "ann", json!({})).await;
    let token = j["you"]["token"].as_str().unwrap().to_owned();
    let mut a2 = srv.client().await;
    a2.send(json!({"type": "resume", "token": token})).await;
    let j2 = a2.expect("room_joined").await;
    assert_eq!(j2["you"]["player_id"], j["you"]["player_id"]);
    assert_eq!(j2["host"], j["you"]["player_id"]);
    assert_eq!(a.closed().await, Closed::Code(1000));
    // The resumed connection is in the room; a resume from it is `already_in_room`.
    a2.send(json!({"type": "resume", "token": token})).await;
    a2.expect_error("already_in_room").await;
    a2.send(json!({"type": "set_ready", "ready": true})).await;
    assert_eq!(a2.expect("player_updated").await["player"]["ready"], true);
}

#[tokio::test]
async fn forged_and_expired_tokens_are_invalid() {
    let srv = TestServer::start_with(|c| c.resume_grace = Duration::from_millis(200)).await;
    let mut x = srv.client().await;
    x.send(json!({"type": "resume", "token": "0123456789abcdef0123456789abcdef"}))
        .await;
    x.expect_error("invalid_token").await;
    x.send(json!({"type": "resume", "token": ""})).await;
    x.expect_error("invalid_token").await;

    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let (room, _) = create(&mut a, "ann", json!({})).await;
    let jb = join(&mut b, &room, "bob").await;
    let token = jb["you"]["token"].as_str().unwrap().to_owned();
    a.expect("player_joined").await;
    drop(b);
    assert_eq!(
        a.until("player_updated").await["player"]["connected"],
        false
    );
    // After the grace period the seat is removed.
    let left = a.until("player_left").await;
    assert_eq!(left["player_id"], jb["you"]["player_id"]);
    x.send(json!({"type": "resume", "token": token})).await;
    x.expect_error("invalid_token").await;
    // The room still works for ann, who is still host.
    a.send(json!({"type": "chat", "text": "alone"})).await;
    assert_eq!(a.expect("chat").await["text"], "alone");
}

#[tokio::test]
async fn held_host_seat_expiry_hands_over_and_empty_room_closes() {
    let srv = TestServer::start_with(|c| c.resume_grace = Duration::from_millis(200)).await;
    let (mut a, mut b, mut s) = (srv.client().await, srv.client().await, srv.client().await);
    let (room, _) = create(&mut a, "ann", json!({})).await;
    let jb = join(&mut b, &room, "bob").await;
    s.send(json!({"type": "spectate", "room": room})).await;
    s.expect("room_joined").await;
    a.vanish();
    assert_eq!(
        b.until("host_changed").await["player_id"],
        jb["you"]["player_id"]
    );
    b.vanish();
    let closed = s.until("room_closed").await;
    assert_eq!(closed["room"], room.as_str());
    // The spectator is in no room now.
    s.send(json!({"type": "chat", "text": "hello?"})).await;
    s.expect_error("not_in_room").await;
}
