//! The pool (A7) on one node, over real sockets: strangers `quick_race` into one hostless pool
//! room that starts by itself; `leave_queue`; `pool_alone`; a dropped connection leaves the
//! pool; `requeue` chains a room's players into their next race; pool rooms take no
//! `join_room` but can be watched.

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{Client, TestServer};
use testkit::{solve, to_fill};

/// A server whose pool forms races of `size` at once, or 300 ms after the second arrival, and
/// tells one alone after 600 ms.
async fn server(size: usize) -> TestServer {
    TestServer::start_with(|c| c.pool = rules(size)).await
}

/// Races of `size`, formed after 0.3 s of waiting, a ghost offered after 0.6 s.
fn rules(size: usize) -> server::config::PoolRules {
    server::config::PoolRules {
        size,
        wait: Duration::from_millis(300),
        alone: Duration::from_millis(600),
    }
}

async fn quick(c: &mut Client, name: &str) -> Value {
    c.send(json!({"type": "quick_race", "difficulty": "easy", "name": name}))
        .await;
    let q = c.expect("queued").await;
    assert_eq!(q["difficulty"], "easy", "{q}");
    q
}

/// Everyone's `room_joined` (one pool room, no host), then their countdown and race start;
/// the room's code and the first client's puzzle (each seat has its own isomorph, A8).
async fn seated(clients: &mut [&mut Client]) -> (String, String) {
    let mut code = None;
    for c in clients.iter_mut() {
        let j = c.until("room_joined").await;
        assert_eq!(j["settings"]["pool"], true, "{j}");
        assert_eq!(j["settings"]["public"], false, "{j}");
        assert_eq!(j["host"], Value::Null, "{j}");
        let room = j["room"].as_str().expect("a room code").to_owned();
        assert_eq!(code.get_or_insert(room.clone()), &room, "one room for all");
    }
    let mut puzzle = None;
    for c in clients.iter_mut() {
        c.until("countdown").await;
        let r = c.until("race_started").await;
        if puzzle.is_none() {
            puzzle = r["puzzle"].as_str().map(String::from);
        }
    }
    (code.expect("seated"), puzzle.expect("a race started"))
}

/// `c` fills the whole puzzle and the others forfeit; everyone then gets `race_over`.
async fn solve_race(c: &mut Client, others: &mut [&mut Client], puzzle: &str) {
    let solution = solve(puzzle);
    for (cell, digit) in to_fill(puzzle, &solution) {
        c.send(json!({"type": "place", "cell": cell, "digit": digit}))
            .await;
    }
    let done = c.until("player_finished").await;
    assert_eq!(done["status"], "solved", "{done}");
    for o in others.iter_mut() {
        o.send(json!({"type": "forfeit"})).await;
    }
    c.until("race_over").await;
    for o in others.iter_mut() {
        o.until("race_over").await;
    }
}

#[tokio::test]
async fn three_strangers_quick_race_into_one_pool_room_that_starts_itself() {
    let srv = server(3).await;
    let (mut a, mut b, mut c) = (srv.client().await, srv.client().await, srv.client().await);
    assert_eq!(quick(&mut a, "ann").await["waiting"], 1);
    assert_eq!(quick(&mut b, "bob").await["waiting"], 2);
    assert_eq!(quick(&mut c, "cy").await["waiting"], 3);
    let (_code, puzzle) = seated(&mut [&mut a, &mut b, &mut c]).await;
    // Nobody hosts a pool room: start_race is refused.
    b.send(json!({"type": "start_race"})).await;
    b.until("error").await;
    solve_race(&mut a, &mut [&mut b, &mut c], &puzzle).await;
}

#[tokio::test]
async fn two_waiting_race_after_the_wait_and_a_pool_room_takes_no_join() {
    let srv = server(8).await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    quick(&mut a, "ann").await;
    quick(&mut b, "bob").await;
    let (code, _) = seated(&mut [&mut a, &mut b]).await;

    let mut late = srv.client().await;
    late.send(json!({"type": "join_room", "room": code, "name": "late"}))
        .await;
    late.expect_error("wrong_phase").await;
    late.send(json!({"type": "spectate", "room": code})).await;
    let w = late.expect("room_joined").await;
    assert_eq!(w["you"]["role"], "spectator", "{w}");
}

#[tokio::test]
async fn leave_queue_and_what_a_queued_connection_may_not_do() {
    let srv = server(8).await;
    let mut a = srv.client().await;
    a.send(json!({"type": "leave_queue"})).await;
    a.expect_error("not_in_queue").await;
    quick(&mut a, "ann").await;
    // A room's message from the pool is wrong_phase; so is a second way in.
    a.send(json!({"type": "chat", "text": "hi"})).await;
    a.expect_error("wrong_phase").await;
    a.send(json!({"type": "quick_race", "difficulty": "easy", "name": "ann"}))
        .await;
    a.expect_error("wrong_phase").await;
    a.send(json!({"type": "create_room", "name": "ann"})).await;
    a.expect_error("wrong_phase").await;
    a.send(json!({"type": "leave_queue"})).await;
    a.expect("left_queue").await;
    // Out of the pool, the connection can open a room again.
    a.send(json!({"type": "create_room", "name": "ann"})).await;
    a.expect("room_joined").await;
}

#[tokio::test]
async fn bad_quick_race_fields_get_their_errors() {
    let srv = server(8).await;
    let mut a = srv.client().await;
    a.send(json!({"type": "quick_race", "difficulty": "brutal", "name": "ann"}))
        .await;
    a.expect_error("invalid_settings").await;
    a.send(json!({"type": "quick_race", "difficulty": "easy", "name": ""}))
        .await;
    a.expect_error("invalid_name").await;
    a.send(json!({"type": "quick_race", "difficulty": "easy"}))
        .await;
    a.expect_error("bad_message").await;
}

#[tokio::test]
async fn one_alone_is_told_and_a_dropped_connection_leaves_the_pool() {
    let srv = server(2).await;
    let mut gone = srv.client().await;
    quick(&mut gone, "gone").await;
    gone.vanish();
    // Had `gone` stayed, these two would race at once (size 2); alone, `a` is told so.
    tokio::time::sleep(Duration::from_millis(250)).await;
    let mut a = srv.client().await;
    quick(&mut a, "ann").await;
    let alone = a.until("pool_alone").await;
    assert_eq!(alone["ghost"], Value::Null, "{alone}");
    // Still queued: a newcomer makes a race.
    let mut b = srv.client().await;
    quick(&mut b, "bob").await;
    seated(&mut [&mut a, &mut b]).await;
}

#[tokio::test]
async fn requeue_chains_a_rooms_players_into_their_next_race() {
    let srv = server(2).await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    quick(&mut a, "ann").await;
    quick(&mut b, "bob").await;
    let (first, puzzle) = seated(&mut [&mut a, &mut b]).await;
    a.send(json!({"type": "requeue"})).await;
    a.expect_error("wrong_phase").await;
    solve_race(&mut a, &mut [&mut b], &puzzle).await;
    a.send(json!({"type": "requeue"})).await;
    a.until("queued").await;
    b.send(json!({"type": "requeue"})).await;
    b.until("queued").await;
    let (second, _) = seated(&mut [&mut a, &mut b]).await;
    assert_ne!(first, second, "a new room for the rematch");
}

// The clock is paused: the server's pool runs on tokio's clock, which runs the 5 s of waiting
// out at once and never lets a slow machine stretch them.
#[tokio::test(start_paused = true)]
async fn identified_players_far_apart_wait_until_the_band_has_widened() {
    let srv = TestServer::start_with(|c| {
        c.pool = rules(2);
        crate::support::no_journal(c);
    })
    .await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let (ka, _) = register(&mut a, "ann").await;
    let (kb, hb) = register(&mut b, "bob").await;
    // bob is 150 above ann (a newcomer, 0): further apart than A7's first band of ±100.
    let db = rusqlite::Connection::open(&srv.db).expect("the server's SQLite file");
    db.execute(
        "INSERT INTO ratings (handle, difficulty, mu, sigma, races, wins, best_time_ms, updated_unix_ms) \
         VALUES (?1, 'easy', ?2, ?3, 1, 1, NULL, 0)",
        rusqlite::params![hb, 150.0 + 25.0, 25.0 / 3.0],
    )
    .expect("plant bob's rating");
    for (c, name, key) in [(&mut a, "ann", &ka), (&mut b, "bob", &kb)] {
        c.send(json!({"type": "quick_race", "difficulty": "easy", "name": name, "key": key}))
            .await;
        c.expect("queued").await;
    }
    // Two would race after 300 ms; these two only once the band is ±200, at 5 s of waiting:
    // no seat in the first 4.9 s, then one.
    let early = tokio::time::timeout(Duration::from_millis(4_900), a.until("room_joined")).await;
    assert!(
        early.is_err(),
        "seated before the band had widened: {early:?}"
    );
    seated(&mut [&mut a, &mut b]).await;
}

async fn register(c: &mut Client, name: &str) -> (String, String) {
    c.send(json!({"type": "register", "name": name})).await;
    let r = c.expect("registered").await;
    (
        r["key"].as_str().expect("a key").to_owned(),
        r["handle"].as_str().expect("a handle").to_owned(),
    )
}
