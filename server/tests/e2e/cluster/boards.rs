//! Delayed boards across nodes (A8): a boards-spectator on another node than the room's owner
//! gets the `board` messages through the relay (delayed, then final), and a plain spectator
//! there gets none.

use serde_json::json;

use super::engines::{client, create, join, node_with, Redis};
use crate::support::process::Ws;
use testkit::{solve, to_fill};

async fn spectate(ws: &mut Ws, code: &str, boards: bool) {
    ws.send(json!({"type": "spectate", "room": code, "boards": boards}))
        .await;
    let v = ws.until_any(&["room_joined", "error"]).await;
    assert_eq!(v["type"], "room_joined", "{v}");
}

#[tokio::test]
async fn a_boards_spectator_on_another_node_gets_the_boards() {
    let redis = Redis::start();
    let delay = ["--spectator-delay-s", "1"];
    let (a, b) = (
        node_with(&redis, "ba", None, &delay),
        node_with(&redis, "bb", None, &delay),
    );
    let (mut ann, mut bob) = (client(&a).await, client(&b).await);
    let j = create(&mut ann, "ann", json!({"difficulty": "easy"})).await;
    let code = j["room"].as_str().expect("code").to_owned();
    let ann_id = j["you"]["player_id"].clone();
    join(&mut bob, &code, "bob").await;
    let (mut tv, mut plain) = (client(&b).await, client(&b).await);
    spectate(&mut tv, &code, true).await;
    spectate(&mut plain, &code, false).await;

    ann.send(json!({"type": "start_race"})).await;
    let rs = ann.until("race_started").await;
    let puzzle = rs["puzzle"].as_str().expect("puzzle").to_owned();
    let (cell, digit) = to_fill(&puzzle, &solve(&puzzle))[0];
    ann.send(json!({"type": "place", "cell": cell, "digit": digit}))
        .await;
    assert_eq!(ann.until("placement").await["accepted"], true);
    // Her digit shows on node B once the delay has passed.
    loop {
        let m = tv.until("board").await;
        let shown = m["board"].as_str().expect("grid").as_bytes()[cell];
        if m["player_id"] == ann_id && shown != b'.' {
            assert!(m["at_ms"].as_u64().is_some_and(|at| at > 0), "{m}");
            break;
        }
    }
    ann.send(json!({"type": "forfeit"})).await;
    bob.send(json!({"type": "forfeit"})).await;
    tv.until("race_over").await;
    for _ in 0..2 {
        tv.until("board").await;
    }
    let mut seen = Vec::new();
    loop {
        let m = plain.recv().await.expect("race_over comes");
        let over = m["type"] == "race_over";
        seen.push(m);
        if over {
            break;
        }
    }
    assert!(seen.iter().all(|m| m["type"] != "board"), "{seen:?}");
}
