//! The pool (A7) across nodes: one pool per difficulty whatever node a player is connected
//! to; `leave_queue`, a dropped connection and `requeue` across nodes; and the pool's lease
//! holder killed while players on other nodes wait.

use std::time::Duration;

use serde_json::{json, Value};

use super::engines::{client, node_with, Redis};
use crate::support::process::{Server, Ws};
use testkit::{solve, to_fill};

/// A node whose pool forms races of `size` at once, or `wait_ms` after the second arrival.
fn pool_node(redis: &Redis, id: &str, size: u8, wait_ms: u64) -> Server {
    let (size, wait) = (size.to_string(), wait_ms.to_string());
    let extra = [
        "--pool-size",
        size.as_str(),
        "--pool-wait-ms",
        wait.as_str(),
        "--pool-alone-ms",
        "60000",
    ];
    node_with(redis, id, None, &extra)
}

/// `quick_race` into the easy pool: the `waiting` count of its `queued`.
async fn quick(ws: &mut Ws, name: &str) -> u64 {
    ws.send(json!({"type": "quick_race", "difficulty": "easy", "name": name}))
        .await;
    let q = ws.until_any(&["queued", "error"]).await;
    assert_eq!(q["type"], "queued", "{q}");
    assert_eq!(q["difficulty"], "easy", "{q}");
    q["waiting"].as_u64().expect("waiting")
}

/// Everyone's `room_joined` for one pool room, then countdown and `race_started` with each
/// seat's own isomorph (A8: relayed members get their own too): the room's code and
/// everyone's puzzle, in order.
async fn seated(all: &mut [&mut Ws]) -> (String, Vec<String>) {
    let mut code = None;
    for ws in all.iter_mut() {
        let j = ws.until("room_joined").await;
        assert_eq!(j["settings"]["pool"], true, "{j}");
        assert_eq!(j["host"], Value::Null, "{j}");
        let room = j["room"].as_str().expect("a room code").to_owned();
        assert_eq!(code.get_or_insert(room.clone()), &room, "one room for all");
    }
    let mut puzzles: Vec<String> = Vec::new();
    for ws in all.iter_mut() {
        ws.until("countdown").await;
        let r = ws.until("race_started").await;
        let p = r["puzzle"].as_str().expect("a puzzle").to_owned();
        assert!(!puzzles.contains(&p), "each seat its own isomorph");
        let clues = |g: &str| g.bytes().filter(|&b| b != b'.').count();
        assert!(puzzles.iter().all(|q| clues(q) == clues(&p)), "same clues");
        puzzles.push(p);
    }
    (code.expect("seated"), puzzles)
}

/// The next `queued` whose count is `n`.
async fn told(ws: &mut Ws, n: u64) {
    let q = ws
        .recv_until(|m| m["type"] == "queued" && m["waiting"] == n)
        .await;
    assert!(q.is_ok(), "never told {n} waiting: {q:?}");
}

#[tokio::test]
async fn players_on_three_nodes_race_in_one_pool_room_and_requeue_together() {
    let redis = Redis::start();
    let (a, b, c) = (
        pool_node(&redis, "qa", 3, 400),
        pool_node(&redis, "qb", 3, 400),
        pool_node(&redis, "qc", 3, 400),
    );
    let (mut ann, mut bob, mut cat) = (client(&a).await, client(&b).await, client(&c).await);
    // One count across the nodes.
    assert_eq!(quick(&mut ann, "ann").await, 1);
    assert_eq!(quick(&mut bob, "bob").await, 2);
    told(&mut ann, 2).await;
    assert_eq!(quick(&mut cat, "cat").await, 3);
    let (code, puzzles) = seated(&mut [&mut ann, &mut bob, &mut cat]).await;
    let puzzle = &puzzles[1];
    // Nobody takes a seat in it from outside the pool, on any node.
    let mut late = client(&b).await;
    late.send(json!({"type": "join_room", "room": code, "name": "late"}))
        .await;
    assert_eq!(late.until("error").await["code"], "wrong_phase");
    // Bob (relayed, unless his node formed the race) solves; the others forfeit.
    for (cell, d) in to_fill(puzzle, &solve(puzzle)) {
        bob.send(json!({"type": "place", "cell": cell, "digit": d}))
            .await;
    }
    // Judged on his own board wherever he is.
    let done = bob.until("player_finished").await;
    assert_eq!(done["status"], "solved", "{done}");
    for ws in [&mut ann, &mut cat] {
        ws.send(json!({"type": "forfeit"})).await;
    }
    for ws in [&mut ann, &mut bob, &mut cat] {
        ws.until("race_over").await;
    }
    // Bob and Cat requeue from their nodes: a rematch chain, seated together again.
    for ws in [&mut bob, &mut cat] {
        ws.send(json!({"type": "requeue"})).await;
        let q = ws.until_any(&["queued", "error"]).await;
        assert_eq!(q["type"], "queued", "{q}");
    }
    let (again, _) = seated(&mut [&mut bob, &mut cat]).await;
    assert_ne!(again, code);
}

#[tokio::test]
async fn leave_queue_and_a_dropped_connection_leave_the_pool_of_every_node() {
    let redis = Redis::start();
    let (a, b, c) = (
        pool_node(&redis, "la", 3, 1500),
        pool_node(&redis, "lb", 3, 1500),
        pool_node(&redis, "lc", 3, 1500),
    );
    let (mut ann, mut bob) = (client(&a).await, client(&b).await);
    assert_eq!(quick(&mut ann, "ann").await, 1);
    assert_eq!(quick(&mut bob, "bob").await, 2);
    ann.send(json!({"type": "leave_queue"})).await;
    ann.until("left_queue").await;
    told(&mut bob, 1).await;
    // A connection on a third node comes and goes.
    let mut dan = client(&c).await;
    assert_eq!(quick(&mut dan, "dan").await, 2);
    told(&mut bob, 2).await;
    drop(dan);
    told(&mut bob, 1).await;
    // Cat, on Ann's node, is Bob's race; Ann, who left, is nobody's.
    let mut cat = client(&a).await;
    assert_eq!(quick(&mut cat, "cat").await, 2);
    let (code, _) = seated(&mut [&mut bob, &mut cat]).await;
    ann.send(json!({"type": "leave_queue"})).await;
    assert_eq!(ann.until("error").await["code"], "not_in_queue");
    ann.send(json!({"type": "spectate", "room": code})).await;
    let w = ann.until("room_joined").await;
    assert_eq!(w["players"].as_array().map(Vec::len), Some(2), "{w}");
}

/// The node holding the pool's lease, as Redis says (waits for one to take it).
async fn lease_holder(redis: &Redis) -> String {
    let client = redis::Client::open(redis.url()).expect("a redis url");
    let mut conn = client
        .get_multiplexed_async_connection()
        .await
        .expect("redis");
    for _ in 0..100 {
        let holder: Option<String> = redis::cmd("GET")
            .arg("sr:pool:lease")
            .query_async(&mut conn)
            .await
            .expect("GET");
        if let Some(h) = holder {
            return h;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no node took the pool's lease");
}

#[tokio::test]
async fn players_waiting_on_other_nodes_are_seated_after_the_pool_node_is_killed() {
    let redis = Redis::start();
    let ids = ["ka", "kb", "kc"];
    let nodes = ids.map(|id| pool_node(&redis, id, 8, 800));
    let holder = lease_holder(&redis).await;
    let dead = ids
        .iter()
        .position(|id| *id == holder)
        .expect("the holder is one of the nodes");
    let live: Vec<&Server> = (0..3).filter(|i| *i != dead).map(|i| &nodes[i]).collect();
    // One waits on the pool's node itself, two on the others; the pool's node dies before
    // their race is due.
    let mut lost = client(&nodes[dead]).await;
    let mut ann = client(live[0]).await;
    let mut bob = client(live[1]).await;
    quick(&mut lost, "lost").await;
    quick(&mut ann, "ann").await;
    assert_eq!(quick(&mut bob, "bob").await, 3);
    nodes[dead].signal("-KILL");
    // Another node takes the lease once it lapses and seats them; the lost node's player is
    // not seated (its node is gone: its seat order goes nowhere, and the room starts without).
    let (_, puzzles) = seated(&mut [&mut ann, &mut bob]).await;
    assert_eq!(puzzles.len(), 2);
    assert_ne!(lease_holder(&redis).await, holder);
}
