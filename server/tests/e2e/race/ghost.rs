//! Ghost races (A7 `race_ghost`) over real sockets: a stored race replayed by the room's clock.
//! The ghost is listed as a seat (`ghost: true`, "ghost of NAME"), its progress arrives at the
//! original race times, it finishes at its stored time, the race is unrated and stored with
//! `ghost_of`; `best` and `daily` name the key's own best and today's daily winner.

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{create, Client, TestServer};
use testkit::{solve, to_fill};

/// A new identity: its key and handle.
async fn register(c: &mut Client, name: &str) -> (String, String) {
    c.send(json!({"type": "register", "name": name})).await;
    let r = c.expect("registered").await;
    let text = |f: &str| r[f].as_str().expect("registered").to_owned();
    (text("key"), text("handle"))
}

/// A one-player race of `c` (already in a lobby it hosts), solved with `gap` between
/// placements: its race id and stored time.
async fn solo_race(c: &mut Client, gap: Duration) -> (String, u64) {
    c.send(json!({"type": "start_race"})).await;
    let started = c.until("race_started").await;
    let puzzle = started["puzzle"].as_str().expect("puzzle").to_owned();
    let solution = solve(&puzzle);
    for (cell, digit) in to_fill(&puzzle, &solution) {
        tokio::time::sleep(gap).await;
        c.send(json!({"type": "place", "cell": cell, "digit": digit}))
            .await;
    }
    let over = c.until("race_over").await;
    let time = over["standings"][0]["time_ms"].as_u64().expect("a time");
    let race_id = over["race_id"].as_str().expect("race id").to_owned();
    (race_id, time)
}

/// `race_ghost` up to `race_started`: the ghost's player entry and the puzzle.
async fn race_ghost(c: &mut Client, req: Value) -> (Value, String) {
    c.send(req).await;
    let j = c.until("room_joined").await;
    assert_eq!(j["settings"]["public"], false, "{j}");
    assert_eq!(j["settings"]["rated"], false, "{j}");
    let players = j["players"].as_array().expect("players").clone();
    assert_eq!(players.len(), 2, "you and the ghost: {j}");
    assert_eq!(players[0]["ghost"], false, "{j}");
    let ghost = players[1].clone();
    assert_eq!(ghost["ghost"], true, "{j}");
    c.until("countdown").await;
    let rs = c.until("race_started").await;
    assert_eq!(rs["rated"], false, "{rs}");
    let puzzle = rs["puzzle"].as_str().expect("puzzle").to_owned();
    (ghost, puzzle)
}

/// Read `c`'s messages up to the ghost's `player_finished`, checking that its progress comes
/// one accepted placement at a time (`filled` counts them across calls).
async fn until_the_ghost_finishes(c: &mut Client, ghost_id: &Value, filled: &mut u64) -> Value {
    loop {
        let m = c.recv().await.expect("the ghost's messages");
        match m["type"].as_str() {
            Some("progress") if m["player_id"] == *ghost_id => {
                let now = m["filled"].as_u64().expect("filled");
                assert_eq!(now, *filled + 1, "one cell at a time: {m}");
                *filled = now;
            }
            Some("player_finished") if m["player_id"] == *ghost_id => return m,
            _ => {}
        }
    }
}

// The clock is paused: the server's ghost and race clocks run on tokio's clock, so the paced
// race and its replay take no wall time and land exactly on their instants.
#[tokio::test(start_paused = true)]
async fn a_ghost_replays_its_race_and_finishes_at_its_stored_time() {
    let srv = TestServer::start_with(|c| {
        c.fair_play = false;
        crate::support::no_journal(c);
    })
    .await;
    let mut a = srv.client().await;
    let settings = json!({"difficulty": "easy", "max_players": 1, "public": false});
    create(&mut a, "ann", settings).await;
    let (source, stored_ms) = solo_race(&mut a, Duration::from_millis(25)).await;
    assert!(stored_ms >= 25 * 30, "a paced race: {stored_ms} ms");
    let first = srv.store().replay(&source).unwrap().expect("stored");

    let mut b = srv.client().await;
    let req = json!({"type": "race_ghost", "ghost": source, "name": "bob"});
    let (ghost, puzzle) = race_ghost(&mut b, req).await;
    assert_eq!(ghost["name"], "ghost of ann", "{ghost}");
    assert_eq!(
        puzzle, first.race.puzzle,
        "the stored race's puzzle, as dealt"
    );
    let ghost_id = ghost["player_id"].clone();
    // The ghost's progress comes by itself, one accepted placement at a time.
    // It finishes at its stored time after the start: not within 100 ms before, and within
    // 100 ms after.
    let mut filled = 0;
    let early = Duration::from_millis(stored_ms - 100);
    let ghost_done = until_the_ghost_finishes(&mut b, &ghost_id, &mut filled);
    let before = tokio::time::timeout(early, ghost_done).await;
    assert!(before.is_err(), "the ghost finished early: {before:?}");
    let ghost_done = until_the_ghost_finishes(&mut b, &ghost_id, &mut filled);
    let finished = tokio::time::timeout(Duration::from_millis(200), ghost_done)
        .await
        .expect("the ghost finishes within 100 ms of its stored time");
    assert_eq!(finished["status"], "solved", "{finished}");
    assert_eq!(
        finished["time_ms"], stored_ms,
        "its stored time: {finished}"
    );
    // The human gives up: the ghost ranks first, and the race is stored as its ghost race.
    b.send(json!({"type": "forfeit"})).await;
    let over = b.until("race_over").await;
    assert_eq!(over["standings"][0]["player_id"], ghost_id, "{over}");
    let race_id = over["race_id"].as_str().expect("race id");
    let stored = srv.store().replay(race_id).unwrap().expect("stored");
    assert_eq!(stored.race.ghost_of.as_deref(), Some(source.as_str()));
    assert!(!stored.race.rated);
}

#[tokio::test]
async fn a_human_who_finishes_first_ends_the_race_with_the_ghost_at_its_time() {
    let srv = TestServer::start_with(|c| c.fair_play = false).await;
    let mut a = srv.client().await;
    let (key, handle) = register(&mut a, "ann").await;
    let settings = json!({"difficulty": "easy", "max_players": 1, "public": false});
    a.send(json!({"type": "create_room", "name": "ann", "settings": settings, "key": key}))
        .await;
    a.expect("room_joined").await;
    let (source, stored_ms) = solo_race(&mut a, Duration::from_millis(40)).await;
    a.send(json!({"type": "leave"})).await;

    // `best` is the key's own best at that difficulty; the fast human wins, the ghost keeps
    // its time, and nobody waits for the ghost to get there.
    let req = json!({"type": "race_ghost", "ghost": "best", "difficulty": "easy",
                     "name": "ann", "key": key});
    let (ghost, puzzle) = race_ghost(&mut a, req).await;
    let solution = solve(&puzzle);
    let race = async {
        for (cell, digit) in to_fill(&puzzle, &solution) {
            a.send(json!({"type": "place", "cell": cell, "digit": digit}))
                .await;
        }
        a.until("race_over").await
    };
    let over = tokio::time::timeout(Duration::from_millis(stored_ms), race)
        .await
        .expect("race_over before the ghost's stored time: no wait");
    let table = over["standings"].as_array().expect("standings");
    assert_eq!(table[1]["player_id"], ghost["player_id"], "{over}");
    assert_eq!(table[1]["status"], "solved", "{over}");
    assert_eq!(table[1]["time_ms"], stored_ms, "{over}");
    let stored = srv.store().replay(over["race_id"].as_str().unwrap());
    assert_eq!(
        stored.unwrap().unwrap().race.ghost_of.as_deref(),
        Some(source.as_str())
    );
    // A ghost race is no best: the key's best is still the first race.
    let (_, page) = srv
        .http_get(&format!("/api/players/{handle}"))
        .await
        .unwrap();
    let page: Value = serde_json::from_str(&page).unwrap();
    assert_eq!(page["best"]["easy"]["race_id"], source.as_str(), "{page}");
}

#[tokio::test]
async fn nothing_to_race_is_unknown_race() {
    let srv = TestServer::start().await;
    let mut c = srv.client().await;
    c.send(json!({"type": "race_ghost", "ghost": "nope-0", "name": "cy"}))
        .await;
    c.expect_error("unknown_race").await;
    // `best` without a key, or with no solve yet, names nothing either.
    c.send(json!({"type": "race_ghost", "ghost": "best", "name": "cy"}))
        .await;
    c.expect_error("unknown_race").await;
    let (key, _) = register(&mut c, "cy").await;
    c.send(json!({"type": "race_ghost", "ghost": "best", "name": "cy", "key": key}))
        .await;
    c.expect_error("unknown_race").await;
    c.send(json!({"type": "race_ghost", "ghost": "daily", "difficulty": "hard", "name": "cy"}))
        .await;
    c.expect_error("unknown_race").await;
    // Still in no room: it can open one.
    create(&mut c, "cy", json!({})).await;
}
