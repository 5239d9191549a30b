//! Races whose players sit on different nodes, the room list across nodes, and resume on
//! another node.

use serde_json::{json, Value};

use super::engines::{
    client, create, get_json, join, node, node_with, off_runtime, pg_store, Redis,
};
use crate::support::process::Ws;
use server::store::postgres::scratch::ScratchDb;
use server::Store as _;
use testkit::{solve, to_fill};

/// Start from the host; every client's `race_started`, the same for all.
async fn start(host: &mut Ws, others: &mut [&mut Ws]) -> Value {
    host.send(json!({"type": "start_race"})).await;
    let rs = host.until("race_started").await;
    for o in others.iter_mut() {
        let r = o.until("race_started").await;
        assert_eq!(r["puzzle"], rs["puzzle"], "one puzzle for everyone");
        assert_eq!(r["race_id"], rs["race_id"]);
    }
    rs
}

/// Fill every empty cell; the sender's own `player_finished`.
async fn solve_all(ws: &mut Ws, puzzle: &str) {
    let solution = solve(puzzle);
    for (cell, d) in to_fill(puzzle, &solution) {
        ws.send(json!({"type": "place", "cell": cell, "digit": d}))
            .await;
    }
}

#[tokio::test]
async fn a_race_across_three_nodes_reaches_race_over_everywhere_and_is_stored_once() {
    let redis = Redis::start();
    let db = off_runtime(ScratchDb::create).expect("a scratch database on 127.0.0.1:5432");
    let url = db.url();
    let (a, b, c) = (
        node(&redis, "na", Some(&url)),
        node(&redis, "nb", Some(&url)),
        node(&redis, "nc", Some(&url)),
    );
    let (mut ann, mut bob, mut cat) = (client(&a).await, client(&b).await, client(&c).await);
    let j = create(&mut ann, "ann", json!({"difficulty": "easy"})).await;
    let code = j["room"].as_str().expect("code").to_owned();
    let jb = join(&mut bob, &code, "bob").await;
    let jc = join(&mut cat, &code, "cat").await;
    assert_eq!(jb["room"], code);
    assert_eq!(jc["players"].as_array().map(Vec::len), Some(3), "{jc}");
    // Everyone hears of everyone, whichever node they are on.
    ann.until("player_joined").await;
    ann.until("player_joined").await;
    bob.until("player_joined").await;

    let rs = start(&mut ann, &mut [&mut bob, &mut cat]).await;
    let puzzle = rs["puzzle"].as_str().expect("puzzle").to_owned();
    let race_id = rs["race_id"].as_str().expect("race id").to_owned();
    // Bob (node B) solves, and everyone sees his progress and his finish.
    solve_all(&mut bob, &puzzle).await;
    for ws in [&mut ann, &mut cat] {
        let p = ws.until("player_finished").await;
        assert_eq!(p["player_id"], jb["you"]["player_id"], "{p}");
    }
    solve_all(&mut cat, &puzzle).await;
    ann.send(json!({"type": "forfeit"})).await;
    let mut overs = Vec::new();
    for ws in [&mut ann, &mut bob, &mut cat] {
        overs.push(ws.until("race_over").await);
    }
    assert_eq!(overs[0]["standings"], overs[1]["standings"]);
    assert_eq!(overs[0]["standings"], overs[2]["standings"]);
    let standings = overs[0]["standings"].as_array().expect("standings").clone();
    assert_eq!(standings[0]["player_id"], jb["you"]["player_id"]);
    assert_eq!(standings[0]["status"], "solved");
    assert_eq!(standings[1]["player_id"], jc["you"]["player_id"]);
    assert_eq!(standings[2]["status"], "forfeited");
    // Stored once, in the one PostgreSQL every node shares; every node's API answers alike.
    let store = pg_store(&url);
    let id = race_id.clone();
    let stored = off_runtime(move || store.standings(&id).expect("standings"));
    assert_eq!(stored.len(), 3, "{stored:?}");
    let first = get_json(&a, &format!("/api/races/{race_id}")).await;
    for other in [&b, &c] {
        assert_eq!(
            get_json(other, &format!("/api/races/{race_id}")).await,
            first
        );
    }
    // The owner's metrics count relayed frames; a member node's health names it.
    let health = get_json(&b, "/healthz").await;
    assert_eq!(health["node"], "nb");
    assert_eq!(health["redis"], "up");
    let metrics = a.http_get("/metrics").await;
    let relayed = metrics
        .lines()
        .find(|l| l.starts_with("sudoku_race_relay_in_total"))
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0);
    assert!(
        relayed > 2 * to_fill(&puzzle, &solve(&puzzle)).len() as u64 - 1,
        "{metrics}"
    );
}

#[tokio::test]
async fn every_node_lists_every_nodes_public_rooms() {
    let redis = Redis::start();
    let (a, b, c) = (
        node(&redis, "la", None),
        node(&redis, "lb", None),
        node(&redis, "lc", None),
    );
    let (mut ann, mut bob, mut cat) = (client(&a).await, client(&b).await, client(&c).await);
    let ra = create(&mut ann, "ann", json!({"public": true})).await["room"].clone();
    let rb = create(
        &mut bob,
        "bob",
        json!({"public": true, "difficulty": "hard"}),
    )
    .await["room"]
        .clone();
    let _private = create(&mut cat, "cat", json!({"public": false})).await;
    for n in [&a, &b, &c] {
        let mut ws = client(n).await;
        ws.send(json!({"type": "list_rooms"})).await;
        let list = ws.until("room_list").await;
        let codes: Vec<&Value> = list["rooms"]
            .as_array()
            .expect("rooms")
            .iter()
            .map(|r| &r["room"])
            .collect();
        let mut want = vec![&ra, &rb];
        want.sort_by_key(|v| v.as_str().map(str::to_owned));
        assert_eq!(codes, want, "{list}");
    }
    // A room that fills is no longer listed anywhere.
    bob.send(json!({"type": "set_settings", "settings": {"public": true, "max_players": 2, "difficulty": "hard"}})).await;
    bob.until("settings_changed").await;
    let mut dan = client(&c).await;
    join(&mut dan, rb.as_str().expect("code"), "dan").await;
    let mut ws = client(&a).await;
    ws.send(json!({"type": "list_rooms"})).await;
    let list = ws.until("room_list").await;
    assert_eq!(list["rooms"].as_array().map(Vec::len), Some(1), "{list}");
}

#[tokio::test]
async fn a_seat_resumes_on_another_node() {
    let redis = Redis::start();
    let (a, b, c) = (
        node(&redis, "ra", None),
        node(&redis, "rb", None),
        node(&redis, "rc", None),
    );
    let mut ann = client(&a).await;
    // Each seat its own isomorph (A8): bob's relayed `race_started` and his resume on a third
    // node both carry his own puzzle.
    let settings = json!({"difficulty": "easy", "isomorphs": true});
    let j = create(&mut ann, "ann", settings).await;
    let code = j["room"].as_str().expect("code").to_owned();
    let mut bob = client(&b).await;
    let jb = join(&mut bob, &code, "bob").await;
    ann.until("player_joined").await;
    ann.send(json!({"type": "start_race"})).await;
    let theirs = ann.until("race_started").await["puzzle"].clone();
    let rs = bob.until("race_started").await;
    assert_ne!(rs["puzzle"], theirs, "bob has his own puzzle");
    let puzzle = rs["puzzle"].as_str().expect("puzzle").to_owned();
    let token = jb["you"]["token"].as_str().expect("token").to_owned();
    // Bob's connection to node B vanishes; he comes back through node C.
    drop(bob);
    let mut bob = client(&c).await;
    bob.send(json!({"type": "resume", "token": token})).await;
    let back = bob.until_any(&["room_joined", "error"]).await;
    assert_eq!(back["type"], "room_joined", "{back}");
    assert_eq!(back["you"]["player_id"], jb["you"]["player_id"]);
    assert_eq!(back["race"]["puzzle"], puzzle, "{back}");
    solve_all(&mut bob, &puzzle).await;
    let fin = ann.until("player_finished").await;
    assert_eq!(fin["player_id"], jb["you"]["player_id"]);
    // The seat moves again, to the owner's node itself: the connection on node C is let go
    // with 1000, as on one node.
    let mut again = client(&a).await;
    again.send(json!({"type": "resume", "token": token})).await;
    let v = again.until_any(&["room_joined", "error"]).await;
    assert_eq!(v["type"], "room_joined", "{v}");
    assert_eq!(v["you"]["player_id"], jb["you"]["player_id"]);
    assert_eq!(bob.close_code().await, Some(1000));
}

#[tokio::test]
async fn a_member_on_another_node_reports_through_the_owner_and_it_is_kept_once() {
    let redis = Redis::start();
    let db = off_runtime(ScratchDb::create).expect("a scratch database on 127.0.0.1:5432");
    let url = db.url();
    let (a, b) = (
        node(&redis, "na", Some(&url)),
        node(&redis, "nb", Some(&url)),
    );
    let (mut ann, mut bob) = (client(&a).await, client(&b).await);
    let j = create(&mut ann, "ann", json!({"difficulty": "easy"})).await;
    let code = j["room"].as_str().expect("code").to_owned();
    let jb = join(&mut bob, &code, "bob").await;
    let rs = start(&mut ann, &mut [&mut bob]).await;
    let puzzle = rs["puzzle"].as_str().expect("puzzle").to_owned();
    solve_all(&mut ann, &puzzle).await;
    bob.until("player_finished").await;
    bob.send(json!({"type": "forfeit"})).await;
    let over = bob.until("race_over").await;
    let ann_id = j["you"]["player_id"].clone();
    // Bob is on node B; the room is node A's: the report goes up the relay and back.
    for _ in 0..2 {
        bob.send(json!({"type": "report", "player_id": ann_id, "reason": "quick"}))
            .await;
        assert_eq!(bob.until("reported").await["player_id"], ann_id);
    }
    bob.send(json!({"type": "report", "player_id": jb["you"]["player_id"], "reason": "me"}))
        .await;
    let refused = bob.until("error").await;
    assert_eq!(refused["code"], "bad_message", "{refused}");
    let store = pg_store(&url);
    let reports = off_runtime(move || store.reports(10, 0).expect("reports"));
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0].reporter_name, "bob");
    assert_eq!(reports[0].target_name, "ann");
    assert_eq!(Some(reports[0].race_id.as_str()), over["race_id"].as_str());
}

/// A8 across nodes: a player whose connection is on another node than the room is measured
/// by her own node (its Ping, her Pong) and the samples reach the room's owner; her time is
/// compensated like anyone's. She sits 150 ms (each way) from her node.
#[tokio::test]
async fn a_relayed_players_round_trip_reaches_the_owner_and_compensates_her_time() {
    use std::time::Duration;
    use testkit::lag::{race_at_pace, DelayProxy};
    let redis = Redis::start();
    let cap = ["--lag-cap-ms", "500"];
    let (a, b) = (
        node_with(&redis, "na", None, &cap),
        node_with(&redis, "nb", None, &cap),
    );
    let mut ann = client(&a).await;
    let j = create(&mut ann, "ann", json!({"difficulty": "easy"})).await;
    let code = j["room"].as_str().expect("code").to_owned();
    let b_addr = b.addr.parse().expect("node B's address");
    let proxy = DelayProxy::start(b_addr, Duration::from_millis(150))
        .await
        .expect("proxy");
    let stream = tokio::net::TcpStream::connect(proxy.addr)
        .await
        .expect("connect");
    let (ws, _) = tokio_tungstenite::client_async(format!("ws://{}/ws", b.addr), stream)
        .await
        .expect("handshake");
    let mut bob = testkit::JsonWs::new(ws, std::time::Duration::from_secs(20));
    assert_eq!(bob.recv().await.expect("welcome")["type"], "welcome");
    join(&mut bob, &code, "bob").await;
    ann.until("player_joined").await;
    ann.send(json!({"type": "start_race"})).await;
    let pace = Duration::from_millis(120);
    let (ann_over, bob_over) =
        tokio::join!(race_at_pace(&mut ann, pace), race_at_pace(&mut bob, pace));
    let (ann_over, bob_over) = (ann_over.expect("ann's race"), bob_over.expect("bob's race"));
    assert_eq!(ann_over["standings"], bob_over["standings"]);
    let standings = ann_over["standings"].as_array().expect("standings");
    let lag = |name: &str| {
        let s = standings
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {standings:?}"));
        let (t, raw) = (s["time_ms"].as_u64(), s["time_ms_raw"].as_u64());
        let lag = s["lag_ms"].as_u64().expect("lag");
        assert_eq!(t, raw.map(|r| r - lag), "{s}");
        lag
    };
    let (bob_lag, ann_lag) = (lag("bob"), lag("ann"));
    assert!(
        (240..=500).contains(&bob_lag),
        "bob (relayed, 300 ms away): {bob_lag}"
    );
    assert!(ann_lag < 150, "ann (local to the owner): {ann_lag}");
}
