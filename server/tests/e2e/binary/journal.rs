//! One server survives its own crash: a standalone server killed mid-race (`kill -9`: no
//! goodbye) and started again on the same database, port and journal brings the race back;
//! its players resume with their tokens, finish it, and the stored race holds every placement
//! they were told was accepted, before the kill and after. A journal whose disk fills up
//! gives its rooms up: they race on, and never come back in part.

use std::time::Duration;

use serde_json::{json, Value};
use testkit::{solve, to_fill};

use super::spool::{fill, Tmpfs};
use crate::support::process::{get_json, player, Server, Ws};

/// A quick start, every digit at once, no fair-play flags; a seat is held for 3 s.
const FLAGS: [&str; 12] = [
    "--resume-grace-s",
    "3",
    "--countdown-ms",
    "10",
    "--puzzle-stock",
    "1",
    "--fair-play",
    "false",
    "--rate-limit",
    "1000",
    "--rate-burst",
    "1000",
];

/// Place `cells` (right digits), each acknowledged as accepted.
async fn place_all(ws: &mut Ws, cells: &[(usize, u8)]) {
    for &(cell, digit) in cells {
        ws.send(json!({"type": "place", "cell": cell, "digit": digit}))
            .await;
        let v = ws.until("placement").await;
        assert_eq!(v["accepted"], true, "{v}");
    }
}

/// A seat in the race: its socket, token and player id.
struct Seat {
    ws: Ws,
    token: String,
    player_id: String,
}

fn seat(ws: Ws, joined: &Value) -> Seat {
    let field = |f: &str| joined["you"][f].as_str().expect(f).to_owned();
    Seat {
        token: field("token"),
        player_id: field("player_id"),
        ws,
    }
}

/// Ann opens a room, bob and cat join, the race starts: the seats and the race's puzzle.
async fn three_racing(srv: &Server) -> (Vec<Seat>, String, String) {
    let mut ann = player(srv).await;
    ann.send(json!({"type": "create_room", "name": "ann", "settings": {"difficulty": "easy"}}))
        .await;
    let created = ann.until("room_joined").await;
    let code = created["room"].as_str().expect("code").to_owned();
    let mut seats = vec![seat(ann, &created)];
    for name in ["bob", "cat"] {
        let mut ws = player(srv).await;
        ws.send(json!({"type": "join_room", "room": code, "name": name}))
            .await;
        let joined = ws.until("room_joined").await;
        seats.push(seat(ws, &joined));
    }
    seats[0].ws.send(json!({"type": "start_race"})).await;
    let mut race = None;
    for s in &mut seats {
        let started = s.ws.until("race_started").await;
        race = Some((
            started["race_id"].as_str().expect("race id").to_owned(),
            started["puzzle"].as_str().expect("puzzle").to_owned(),
        ));
    }
    let (race_id, puzzle) = race.expect("three seats");
    (seats, race_id, puzzle)
}

/// Every cell of `cells` holds its digit on the board of a room view.
fn holds(view: &Value, cells: &[(usize, u8)]) -> bool {
    let board = view["race"]["board"]
        .as_str()
        .unwrap_or_default()
        .as_bytes();
    cells
        .iter()
        .all(|&(c, d)| board.get(c).copied() == Some(b'0' + d))
}

#[tokio::test]
async fn a_server_killed_mid_race_brings_the_race_back_and_its_players_finish_it() {
    let srv = Server::start(&FLAGS, None);
    let (mut seats, race_id, puzzle) = three_racing(&srv).await;
    let fill = to_fill(&puzzle, &solve(&puzzle));
    // Each has a few digits acknowledged (the same cells: each has a board of its own).
    let (before, after) = fill.split_at(5);
    for s in &mut seats {
        place_all(&mut s.ws, before).await;
    }
    srv.signal("-KILL");
    // Down for longer than a seat is held: the hold counts from the restart, and the race
    // clock stands still for the time the server was away.
    let down = Duration::from_secs(4);
    tokio::time::sleep(down).await;
    let addr = srv.addr.clone();
    let srv = srv.restart(&FLAGS);
    assert_eq!(srv.addr, addr, "the same port");
    assert!(srv.logged("room restored from the journal").await);
    // Every connection died with the process: each player resumes with its token.
    for s in &mut seats {
        s.ws = player(&srv).await;
        s.ws.send(json!({"type": "resume", "token": s.token})).await;
        let view = s.ws.until("room_joined").await;
        assert_eq!(view["phase"], "racing", "{view}");
        assert_eq!(view["race"]["race_id"], race_id.as_str(), "{view}");
        assert!(holds(&view, before), "{view}");
        assert_eq!(view["you"]["token"], s.token.as_str(), "{view}");
        let elapsed = view["race"]["elapsed_ms"].as_u64().expect("elapsed_ms");
        assert!(
            elapsed < down.as_millis() as u64,
            "the time away is not raced: {view}"
        );
    }
    for s in &mut seats {
        place_all(&mut s.ws, after).await;
    }
    for s in &mut seats {
        let over = s.ws.until("race_over").await;
        assert_eq!(over["race_id"], race_id.as_str(), "{over}");
        let solved = over["standings"]
            .as_array()
            .map(|rows| rows.iter().filter(|r| r["status"] == "solved").count());
        assert_eq!(solved, Some(3), "{over}");
    }
    // The stored race holds every placement each player was told of, in order.
    let (status, race) = get_json(&srv, &format!("/api/races/{race_id}")).await;
    assert_eq!(status, 200, "{race}");
    let placements = race["placements"].as_array().expect("placements");
    for s in &seats {
        let theirs: Vec<(u64, u64, &str)> = placements
            .iter()
            .filter(|p| p["player_id"] == s.player_id.as_str())
            .map(|p| {
                let n = |f: &str| p[f].as_u64().expect(f);
                (
                    n("cell"),
                    n("digit"),
                    p["outcome"].as_str().unwrap_or_default(),
                )
            })
            .collect();
        let told: Vec<(u64, u64, &str)> = fill
            .iter()
            .map(|&(c, d)| (c as u64, u64::from(d), "accepted"))
            .collect();
        assert_eq!(theirs, told, "{}", s.player_id);
    }
}

#[tokio::test]
async fn a_room_its_journal_cannot_keep_on_a_full_disk_races_on_and_never_comes_back_in_part() {
    let dir = tempfile::tempdir().expect("temp dir");
    let small = dir.path().join("small");
    let _mount = Tmpfs::mount(&small, "1m");
    let journal = small.join("journal");
    let mut args = FLAGS.to_vec();
    args.extend(["--journal", journal.to_str().expect("a UTF-8 path")]);
    let srv = Server::start(&args, None);
    let (mut seats, _, puzzle) = three_racing(&srv).await;
    let fill_in = to_fill(&puzzle, &solve(&puzzle));
    let (before, after) = fill_in.split_at(3);
    for s in &mut seats {
        place_all(&mut s.ws, before).await;
    }
    let filler = small.join("filler");
    fill(&filler);
    // The journal's appends fail (within a page or two): the room is given up, and goes on.
    for s in &mut seats {
        place_all(&mut s.ws, &after[..20]).await;
    }
    let given_up = "the room journal cannot keep this room: it goes on without, and would not come back after a crash";
    assert!(srv.logged(given_up).await);
    srv.signal("-KILL");
    std::fs::remove_file(&filler).expect("free the space");
    let srv = srv.restart(&args);
    let open = srv
        .log
        .iter()
        .find(|v| v["fields"]["message"] == "room journal open")
        .expect("the journal opens");
    assert_eq!(open["fields"]["restored"], 0, "{open}");
    let mut ws = player(&srv).await;
    ws.send(json!({"type": "resume", "token": seats[0].token}))
        .await;
    let v = ws.until("error").await;
    assert_eq!(v["code"], "invalid_token", "{v}");
}
