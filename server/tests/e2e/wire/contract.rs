//! The wire contract rule by rule, over real sockets: the rules the race, resume and
//! bad-input suites do not already pin down (countdown, spectators' view, settings types and
//! ranges, names at their limits, leaving mid-race, penalties in `time_ms`, idle pings).

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{ann_and_bob, create, join, wrong_digit, Client, TestServer};
use testkit::{solve, to_fill};

/// Start from the host; every client in `all` (the host included) gets `countdown` then
/// `race_started`. Returns the `race_started` message.
async fn start(host: &mut Client, others: &mut [&mut Client]) -> Value {
    host.send(json!({"type": "start_race"})).await;
    host.until("countdown").await;
    let rs = host.until("race_started").await;
    for o in others.iter_mut() {
        o.until("countdown").await;
        assert_eq!(o.until("race_started").await, rs);
    }
    rs
}

/// The cells a digit at `cell` would clash with on `board` (row, column, box).
fn peers_with(board: &str, cell: usize, digit: u8) -> Vec<u64> {
    let b = board.as_bytes();
    let (r, c) = (cell / 9, cell % 9);
    (0..81)
        .filter(|&o| {
            let (or, oc) = (o / 9, o % 9);
            o != cell
                && (or == r || oc == c || (or / 3 == r / 3 && oc / 3 == c / 3))
                && b[o] == b'0' + digit
        })
        .map(|o| o as u64)
        .collect()
}

#[tokio::test]
async fn welcome_and_default_settings() {
    let srv = TestServer::start().await;
    let mut a = srv.raw_client().await;
    let w = a.expect("welcome").await;
    assert_eq!(w["protocol"], 1);
    let name = w["server"].as_str().expect("server name");
    assert!(name.contains('/'), "<name>/<version>: {name}");
    // `settings` omitted: every default.
    a.send(json!({"type": "create_room", "name": "ann"})).await;
    let j = a.expect("room_joined").await;
    assert_eq!(
        j["settings"],
        json!({"difficulty": "medium", "max_players": 8, "time_limit_s": 1800,
               "max_mistakes": 3, "penalty_s": 10, "public": true, "rated": false, "isomorphs": false})
    );
    assert_eq!(j["you"]["role"], "player");
    let players = j["players"].as_array().unwrap();
    assert_eq!(players.len(), 1);
    let p = &players[0];
    assert_eq!(
        (
            p["player_id"].clone(),
            p["name"].clone(),
            p["ready"].clone(),
            p["connected"].clone(),
            p["status"].clone()
        ),
        (
            j["you"]["player_id"].clone(),
            json!("ann"),
            json!(false),
            json!(true),
            json!("waiting")
        )
    );
}

#[track_caller]
fn check_settings(settings: Value, code: &'static str) -> (Value, &'static str) {
    (settings, code)
}

#[tokio::test]
async fn settings_wrong_type_is_bad_message_out_of_range_is_invalid_settings() {
    let srv = TestServer::start().await;
    let mut x = srv.client().await;
    let cases = [
        check_settings(json!({"difficulty": 2}), "bad_message"),
        check_settings(json!({"max_players": "8"}), "bad_message"),
        check_settings(json!({"time_limit_s": true}), "bad_message"),
        check_settings(json!({"max_mistakes": "3"}), "bad_message"),
        check_settings(json!({"penalty_s": [10]}), "bad_message"),
        check_settings(json!({"public": "yes"}), "bad_message"),
        check_settings(json!({"public": 1}), "bad_message"),
        check_settings(json!("easy"), "bad_message"),
        check_settings(json!({"difficulty": "extreme"}), "invalid_settings"),
        check_settings(json!({"max_players": -1}), "invalid_settings"),
        check_settings(json!({"max_players": 17}), "invalid_settings"),
        check_settings(json!({"time_limit_s": 0}), "invalid_settings"),
        check_settings(json!({"max_mistakes": -1}), "invalid_settings"),
        check_settings(json!({"penalty_s": -1}), "invalid_settings"),
        check_settings(json!({"penalty_s": 121}), "invalid_settings"),
        check_settings(json!({"max_players": 2.5}), "bad_message"),
        check_settings(
            json!({"time_limit_s": null, "max_players": 1e20}),
            "invalid_settings",
        ),
        check_settings(json!({"max_players": u64::MAX}), "invalid_settings"),
    ];
    for (settings, code) in cases {
        x.send(json!({"type": "create_room", "name": "x", "settings": settings}))
            .await;
        let e = x.expect_error(code).await;
        assert!(e["message"].is_string(), "{settings}: {e}");
    }
    // The bounds themselves are accepted, never clamped.
    for settings in [
        json!({"difficulty": "easy", "max_players": 1, "time_limit_s": 60, "max_mistakes": 0,
               "penalty_s": 0, "public": false}),
        json!({"difficulty": "expert", "max_players": 16, "time_limit_s": 7200,
               "max_mistakes": 10, "penalty_s": 120}),
        json!({"difficulty": "hard", "max_players": 4.0}),
    ] {
        x.send(json!({"type": "create_room", "name": "x", "settings": settings}))
            .await;
        let j = x.expect("room_joined").await;
        for (k, v) in settings.as_object().unwrap() {
            match v.as_f64() {
                // `4.0` is a whole number: sent back as `4`.
                Some(f) => assert_eq!(j["settings"][k].as_f64(), Some(f), "{k}"),
                None => assert_eq!(&j["settings"][k], v, "{k}"),
            }
        }
        x.send(json!({"type": "leave"})).await;
        x.expect("player_left").await;
    }
}

#[tokio::test]
async fn names_at_their_limits() {
    let srv = TestServer::start().await;
    let mut x = srv.client().await;
    let n24 = "é".repeat(24);
    let n25 = "n".repeat(25);
    for bad in [
        "",
        " \t ",
        &n25,
        "nul\u{0}",
        "del\u{7f}",
        "line\nbreak",
        "c\u{85}1",
    ] {
        x.send(json!({"type": "create_room", "name": bad})).await;
        x.expect_error("invalid_name").await;
    }
    // 24 characters (48 bytes) after trimming is fine; the name is stored trimmed.
    x.send(json!({"type": "create_room", "name": format!("  {n24}  ")}))
        .await;
    let j = x.expect("room_joined").await;
    assert_eq!(j["players"][0]["name"], n24.as_str());
    let room = j["room"].as_str().unwrap().to_owned();
    let mut y = srv.client().await;
    y.send(json!({"type": "join_room", "room": room, "name": n25}))
        .await;
    y.expect_error("invalid_name").await;
    y.send(json!({"type": "spectate", "room": room, "name": "\u{1b}[2J"}))
        .await;
    y.expect_error("invalid_name").await;
    // A spectator's name defaults to `spectator`.
    y.send(json!({"type": "spectate", "room": room})).await;
    y.expect("room_joined").await;
    y.send(json!({"type": "chat", "text": "hi"})).await;
    assert_eq!(y.expect("chat").await["name"], "spectator");
}

#[tokio::test]
async fn room_codes_are_upper_cased() {
    let srv = TestServer::start().await;
    let mut a = srv.client().await;
    let (room, _) = create(&mut a, "ann", json!({})).await;
    let lower = room.to_lowercase();
    let mut b = srv.client().await;
    let j = join(&mut b, &lower, "bob").await;
    assert_eq!(j["room"], room.as_str());
    let mut s = srv.client().await;
    s.send(json!({"type": "spectate", "room": lower})).await;
    assert_eq!(s.expect("room_joined").await["room"], room.as_str());
}

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
    let srv = TestServer::start().await;
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
async fn leaving_mid_race_is_player_left_and_forfeited_in_the_standings() {
    let srv = TestServer::start().await;
    let (mut a, mut b, mut c, mut s) = (
        srv.client().await,
        srv.client().await,
        srv.client().await,
        srv.client().await,
    );
    let (room, _) = create(&mut a, "ann", json!({"difficulty": "easy"})).await;
    join(&mut b, &room, "bob").await;
    let jc = join(&mut c, &room, "cy").await;
    let cy = jc["you"]["player_id"].clone();
    s.send(json!({"type": "spectate", "room": room})).await;
    s.expect("room_joined").await;
    let rs = start(&mut a, &mut [&mut b, &mut c, &mut s]).await;
    let race_id = rs["race_id"].as_str().unwrap().to_owned();
    let puzzle = rs["puzzle"].as_str().unwrap().to_owned();
    let solution = solve(&puzzle);
    let (cell, d) = to_fill(&puzzle, &solution)[0];
    c.send(json!({"type": "place", "cell": cell, "digit": d}))
        .await;
    c.until("placement").await;

    c.send(json!({"type": "leave"})).await;
    assert_eq!(c.until("player_left").await["player_id"], cy);
    let seen = c.sync().await;
    assert!(
        !seen.iter().any(|m| m.to_string().contains(&solution)),
        "{seen:?}"
    );
    for cl in [&mut a, &mut b, &mut s] {
        let msgs = cl.collect_until("player_left").await;
        assert_eq!(msgs.last().unwrap()["player_id"], cy);
        assert!(
            msgs.iter().any(|m| m["type"] == "player_finished"
                && m["player_id"] == cy
                && m["status"] == "forfeited"),
            "{msgs:?}"
        );
    }
    // The race goes on for the others.
    a.send(json!({"type": "forfeit"})).await;
    b.send(json!({"type": "forfeit"})).await;
    let over = s.until("race_over").await;
    let st = over["standings"].as_array().unwrap();
    assert_eq!(st.len(), 3, "{over}");
    let row = st.iter().find(|r| r["player_id"] == cy).expect("cy stays");
    assert_eq!(
        (
            row["status"].clone(),
            row["filled"].clone(),
            row["rank"].clone()
        ),
        (json!("forfeited"), json!(1), json!(1))
    );
    let stored = srv.store().standings(&race_id).unwrap();
    assert_eq!(
        stored.iter().find(|r| r.name == "cy").unwrap().status,
        "forfeited"
    );
}

#[tokio::test]
async fn a_held_seat_that_expires_mid_race_is_forfeited() {
    let srv = TestServer::start_with(|c| c.resume_grace = Duration::from_millis(200)).await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let (room, _) = create(&mut a, "ann", json!({"difficulty": "easy"})).await;
    let jb = join(&mut b, &room, "bob").await;
    let bob = jb["you"]["player_id"].clone();
    a.expect("player_joined").await;
    start(&mut a, &mut [&mut b]).await;
    b.vanish();
    let msgs = a.collect_until("player_left").await;
    assert!(msgs
        .iter()
        .any(|m| m["type"] == "player_updated" && m["player"]["connected"] == false));
    assert!(msgs.iter().any(|m| m["type"] == "player_finished"
        && m["player_id"] == bob
        && m["status"] == "forfeited"));
    a.send(json!({"type": "forfeit"})).await;
    let over = a.until("race_over").await;
    let row = over["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player_id"] == bob)
        .cloned();
    assert_eq!(row.unwrap()["status"], "forfeited");
}

#[tokio::test]
async fn the_longest_present_player_becomes_host() {
    let srv = TestServer::start().await;
    let (mut a, mut b, mut c) = (srv.client().await, srv.client().await, srv.client().await);
    let (room, _) = create(&mut a, "ann", json!({})).await;
    let jb = join(&mut b, &room, "bob").await;
    join(&mut c, &room, "cy").await;
    b.expect("player_joined").await;
    a.send(json!({"type": "leave"})).await;
    for cl in [&mut b, &mut c] {
        cl.expect("player_left").await;
        assert_eq!(
            cl.expect("host_changed").await["player_id"],
            jb["you"]["player_id"]
        );
    }
    // The new host starts; the old one is in no room and may join another.
    c.send(json!({"type": "start_race"})).await;
    c.expect_error("not_host").await;
    let mut d = srv.client().await;
    let (other, _) = create(&mut d, "dee", json!({})).await;
    a.send(json!({"type": "join_room", "room": other, "name": "ann"}))
        .await;
    assert_eq!(a.until("room_joined").await["room"], other.as_str());
}

#[tokio::test]
async fn a_client_that_answers_pings_is_not_idle() {
    let srv = TestServer::start_with(|c| c.limits.idle_timeout = Duration::from_millis(300)).await;
    let mut a = srv.client().await;
    // Reading for three idle timeouts: the server's pings are answered, nothing else arrives.
    let read = tokio::time::timeout(Duration::from_millis(900), a.recv()).await;
    assert!(read.is_err(), "no message while idle: {read:?}");
    a.send(json!({"type": "ping", "id": 1})).await;
    assert_eq!(a.expect("pong").await["id"], 1);
}

#[tokio::test]
async fn a_token_dies_with_a_deliberate_leave_and_a_terminal_switch_is_not_a_drop() {
    let srv = TestServer::start().await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let (room, ja) = create(&mut a, "ann", json!({})).await;
    let jb = join(&mut b, &room, "bob").await;
    a.expect("player_joined").await;
    // ann switches terminals: her old connection closes 1000, bob sees no drop.
    let token = ja["you"]["token"].as_str().unwrap().to_owned();
    let mut a2 = srv.client().await;
    a2.send(json!({"type": "resume", "token": token})).await;
    a2.expect("room_joined").await;
    assert_eq!(a.closed().await, crate::support::Closed::Code(1000));
    let seen = b.sync().await;
    assert!(
        !seen.iter().any(|m| m["player"]["connected"] == false),
        "{seen:?}"
    );
    // bob leaves on purpose: his token no longer works.
    b.send(json!({"type": "leave"})).await;
    b.expect("player_left").await;
    b.send(json!({"type": "resume", "token": jb["you"]["token"]}))
        .await;
    b.expect_error("invalid_token").await;
    assert_eq!(
        a2.until("player_left").await["player_id"],
        jb["you"]["player_id"]
    );
}

#[tokio::test]
async fn leaving_during_the_countdown() {
    // Long enough that the leaves below land within it on a busy machine.
    let srv = TestServer::start_with(|c| c.countdown = Duration::from_millis(1500)).await;
    let (mut a, mut b, mut s) = (srv.client().await, srv.client().await, srv.client().await);
    let (room, _) = create(&mut a, "ann", json!({"difficulty": "easy"})).await;
    let jb = join(&mut b, &room, "bob").await;
    a.expect("player_joined").await;
    s.send(json!({"type": "spectate", "room": room})).await;
    s.expect("room_joined").await;
    a.send(json!({"type": "start_race"})).await;
    a.expect("countdown").await;
    // The host leaves during the countdown: bob is host and races alone.
    a.send(json!({"type": "leave"})).await;
    a.expect("player_left").await;
    let msgs = b.collect_until("race_started").await;
    assert!(
        msgs.iter()
            .any(|m| m["type"] == "host_changed" && m["player_id"] == jb["you"]["player_id"]),
        "{msgs:?}"
    );
    s.until("race_started").await;
    b.send(json!({"type": "forfeit"})).await;
    let over = s.until("race_over").await;
    assert_eq!(over["standings"].as_array().unwrap().len(), 1, "{over}");
    // A new countdown that every player leaves: the room closes, its spectator is told.
    b.send(json!({"type": "start_race"})).await;
    b.until("countdown").await;
    b.send(json!({"type": "leave"})).await;
    assert_eq!(s.until("room_closed").await["room"], room.as_str());
    let mut x = srv.client().await;
    x.send(json!({"type": "spectate", "room": room})).await;
    x.expect_error("unknown_room").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_room_no_longer_counts_against_its_address() {
    let srv = TestServer::start_with(|c| {
        c.limits.max_rooms_per_ip = 1;
        c.limits.max_rooms = 1;
    })
    .await;
    let mut a = srv.client().await;
    // Leave is answered once the room is gone: the next create never sees it.
    for _ in 0..200 {
        create(&mut a, "ann", json!({})).await;
        a.send(json!({"type": "leave"})).await;
        a.expect("player_left").await;
    }
    let (_, health) = srv.http_get("/healthz").await.unwrap();
    let health: serde_json::Value = serde_json::from_str(&health).unwrap();
    assert_eq!(health["rooms"], 0, "{health}");
    assert_eq!(health["connections"], 1, "{health}");
}

#[tokio::test]
async fn a_dealt_puzzle_has_one_solution_and_the_asked_difficulty() {
    use shared::engine::{grader, Grid};
    let srv = TestServer::start().await;
    for difficulty in ["easy", "medium", "hard", "expert"] {
        let mut a = srv.client().await;
        a.set_timeout(Duration::from_secs(60));
        create(&mut a, "ann", json!({"difficulty": difficulty})).await;
        let rs = start(&mut a, &mut []).await;
        assert_eq!(rs["difficulty"], difficulty);
        let puzzle = Grid::parse(rs["puzzle"].as_str().unwrap()).unwrap();
        solve(&puzzle.to_line());
        let level = grader::grade(&puzzle).level;
        assert_eq!(
            level.difficulty().map(|d| d.as_str()),
            Some(difficulty),
            "graded {level:?}"
        );
        a.send(json!({"type": "leave"})).await;
        a.until("player_left").await;
    }
}

#[tokio::test]
async fn ids_are_echoed_verbatim_and_unknown_fields_are_ignored() {
    let srv = TestServer::start().await;
    let mut a = srv.client().await;
    for id in [
        json!(1.5),
        json!(-3),
        json!(12_345_678_901_234_567_890u64),
        json!(""),
        json!("élan"),
    ] {
        a.send(json!({"type": "ping", "id": id})).await;
        assert_eq!(a.expect("pong").await["id"], id);
    }
    a.send(
        json!({"type": "create_room", "name": "ann", "colour": "red",
                  "settings": {"difficulty": "easy", "theme": "dark"}}),
    )
    .await;
    assert_eq!(
        a.expect("room_joined").await["settings"]["difficulty"],
        "easy"
    );
    let rs = start(&mut a, &mut []).await;
    let given = rs["puzzle"].as_str().unwrap().find(|c| c != '.').unwrap();
    a.send(json!({"type": "place", "cell": given, "digit": 1, "id": null, "why": 1}))
        .await;
    let p = a.expect("placement").await;
    assert_eq!(
        (p["id"].clone(), p["reason"].clone()),
        (Value::Null, json!("given"))
    );
    a.send(json!({"type": "place", "cell": given, "digit": 1, "id": {"a": 1}}))
        .await;
    a.expect_error("bad_message").await;
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
async fn the_51st_message_over_the_limit_within_10_s_closes_1008() {
    // No refill: the first message takes the one token, every later one is over the limit.
    let srv = TestServer::start_with(|c| {
        c.limits.rate_limit = 0;
        c.limits.rate_burst = 1;
    })
    .await;
    let mut a = srv.client().await;
    for i in 0..52 {
        a.send(json!({"type": "ping", "id": i})).await;
    }
    assert_eq!(a.expect("pong").await["id"], 0);
    for _ in 0..50 {
        a.expect_error("rate_limited").await;
    }
    assert_eq!(a.closed().await, crate::support::Closed::Code(1008));
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

#[tokio::test]
async fn a_closed_connection_frees_its_place_under_the_connection_limit() {
    let srv = TestServer::start_with(|c| c.limits.max_connections = 1).await;
    let a = srv.client().await;
    let mut refused = srv.raw_client().await;
    refused.expect("welcome").await;
    refused.expect_error("server_full").await;
    assert_eq!(refused.closed().await, crate::support::Closed::Code(1013));
    assert_eq!(a.close().await, crate::support::Closed::Code(1000));
    // The server counts the close once its side is done: retry a bounded number of times.
    for attempt in 0.. {
        let mut b = srv.client().await;
        b.send(json!({"type": "ping", "id": 1})).await;
        let v = b.recv().await.expect("an answer");
        if v["type"] == "pong" {
            break;
        }
        assert_eq!(v["code"], "server_full", "{v}");
        assert!(attempt < 100, "the place was never freed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
