//! The daily challenge over real sockets (A6): one puzzle per day and difficulty for everyone,
//! started at once in a private room, one attempt per key.

use engine::Difficulty;
use serde_json::json;

use crate::support::{Client, TestServer};
use testkit::{solve, to_fill};

async fn register(c: &mut Client, name: &str) -> String {
    c.send(json!({"type": "register", "name": name})).await;
    c.expect("registered").await["key"]
        .as_str()
        .expect("key")
        .to_owned()
}

/// `start_daily` up to `race_started`: the puzzle. The one seat carries the name the key was
/// registered under.
async fn daily(c: &mut Client, key: &str, difficulty: &str, name: &str) -> String {
    c.send(json!({"type": "start_daily", "difficulty": difficulty, "key": key}))
        .await;
    let j = c.expect("room_joined").await;
    assert_eq!(j["settings"]["max_players"], 1);
    assert_eq!(j["settings"]["public"], false);
    assert_eq!(j["players"][0]["name"], name, "{j}");
    c.until("countdown").await;
    let rs = c.until("race_started").await;
    assert_eq!(rs["difficulty"], difficulty);
    rs["puzzle"].as_str().expect("puzzle").to_owned()
}

#[tokio::test]
async fn everyone_gets_the_days_puzzle_once() {
    let srv = TestServer::start_with(|c| c.fair_play = false).await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let ka = register(&mut a, "ann").await;
    let kb = register(&mut b, "bob").await;
    let pa = daily(&mut a, &ka, "easy", "ann").await;
    let pb = daily(&mut b, &kb, "easy", "bob").await;
    assert_eq!(pa, pb, "one puzzle for the day");
    let solution = solve(&pa);
    for (cell, d) in to_fill(&pa, &solution) {
        a.send(json!({"type": "place", "cell": cell, "digit": d}))
            .await;
    }
    let over = a.until("race_over").await;
    assert_eq!(over["standings"][0]["status"], "solved");
    // No rematch of the day's puzzle, and no second attempt from a new room.
    a.send(json!({"type": "start_race"})).await;
    a.expect_error("already_played").await;
    a.send(json!({"type": "leave"})).await;
    a.until("player_left").await;
    a.send(json!({"type": "start_daily", "difficulty": "easy", "key": ka}))
        .await;
    a.expect_error("already_played").await;
    // Bob's attempt counts from its start, finished or not.
    let mut b2 = srv.client().await;
    b2.send(json!({"type": "start_daily", "difficulty": "easy", "key": kb}))
        .await;
    b2.expect_error("already_played").await;
    // Another difficulty is another challenge.
    let mut a2 = srv.client().await;
    let hard = daily(&mut a2, &ka, "medium", "ann").await;
    assert_ne!(hard, pa);

    // The server dates the daily by the wall clock: today's board is under today's date.
    #[allow(clippy::disallowed_methods)]
    let date = server::store::period::utc_date(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64),
    );
    let board = srv
        .store()
        .daily_board(&date, Difficulty::Easy, 10, 0)
        .expect("daily board");
    assert_eq!(
        board.first().map(|r| r.name.as_str()),
        Some("ann"),
        "{board:?}"
    );
}

#[tokio::test]
async fn a_bad_daily_request_is_refused() {
    let srv = TestServer::start().await;
    let mut a = srv.client().await;
    a.send(json!({"type": "start_daily", "difficulty": "easy", "key": "nope"}))
        .await;
    a.expect_error("invalid_key").await;
    let key = register(&mut a, "ann").await;
    a.send(json!({"type": "start_daily", "difficulty": "extreme", "key": key}))
        .await;
    a.expect_error("invalid_settings").await;
    a.send(json!({"type": "start_daily", "difficulty": "easy"}))
        .await;
    a.expect_error("bad_message").await;
}
