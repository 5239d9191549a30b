//! SIGTERM with `--drain-s` (A9): the server takes nothing new (`server_draining`, `/healthz`
//! 503), closes a room between races with `room_closed` `drain`, lets the race under way finish
//! and stores it, closes that room after its results, and exits by itself once no room is
//! left, long before the drain time is over.

use serde_json::json;
use server::Store as _;

use crate::support::process::{player, two_in_a_room, Server, TIMEOUT};
use testkit::{solve, to_fill};

#[tokio::test]
async fn sigterm_with_drain_lets_the_race_finish_and_store_then_exits() {
    // A drain time far past every wait below: the exit comes from the rooms, not from it.
    let mut srv = Server::start(
        &[
            "--drain-s",
            "120",
            "--countdown-ms",
            "10",
            "--puzzle-stock",
            "1",
            "--rate-limit",
            "1000",
            "--rate-burst",
            "1000",
        ],
        None,
    );
    let (mut a, mut b) = (player(&srv).await, player(&srv).await);
    let room = two_in_a_room(
        (
            &mut a,
            json!({"type": "create_room", "name": "ann", "settings": {"difficulty": "easy"}}),
        ),
        (&mut b, json!({"type": "join_room", "name": "bob"})),
    )
    .await;
    // A room between races, in its lobby.
    let mut idle = player(&srv).await;
    idle.send(json!({"type": "create_room", "name": "cy"}))
        .await;
    idle.until("room_joined").await;
    a.send(json!({"type": "start_race"})).await;
    let rs = a.until("race_started").await;
    b.until("race_started").await;
    let race_id = rs["race_id"].as_str().expect("race_id").to_owned();
    let puzzle = rs["puzzle"].as_str().expect("puzzle").to_owned();
    assert!(srv.http_get("/healthz").await.starts_with("HTTP/1.1 200"));

    srv.signal("-TERM");
    let closed = idle.until("room_closed").await;
    assert_eq!(closed["reason"], "drain", "{closed}");
    assert_eq!(idle.close_code().await, Some(1001));
    let health = srv.http_get("/healthz").await;
    assert!(health.starts_with("HTTP/1.1 503"), "{health}");
    assert!(health.contains(r#""draining":true"#), "{health}");
    let mut late = player(&srv).await;
    late.send(json!({"type": "create_room", "name": "dee"}))
        .await;
    assert_eq!(late.until("error").await["code"], "server_draining");
    late.send(json!({"type": "quick_race", "difficulty": "easy", "name": "dee"}))
        .await;
    assert_eq!(late.until("error").await["code"], "server_draining");

    // The race goes on: ann solves, bob gives up.
    for (cell, digit) in to_fill(&puzzle, &solve(&puzzle)) {
        a.send(json!({"type": "place", "cell": cell, "digit": digit}))
            .await;
        assert_eq!(a.until("placement").await["accepted"], true);
    }
    b.send(json!({"type": "forfeit"})).await;
    for ws in [&mut a, &mut b] {
        assert_eq!(ws.until("race_over").await["reason"], "all_done");
    }
    for ws in [&mut a, &mut b] {
        let closed = ws.until("room_closed").await;
        assert_eq!(
            (closed["room"].as_str(), &closed["reason"]),
            (Some(room.as_str()), &json!("drain"))
        );
        assert_eq!(ws.close_code().await, Some(1001));
    }
    let status = srv.exit(TIMEOUT).await;
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert!(
        srv.logged("drained: no room left").await,
        "it exited because no room was left"
    );

    let store = server::SqliteStore::open(&srv.db).expect("open the results");
    assert_eq!(
        store.race_reason(&race_id).expect("reason").as_deref(),
        Some("all_done")
    );
    let st = store.standings(&race_id).expect("standings");
    let ann = st.iter().find(|r| r.name == "ann").expect("ann");
    assert_eq!((ann.rank, ann.status.as_str()), (1, "solved"));
    drop(late);
}

#[tokio::test]
async fn a_second_sigterm_during_the_drain_stops_at_once() {
    let mut srv = Server::start(&["--drain-s", "120", "--countdown-ms", "10"], None);
    let (mut a, mut b) = (player(&srv).await, player(&srv).await);
    two_in_a_room(
        (&mut a, json!({"type": "create_room", "name": "ann"})),
        (&mut b, json!({"type": "join_room", "name": "bob"})),
    )
    .await;
    a.send(json!({"type": "start_race"})).await;
    let race_id = a.until("race_started").await["race_id"]
        .as_str()
        .expect("race_id")
        .to_owned();
    srv.signal("-TERM");
    // Draining once `/healthz` says so (every answer bounded, and so many tries).
    let mut tries = 0;
    while !srv.http_get("/healthz").await.starts_with("HTTP/1.1 503") {
        tries += 1;
        assert!(tries < 1000, "/healthz never said 503");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    srv.signal("-TERM");
    for ws in [&mut a, &mut b] {
        assert_eq!(ws.until("room_closed").await["reason"], "shutdown");
        assert_eq!(ws.close_code().await, Some(1001));
    }
    let status = srv.exit(TIMEOUT).await;
    assert_eq!(status.code(), Some(0), "{status:?}");
    let store = server::SqliteStore::open(&srv.db).expect("open the results");
    assert_eq!(
        store.race_reason(&race_id).expect("reason").as_deref(),
        Some("shutdown")
    );
}
