//! End-to-end races over real sockets: a full race, every placement outcome, penalties,
//! elimination, forfeit, spectators, chat, host hand-over, rematch, time limit, shutdown.

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{ann_and_bob, create, join, wrong_digit, Client, Closed, TestServer};
use testkit::{solve, to_fill};

/// Start the race from the host and wait for `race_started` on every client.
async fn start(host: &mut Client, others: &mut [&mut Client]) -> (String, String) {
    host.send(json!({"type": "start_race"})).await;
    let c = host.until("countdown").await;
    assert_eq!(c["starts_in_ms"], 20);
    let rs = host.until("race_started").await;
    for o in others.iter_mut() {
        o.until("countdown").await;
        let r = o.until("race_started").await;
        assert_eq!(r["puzzle"], rs["puzzle"], "everyone gets the same puzzle");
    }
    (
        rs["race_id"].as_str().unwrap().to_owned(),
        rs["puzzle"].as_str().unwrap().to_owned(),
    )
}

async fn place(c: &mut Client, cell: usize, digit: u8) -> Value {
    c.send(json!({"type": "place", "cell": cell, "digit": digit, "id": cell}))
        .await;
    let p = c.until("placement").await;
    assert_eq!(p["id"], cell);
    p
}

/// Place every remaining cell; returns every message seen up to the player's `player_finished`.
async fn fill_all(c: &mut Client, puzzle: &str, solution: &str, skip: &[usize]) -> Vec<Value> {
    let mut seen = Vec::new();
    for (cell, d) in to_fill(puzzle, solution) {
        if skip.contains(&cell) {
            continue;
        }
        c.send(json!({"type": "place", "cell": cell, "digit": d}))
            .await;
    }
    loop {
        let v = c.recv().await.expect("message");
        let done = v["type"] == "player_finished";
        seen.push(v);
        if done {
            return seen;
        }
    }
}

fn contains_solution(msgs: &[Value], solution: &str) -> bool {
    msgs.iter().any(|m| m.to_string().contains(solution))
}

#[tokio::test]
async fn three_players_race_to_race_over_and_results_are_stored() {
    let srv = TestServer::start().await;
    let (mut a, mut b, mut c, mut s) = (
        srv.client().await,
        srv.client().await,
        srv.client().await,
        srv.client().await,
    );
    let (room, joined) = create(
        &mut a,
        "ann",
        json!({"difficulty": "easy", "penalty_s": 10}),
    )
    .await;
    assert_eq!(room.len(), 5);
    assert!(room
        .chars()
        .all(|ch| "ABCDEFGHJKMNPQRSTUVWXYZ23456789".contains(ch)));
    assert_eq!(joined["phase"], "lobby");
    assert_eq!(joined["race"], Value::Null);
    assert_eq!(joined["settings"]["difficulty"], "easy");
    let host = joined["you"]["player_id"].clone();
    assert_eq!(joined["host"], host);
    assert!(joined["you"]["token"].as_str().unwrap().len() >= 32);

    let jb = join(&mut b, &room.to_lowercase(), "bob").await;
    assert_eq!(jb["players"].as_array().unwrap().len(), 2);
    let pj = a.expect("player_joined").await;
    assert_eq!(pj["player"]["name"], "bob");
    join(&mut c, &room, "cy").await;
    a.expect("player_joined").await;
    b.expect("player_joined").await;
    s.send(json!({"type": "spectate", "room": room})).await;
    let js = s.expect("room_joined").await;
    assert_eq!(js["you"]["role"], "spectator");
    assert_eq!(js["you"]["player_id"], Value::Null);

    b.send(json!({"type": "set_ready", "ready": true})).await;
    for cl in [&mut a, &mut b, &mut c, &mut s] {
        let u = cl.expect("player_updated").await;
        assert_eq!(u["player"]["ready"], true);
    }

    let (race_id, puzzle) = start(&mut a, &mut [&mut b, &mut c, &mut s]).await;
    let solution = solve(&puzzle);
    let cells = to_fill(&puzzle, &solution);
    // ann makes one mistake first (a wrong digit that clashes with nothing; a cell's givens
    // can rule out every wrong digit, so take the first cell that has one).
    let (first, wrong) = cells
        .iter()
        .find_map(|&(c, _)| wrong_digit(&puzzle, &solution, c).map(|w| (c, w)))
        .expect("a cell with a wrong digit");
    let p = place(&mut a, first, wrong).await;
    assert_eq!(p["reason"], "wrong");
    assert_eq!(p["penalty_ms"], 10_000);
    let a_msgs = fill_all(&mut a, &puzzle, &solution, &[]).await;
    let fin = a_msgs.last().unwrap();
    assert_eq!(fin["status"], "solved");
    assert!(
        fin["time_ms"].as_u64().unwrap() >= 10_000,
        "penalty included: {fin}"
    );
    let b_msgs = fill_all(&mut b, &puzzle, &solution, &[]).await;
    c.send(json!({"type": "forfeit"})).await;
    // A1: the forfeiter gets no `solution` before race_over; race_over carries it.
    let c_msgs = c.collect_until("race_over").await;
    assert!(c_msgs
        .iter()
        .any(|m| m["type"] == "player_finished" && m["status"] == "forfeited"));
    assert!(!c_msgs.iter().any(|m| m["type"] == "solution"));
    assert!(!contains_solution(&c_msgs[..c_msgs.len() - 1], &solution));
    assert_eq!(c_msgs.last().unwrap()["solution"], solution.as_str());

    let a_rest = a.collect_until("race_over").await;
    let b_rest = b.collect_until("race_over").await;
    let s_all = s.collect_until("race_over").await;
    // No active player ever saw a `solution` message, nor the grid before race_over.
    assert!(!a_msgs
        .iter()
        .chain(&a_rest)
        .chain(&b_msgs)
        .chain(&b_rest)
        .any(|m| m["type"] == "solution"));
    assert!(!contains_solution(&b_msgs, &solution));
    assert!(!contains_solution(&b_rest[..b_rest.len() - 1], &solution));
    assert!(!contains_solution(&s_all[..s_all.len() - 1], &solution));

    let over = b_rest.last().unwrap();
    assert_eq!(over["reason"], "all_done");
    assert_eq!(over["race_id"], race_id.as_str());
    assert_eq!(over["solution"], solution.as_str());
    let st = over["standings"].as_array().unwrap();
    let rows: Vec<(u64, &str, &str)> = st
        .iter()
        .map(|r| {
            (
                r["rank"].as_u64().unwrap(),
                r["name"].as_str().unwrap(),
                r["status"].as_str().unwrap(),
            )
        })
        .collect();
    let (ra, rb) = (&rows[0], &rows[1]);
    assert!(
        ra.0 == 1 && rb.0 <= 2 && ra.2 == "solved" && rb.2 == "solved",
        "{rows:?}"
    );
    assert_eq!(rows[2], (3, "cy", "forfeited"));
    assert_eq!(st[2]["time_ms"], Value::Null);
    let ann = st.iter().find(|r| r["name"] == "ann").unwrap();
    assert_eq!(ann["mistakes"], 1);
    assert_eq!(ann["filled"].as_u64().unwrap() as usize, cells.len());

    // Stored before it was sent: readable as soon as race_over arrived.
    let stored = srv.store().standings(&race_id).unwrap();
    assert_eq!(stored.len(), 3);
    let stored_ann = stored.iter().find(|r| r.name == "ann").unwrap();
    assert_eq!(stored_ann.time_ms, ann["time_ms"].as_u64());
    assert_eq!(
        stored.iter().find(|r| r.name == "cy").unwrap().status,
        "forfeited"
    );
    let n_placements = srv.store().placement_count(&race_id).unwrap();
    assert_eq!(n_placements as usize, 2 * cells.len() + 1);
}

#[tokio::test]
async fn every_placement_outcome_and_progress() {
    let srv = TestServer::start().await;
    let (mut a, mut b, _) = ann_and_bob(
        &srv,
        json!({"difficulty": "easy", "max_mistakes": 0, "penalty_s": 7}),
    )
    .await;
    let (_, puzzle) = start(&mut a, &mut [&mut b]).await;
    let solution = solve(&puzzle);
    let given = puzzle.find(|ch| ch != '.').unwrap();
    let cells = to_fill(&puzzle, &solution);
    let (cell, right) = cells[0];

    let p = place(&mut a, given, 1).await;
    assert_eq!(
        (p["accepted"].clone(), p["reason"].clone()),
        (json!(false), json!("given"))
    );
    assert_eq!(p["mistakes"], 0);

    // A conflict: a digit already given in the cell's row, column or box.
    let peer = (0..81)
        .find(|&o| {
            let (r, c, or, oc) = (cell / 9, cell % 9, o / 9, o % 9);
            o != cell
                && puzzle.as_bytes()[o] != b'.'
                && (or == r || oc == c || (or / 3 == r / 3 && oc / 3 == c / 3))
        })
        .unwrap();
    let clash_digit = puzzle.as_bytes()[peer] - b'0';
    let p = place(&mut a, cell, clash_digit).await;
    assert_eq!(p["reason"], "conflict");
    let conflicts: Vec<u64> = p["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert!(conflicts.contains(&(peer as u64)), "{p}");
    for &x in &conflicts {
        assert_eq!(puzzle.as_bytes()[x as usize] - b'0', clash_digit);
    }
    assert_eq!(
        (p["mistakes"].clone(), p["penalty_ms"].clone()),
        (json!(1), json!(7000))
    );

    if let Some(w) = wrong_digit(&puzzle, &solution, cell) {
        let p = place(&mut a, cell, w).await;
        assert_eq!(p["reason"], "wrong");
        assert_eq!(p["conflicts"], json!([]));
        assert_eq!(p["mistakes"], 2);
    }
    let p = place(&mut a, cell, right).await;
    assert_eq!(
        (p["accepted"].clone(), p["reason"].clone()),
        (json!(true), Value::Null)
    );
    let p = place(&mut a, cell, right).await;
    assert_eq!(p["reason"], "filled");

    // bob saw one progress per mistake or accepted digit, none for given/filled.
    let seen = b.sync().await;
    let progress: Vec<&Value> = seen.iter().filter(|m| m["type"] == "progress").collect();
    let expected = if wrong_digit(&puzzle, &solution, cell).is_some() {
        3
    } else {
        2
    };
    assert_eq!(progress.len(), expected, "{seen:?}");
    let last = progress.last().unwrap();
    assert_eq!(last["filled"], 1);
    assert_eq!(last["to_fill"].as_u64().unwrap() as usize, cells.len());
    assert!(
        seen.iter().all(|m| m["type"] != "placement"),
        "placements go to the placer only"
    );
}

#[tokio::test]
async fn elimination_at_max_mistakes_sends_no_solution_before_race_over() {
    let srv = TestServer::start().await;
    let (mut a, mut b, _) =
        ann_and_bob(&srv, json!({"difficulty": "easy", "max_mistakes": 1})).await;
    let (_, puzzle) = start(&mut a, &mut [&mut b]).await;
    let solution = solve(&puzzle);
    let (cell, right) = to_fill(&puzzle, &solution)[0];
    let wrong = (1..=9).find(|&d| d != right).unwrap();
    b.send(json!({"type": "place", "cell": cell, "digit": wrong}))
        .await;
    b.send(json!({"type": "place", "cell": cell, "digit": right}))
        .await;
    b.send(json!({"type": "forfeit"})).await;
    let mut msgs = b.collect_until("error").await;
    assert_eq!(msgs.last().unwrap()["code"], "wrong_phase");
    b.expect_error("wrong_phase").await;
    msgs.extend(b.sync().await);
    assert!(msgs
        .iter()
        .any(|m| m["type"] == "player_finished" && m["status"] == "eliminated"));
    // A1: the eliminated player gets no solution while the race runs.
    assert!(!msgs.iter().any(|m| m["type"] == "solution"));
    assert!(!contains_solution(&msgs, &solution));
    let seen = a.sync().await;
    assert!(seen
        .iter()
        .any(|m| m["type"] == "player_finished" && m["status"] == "eliminated"));
    assert!(
        !contains_solution(&seen, &solution),
        "the racing player never sees it"
    );
    // It comes with race_over, to both.
    a.send(json!({"type": "forfeit"})).await;
    for cl in [&mut a, &mut b] {
        let over = cl.until("race_over").await;
        assert_eq!(over["solution"], solution.as_str());
    }
}

#[tokio::test]
async fn spectators_chat_host_handover_and_rematch() {
    let srv = TestServer::start().await;
    let (mut a, mut b, mut s) = (srv.client().await, srv.client().await, srv.client().await);
    let (room, _) = create(&mut a, "ann", json!({"difficulty": "easy"})).await;
    let jb = join(&mut b, &room, "bob").await;
    let bob = jb["you"]["player_id"].clone();
    a.expect("player_joined").await;
    s.send(json!({"type": "spectate", "room": room, "name": "watcher"}))
        .await;
    s.expect("room_joined").await;

    s.send(json!({"type": "chat", "text": "good luck"})).await;
    for cl in [&mut a, &mut b, &mut s] {
        let m = cl.expect("chat").await;
        assert_eq!(
            (m["player_id"].clone(), m["name"].clone(), m["text"].clone()),
            (Value::Null, json!("watcher"), json!("good luck"))
        );
    }
    b.send(json!({"type": "chat", "text": "thanks"})).await;
    for cl in [&mut a, &mut b, &mut s] {
        assert_eq!(cl.expect("chat").await["player_id"], bob);
    }

    // Spectators cannot play.
    s.send(json!({"type": "start_race"})).await;
    s.expect_error("not_player").await;
    s.send(json!({"type": "set_ready", "ready": true})).await;
    s.expect_error("not_player").await;

    // The host leaves: bob becomes host.
    a.send(json!({"type": "leave"})).await;
    a.expect("player_left").await;
    for cl in [&mut b, &mut s] {
        cl.expect("player_left").await;
        assert_eq!(cl.expect("host_changed").await["player_id"], bob);
    }
    // ann is in no room now.
    a.send(json!({"type": "set_ready", "ready": true})).await;
    a.expect_error("not_in_room").await;

    // bob races alone, forfeits; then a rematch from `finished`.
    let (race1, _) = start(&mut b, &mut [&mut s]).await;
    b.send(json!({"type": "forfeit"})).await;
    b.until("race_over").await;
    s.until("race_over").await;
    // A new player may join between races.
    let ja = join(&mut a, &room, "ann").await;
    assert_eq!(ja["phase"], "finished");
    assert_eq!(ja["race"]["race_id"], race1.as_str());
    assert_eq!(ja["race"]["board"], Value::Null, "ann was not in that race");
    b.until("player_joined").await;
    let (race2, _) = start(&mut b, &mut [&mut s, &mut a]).await;
    assert_ne!(race1, race2);
    // Joining as a player mid-race is refused; spectating is not.
    let mut late = srv.client().await;
    late.send(json!({"type": "join_room", "room": room, "name": "late"}))
        .await;
    late.expect_error("race_in_progress").await;
    late.send(json!({"type": "spectate", "room": room})).await;
    let j = late.expect("room_joined").await;
    assert_eq!(j["phase"], "racing");
    assert!(j["race"]["puzzle"].is_string());
    assert_eq!(j["race"]["board"], Value::Null);

    // Everyone leaves: the room closes and its spectators are told.
    b.send(json!({"type": "leave"})).await;
    a.send(json!({"type": "leave"})).await;
    let m = late.until("room_closed").await;
    assert_eq!(m["room"], room.as_str());
    let mut d = srv.client().await;
    d.send(json!({"type": "join_room", "room": room, "name": "dee"}))
        .await;
    d.expect_error("unknown_room").await;
}

#[tokio::test]
async fn time_limit_ends_the_race_on_a_paused_clock() {
    let srv = TestServer::start_with(|c| {
        c.limits.idle_timeout = Duration::from_secs(86_400);
        c.resume_grace = Duration::from_secs(86_400);
        crate::support::no_journal(c);
    })
    .await;
    let (mut a, mut b, _) =
        ann_and_bob(&srv, json!({"difficulty": "easy", "time_limit_s": 60})).await;
    let (race_id, puzzle) = start(&mut a, &mut [&mut b]).await;
    let solution = solve(&puzzle);
    let (cell, d) = to_fill(&puzzle, &solution)[0];
    place(&mut a, cell, d).await;
    // From here the clock only moves when every task waits: the room's time-limit timer
    // is the next one due.
    tokio::time::pause();
    a.set_timeout(Duration::from_secs(7200));
    b.set_timeout(Duration::from_secs(7200));
    let msgs = b.collect_until("race_over").await;
    let timed_out = msgs
        .iter()
        .filter(|m| m["type"] == "player_finished" && m["status"] == "timed_out")
        .count();
    assert_eq!(timed_out, 2);
    let over = msgs.last().unwrap();
    assert_eq!(over["reason"], "time_limit");
    assert_eq!(over["standings"][0]["name"], "ann");
    assert_eq!(over["standings"][0]["filled"], 1);
    assert_eq!(
        srv.store().race_reason(&race_id).unwrap().as_deref(),
        Some("time_limit")
    );
    a.until("race_over").await;
}

#[tokio::test]
async fn graceful_shutdown_closes_1001_and_stores_the_running_race() {
    let mut srv = TestServer::start().await;
    let (mut a, mut b, _) = ann_and_bob(&srv, json!({"difficulty": "easy"})).await;
    let (race_id, puzzle) = start(&mut a, &mut [&mut b]).await;
    let solution = solve(&puzzle);
    for &(cell, d) in to_fill(&puzzle, &solution).iter().take(3) {
        place(&mut a, cell, d).await;
    }
    srv.shutdown().await.expect("clean exit");
    assert_eq!(a.closed().await, Closed::Code(1001));
    assert_eq!(b.closed().await, Closed::Code(1001));
    assert_eq!(
        srv.store().race_reason(&race_id).unwrap().as_deref(),
        Some("shutdown")
    );
    let st = srv.store().standings(&race_id).unwrap();
    assert_eq!(st.len(), 2);
    assert_eq!(st.iter().find(|r| r.name == "ann").unwrap().filled, 3);
    assert_eq!(srv.store().placement_count(&race_id).unwrap(), 3);
}

#[tokio::test]
async fn a_failed_results_write_is_logged_and_the_race_still_ends() {
    let srv = TestServer::start().await;
    // Once a client is welcome the server has opened its store; break it under the server:
    // its next results write fails.
    let mut a = srv.client().await;
    let db = rusqlite::Connection::open(&srv.db).unwrap();
    db.execute_batch("DROP TABLE placements; DROP TABLE standings; DROP TABLE races;")
        .unwrap();
    create(&mut a, "ann", json!({"difficulty": "easy"})).await;
    let (race_id, _) = start(&mut a, &mut []).await;
    a.send(json!({"type": "forfeit"})).await;
    let over = a.until("race_over").await;
    assert_eq!(over["race_id"], race_id.as_str());
    assert_eq!(over["standings"][0]["status"], "forfeited");
    let (_, metrics) = srv.http_get("/metrics").await.unwrap();
    assert!(
        metrics
            .lines()
            .any(|l| l == "sudoku_race_store_errors_total 1"),
        "{metrics}"
    );
    assert!(
        metrics
            .lines()
            .any(|l| l == "sudoku_race_races_finished_total 0"),
        "{metrics}"
    );
}
