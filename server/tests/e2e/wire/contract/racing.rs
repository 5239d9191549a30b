//! In the race: the countdown, the spectators' view, penalties in `time_ms`, conflicts on the
//! player's own board, and what stays after a race for the rematch.

use std::time::Duration;

use serde_json::{json, Value};

use super::{peers_with, start};
use crate::support::{ann_and_bob, create, join, wrong_digit, Client, TestServer};
use testkit::{solve, to_fill};

#[tokio::test]
async fn countdown_refuses_joins_and_hides_the_puzzle() {
    let srv = TestServer::start_with(|c| c.countdown = Duration::from_secs(3600)).await;
    let (mut a, mut b, room) = ann_and_bob(&srv, json!({"difficulty": "easy"})).await;
    a.send(json!({"type": "start_race"})).await;
    assert_eq!(a.expect("countdown").await["starts_in_ms"], 3_600_000);
    b.expect("countdown").await;
    let mut late = srv.client().await;
    late.send(json!({"type": "join_room", "room": room, "name": "late"}))
        .await;
    late.expect_error("race_in_progress").await;
    late.send(json!({"type": "spectate", "room": room})).await;
    let j = late.expect("room_joined").await;
    assert_eq!(j["phase"], "countdown");
    let race = &j["race"];
    assert!(race["race_id"].is_string(), "{j}");
    assert_eq!(race["puzzle"], Value::Null);
    assert_eq!(race["board"], Value::Null);
    assert_eq!(race["elapsed_ms"], 0);
    // Nothing to place yet; and a second start is the wrong phase.
    b.send(json!({"type": "place", "cell": 0, "digit": 1}))
        .await;
    b.expect_error("wrong_phase").await;
    a.send(json!({"type": "start_race"})).await;
    a.expect_error("wrong_phase").await;
    assert_eq!(j["you"]["token"], Value::Null, "spectators get no token");
    let seen = a.sync().await;
    assert!(seen.is_empty(), "{seen:?}");
}

#[tokio::test]
async fn spectators_see_progress_and_cannot_play() {
    let srv = TestServer::start().await;
    let (mut a, mut s) = (srv.client().await, srv.client().await);
    let (room, ja) = create(
        &mut a,
        "ann",
        json!({"difficulty": "easy", "time_limit_s": 120}),
    )
    .await;
    s.send(json!({"type": "spectate", "room": room, "name": "eve"}))
        .await;
    s.expect("room_joined").await;
    let rs = start(&mut a, &mut [&mut s]).await;
    assert_eq!(rs["difficulty"], "easy");
    assert_eq!(rs["time_limit_s"], 120);
    let puzzle = rs["puzzle"].as_str().unwrap().to_owned();
    let solution = solve(&puzzle);
    let cells = to_fill(&puzzle, &solution);
    assert_eq!(puzzle.len(), 81);

    s.send(json!({"type": "place", "cell": cells[0].0, "digit": cells[0].1}))
        .await;
    s.expect_error("not_player").await;
    s.send(json!({"type": "forfeit"})).await;
    s.expect_error("not_player").await;

    a.send(json!({"type": "place", "cell": cells[0].0, "digit": cells[0].1, "id": "x1"}))
        .await;
    let p = a.expect("placement").await;
    assert_eq!(p["id"], "x1");
    let mine = a.expect("progress").await;
    let theirs = s.expect("progress").await;
    assert_eq!(mine, theirs);
    assert_eq!(
        theirs,
        json!({"type": "progress", "player_id": ja["you"]["player_id"], "filled": 1,
            "to_fill": cells.len(), "mistakes": 0})
    );
    // A spectator joining mid-race sees every player's progress, and no board.
    let mut s2 = srv.client().await;
    s2.send(json!({"type": "spectate", "room": room})).await;
    let j = s2.expect("room_joined").await;
    let mut entry = mine.clone();
    entry.as_object_mut().unwrap().remove("type");
    assert_eq!(j["race"]["progress"], json!([entry]));
    assert_eq!(j["race"]["board"], Value::Null);
    assert_eq!(j["race"]["puzzle"], puzzle.as_str());
    assert!(!j.to_string().contains(&solution));
}

/// How long the race in [`time_ms_includes_penalties_and_a_solved_player_is_out_of_the_race`]
/// may take (on the paused clock it takes none).
const RACE_WITHIN: Duration = Duration::from_secs(1);

/// `a` places a digit that clashes (checking the conflict it is told of), then a wrong one
/// where one clashes with nothing, then solves: its `player_finished` and its mistakes.
async fn solve_with_mistakes(
    a: &mut Client,
    puzzle: &str,
    solution: &str,
    cells: &[(usize, u8)],
) -> (Value, u64) {
    // A conflict lists every clashing cell on the player's own board.
    let (cell, clash) = cells
        .iter()
        .find_map(|&(c, right)| {
            (1..=9u8)
                .find(|&d| d != right && !peers_with(puzzle, c, d).is_empty())
                .map(|d| (c, d))
        })
        .expect("some digit clashes with a given");
    a.send(json!({"type": "place", "cell": cell, "digit": clash}))
        .await;
    let p = a.expect("placement").await;
    assert_eq!(p["reason"], "conflict");
    let mut got: Vec<u64> = p["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    got.sort_unstable();
    assert_eq!(got, peers_with(puzzle, cell, clash));
    assert_eq!(p["penalty_ms"], 30_000);
    // A second mistake, if this cell has a wrong digit that clashes with nothing.
    let mistakes = match wrong_digit(puzzle, solution, cell) {
        Some(w) => {
            a.send(json!({"type": "place", "cell": cell, "digit": w}))
                .await;
            let p = a.until("placement").await;
            assert_eq!(
                (p["reason"].clone(), p["mistakes"].clone()),
                (json!("wrong"), json!(2))
            );
            2
        }
        None => 1,
    };
    for &(c, d) in cells {
        a.send(json!({"type": "place", "cell": c, "digit": d}))
            .await;
    }
    (a.until("player_finished").await, mistakes)
}

// The clock is paused: the race's time is tokio's, so the race itself takes no time however
// slow the machine, and `time_ms` less the penalties is bounded by the timeout around it.
#[tokio::test(start_paused = true)]
async fn time_ms_includes_penalties_and_a_solved_player_is_out_of_the_race() {
    let srv = TestServer::start_with(crate::support::no_journal).await;
    let (mut a, mut b, _) = ann_and_bob(
        &srv,
        json!({"difficulty": "easy", "max_mistakes": 0, "penalty_s": 30}),
    )
    .await;
    let rs = start(&mut a, &mut [&mut b]).await;
    let puzzle = rs["puzzle"].as_str().unwrap().to_owned();
    let solution = solve(&puzzle);
    let cells = to_fill(&puzzle, &solution);
    let race = solve_with_mistakes(&mut a, &puzzle, &solution, &cells);
    let (fin, mistakes) = tokio::time::timeout(RACE_WITHIN, race)
        .await
        .expect("the race within its bound");
    assert_eq!(fin["status"], "solved");
    let time_ms = fin["time_ms"].as_u64().expect("time_ms when solved");
    let penalty = mistakes * 30_000;
    // Race time is the penalties plus at most the time the race took.
    let within = RACE_WITHIN.as_millis() as u64;
    assert!(
        time_ms >= penalty && time_ms - penalty <= within,
        "time_ms {time_ms}, penalty {penalty}, raced within {within} ms"
    );
    // bob sees the same finish.
    assert_eq!(b.until("player_finished").await, fin);
    // Solved: out of the race.
    a.send(json!({"type": "place", "cell": cells[0].0, "digit": cells[0].1}))
        .await;
    a.expect_error("wrong_phase").await;
    a.send(json!({"type": "forfeit"})).await;
    a.expect_error("wrong_phase").await;
    // A forfeit's `time_ms` is null; the race is over, standings carry the penalised time.
    b.send(json!({"type": "forfeit"})).await;
    let f = b.until("player_finished").await;
    assert_eq!(
        (f["status"].clone(), f["time_ms"].clone()),
        (json!("forfeited"), Value::Null)
    );
    let over = a.until("race_over").await;
    assert_eq!(over["standings"][0]["time_ms"], time_ms);
    assert_eq!(over["standings"][0]["mistakes"], mistakes);
    assert_eq!(over["standings"][1]["time_ms"], Value::Null);
    assert_eq!(over["standings"][1]["rank"], 2);
}

#[tokio::test]
async fn a_conflict_is_judged_on_the_players_own_board() {
    let srv = TestServer::start().await;
    let (mut a, mut b, _) =
        ann_and_bob(&srv, json!({"difficulty": "easy", "max_mistakes": 0})).await;
    let rs = start(&mut a, &mut [&mut b]).await;
    let puzzle = rs["puzzle"].as_str().unwrap().to_owned();
    let solution = solve(&puzzle);
    // Two empty peer cells x, y where the digit of x clashes with no given around y.
    let empty: Vec<usize> = (0..81).filter(|&i| puzzle.as_bytes()[i] == b'.').collect();
    let (x, y, d) = empty
        .iter()
        .flat_map(|&x| empty.iter().map(move |&y| (x, y)))
        .find_map(|(x, y)| {
            let d = solution.as_bytes()[x] - b'0';
            let peer = x != y
                && (x / 9 == y / 9
                    || x % 9 == y % 9
                    || (x / 27 == y / 27 && x % 9 / 3 == y % 9 / 3));
            (peer && peers_with(&puzzle, y, d).is_empty()).then_some((x, y, d))
        })
        .expect("an easy puzzle has such a pair");
    a.send(json!({"type": "place", "cell": x, "digit": d}))
        .await;
    assert_eq!(a.expect("placement").await["accepted"], true);
    // ann's own digit at x makes d at y a conflict for her; bob's board has no d there.
    a.send(json!({"type": "place", "cell": y, "digit": d}))
        .await;
    let p = a.until("placement").await;
    assert_eq!(
        (p["reason"].clone(), p["conflicts"].clone()),
        (json!("conflict"), json!([x]))
    );
    b.send(json!({"type": "place", "cell": y, "digit": d}))
        .await;
    let p = b.until("placement").await;
    assert_eq!(
        (p["reason"].clone(), p["conflicts"].clone()),
        (json!("wrong"), json!([]))
    );
}

#[tokio::test]
async fn after_a_race_views_stay_and_a_rematch_starts_fresh() {
    let srv = TestServer::start().await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let (room, ja) = create(&mut a, "ann", json!({"difficulty": "easy"})).await;
    join(&mut b, &room, "bob").await;
    a.expect("player_joined").await;
    let rs = start(&mut a, &mut [&mut b]).await;
    let puzzle = rs["puzzle"].as_str().unwrap().to_owned();
    let solution = solve(&puzzle);
    let (cell, d) = to_fill(&puzzle, &solution)[0];
    a.send(json!({"type": "place", "cell": cell, "digit": d}))
        .await;
    a.until("placement").await;
    a.send(json!({"type": "forfeit"})).await;
    b.send(json!({"type": "forfeit"})).await;
    let over = a.until("race_over").await;
    b.until("race_over").await;
    // Finished: a resume and a spectator see the race that was, with the standings and reason
    // of its `race_over` (ours, additive).
    let token = ja["you"]["token"].as_str().unwrap().to_owned();
    let mut a2 = srv.client().await;
    a2.send(json!({"type": "resume", "token": token})).await;
    let j = a2.expect("room_joined").await;
    assert_eq!(j["phase"], "finished");
    assert_eq!(j["race"]["race_id"], rs["race_id"]);
    assert_eq!(
        j["race"]["board"].as_str().unwrap().as_bytes()[cell],
        b'0' + d
    );
    let me = j["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["player_id"] == ja["you"]["player_id"])
        .cloned()
        .unwrap();
    assert_eq!(me["status"], "forfeited");
    let mut s = srv.client().await;
    s.send(json!({"type": "spectate", "room": room})).await;
    let js = s.expect("room_joined").await;
    assert_eq!(
        js["race"]["elapsed_ms"], j["race"]["elapsed_ms"],
        "the clock stopped"
    );
    for view in [&j, &js] {
        assert_eq!(view["race"]["standings"], over["standings"]);
        assert_eq!(view["race"]["reason"], over["reason"]);
    }
    assert!(js["race"]["board"].is_null(), "no board of its own");
    // Between races the room takes players again, so it is listed (A5).
    s.send(json!({"type": "list_rooms"})).await;
    let listed = s.expect("room_list").await;
    assert_eq!(listed["rooms"][0]["room"], room);
    assert_eq!(listed["rooms"][0]["phase"], "finished");
    // The rematch: a new race id, a fresh board, everyone racing again.
    let rs2 = start(&mut a2, &mut [&mut b, &mut s]).await;
    assert_ne!(rs2["race_id"], rs["race_id"]);
    let puzzle2 = rs2["puzzle"].as_str().unwrap().to_owned();
    let solution2 = solve(&puzzle2);
    let (cell2, d2) = to_fill(&puzzle2, &solution2)[0];
    b.send(json!({"type": "place", "cell": cell2, "digit": d2}))
        .await;
    let p = b.until("placement").await;
    assert_eq!(
        (p["accepted"].clone(), p["mistakes"].clone()),
        (json!(true), json!(0))
    );
    let pr = s.until("progress").await;
    assert_eq!(
        (pr["filled"].clone(), pr["mistakes"].clone()),
        (json!(1), json!(0))
    );
}
