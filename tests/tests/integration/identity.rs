//! Amendment A6 over real sockets: `register`, keys on entering a room, handles and bot
//! marks on players, rated races and their `race_over.ratings`, and keys that stay secret.

use serde_json::{json, Value};
use shared::engine::Difficulty;

use crate::support::{Client, TestServer};
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

#[tokio::test]
async fn registered_players_race_rated_and_the_winner_gains() {
    // A machine solves in milliseconds, which fair play rightly flags: off for this race.
    let srv = TestServer::start_with(|c| c.fair_play = false).await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let (ka, ha) = register(&mut a, "ann").await;
    let (kb, hb) = register(&mut b, "bob").await;
    assert_eq!(ka.len(), 64, "256 bits as hex");
    assert!(ka.chars().all(|c| c.is_ascii_hexdigit()));
    assert!(ha.starts_with('h') && ha.len() == 8, "{ha}");
    assert_ne!(ha, hb);

    a.send(json!({"type": "create_room", "name": "ann", "key": ka,
                  "settings": {"difficulty": "easy", "rated": true}}))
        .await;
    let j = a.expect("room_joined").await;
    assert_eq!(j["settings"]["rated"], true);
    assert_eq!(j["players"][0]["handle"], ha.as_str());
    assert_eq!(j["players"][0]["bot"], false);
    let room = j["room"].as_str().unwrap().to_owned();
    b.send(json!({"type": "join_room", "room": room, "name": "bob", "key": kb}))
        .await;
    b.expect("room_joined").await;
    let pj = a.expect("player_joined").await;
    assert_eq!(pj["player"]["handle"], hb.as_str());

    let (rs, puzzles) = start(&mut a, &mut [&mut b]).await;
    assert_eq!(rs["rated"], true);
    place_one(&mut b, &puzzles[1]).await;
    solve_all(&mut a, &puzzles[0]).await;
    a.until("player_finished").await;
    b.send(json!({"type": "forfeit"})).await;
    let over = b.until("race_over").await;
    let ratings = over["ratings"].as_array().expect("ratings");
    assert_eq!(ratings.len(), 2, "{over}");
    let of = |h: &str| {
        let r = ratings.iter().find(|r| r["handle"] == h).expect("a rating");
        (r["before"].as_f64().unwrap(), r["after"].as_f64().unwrap())
    };
    let (a0, a1) = of(&ha);
    let (b0, b1) = of(&hb);
    assert_eq!(a0, b0, "newcomers start level");
    assert!(a1 > a0 && b1 < b0, "ann {a0}→{a1}, bob {b0}→{b1}");

    // The stored board agrees, and nobody else ever saw a key.
    let board = srv
        .store()
        .leaderboard(Difficulty::Easy, server::store::Period::All, 0, 10, 0)
        .expect("leaderboard");
    assert_eq!(board.first().map(|r| r.handle.as_str()), Some(ha.as_str()));
    let seen = format!(
        "{over}{}",
        b.sync()
            .await
            .iter()
            .map(Value::to_string)
            .collect::<String>()
    );
    assert!(!seen.contains(&ka), "ann's key reached bob");
    // The terminal client's tables read the same through the HTTP API.
    let url: client::net::ServerUrl = srv.url().parse().expect("url");
    let to = client::net::Endpoint::from(&url);
    let v = client::api::get(&to, "/api/leaderboard?difficulty=easy&period=day")
        .await
        .expect("leaderboard over HTTP");
    let table = client::api::leaderboard_table(&v);
    let first = table.lines().nth(2).expect("a first row");
    assert!(first.contains(&ha) && first.contains("ann"), "{table}");
    let v = client::api::get(&to, &format!("/api/players/{hb}/races"))
        .await
        .expect("history over HTTP");
    let table = client::api::history_table(&v);
    assert!(
        table.contains("forfeited") && table.contains("(-"),
        "{table}"
    );
    let page = client::api::get(&to, &format!("/api/players/{ha}"))
        .await
        .expect("player over HTTP");
    let best = client::api::best_table(&page);
    let easy = best.lines().nth(2).expect("a best row");
    assert!(
        easy.starts_with("easy") && easy.contains(rs["race_id"].as_str().expect("id")),
        "{best}"
    );
    let err = client::api::get(&to, "/api/leaderboard?limit=101").await;
    assert!(
        matches!(err, Err(client::api::ApiError::Status { status: 400, .. })),
        "{err:?}"
    );
    let (_, metrics) = srv.http_get("/metrics").await.expect("metrics");
    assert!(!metrics.contains(&ka) && !metrics.contains(&kb));
}

#[tokio::test]
async fn bots_and_anonymous_seats_are_never_rated() {
    let srv = TestServer::start().await;
    let (mut a, mut b, mut c) = (srv.client().await, srv.client().await, srv.client().await);
    let (ka, _) = register(&mut a, "ann").await;
    let (kb, hb) = register(&mut b, "robo").await;
    let room = rated_room(&mut a, &ka).await;
    // An identified bot and an anonymous human: neither makes a second rateable seat.
    b.send(json!({"type": "join_room", "room": room, "name": "robo", "key": kb, "bot": true}))
        .await;
    let jb = b.expect("room_joined").await;
    let me = jb["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "robo")
        .expect("robo")
        .clone();
    assert_eq!(
        (me["handle"].as_str(), me["bot"].as_bool()),
        (Some(hb.as_str()), Some(true))
    );
    c.send(json!({"type": "join_room", "room": room, "name": "cid"}))
        .await;
    let jc = c.expect("room_joined").await;
    assert!(jc["players"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["name"] == "cid" && p["handle"].is_null()));
    let (rs, puzzles) = start(&mut a, &mut [&mut b, &mut c]).await;
    assert_eq!(rs["rated"], false);
    solve_all(&mut a, &puzzles[0]).await;
    b.send(json!({"type": "forfeit"})).await;
    c.send(json!({"type": "forfeit"})).await;
    let over = a.until("race_over").await;
    assert_eq!(over["ratings"], json!([]));
    let board = srv
        .store()
        .leaderboard(Difficulty::Easy, server::store::Period::All, 0, 10, 0)
        .expect("leaderboard");
    assert!(board.is_empty(), "{board:?}");
}

#[tokio::test]
async fn unknown_keys_and_second_seats_are_refused() {
    let srv = TestServer::start().await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    a.send(json!({"type": "create_room", "name": "ann", "key": "0123"}))
        .await;
    a.expect_error("invalid_key").await;
    let (ka, _) = register(&mut a, "ann").await;
    a.send(json!({"type": "create_room", "name": "ann", "key": ka}))
        .await;
    let room = a.expect("room_joined").await["room"]
        .as_str()
        .unwrap()
        .to_owned();
    // The same identity from another socket may not take a second seat.
    b.send(json!({"type": "join_room", "room": room, "name": "ann2", "key": ka}))
        .await;
    b.expect_error("already_in_room").await;
    b.send(json!({"type": "join_room", "room": room, "name": "bob", "key": 7}))
        .await;
    b.expect_error("bad_message").await;
    b.send(json!({"type": "register", "name": "\u{200b}"}))
        .await;
    b.expect_error("invalid_name").await;
    // A few identities per connection, then no more.
    for i in 0..3 {
        register(&mut b, &format!("b{i}")).await;
    }
    b.send(json!({"type": "register", "name": "b3"})).await;
    b.expect_error("rate_limited").await;
}

#[tokio::test]
async fn a_solve_too_fast_to_be_human_is_flagged_and_left_unrated() {
    let srv = TestServer::start().await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let (ka, ha) = register(&mut a, "ann").await;
    let (kb, _) = register(&mut b, "bob").await;
    let room = rated_room(&mut a, &ka).await;
    b.send(json!({"type": "join_room", "room": room, "name": "bob", "key": kb}))
        .await;
    b.expect("room_joined").await;
    let (rs, puzzles) = start(&mut a, &mut [&mut b]).await;
    assert_eq!(rs["rated"], true, "two identified humans at the start");
    solve_all(&mut a, &puzzles[0]).await;
    b.send(json!({"type": "forfeit"})).await;
    let over = a.until("race_over").await;
    // Ann's solve is flagged, so one rateable seat is left: no rating moves.
    assert_eq!(over["ratings"], json!([]), "{over}");
    let history = srv.store().history(&ha, 10, 0).expect("history");
    let row = history.first().expect("ann's race is in her history");
    assert!(row.flags.iter().any(|f| f == "too_fast"), "{row:?}");
}

/// The terminal client registers on first use, keeps the key owner-only, reuses it, and its
/// seats then carry the handle.
#[tokio::test]
async fn the_terminal_client_registers_once_and_keeps_its_key() {
    use client::net::{self, Endpoint, Intent, NetEvent, ServerUrl};
    use protocol::ServerMsg;

    let srv = TestServer::start().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("keys.toml");
    let url: ServerUrl = srv.url().parse().expect("url");
    let to = Endpoint::from(&url);
    let first = client::identity::identity_for(&to, "ann", Some(&file)).await;
    let key = first.key.clone().expect("a key on first use");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file)
            .expect("keys file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "the key file is the owner's alone");
    }
    let kept = client::identity::load(&file);
    let entry = kept
        .servers
        .get(&client::identity::server_id(&url))
        .expect("kept for this server");
    assert_eq!(entry.key, key.as_str());
    let again = client::identity::identity_for(&to, "ann", Some(&file)).await;
    assert_eq!(again.key, Some(key), "the same key, not a second identity");

    let intent = Intent::Create {
        name: "ann".into(),
        settings: None,
    };
    let (_session, mut events) = net::connect_as(to, intent, again);
    let joined = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        while let Some(ev) = events.recv().await {
            if let NetEvent::Message(m) = ev {
                if let ServerMsg::RoomJoined { players, .. } = *m {
                    return players;
                }
            }
        }
        Vec::new()
    })
    .await
    .expect("room_joined in time");
    assert_eq!(joined[0].handle.as_deref(), Some(entry.handle.as_str()));
}

/// Three rated races between the same three players: after each, the stored leaderboard holds
/// exactly the ratings Weng-Lin predicts from the standings, in that order.
#[tokio::test]
async fn a_sequence_of_rated_races_orders_the_board_as_weng_lin_predicts() {
    use server::rating::{conservative, rate, Rating};

    let srv = TestServer::start_with(|c| c.fair_play = false).await;
    let mut cs = [srv.client().await, srv.client().await, srv.client().await];
    let mut handles = Vec::new();
    let mut keys = Vec::new();
    for (c, name) in cs.iter_mut().zip(["ann", "bob", "cid"]) {
        let (k, h) = register(c, name).await;
        keys.push(k);
        handles.push(h);
    }
    let room = rated_room(&mut cs[0], &keys[0]).await;
    for (i, name) in [(1, "bob"), (2, "cid")] {
        cs[i]
            .send(json!({"type": "join_room", "room": room, "name": name, "key": keys[i]}))
            .await;
        cs[i].expect("room_joined").await;
    }
    let mut predicted = [Rating::default(); 3];
    // Who solves each race; the other two forfeit (and tie for last).
    for winner in [1usize, 0, 1] {
        let (host, rest) = cs.split_at_mut(1);
        let (_, puzzles) = start(&mut host[0], &mut rest.iter_mut().collect::<Vec<_>>()).await;
        // Everyone places (A8: a seat that placed nothing is left out of the rating).
        for (i, c) in cs.iter_mut().enumerate() {
            if i != winner {
                place_one(c, &puzzles[i]).await;
            }
        }
        solve_all(&mut cs[winner], &puzzles[winner]).await;
        cs[winner].until("player_finished").await;
        for (i, c) in cs.iter_mut().enumerate() {
            if i != winner {
                c.send(json!({"type": "forfeit"})).await;
            }
        }
        for c in cs.iter_mut() {
            c.until("race_over").await;
        }
        let ranks: Vec<(Rating, u32)> = (0..3)
            .map(|i| (predicted[i], if i == winner { 1 } else { u32::MAX }))
            .collect();
        let after = rate(&ranks);
        predicted.copy_from_slice(&after);
        let board = srv
            .store()
            .leaderboard(Difficulty::Easy, server::store::Period::All, 0, 10, 0)
            .expect("leaderboard");
        let mut expected: Vec<(f64, &str)> = (0..3)
            .map(|i| (conservative(predicted[i]), handles[i].as_str()))
            .collect();
        expected.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        let got: Vec<&str> = board.iter().map(|r| r.handle.as_str()).collect();
        let want: Vec<&str> = expected.iter().map(|e| e.1).collect();
        assert_eq!(got, want, "after a race won by player {winner}");
        for (row, (rating, _)) in board.iter().zip(&expected) {
            assert!(
                (row.stats.rating - rating).abs() < 1e-9,
                "{row:?} vs {rating}"
            );
        }
    }
}
