//! What a cluster does when an engine or a node fails: an owner killed with `kill -9`, and
//! Redis restarted mid-race.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::engines::{
    client, create, get_json, join, node, off_runtime, pg_store, Postgres, Redis,
};
use crate::support::Ws;
use server::store::postgres::scratch::ScratchDb;
use server::Store as _;
use testkit::{solve, to_fill};

/// Ann creates a room on `host`; the others join from their nodes; the race starts. The
/// puzzle and each joiner's `room_joined`.
async fn race(host: &mut Ws, others: &mut [&mut Ws]) -> (String, Vec<Value>) {
    let j = create(host, "ann", json!({"difficulty": "easy"})).await;
    let code = j["room"].as_str().expect("code").to_owned();
    let mut joined = Vec::new();
    for (i, o) in others.iter_mut().enumerate() {
        joined.push(join(o, &code, &format!("p{i}")).await);
        host.until("player_joined").await;
    }
    host.send(json!({"type": "start_race"})).await;
    let rs = host.until("race_started").await;
    for o in others.iter_mut() {
        o.until("race_started").await;
    }
    (rs["puzzle"].as_str().expect("puzzle").to_owned(), joined)
}

/// Place a digit: its accepted `placement`, or `None` when the relay refused it with the
/// clear error it gives while Redis is unreachable.
async fn place(ws: &mut Ws, cell: usize, d: u8) -> Option<Value> {
    ws.send(json!({"type": "place", "cell": cell, "digit": d, "id": cell}))
        .await;
    let v = ws.until_any(&["placement", "error"]).await;
    if v["type"] == "placement" {
        assert_eq!(v["accepted"], true, "{v}");
        return Some(v);
    }
    assert_eq!(v["code"], "server_full", "{v}");
    let message = v["message"].as_str().unwrap_or("");
    assert!(message.contains("cannot be reached"), "{v}");
    None
}

/// Everyone in the room solves; every client's `race_over`, and the race id.
async fn finish(puzzle: &str, all: &mut [&mut Ws]) -> String {
    for ws in all.iter_mut() {
        for (cell, d) in to_fill(puzzle, &solve(puzzle)) {
            ws.send(json!({"type": "place", "cell": cell, "digit": d}))
                .await;
        }
    }
    let mut id = String::new();
    for ws in all.iter_mut() {
        id = ws.until("race_over").await["race_id"]
            .as_str()
            .expect("race id")
            .to_owned();
    }
    id
}

#[tokio::test]
async fn an_owner_killed_with_its_log_lost_closes_its_rooms_on_every_node_as_node_lost() {
    let redis = Redis::start();
    let db = off_runtime(ScratchDb::create).expect("a scratch database on 127.0.0.1:5432");
    let url = db.url();
    let a = node(&redis, "ka", Some(&url));
    let (b, c) = (
        node(&redis, "kb", Some(&url)),
        node(&redis, "kc", Some(&url)),
    );
    let (mut ann, mut bob, mut cat) = (client(&a).await, client(&b).await, client(&c).await);
    let (puzzle, joined) = race(&mut ann, &mut [&mut bob, &mut cat]).await;
    let code = joined[0]["room"].as_str().expect("code").to_owned();
    let done = finish(&puzzle, &mut [&mut ann, &mut bob, &mut cat]).await;
    // A second race, under way when its owner dies.
    ann.send(json!({"type": "start_race"})).await;
    let void = ann.until("race_started").await["race_id"].clone();
    for ws in [&mut bob, &mut cat] {
        ws.until("race_started").await;
    }
    a.signal("-KILL");
    // Its log lost too (A9): nobody can take the room over, so it ends as a lost room.
    let (r, code) = (redis.url(), code);
    off_runtime(move || {
        let mut con = redis::Client::open(r.as_str())
            .and_then(|c| c.get_connection())
            .expect("redis");
        redis::cmd("DEL")
            .arg(format!("sr:log:{code}"))
            .query::<()>(&mut con)
            .expect("del");
    });
    for ws in [&mut bob, &mut cat] {
        ws.set_timeout(Duration::from_secs(40));
        let v = ws.until_any(&["room_closed"]).await;
        assert_eq!(v["type"], "room_closed", "{v}");
        assert_eq!(v["reason"], "node_lost", "{v}");
        assert_eq!(ws.close_code().await, Some(1012));
    }
    // The finished race is intact; the one in progress is void: never stored.
    let kept = get_json(&b, &format!("/api/races/{done}")).await;
    assert_eq!(
        kept["standings"].as_array().map(Vec::len),
        Some(3),
        "{kept}"
    );
    let raw = c
        .http_get(&format!("/api/races/{}", void.as_str().unwrap_or("")))
        .await;
    assert!(raw.starts_with("HTTP/1.1 404"), "{raw}");
    // The survivors go on: a new room across them works.
    let (mut bob, mut cat) = (client(&b).await, client(&c).await);
    let (puzzle, _) = race(&mut bob, &mut [&mut cat]).await;
    assert_eq!(puzzle.len(), 81);
}

#[tokio::test]
async fn results_wait_out_a_postgres_outage_and_land_when_it_returns() {
    let redis = Redis::start();
    let pg = Postgres::start();
    let url = pg.url();
    let (a, b) = (
        node(&redis, "pa", Some(&url)),
        node(&redis, "pb", Some(&url)),
    );
    let (mut ann, mut bob) = (client(&a).await, client(&b).await);
    let (puzzle, _) = race(&mut ann, &mut [&mut bob]).await;
    pg.down();
    // The race still ends, for both nodes' players.
    let id = finish(&puzzle, &mut [&mut ann, &mut bob]).await;
    let health = get_json(&a, "/healthz").await;
    assert_eq!(health["db"], "down", "{health}");
    assert_eq!(health["results_queued"], 1, "{health}");
    let metrics = a.http_get("/metrics").await;
    assert!(
        metrics.contains("sudoku_race_results_queued 1"),
        "{metrics}"
    );
    pg.up();
    // The retry lands it (the wait between tries is at most 5 s).
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let h = get_json(&a, "/healthz").await;
        if h["results_queued"] == 0 {
            assert_eq!(h["db"], "up");
            break;
        }
        assert!(Instant::now() < deadline, "the result never landed: {h}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let store = pg_store(&url);
    let stored = off_runtime(move || store.standings(&id).expect("standings"));
    assert_eq!(stored.len(), 2, "{stored:?}");
    let metrics = a.http_get("/metrics").await;
    assert!(
        metrics.contains("sudoku_race_results_retried_total 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("sudoku_race_results_dropped_total 0"),
        "{metrics}"
    );
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
    let fin = ann.until("player_finished").await;
    assert_eq!(fin["player_id"], bob_id);
    // New rooms are found again once the owner has renewed its keys into the new Redis.
    let mut cat = client(&b).await;
    let (p2, _) = race(&mut cat, &mut [&mut client(&a).await]).await;
    assert_eq!(p2.len(), 81);
    println!("placements refused while Redis restarted: {refused}");
}

#[tokio::test]
async fn an_owner_stopped_cleanly_closes_its_rooms_everywhere_and_exits() {
    let redis = Redis::start();
    let (mut a, b) = (node(&redis, "sa", None), node(&redis, "sb", None));
    let (mut ann, mut bob) = (client(&a).await, client(&b).await);
    race(&mut ann, &mut [&mut bob]).await;
    a.signal("-TERM");
    // The member on the other node hears it from the room itself, as on one node.
    let v = bob.until_any(&["room_closed"]).await;
    assert_eq!(v["type"], "room_closed", "{v}");
    assert_eq!(bob.close_code().await, Some(1001));
    let status = a.exit(Duration::from_secs(15)).await;
    assert!(status.success(), "{status:?}");
}
