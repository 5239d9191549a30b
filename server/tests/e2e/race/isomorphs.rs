//! A different isomorph per seat (A8) over real sockets: three strangers quick-race into a
//! pool room and each is dealt its own puzzle (different, same grade, same clue count); one
//! seat's solution placed on another's board is refused; a seat that drops and resumes gets
//! its own board back; each solves its own board; `race_over` and the replay API carry each
//! seat's own puzzle and solution, the race's stays at the top level.

use std::time::Duration;

use engine::grader::grade;
use engine::Grid;
use serde_json::{json, Value};

use crate::support::{Client, TestServer};
use testkit::{solve, to_fill};

async fn pool_of_three() -> TestServer {
    TestServer::start_with(|c| {
        c.pool = server::config::PoolRules {
            size: 3,
            wait: Duration::from_millis(300),
            alone: Duration::from_millis(600),
        };
    })
    .await
}

fn text(v: &Value, key: &str) -> String {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} in {v}"))
        .to_owned()
}

/// Everyone queues and is seated: (their resume tokens, their own puzzles).
async fn seated(clients: &mut [Client]) -> (Vec<String>, Vec<String>) {
    for (i, c) in clients.iter_mut().enumerate() {
        c.send(json!({"type": "quick_race", "difficulty": "easy", "name": format!("racer{i}")}))
            .await;
        c.expect("queued").await;
    }
    let mut tokens = Vec::new();
    for c in clients.iter_mut() {
        let j = c.until("room_joined").await;
        assert_eq!(
            j["settings"]["isomorphs"], true,
            "a pool room deals isomorphs: {j}"
        );
        tokens.push(text(&j["you"], "token"));
    }
    let mut puzzles = Vec::new();
    for c in clients.iter_mut() {
        puzzles.push(text(&c.until("race_started").await, "puzzle"));
    }
    (tokens, puzzles)
}

fn grid(line: &str) -> Grid {
    Grid::parse(line).expect("a board")
}

#[tokio::test]
async fn each_pool_seat_races_its_own_isomorph_and_is_judged_on_it() {
    let srv = pool_of_three().await;
    let mut cs = vec![srv.client().await, srv.client().await, srv.client().await];
    let (tokens, puzzles) = seated(&mut cs).await;
    let solutions: Vec<String> = puzzles.iter().map(|p| solve(p)).collect();
    let grades: Vec<_> = puzzles.iter().map(|p| grade(&grid(p)).level).collect();
    for (i, p) in puzzles.iter().enumerate() {
        assert!(puzzles[..i].iter().all(|q| q != p), "seats' puzzles differ");
        assert_eq!(
            grid(p).n_empty(),
            grid(&puzzles[0]).n_empty(),
            "same clue count"
        );
        assert_eq!(grades[i], grades[0], "same grade");
    }

    // Seat 1 places seat 0's digit in a cell empty on its board where the solutions differ.
    let (mine, theirs) = (solutions[1].as_bytes(), solutions[0].as_bytes());
    let cell = (0..81)
        .find(|&i| puzzles[1].as_bytes()[i] == b'.' && mine[i] != theirs[i])
        .expect("isomorphs differ somewhere");
    let digit = theirs[cell] - b'0';
    cs[1]
        .send(json!({"type": "place", "cell": cell, "digit": digit}))
        .await;
    let p = cs[1].until("placement").await;
    assert_eq!(p["accepted"], false, "{p}");
    assert!(
        matches!(p["reason"].as_str(), Some("wrong" | "conflict")),
        "{p}"
    );

    // Seat 2 places one digit, drops, and resumes on a new connection: its own board.
    let (c0, d0) = to_fill(&puzzles[2], &solutions[2])[0];
    cs[2]
        .send(json!({"type": "place", "cell": c0, "digit": d0}))
        .await;
    assert_eq!(cs[2].until("placement").await["accepted"], true);
    cs.pop().expect("seat 2").vanish();
    let mut back = srv.client().await;
    back.send(json!({"type": "resume", "token": tokens[2]}))
        .await;
    let j = back.expect("room_joined").await;
    assert_eq!(j["race"]["puzzle"], puzzles[2].as_str(), "{j}");
    let board = text(&j["race"], "board");
    assert_eq!(board.as_bytes()[c0], b'0' + d0);
    assert_eq!(grid(&board).n_empty() + 1, grid(&puzzles[2]).n_empty());
    cs.push(back);

    // Each solves its own board.
    for (c, (p, s)) in cs.iter_mut().zip(puzzles.iter().zip(&solutions)) {
        for (cell, digit) in to_fill(p, s) {
            c.send(json!({"type": "place", "cell": cell, "digit": digit}))
                .await;
        }
    }
    let mut race_id = String::new();
    for c in cs.iter_mut() {
        let over = c.until("race_over").await;
        race_id = text(&over, "race_id");
        let base = text(&over, "solution");
        for st in over["standings"].as_array().expect("standings") {
            assert_eq!(st["status"], "solved", "{st}");
            let k = puzzles.iter().position(|p| st["puzzle"] == p.as_str());
            let k = k.unwrap_or_else(|| panic!("a seat's own puzzle: {st}"));
            assert_eq!(st["solution"], solutions[k].as_str());
            assert_ne!(base, solutions[k], "the top level is the race's solution");
        }
    }

    // The replay API: each seat's own puzzle, solution, and placements on it.
    let (head, body) = srv
        .http_get(&format!("/api/races/{race_id}"))
        .await
        .expect("replay");
    assert!(head.contains("200"), "{head}");
    let race: Value = serde_json::from_str(&body).expect("json");
    let mut seen: Vec<String> = race["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|s| {
            let (puzzle, solution) = (text(s, "puzzle"), text(s, "solution"));
            assert_eq!(solve(&puzzle), solution);
            puzzle
        })
        .collect();
    seen.sort();
    let mut dealt = puzzles.clone();
    dealt.sort();
    assert_eq!(seen, dealt);
}

#[tokio::test]
async fn a_ghost_of_an_isomorph_seat_deals_that_seats_own_puzzle() {
    let srv = TestServer::start_with(|c| c.fair_play = false).await;
    let mut a = srv.client().await;
    let settings =
        json!({"difficulty": "easy", "max_players": 1, "public": false, "isomorphs": true});
    crate::support::create(&mut a, "ann", settings).await;
    a.send(json!({"type": "start_race"})).await;
    let own = text(&a.until("race_started").await, "puzzle");
    for (cell, digit) in to_fill(&own, &solve(&own)) {
        a.send(json!({"type": "place", "cell": cell, "digit": digit}))
            .await;
    }
    let over = a.until("race_over").await;
    let source = text(&over, "race_id");
    let stored = srv.store().replay(&source).unwrap().expect("stored");
    assert_ne!(stored.race.puzzle, own, "ann raced her own isomorph");

    // Bob races ann's ghost: on ann's own puzzle (no isomorph of his own), and every one of
    // the ghost's stored placements is accepted there.
    let mut b = srv.client().await;
    b.send(json!({"type": "race_ghost", "ghost": source, "name": "bob"}))
        .await;
    let j = b.until("room_joined").await;
    assert_eq!(j["settings"]["isomorphs"], false, "{j}");
    assert_eq!(text(&b.until("race_started").await, "puzzle"), own);
    let finished = loop {
        let m = b.recv().await.expect("the ghost's messages");
        if m["type"] == "progress" && m["player_id"] == "ghost" {
            assert_eq!(m["mistakes"], 0, "the ghost placed on another board: {m}");
        }
        if m["type"] == "player_finished" && m["player_id"] == "ghost" {
            break m;
        }
    };
    assert_eq!(finished["status"], "solved", "{finished}");
}
