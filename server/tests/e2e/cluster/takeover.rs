//! A9 takeover: the owner of a room killed mid-race (`kill -9`: no goodbye), another node
//! rebuilds the room from its command log in Redis, and the race goes on and finishes with
//! every placement accepted before the kill, stored once.

use std::time::Duration;

use serde_json::{json, Value};

use super::engines::{client, node_with, node_with_env, off_runtime, three_racing, Redis};
use crate::support::process::Ws;
use server::store::postgres::scratch::ScratchDb;
use testkit::{solve, to_fill};

/// Place `cells` (right digits) and check each was accepted.
async fn place_all(ws: &mut Ws, cells: &[(usize, u8)]) {
    for &(cell, d) in cells {
        ws.send(json!({"type": "place", "cell": cell, "digit": d, "id": cell}))
            .await;
        let v = ws.until("placement").await;
        assert_eq!(v["accepted"], true, "{v}");
    }
}

/// The viewer's own board in a room view, as a puzzle line.
fn board(view: &Value) -> String {
    view["race"]["board"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Every cell of `cells` holds its digit on `line`.
fn holds(line: &str, cells: &[(usize, u8)]) -> bool {
    let b = line.as_bytes();
    cells
        .iter()
        .all(|&(c, d)| b.get(c).copied() == Some(b'0' + d))
}

#[tokio::test]
async fn an_owner_killed_mid_race_is_taken_over_and_the_race_finishes_with_every_placement() {
    let redis = Redis::start();
    let db = off_runtime(ScratchDb::create).expect("a scratch database on 127.0.0.1:5432");
    let url = db.url();
    let fast = ["--takeover-s", "2"];
    let a = node_with(&redis, "ta", Some(&url), &fast);
    let b = node_with(&redis, "tb", Some(&url), &fast);
    let c = node_with(&redis, "tc", Some(&url), &fast);
    let (mut ann, mut bob, mut cat) = (client(&a).await, client(&b).await, client(&c).await);
    let (created, race_id, puzzle) = three_racing(&mut ann, &mut bob, &mut cat).await;
    let token = created["you"]["token"].as_str().expect("token").to_owned();
    let fill = to_fill(&puzzle, &solve(&puzzle));
    // Each places a few digits before the kill (the same cells: each has its own board).
    let (before, after) = fill.split_at(4);
    place_all(&mut ann, before).await;
    place_all(&mut bob, before).await;
    place_all(&mut cat, before).await;
    // Bob's and Cat's answers came through the owner's ordered queue to Redis after every
    // log entry before them, Ann's placements included: the log has them all.
    a.signal("-KILL");
    // The members on live nodes keep their connection and are shown the room again, by the
    // node that took it over (lease 10 s, then a look every second).
    for ws in [&mut bob, &mut cat] {
        ws.set_timeout(Duration::from_secs(40));
        let view = ws.until("room_joined").await;
        assert_eq!(view["phase"], "racing", "{view}");
        assert_eq!(view["race"]["race_id"], race_id.as_str(), "{view}");
        assert!(holds(&board(&view), before), "{view}");
        ws.set_timeout(Duration::from_secs(10));
    }
    // Ann, whose node died, resumes with her token on a live node.
    let mut ann = client(&b).await;
    ann.send(json!({"type": "resume", "token": token})).await;
    let view = ann.until("room_joined").await;
    assert_eq!(view["race"]["race_id"], race_id.as_str(), "{view}");
    assert!(holds(&board(&view), before), "{view}");
    assert_eq!(view["you"]["token"], token.as_str(), "{view}");
    // The race goes on to its end, with everyone's earlier digits counted.
    for ws in [&mut ann, &mut bob, &mut cat] {
        place_all(ws, after).await;
    }
    let mut over = Vec::new();
    for ws in [&mut ann, &mut bob, &mut cat] {
        over.push(ws.until("race_over").await);
    }
    for v in &over {
        assert_eq!(v["race_id"], race_id.as_str(), "{v}");
        let solved = v["standings"]
            .as_array()
            .map(|s| s.iter().filter(|r| r["status"] == "solved").count());
        assert_eq!(solved, Some(3), "{v}");
    }
    // Stored once, by the node that took the room over.
    let (u, id) = (url.clone(), race_id.clone());
    let rows: i64 = off_runtime(move || {
        let mut pg = r2d2_postgres::postgres::Client::connect(&u, r2d2_postgres::postgres::NoTls)
            .expect("postgres");
        pg.query_one("SELECT count(*) FROM races WHERE race_id = $1", &[&id])
            .expect("count")
            .get(0)
    });
    assert_eq!(rows, 1);
}

/// A resume that reaches the node taking a room over between its claim and the room's rebuild
/// (the room's channel is heard there, the room is not there yet) is told the room is moving
/// (A12), never left waiting; asked again once the room runs, it is let back in. The nodes
/// that may take the room over wait 3 s between the two (a `cluster-tests` hook).
#[tokio::test]
async fn a_resume_heard_before_the_room_is_rebuilt_is_told_it_moves_and_comes_back() {
    let redis = Redis::start();
    let fast = ["--takeover-s", "2"];
    let slow = [("SUDOKU_RACE_TEST_REBUILD_DELAY_MS", "3000")];
    let a = node_with(&redis, "wa", None, &fast);
    let b = node_with_env(&redis, "wb", None, &fast, &slow);
    let c = node_with_env(&redis, "wc", None, &fast, &slow);
    let (mut ann, mut bob, mut cat) = (client(&a).await, client(&b).await, client(&c).await);
    let (created, race_id, _) = three_racing(&mut ann, &mut bob, &mut cat).await;
    let token = created["you"]["token"].as_str().expect("token").to_owned();
    a.signal("-KILL");
    const CLAIMED: &str = "claimed, rebuilding after the test's delay";
    let (taker, other) = tokio::select! {
        true = b.logged(CLAIMED) => (&b, &c),
        true = c.logged(CLAIMED) => (&c, &b),
        else => panic!("no node claimed the room"),
    };
    let mut ann = client(other).await;
    ann.send(json!({"type": "resume", "token": token})).await;
    let v = ann.until_any(&["error", "room_joined"]).await;
    assert_eq!(v["code"], "room_moving", "{v}");
    assert!(v["retry_ms"].as_u64().is_some_and(|ms| ms > 0), "{v}");
    assert!(taker.logged("room taken over").await);
    ann.send(json!({"type": "resume", "token": token})).await;
    let view = ann.until_any(&["error", "room_joined"]).await;
    assert_eq!(view["type"], "room_joined", "{view}");
    assert_eq!(view["race"]["race_id"], race_id.as_str(), "{view}");
}
