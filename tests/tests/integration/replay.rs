//! `sudoku-race replay` end to end: a real race (a host on the wire and two bots, one that
//! makes mistakes) is stored in a real SQLite file; the terminal client's `client::api::get`
//! fetches it from `/api/races/ID`, and `Replay` + `Playback` played to the end must give
//! every player the progress and mistakes of the standings the players were sent.

use std::time::Duration;

use client::api::ApiError;
use client::replay::{Outcome, Playback, Replay};
use engine::Grid;
use serde_json::{json, Value};

use crate::support::{create, spawn_bot, wrong_digit, TestServer};
use testkit::{solve, to_fill};

/// Upper bound on the bots' race: a hang fails the test.
const WAIT: Duration = Duration::from_secs(30);

#[tokio::test]
async fn a_raced_race_replays_to_the_standings_the_players_were_sent() {
    // With lag compensation on (A8): the stored standings keep each seat's raw time and lag.
    let srv = TestServer::start_with(|c| c.lag_cap_ms = 500).await;
    let mut host = srv.client().await;
    let (room, _) = create(
        &mut host,
        "host",
        json!({"difficulty": "easy", "max_mistakes": 0}),
    )
    .await;
    let url: client::net::ServerUrl = srv.url().parse().expect("url");
    let bots = [
        spawn_bot(&url, &room, 1, 0.0),
        spawn_bot(&url, &room, 2, 0.3),
    ];
    host.until("player_joined").await;
    host.until("player_joined").await;
    host.send(json!({"type": "start_race"})).await;
    let started = host.until("race_started").await;
    let race_id = started["race_id"].as_str().expect("race_id").to_owned();
    let puzzle = started["puzzle"].as_str().expect("puzzle").to_owned();
    let solution = solve(&puzzle);

    // The host: a right digit, a wrong one, a conflicting one, a try on a given; then gives up.
    let cells = to_fill(&puzzle, &solution);
    let (right, digit) = cells[0];
    let mut board = puzzle.clone().into_bytes();
    board[right] = b'0' + digit;
    let board = String::from_utf8(board).expect("ascii");
    // A cell where some digit is wrong without clashing (a nearly forced cell has none).
    let (wrong_at, wrong) = cells
        .iter()
        .skip(1)
        .find_map(|&(c, _)| Some((c, wrong_digit(&board, &solution, c)?)))
        .expect("a cell with a wrong digit");
    let given = puzzle.find(|c| c != '.').expect("a given");
    let clash = puzzle.as_bytes()[given] - b'0';
    let clash_at = cells
        .iter()
        .skip(1)
        .map(|&(c, _)| c)
        .find(|&c| {
            let (r, k, gr, gk) = (c / 9, c % 9, given / 9, given % 9);
            (r == gr || k == gk) && solution.as_bytes()[c] - b'0' != clash
        })
        .expect("a cell that shares a line with the given");
    for (cell, d) in [
        (right, digit),
        (wrong_at, wrong),
        (clash_at, clash),
        (given, 1),
    ] {
        host.send(json!({"type": "place", "cell": cell, "digit": d}))
            .await;
        host.until("placement").await;
    }
    host.send(json!({"type": "forfeit"})).await;
    let over = tokio::time::timeout(WAIT, host.until("race_over"))
        .await
        .expect("the bots finish");
    let sent = over["standings"].as_array().expect("standings").clone();
    assert_eq!(sent.len(), 3, "{over}");
    for b in bots {
        tokio::time::timeout(WAIT, b)
            .await
            .expect("bot done in time")
            .expect("bot task")
            .expect("bot ran");
    }

    let to = client::net::Endpoint::from(&url);
    let path = format!("/api/races/{race_id}");
    let v = client::api::get_up_to(&to, &path, client::api::MAX_RACE_ANSWER)
        .await
        .expect("the race over HTTP");
    let replay = Replay::from_json(&v).expect("a replayable race");
    assert_eq!(replay.race_id, race_id);
    assert_eq!(replay.puzzle, Grid::parse(&puzzle).expect("grid"));
    let outcomes: Vec<Outcome> = replay
        .placements
        .iter()
        .filter(|p| replay.players[p.player].name == "host")
        .map(|p| p.outcome)
        .collect();
    assert_eq!(
        outcomes,
        [
            Outcome::Accepted,
            Outcome::Wrong,
            Outcome::Conflict,
            Outcome::Given
        ]
    );

    // The standings the API keeps are the ones the players were sent.
    let kept: Vec<Value> = replay
        .standings
        .iter()
        .map(|s| {
            let seat = &replay.players[s.player];
            json!({"rank": s.rank, "player_id": seat.player_id, "name": seat.name,
                   "status": s.status, "time_ms": s.time_ms, "filled": s.filled,
                   "mistakes": s.mistakes, "time_ms_raw": s.time_ms_raw, "lag_ms": s.lag_ms})
        })
        .collect();
    // Each seat's own puzzle and solution (A8's isomorphs) are checked in their own tests.
    let sent_kept: Vec<Value> = sent
        .iter()
        .map(|s| {
            let mut s = s.clone();
            if let Some(o) = s.as_object_mut() {
                for k in ["puzzle", "solution"] {
                    o.remove(k);
                }
            }
            s
        })
        .collect();
    assert_eq!(kept, sent_kept);
    // Lag compensation (A8) as stored: every solver's time is its raw time less its lag.
    for s in &replay.standings {
        if let (Some(t), Some(raw)) = (s.time_ms, s.time_ms_raw) {
            assert_eq!(t, raw.saturating_sub(u64::from(s.lag_ms)), "{s:?}");
        }
    }

    // Played to the end, every player has what the standings say, and a solver's board is
    // the solution.
    let mut playback = Playback::new(replay);
    while !playback.at_end() {
        playback.advance(1000);
    }
    let states = playback.players();
    let replay = playback.replay();
    let solution = Grid::parse(&solution).expect("grid");
    let mut n_mistakes = 0;
    for row in &sent {
        let i = replay
            .players
            .iter()
            .position(|p| p.player_id == row["player_id"].as_str().expect("id"))
            .expect("a seat for every standing");
        let s = &states[i];
        assert_eq!(
            (u64::from(s.filled), u64::from(s.mistakes)),
            (
                row["filled"].as_u64().expect("filled"),
                row["mistakes"].as_u64().expect("mistakes")
            ),
            "{row}"
        );
        n_mistakes += s.mistakes;
        if row["status"] == "solved" {
            assert_eq!(s.board, solution, "{row}");
            // The last digit lands by the server's clock: the raw time (A8) counts from it.
            assert!(s.solved_at_ms <= row["time_ms_raw"].as_u64(), "{row}");
        } else {
            assert_eq!((s.filled, s.mistakes), (1, 2), "the host: {row}");
            assert_eq!(s.solved_at_ms, None);
        }
    }
    assert!(n_mistakes > 2, "the careless bot made mistakes too");

    let missing = client::api::get(&to, "/api/races/NOPE-1").await;
    assert!(
        matches!(missing, Err(ApiError::Status { status: 404, .. })),
        "{missing:?}"
    );
}
