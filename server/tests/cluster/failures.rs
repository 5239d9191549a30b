//! What a cluster does when an engine or a node fails: an owner killed with `kill -9`, and
//! Redis restarted mid-race.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::engines::{client, create, join, node, recv_skipping, solve, to_fill, Redis};
use crate::support::{close_code, send, until, Ws};

/// Ann creates a room on `host`; the others join from their nodes; the race starts. The
/// puzzle and each joiner's `room_joined`.
async fn race(host: &mut Ws, others: &mut [&mut Ws]) -> (String, Vec<Value>) {
    let j = create(host, "ann", json!({"difficulty": "easy"})).await;
    let code = j["room"].as_str().expect("code").to_owned();
    let mut joined = Vec::new();
    for (i, o) in others.iter_mut().enumerate() {
        joined.push(join(o, &code, &format!("p{i}")).await);
        until(host, "player_joined").await;
    }
    send(host, json!({"type": "start_race"})).await;
    let rs = until(host, "race_started").await;
    for o in others.iter_mut() {
        until(o, "race_started").await;
    }
    (rs["puzzle"].as_str().expect("puzzle").to_owned(), joined)
}

/// Place a digit: its accepted `placement`, or `None` when the relay refused it with the
/// clear error it gives while Redis is unreachable.
async fn place(ws: &mut Ws, cell: usize, d: u8) -> Option<Value> {
    send(
        ws,
        json!({"type": "place", "cell": cell, "digit": d, "id": cell}),
    )
    .await;
    let v = recv_skipping(ws, &["placement", "error"]).await;
    if v["type"] == "placement" {
        assert_eq!(v["accepted"], true, "{v}");
        return Some(v);
    }
    assert_eq!(v["code"], "server_full", "{v}");
    let message = v["message"].as_str().unwrap_or("");
    assert!(message.contains("cannot be reached"), "{v}");
    None
}

#[tokio::test]
async fn an_owner_killed_closes_its_rooms_on_every_node_within_the_lease() {
    let redis = Redis::start();
    let (a, b, c) = (
        node(&redis, "ka", None),
        node(&redis, "kb", None),
        node(&redis, "kc", None),
    );
    let (mut ann, mut bob, mut cat) = (client(&a).await, client(&b).await, client(&c).await);
    race(&mut ann, &mut [&mut bob, &mut cat]).await;
    let killed = Instant::now();
    a.signal("-KILL");
    for ws in [&mut bob, &mut cat] {
        let v = recv_skipping(ws, &["room_closed"]).await;
        assert_eq!(v["type"], "room_closed", "{v}");
        assert_eq!(close_code(ws).await, Some(1012));
    }
    // The lease is 10 s and nodes look every 2 s: the bound is 15 s.
    let took = killed.elapsed();
    assert!(took < Duration::from_secs(15), "room_closed after {took:?}");
    // The survivors go on: a new room across them works.
    let (mut bob, mut cat) = (client(&b).await, client(&c).await);
    let (puzzle, _) = race(&mut bob, &mut [&mut cat]).await;
    assert_eq!(puzzle.len(), 81);
}

#[tokio::test]
async fn a_redis_restart_mid_race_loses_no_room() {
    let mut redis = Redis::start();
    let (a, b) = (node(&redis, "ra1", None), node(&redis, "rb1", None));
    let (mut ann, mut bob) = (client(&a).await, client(&b).await);
    let (puzzle, joined) = race(&mut ann, &mut [&mut bob]).await;
    let bob_id = joined[0]["you"]["player_id"].clone();
    let cells = to_fill(&puzzle, &solve(&puzzle));
    let (before, after) = cells.split_at(5);
    for &(cell, d) in before {
        assert!(place(&mut bob, cell, d).await.is_some());
    }
    redis.kill();
    // While Redis is down a placement is refused with a clear error, never lost in silence.
    let (cell, d) = after[0];
    assert!(place(&mut bob, cell, d).await.is_none());
    redis.start_again();
    // Each placement is tried until the relay is back (the nodes reconnect and resubscribe).
    let mut refused = 1;
    for &(cell, d) in after {
        let deadline = Instant::now() + Duration::from_secs(20);
        while place(&mut bob, cell, d).await.is_none() {
            refused += 1;
            assert!(Instant::now() < deadline, "the relay did not come back");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    let fin = until(&mut ann, "player_finished").await;
    assert_eq!(fin["player_id"], bob_id);
    // New rooms are found again once the owner has renewed its keys into the new Redis.
    let mut cat = client(&b).await;
    let (p2, _) = race(&mut cat, &mut [&mut client(&a).await]).await;
    assert_eq!(p2.len(), 81);
    println!("placements refused while Redis restarted: {refused}");
}
