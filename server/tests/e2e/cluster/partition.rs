//! No split brain (A12): the owner of a room cut off from Redis, alive, its client still
//! connected (a real partition: its node runs in a network namespace whose Redis link goes
//! down). Another node takes the room over; the cut-off owner accepts nothing it cannot log
//! (its log's fence refuses a lost owner's writes), so the stored race holds every placement
//! acknowledged to a client and no other. `SUDOKU_RACE_PARTITION_TRIES` runs it that many
//! times (CI: once; docs/benchmarks.md: ten).

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{json, Value};

use super::engines::{client, node, node_args, three_racing, Redis};
use super::netns::Host;
use crate::support::process::{Server, Ws};
use testkit::{solve, to_fill};

/// Place `cell` and wait for its answer, trying again after `retry_ms` while the room is
/// moving (A12: a client's part); whether it was accepted.
async fn placed(ws: &mut Ws, cell: usize, d: u8) -> bool {
    let mut last = Value::Null;
    for _ in 0..40 {
        ws.send(json!({"type": "place", "cell": cell, "digit": d, "id": cell}))
            .await;
        let v = ws.until_any(&["placement", "error"]).await;
        match v["retry_ms"].as_u64() {
            Some(ms) if v["code"] == "room_moving" => {
                last = v;
                tokio::time::sleep(Duration::from_millis(ms)).await;
            }
            _ => {
                let ok = v["type"] == "placement" && v["accepted"] == true;
                if !ok {
                    eprintln!("not accepted: {v}");
                }
                return ok;
            }
        }
    }
    eprintln!("still moving: {last}");
    false
}

/// The cells a player's accepted placements filled, as the stored race has them.
fn stored(race: &Value, player: &str) -> BTreeSet<u64> {
    race["placements"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["player_id"] == player && p["outcome"] == "accepted")
        .filter_map(|p| p["cell"].as_u64())
        .collect()
}

/// The race as node `n` stored it, if it did.
async fn race_on(n: &Server, race_id: &str) -> Option<Value> {
    let raw = n.http_get(&format!("/api/races/{race_id}")).await;
    let body = raw.split("\r\n\r\n").nth(1)?;
    raw.starts_with("HTTP/1.1 200")
        .then(|| serde_json::from_str(body).ok())
        .flatten()
}

#[tokio::test]
async fn an_owner_cut_off_from_redis_accepts_nothing_another_node_takes_over() {
    let tries: u8 = std::env::var("SUDOKU_RACE_PARTITION_TRIES")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(1);
    for n in 0..tries {
        one_partition(n).await;
    }
}

async fn one_partition(n: u8) {
    let host = Host::new(n);
    let redis = Redis::start_also(Some(&host.redis_gw));
    let url = format!("redis://{}:{}", host.redis_gw, redis.port);
    let id = format!("pa{n}");
    let mut a = Server::start_wrapped(&host.wrap(), "0.0.0.0:0", &node_args(&url, &id, &[]));
    let port = a.addr.rsplit(':').next().unwrap_or_default().to_owned();
    a.addr = format!("{}:{port}", host.addr);
    let (b, c) = (
        node(&redis, &format!("pb{n}"), None),
        node(&redis, &format!("pc{n}"), None),
    );
    let (mut ann, mut bob, mut cat) = (client(&a).await, client(&b).await, client(&c).await);
    let (created, race_id, puzzle) = three_racing(&mut ann, &mut bob, &mut cat).await;
    let token = created["you"]["token"].as_str().expect("token").to_owned();
    let fill = to_fill(&puzzle, &solve(&puzzle));
    let mut acked: [BTreeSet<u64>; 3] = Default::default();
    for (i, ws) in [&mut ann, &mut bob, &mut cat].into_iter().enumerate() {
        for &(cell, d) in &fill[..3] {
            assert!(placed(ws, cell, d).await, "placed before the cut");
            acked[i].insert(cell as u64);
        }
    }
    host.redis_link(false);
    // Ann, on the cut-off owner, places on: the owner cannot log it, so nothing is accepted.
    // Her first waits unanswered (the room is frozen); the next is answered `room_moving`.
    let (held, moving) = (fill[3], fill[4]);
    for (cell, d) in [held, moving] {
        ann.send(json!({"type": "place", "cell": cell, "digit": d, "id": cell}))
            .await;
        // Apart, so that the room takes the first alone (it takes what queued together).
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let v = ann.until_any(&["placement", "error"]).await;
    assert_eq!(
        v["code"], "room_moving",
        "what the cut-off owner answers: {v}"
    );
    // Bob and Cat are shown the room again by the node that took it over.
    for ws in [&mut bob, &mut cat] {
        ws.set_timeout(Duration::from_secs(20));
        let view = ws.until("room_joined").await;
        assert_eq!(view["race"]["race_id"], race_id.as_str(), "{view}");
    }
    // Ann reconnects, to a live node, and resumes her seat there: her held digit is not on
    // her board (it was never accepted).
    let mut ann2 = client(&b).await;
    ann2.send(json!({"type": "resume", "token": token})).await;
    let view = ann2.until("room_joined").await;
    let board = view["race"]["board"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(
        board.as_bytes()[held.0],
        b'.',
        "the held digit is not on the board: {view}"
    );
    // The partition heals: the old owner finds its room owned elsewhere and gives it up.
    host.redis_link(true);
    ann.set_timeout(Duration::from_secs(20));
    let closed = ann.close_code().await;
    assert_eq!(
        closed,
        Some(1012),
        "the old owner closes its client when it gives the room up"
    );
    // Everyone finishes but Ann, who never places the held cell again and forfeits.
    for (i, ws) in [&mut bob, &mut cat].into_iter().enumerate() {
        for &(cell, d) in &fill[3..] {
            assert!(placed(ws, cell, d).await, "placed after the takeover");
            acked[i + 1].insert(cell as u64);
        }
    }
    for &(cell, d) in &fill[4..8] {
        assert!(
            placed(&mut ann2, cell, d).await,
            "Ann placed after resuming"
        );
        acked[0].insert(cell as u64);
    }
    ann2.send(json!({"type": "forfeit"})).await;
    ann2.until("race_over").await;
    // Stored by the node that took the room over (not by the old owner): every acknowledged
    // placement, and no other.
    let mut race = None;
    for node in [&b, &c] {
        race = race.or(race_on(node, &race_id).await);
    }
    let race = race.expect("the race stored by the new owner");
    assert!(
        race_on(&a, &race_id).await.is_none(),
        "the old owner stored nothing"
    );
    let ids = [
        created["you"]["player_id"]
            .as_str()
            .unwrap_or("p1")
            .to_owned(),
        "p2".to_owned(),
        "p3".to_owned(),
    ];
    for (i, pid) in ids.iter().enumerate() {
        assert_eq!(
            stored(&race, pid),
            acked[i],
            "{pid}'s stored placements: {race}"
        );
    }
}
