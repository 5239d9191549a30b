//! Arenas (A7) over real sockets: identified players join, race each other back to back in
//! pool rooms carrying `settings.arena`, and after every race get `arena_standings` whose
//! points (one per racer beaten, 2 for a solve, doubled on a streak of two wins) and streaks
//! match A7; `/api/arenas` and `/api/arenas/ID` serve the same; a finished arena takes nobody.

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{Client, TestServer};
use testkit::{solve, to_fill};

async fn register(c: &mut Client, name: &str) -> (String, String) {
    c.send(json!({"type": "register", "name": name})).await;
    let r = c.expect("registered").await;
    let text = |f: &str| r[f].as_str().expect("registered").to_owned();
    (text("key"), text("handle"))
}

async fn server() -> TestServer {
    server_at(None).await
}

/// The test server, on the SQLite file `db` if given.
async fn server_at(db: Option<std::path::PathBuf>) -> TestServer {
    TestServer::start_with(|c| {
        if let Some(db) = db {
            c.db_path = db;
        }
        c.fair_play = false;
        c.pool.wait = Duration::from_millis(300);
        // One that runs all day, and one that runs a second in every two.
        c.arenas = vec![
            "Day,easy,1d,1d".parse().expect("spec"),
            "Blink,easy,2s,1s".parse().expect("spec"),
        ];
    })
    .await
}

async fn arenas(srv: &TestServer) -> Vec<Value> {
    let (status, body) = srv.http_get("/api/arenas").await.expect("GET");
    assert!(status.contains("200"), "{status}");
    let v: Value = serde_json::from_str(&body).expect("json");
    v["arenas"].as_array().expect("arenas").clone()
}

fn named<'a>(list: &'a [Value], name: &str) -> &'a Value {
    list.iter().find(|a| a["name"] == name).expect("listed")
}

/// One arena race: everyone is seated in one pool room of the arena, `order` solve in that
/// order (the rest forfeit), and everyone gets the standings after it: those of the last.
async fn race(all: &mut [Client], arena: &str, order: &[usize]) -> Value {
    // Each seat its own isomorph (A8).
    let mut puzzles = Vec::new();
    for c in all.iter_mut() {
        let j = c.until("room_joined").await;
        assert_eq!(j["settings"]["arena"], arena, "{j}");
        assert_eq!(j["settings"]["pool"], true, "{j}");
        let puzzle = c.until("race_started").await["puzzle"]
            .as_str()
            .expect("puzzle")
            .to_owned();
        puzzles.push(puzzle);
    }
    for &i in order {
        let solution = solve(&puzzles[i]);
        for (cell, digit) in to_fill(&puzzles[i], &solution) {
            all[i]
                .send(json!({"type": "place", "cell": cell, "digit": digit}))
                .await;
        }
        all[i].until("player_finished").await;
    }
    for (i, c) in all.iter_mut().enumerate() {
        if !order.contains(&i) {
            c.send(json!({"type": "forfeit"})).await;
        }
    }
    let mut last = Value::Null;
    for c in all.iter_mut() {
        c.until("race_over").await;
        last = c.until("arena_standings").await;
        assert_eq!(last["arena_id"], arena, "{last}");
    }
    last
}

/// `(points, races, wins, streak)` of `handle` in `standings`.
fn row(standings: &Value, handle: &str) -> (u64, u64, u64, u64) {
    let r = standings["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .find(|r| r["handle"] == handle)
        .expect("a member");
    let n = |f: &str| r[f].as_u64().expect("a count");
    (n("points"), n("races"), n("wins"), n("streak"))
}

#[tokio::test]
async fn members_race_back_to_back_and_score_as_a7_says() {
    let srv = server().await;
    let day = named(&arenas(&srv).await, "Day").clone();
    assert_eq!(day["state"], "running", "{day}");
    let id = day["arena_id"].as_str().expect("id").to_owned();
    let mut all = Vec::new();
    let mut handles = Vec::new();
    for name in ["ann", "bob", "cy"] {
        let mut c = srv.client().await;
        let (key, handle) = register(&mut c, name).await;
        c.send(json!({"type": "join_arena", "arena_id": id, "name": name, "key": key}))
            .await;
        let j = c.expect("arena_joined").await;
        assert_eq!(j["arena"]["arena_id"], id.as_str(), "{j}");
        c.expect("arena_standings").await;
        all.push(c);
        handles.push(handle);
    }
    let (a, b, c) = (
        &handles[0].clone(),
        &handles[1].clone(),
        &handles[2].clone(),
    );
    // Race 1: ann first, bob second, cy forfeits: 2 + 2, 1 + 2, 0.
    let s = race(&mut all, &id, &[0, 1]).await;
    assert_eq!(row(&s, a), (4, 1, 1, 1));
    assert_eq!(row(&s, b), (3, 1, 0, 0));
    assert_eq!(row(&s, c), (0, 1, 0, 0));
    // Race 2, everyone back by `requeue`: ann again.
    for c in all.iter_mut() {
        c.send(json!({"type": "requeue"})).await;
    }
    let s = race(&mut all, &id, &[0, 1]).await;
    assert_eq!(row(&s, a), (8, 2, 2, 2));
    // Race 3: ann's third straight win counts double; cy beats bob this time.
    for c in all.iter_mut() {
        c.send(json!({"type": "requeue"})).await;
    }
    let s = race(&mut all, &id, &[0, 2]).await;
    assert_eq!(row(&s, a), (16, 3, 3, 3));
    assert_eq!(row(&s, b), (6, 3, 0, 0));
    assert_eq!(row(&s, c), (3, 3, 0, 0));
    assert_eq!(s["standings"][0]["handle"], a.as_str(), "best first: {s}");
    // The API serves the same standings.
    let (_, body) = srv.http_get(&format!("/api/arenas/{id}")).await.unwrap();
    let page: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(page["standings"], s["standings"], "{page}");
    assert_eq!(page["players"], 3, "{page}");
    // Leaving: out of the arena; its requeue leaves the room but finds no arena to go back
    // to. Its row stays.
    all[2].send(json!({"type": "leave_arena"})).await;
    all[2].until("left_arena").await;
    all[2].send(json!({"type": "requeue"})).await;
    assert_eq!(all[2].until("error").await["code"], "wrong_phase");
    let (_, body) = srv.http_get(&format!("/api/arenas/{id}")).await.unwrap();
    assert!(body.contains(c.as_str()), "{body}");
}

#[tokio::test]
async fn arenas_need_a_key_and_a_finished_one_takes_nobody() {
    let srv = server().await;
    let mut c = srv.client().await;
    let blink = named(&arenas(&srv).await, "Blink").clone();
    let id = blink["arena_id"].as_str().expect("id").to_owned();
    c.send(json!({"type": "join_arena", "arena_id": id, "name": "cy"}))
        .await;
    c.expect_error("invalid_key").await;
    let (key, _) = register(&mut c, "cy").await;
    c.send(json!({"type": "join_arena", "arena_id": "nope-1", "name": "cy", "key": key}))
        .await;
    c.expect_error("unknown_arena").await;
    // Wait out this Blink arena: it is listed as finished and takes nobody.
    let ends = blink["ends_unix_ms"].as_i64().expect("ends");
    let now = server::clock::unix_ms();
    tokio::time::sleep(Duration::from_millis((ends - now + 400).max(0) as u64)).await;
    let list = arenas(&srv).await;
    let old = list
        .iter()
        .find(|a| a["arena_id"] == id.as_str())
        .expect("kept");
    assert_eq!(old["state"], "finished", "{old}");
    assert!(
        list.iter()
            .any(|a| a["name"] == "Blink" && a["state"] != "finished"),
        "the next Blink is listed: {list:?}"
    );
    c.send(json!({"type": "join_arena", "arena_id": id, "name": "cy", "key": key}))
        .await;
    c.expect_error("arena_not_running").await;
}

#[tokio::test]
async fn standings_outlive_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("results.sqlite3");
    let mut srv = server_at(Some(db.clone())).await;
    let id = named(&arenas(&srv).await, "Day")["arena_id"]
        .as_str()
        .expect("id")
        .to_owned();
    let mut all = Vec::new();
    for name in ["ann", "bob"] {
        let mut c = srv.client().await;
        let (key, _) = register(&mut c, name).await;
        c.send(json!({"type": "join_arena", "arena_id": id, "name": name, "key": key}))
            .await;
        c.expect("arena_joined").await;
        all.push(c);
    }
    let standings = race(&mut all, &id, &[1]).await["standings"].clone();
    drop(all);
    srv.shutdown().await.expect("stopped");
    let srv = server_at(Some(db)).await;
    // The arena runs on, with the points it had.
    let mut page = Value::Null;
    for _ in 0..50 {
        let (_, body) = srv.http_get(&format!("/api/arenas/{id}")).await.unwrap();
        page = serde_json::from_str(&body).unwrap();
        if page["standings"] == standings {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(page["standings"], standings, "{page}");
    assert_eq!(page["state"], "running", "{page}");
}
