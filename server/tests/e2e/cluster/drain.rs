//! A rolling drain (A9): of three nodes, one is drained while it owns a race. Its race finishes
//! and is stored, its members on other nodes hear `room_closed` `drain` from the room itself,
//! it opens nothing new meanwhile while the other nodes do, and it exits by itself.

use serde_json::json;
use server::Store as _;

use super::engines::{client, create, join, node, node_with, Redis};
use crate::support::process::TIMEOUT;
use testkit::{solve, to_fill};

#[tokio::test]
async fn a_drained_node_finishes_its_race_while_the_others_take_new_rooms() {
    let redis = Redis::start();
    let mut a = node_with(&redis, "da", None, &["--drain-s", "120"]);
    let (b, c) = (node(&redis, "db", None), node(&redis, "dc", None));
    let (mut ann, mut bob) = (client(&a).await, client(&b).await);
    let code = create(&mut ann, "ann", json!({"difficulty": "easy"})).await["room"]
        .as_str()
        .expect("code")
        .to_owned();
    join(&mut bob, &code, "bob").await;
    ann.until("player_joined").await;
    ann.send(json!({"type": "start_race"})).await;
    let rs = ann.until("race_started").await;
    bob.until("race_started").await;
    let race_id = rs["race_id"].as_str().expect("race id").to_owned();
    let puzzle = rs["puzzle"].as_str().expect("puzzle").to_owned();

    a.signal("-TERM");
    let mut tries = 0;
    while !a.http_get("/healthz").await.starts_with("HTTP/1.1 503") {
        tries += 1;
        assert!(tries < 1000, "node A's /healthz never said 503");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let mut late = client(&a).await;
    late.send(json!({"type": "create_room", "name": "lee"}))
        .await;
    assert_eq!(late.until("error").await["code"], "server_draining");
    // The other nodes open rooms and seat players across nodes as ever.
    let (mut cat, mut dan) = (client(&b).await, client(&c).await);
    let other = create(&mut cat, "cat", json!({})).await["room"]
        .as_str()
        .expect("code")
        .to_owned();
    join(&mut dan, &other, "dan").await;
    let (mut eve, mut fay) = (client(&c).await, client(&b).await);
    let third = create(&mut eve, "eve", json!({})).await["room"]
        .as_str()
        .expect("code")
        .to_owned();
    join(&mut fay, &third, "fay").await;

    // The drained node's race goes on to its end.
    for ws in [&mut ann, &mut bob] {
        for (cell, d) in to_fill(&puzzle, &solve(&puzzle)) {
            ws.send(json!({"type": "place", "cell": cell, "digit": d}))
                .await;
        }
    }
    for ws in [&mut ann, &mut bob] {
        assert_eq!(ws.until("race_over").await["reason"], "all_done");
    }
    for ws in [&mut ann, &mut bob] {
        assert_eq!(ws.until("room_closed").await["reason"], "drain");
        assert_eq!(ws.close_code().await, Some(1001));
    }
    let status = a.exit(TIMEOUT).await;
    assert!(status.success(), "{status:?}");
    assert!(a.logged("drained: no room left").await);
    let store = server::SqliteStore::open(&a.db).expect("node A's results");
    assert_eq!(
        store.race_reason(&race_id).expect("reason").as_deref(),
        Some("all_done")
    );
    assert_eq!(store.standings(&race_id).expect("standings").len(), 2);
    // The rooms of B and C live on: a chat goes round.
    cat.send(json!({"type": "chat", "text": "still here"}))
        .await;
    assert_eq!(dan.until("chat").await["text"], "still here");
    drop((late, eve, fay));
}
