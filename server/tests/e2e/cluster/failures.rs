//! What a cluster does when an engine or a node fails: an owner killed with `kill -9`, and
//! Redis restarted mid-race.

use std::time::Duration;

use serde_json::{json, Value};

use super::engines::{
    client, create, get_json, join, node, node_with, node_with_env, off_runtime, pg_store,
    Postgres, Redis,
};
use crate::support::process::Ws;
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
    // The takeover window as the takeover suite sets it (default 5 s): the rooms close once it
    // has passed with no log to take over from, so a shorter one only shortens the wait.
    let fast = ["--takeover-s", "2"];
    let a = node_with(&redis, "ka", Some(&url), &fast);
    let (b, c) = (
        node_with(&redis, "kb", Some(&url), &fast),
        node_with(&redis, "kc", Some(&url), &fast),
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
    // It waits on disk, in the node's spool (A9).
    assert!(
        metrics.contains("sudoku_race_results_spooled_total 1"),
        "{metrics}"
    );
    pg.up();
    // The retry lands it (the wait between tries is at most 5 s).
    let landed = async {
        loop {
            let h = get_json(&a, "/healthz").await;
            if h["results_queued"] == 0 {
                break h;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    };
    let h = testkit::wait::within("the result landed", Duration::from_secs(30), landed).await;
    assert_eq!(h["db"], "up");
    let store = pg_store(&url);
    let stored = off_runtime(move || store.standings(&id).expect("standings"));
    assert_eq!(stored.len(), 2, "{stored:?}");
    let metrics = a.http_get("/metrics").await;
    assert!(
        metrics.contains("sudoku_race_results_retried_total 1"),
        "{metrics}"
    );
    for lost in ["dropped", "refused"] {
        let line = format!("sudoku_race_results_{lost}_total 0");
        assert!(metrics.contains(&line), "{metrics}");
    }
}

/// What a member's client knows of the race, from everything it received: each player's
/// latest `filled` (from `progress`, or from a fresh view) and status, and its own board.
#[derive(Debug, Default)]
struct Seen {
    filled: std::collections::HashMap<String, u64>,
    status: std::collections::HashMap<String, String>,
    board: Option<String>,
    views: usize,
}

impl Seen {
    fn take(&mut self, v: &Value) {
        match v["type"].as_str() {
            Some("progress") => {
                let id = v["player_id"].as_str().unwrap_or("").to_owned();
                self.filled.insert(id, v["filled"].as_u64().unwrap_or(0));
            }
            Some("player_finished") => {
                let id = v["player_id"].as_str().unwrap_or("").to_owned();
                self.status
                    .insert(id, v["status"].as_str().unwrap_or("").to_owned());
            }
            Some("room_joined") => {
                self.views += 1;
                for p in v["players"].as_array().into_iter().flatten() {
                    let id = p["player_id"].as_str().unwrap_or("").to_owned();
                    self.status
                        .insert(id, p["status"].as_str().unwrap_or("").to_owned());
                }
                for p in v["race"]["progress"].as_array().into_iter().flatten() {
                    let id = p["player_id"].as_str().unwrap_or("").to_owned();
                    self.filled.insert(id, p["filled"].as_u64().unwrap_or(0));
                }
                self.board = v["race"]["board"].as_str().map(str::to_owned);
            }
            _ => {}
        }
    }
}

/// Place a digit as a client that keeps its view: `Some(true)` once it is on the board (its
/// `placement`, or a fresh view that holds it: the answer itself may have been lost on the
/// relay), `None` when refused with the relay's clear error (try again).
async fn place_seen(ws: &mut Ws, seen: &mut Seen, cell: usize, d: u8) -> Option<bool> {
    ws.send(json!({"type": "place", "cell": cell, "digit": d, "id": cell}))
        .await;
    loop {
        let v = ws.recv().await.expect("an answer to a placement");
        seen.take(&v);
        match v["type"].as_str() {
            Some("placement") if v["cell"] == cell => {
                let ok = v["accepted"] == true || v["reason"] == "filled";
                assert!(ok, "{v}");
                return Some(true);
            }
            Some("room_joined") => {
                let on_board = seen
                    .board
                    .as_deref()
                    .and_then(|b| b.chars().nth(cell))
                    .is_some_and(|c| c == char::from(b'0' + d));
                if on_board {
                    return Some(true);
                }
            }
            Some("error") => {
                // A12: the relay could not carry it; not accepted, try again after `retry_ms`.
                assert_eq!(v["code"], "room_moving", "{v}");
                assert!(v["retry_ms"].as_u64().is_some(), "{v}");
                return None;
            }
            _ => {}
        }
    }
}

/// Read what `ws` was sent until `done` holds of what it knows (bounded by the client's
/// receive timeout).
async fn until_seen(ws: &mut Ws, seen: &mut Seen, done: impl Fn(&Seen) -> bool) {
    while !done(seen) {
        let v = ws
            .recv()
            .await
            .unwrap_or_else(|e| panic!("still {seen:?}: {e:#}"));
        seen.take(&v);
    }
}

/// Relay gaps: Redis is killed mid-race while the owner's player places (those `progress`
/// messages are published into nothing), and restarted. Bob, on the other node, must end with
/// the board and the standings as they are, not as they were: his node resyncs him with a
/// fresh view once it has resubscribed. Placements refused meanwhile are tried again.
#[tokio::test]
async fn a_redis_restart_mid_race_loses_no_room() {
    let mut redis = Redis::start();
    let (a, b) = (node(&redis, "ra1", None), node(&redis, "rb1", None));
    let (mut ann, mut bob) = (client(&a).await, client(&b).await);
    let (puzzle, joined) = race(&mut ann, &mut [&mut bob]).await;
    let bob_id = joined[0]["you"]["player_id"].clone();
    let ann_id = "p1";
    let cells = to_fill(&puzzle, &solve(&puzzle));
    let (before, after) = cells.split_at(5);
    let mut seen = Seen::default();
    for &(cell, d) in before {
        assert_eq!(place_seen(&mut bob, &mut seen, cell, d).await, Some(true));
    }
    redis.kill();
    // Ann plays on the owner node itself. Its log cannot keep her placements now, so none is
    // answered as accepted (A12): what the room took before it froze waits unanswered, what
    // came after is answered `room_moving`.
    let ann_cells = &after[after.len() - 3..];
    for &(cell, d) in ann_cells {
        ann.send(json!({"type": "place", "cell": cell, "digit": d}))
            .await;
    }
    let early = tokio::time::timeout(Duration::from_millis(1500), ann.until("placement")).await;
    assert!(
        early.is_err(),
        "accepted with its log unreachable: {early:?}"
    );
    // While Redis is down a placement is refused with a clear error, never lost in silence.
    let (cell, d) = after[0];
    assert!(place_seen(&mut bob, &mut seen, cell, d).await.is_none());
    redis.start_again();
    // Once the owner's log is back (its renewal writes its keys into the new Redis), what
    // waited is answered; what was refused is sent again until it is taken.
    ann.set_timeout(Duration::from_secs(20));
    let in_place = async {
        let mut done = std::collections::BTreeSet::new();
        while done.len() < ann_cells.len() {
            for &(cell, d) in ann_cells.iter().filter(|(c, _)| !done.contains(c)) {
                ann.send(json!({"type": "place", "cell": cell, "digit": d}))
                    .await;
            }
            let answers = async {
                loop {
                    let v = ann.until("placement").await;
                    let filled = v["reason"] == "filled";
                    if let (true, Some(c)) = (v["accepted"] == true || filled, v["cell"].as_u64()) {
                        done.insert(c as usize);
                    }
                }
            };
            let _ = tokio::time::timeout(Duration::from_millis(500), answers).await;
        }
    };
    testkit::wait::within("Ann's digits taken", Duration::from_secs(20), in_place).await;
    // Bob's node resubscribes and asks for a fresh view: Ann's three digits are in it.
    until_seen(&mut bob, &mut seen, |s| s.filled.get(ann_id) == Some(&3)).await;
    // Each placement is tried until the relay is back (the nodes reconnect and resubscribe).
    let mut refused = 1;
    for &(cell, d) in after {
        let placed = async {
            while place_seen(&mut bob, &mut seen, cell, d).await.is_none() {
                refused += 1;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        };
        testkit::wait::within("the relay came back", Duration::from_secs(20), placed).await;
    }
    let fin = ann.until("player_finished").await;
    assert_eq!(fin["player_id"], bob_id);
    // Ann's last digits: Bob sees her finish the race with him.
    for &(cell, d) in &cells[..cells.len() - 3] {
        ann.send(json!({"type": "place", "cell": cell, "digit": d}))
            .await;
    }
    ann.until("race_over").await;
    let mut over = None;
    while over.is_none() {
        let v = bob.recv().await.expect("race_over");
        seen.take(&v);
        if v["type"] == "race_over" {
            over = Some(v);
        }
    }
    let over = over.expect("race_over");
    let standings = over["standings"].as_array().expect("standings");
    assert!(standings.iter().all(|s| s["status"] == "solved"), "{over}");
    // Bob's node resynced him after it resubscribed (at once, and again a renewal later):
    // the view comes, whenever in the race it landed, and agrees with the end.
    until_seen(&mut bob, &mut seen, |s| s.views >= 1).await;
    assert_eq!(
        seen.status.get(ann_id).map(String::as_str),
        Some("solved"),
        "{seen:?}"
    );
    assert_eq!(
        seen.filled.get(ann_id),
        Some(&(cells.len() as u64)),
        "{seen:?}"
    );
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

/// A forced gap: the owner drops one delivery to the member's node on purpose (the
/// `cluster-tests` hook), Ann's `player_finished`. The next delivery comes with a number
/// skipped: Bob's node asks for a fresh view, and Bob learns that Ann has solved.
#[tokio::test]
async fn a_gap_in_a_rooms_deliveries_resyncs_its_members() {
    let redis = Redis::start();
    let drop_it = [(
        "SUDOKU_RACE_TEST_DROP_DELIVERY",
        r#""type":"player_finished""#,
    )];
    let a = node_with_env(&redis, "ga1", None, &[], &drop_it);
    let b = node(&redis, "gb1", None);
    let (mut ann, mut bob) = (client(&a).await, client(&b).await);
    let (puzzle, _) = race(&mut ann, &mut [&mut bob]).await;
    let cells = to_fill(&puzzle, &solve(&puzzle));
    for &(cell, d) in &cells {
        ann.send(json!({"type": "place", "cell": cell, "digit": d}))
            .await;
    }
    assert_eq!(ann.until("player_finished").await["status"], "solved");
    let mut seen = Seen::default();
    // Bob sees Ann's last progress, but her `player_finished` never reaches his node.
    until_seen(&mut bob, &mut seen, |s| {
        s.filled.get("p1") == Some(&(cells.len() as u64))
    })
    .await;
    // His own next message down is numbered past the lost one: a fresh view follows it.
    let (cell, d) = cells[0];
    assert_eq!(place_seen(&mut bob, &mut seen, cell, d).await, Some(true));
    until_seen(&mut bob, &mut seen, |s| s.views >= 1).await;
    assert_eq!(
        seen.status.get("p1").map(String::as_str),
        Some("solved"),
        "{seen:?}"
    );
    assert_eq!(
        seen.board.as_deref().and_then(|b| b.chars().nth(cell)),
        Some(char::from(b'0' + d)),
        "bob's own board is in the view"
    );
    let metrics = b.http_get("/metrics").await;
    assert!(
        metrics.contains("sudoku_race_relay_resyncs_total 1"),
        "{metrics}"
    );
}
