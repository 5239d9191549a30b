//! Registered players and rated races over real sockets: registering, a rated room, a race
//! run to its `race_over`, and the admin API's token and calls. The rating, moderation and
//! API-schema suites share them, and so do the terminal client's rated tests.

use serde_json::{json, Value};

use super::in_process::{Client, HttpResponse, TestServer};
use testkit::{solve, to_fill};

/// Register `name`: (key, handle).
pub async fn register(c: &mut Client, name: &str) -> (String, String) {
    c.send(json!({"type": "register", "name": name})).await;
    let r = c.expect("registered").await;
    let key = r["key"].as_str().expect("key").to_owned();
    let handle = r["handle"].as_str().expect("handle").to_owned();
    (key, handle)
}

/// Ann opens a rated easy room under `key`; returns its code.
pub async fn rated_room(a: &mut Client, key: &str) -> String {
    a.send(json!({"type": "create_room", "name": "ann", "key": key,
                  "settings": {"difficulty": "easy", "rated": true}}))
        .await;
    let j = a.expect("room_joined").await;
    j["room"].as_str().expect("room code").to_owned()
}

/// Start the race and return (race_started for the host, everyone's puzzle: the host's
/// first, then the others' in order), after every other client saw it too. A rated room
/// deals each seat its own isomorph (A8).
pub async fn start(host: &mut Client, others: &mut [&mut Client]) -> (Value, Vec<String>) {
    host.send(json!({"type": "start_race"})).await;
    let rs = host.until("race_started").await;
    let mut puzzles = vec![rs["puzzle"].as_str().expect("puzzle").to_owned()];
    for o in others.iter_mut() {
        let theirs = o.until("race_started").await;
        puzzles.push(theirs["puzzle"].as_str().expect("puzzle").to_owned());
    }
    (rs, puzzles)
}

/// One correct digit from `c`: a seat that placed nothing is left out of the rating (A8).
pub async fn place_one(c: &mut Client, puzzle: &str) {
    let (cell, d) = to_fill(puzzle, &solve(puzzle))[0];
    c.send(json!({"type": "place", "cell": cell, "digit": d}))
        .await;
    c.until("placement").await;
}

/// Solve the whole puzzle from `c`.
pub async fn solve_all(c: &mut Client, puzzle: &str) {
    let solution = solve(puzzle);
    for (cell, d) in to_fill(puzzle, &solution) {
        c.send(json!({"type": "place", "cell": cell, "digit": d}))
            .await;
    }
}

pub const TOKEN: &str = "moderators-only-0123456789abcdef";

/// A server with the admin API, fair play `fair_play`.
pub async fn admin_server(fair_play: bool) -> TestServer {
    TestServer::start_with(|c| {
        c.fair_play = fair_play;
        c.admin_token = server::config::AdminToken::new(TOKEN);
    })
    .await
}

/// `line` (`GET /api/…`) with `auth` as the Authorization header, if any: status and body.
pub async fn call(srv: &TestServer, line: &str, auth: Option<&str>) -> (u16, Value, HttpResponse) {
    let headers: Vec<(&str, &str)> = auth.map(|a| ("Authorization", a)).into_iter().collect();
    let resp = srv.http(line, &headers).await.expect("an answer");
    let status = resp
        .status
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let body = serde_json::from_slice(&resp.body).unwrap_or(Value::Null);
    (status, body, resp)
}

pub async fn admin(srv: &TestServer, line: &str) -> (u16, Value) {
    let bearer = format!("Bearer {TOKEN}");
    let (status, body, _) = call(srv, line, Some(&bearer)).await;
    (status, body)
}

/// A rated race in `room` of `host` (who solves) against `others` (each places one digit,
/// then forfeits); the `race_over` the host sees.
pub async fn race(host: &mut Client, others: &mut [&mut Client]) -> Value {
    // A rated race deals each seat its own isomorph (A8): the host's puzzle first.
    let (_, puzzles) = start(host, others).await;
    for (o, puzzle) in others.iter_mut().zip(&puzzles[1..]) {
        place_one(o, puzzle).await;
    }
    solve_all(host, &puzzles[0]).await;
    host.until("player_finished").await;
    for o in others.iter_mut() {
        o.send(json!({"type": "forfeit"})).await;
    }
    host.until("race_over").await
}

pub async fn join(c: &mut Client, room: &str, name: &str, key: &str) {
    c.send(json!({"type": "join_room", "room": room, "name": name, "key": key}))
        .await;
    c.until("room_joined").await;
}
