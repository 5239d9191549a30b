//! Amendment A6 over real sockets: `register`, keys on entering a room, handles and bot
//! marks on players, rated races and their `race_over.ratings`, and keys that stay secret.

use engine::Difficulty;
use serde_json::json;

use crate::support::rated::{place_one, rated_room, register, solve_all, start};
use crate::support::TestServer;

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
