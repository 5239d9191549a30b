//! Delayed boards and TV (A8) over real sockets: a spectator that asked for `boards` never
//! sees a board newer than `--spectator-delay-s` while the race runs (each board is checked
//! against the placement log the race stored, and the order of events proves the delay), gets
//! every final board at `race_over`; a plain spectator gets no `board`; `/api/tv` names the
//! strongest public race running and answers 404 when none runs.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{json, Value};
use server::store::{PlacementRecord, RaceRecord, SeatRecord};

use crate::support::{ann_and_bob, Client, TestServer};
use testkit::{solve, to_fill};

/// The delay the tests run with: short, so the race need not wait 30 s.
const DELAY: Duration = Duration::from_secs(1);

async fn spectate(srv: &TestServer, room: &str, name: &str, boards: bool) -> Client {
    let mut c = srv.client().await;
    c.send(json!({"type": "spectate", "room": room, "name": name, "boards": boards}))
        .await;
    c.expect("room_joined").await;
    c
}

/// `board` on `cell` of the 81-character grid `board`.
fn at(board: &Value, cell: usize) -> u8 {
    board["board"].as_str().expect("a grid").as_bytes()[cell]
}

/// `puzzle` with `player`'s accepted placements before race time `upto_ms`.
fn replayed(puzzle: &str, placements: &[Value], player: &str, upto_ms: u64) -> String {
    let mut grid = puzzle.as_bytes().to_vec();
    for p in placements {
        let mine = p["player_id"] == player && p["outcome"] == "accepted";
        if mine && p["at_ms"].as_u64().expect("at_ms") < upto_ms {
            let cell = p["cell"].as_u64().expect("cell") as usize;
            grid[cell] = b'0' + p["digit"].as_u64().expect("digit") as u8;
        }
    }
    String::from_utf8(grid).expect("ascii")
}

#[tokio::test]
async fn boards_spectators_see_delayed_boards_then_the_final_ones() {
    let srv = TestServer::start_with(|c| {
        c.spectator_delay = DELAY;
        c.fair_play = false;
    })
    .await;
    let (mut ann, mut bob, room) = ann_and_bob(&srv, json!({"difficulty": "easy"})).await;
    let mut tv = spectate(&srv, &room, "tv", true).await;
    let mut plain = spectate(&srv, &room, "plain", false).await;
    ann.send(json!({"type": "start_race"})).await;
    let started = ann.until("race_started").await;
    bob.until("race_started").await;
    let race_id = started["race_id"].as_str().expect("race_id").to_owned();
    let puzzle = started["puzzle"].as_str().expect("puzzle").to_owned();
    let cells = to_fill(&puzzle, &solve(&puzzle));
    let (a, da) = cells[0];

    ann.send(json!({"type": "place", "cell": a, "digit": da}))
        .await;
    assert_eq!(ann.until("placement").await["accepted"], true);
    let ann_id = own_id(&mut ann).await;
    // The spectator waits until ann's digit shows on her delayed board.
    let mut seen = Vec::new();
    loop {
        let m = tv.recv().await.expect("the boards come");
        let shows = m["type"] == "board" && m["player_id"] == ann_id && at(&m, a) != b'.';
        seen.push(m);
        if shows {
            break;
        }
    }
    // Only now her second digit and bob's first: the board that showed the first digit was
    // sent at least the delay after it, so the second comes at least the delay after the first.
    let (b, db) = cells[1];
    ann.send(json!({"type": "place", "cell": b, "digit": db}))
        .await;
    ann.until("placement").await;
    bob.send(json!({"type": "place", "cell": a, "digit": da}))
        .await;
    bob.until("placement").await;
    ann.send(json!({"type": "forfeit"})).await;
    bob.send(json!({"type": "forfeit"})).await;
    seen.extend(tv.collect_until("race_over").await);
    let over = seen.pop().expect("race_over");
    let mut finals = Vec::new();
    for _ in 0..2 {
        finals.push(tv.expect("board").await);
    }
    let mut plain_saw = plain.collect_until("race_over").await;
    plain_saw.extend_from_slice(&plain.sync().await);
    assert!(
        plain_saw.iter().all(|m| m["type"] != "board"),
        "a plain spectator gets no board: {plain_saw:?}"
    );

    let replay = crate::http::api::get(&srv, &format!("/api/races/{race_id}")).await;
    let placements = replay.body["placements"].as_array().expect("placements");
    let when = |player: &str, cell: usize| {
        placements
            .iter()
            .find(|p| p["player_id"] == player && p["cell"] == cell && p["outcome"] == "accepted")
            .and_then(|p| p["at_ms"].as_u64())
            .expect("the placement is stored")
    };
    let delay_ms = DELAY.as_millis() as u64;
    assert!(
        when(&ann_id, b) >= when(&ann_id, a) + delay_ms,
        "a digit showed before the delay passed: {placements:?}"
    );
    let boards: Vec<&Value> = seen.iter().filter(|m| m["type"] == "board").collect();
    assert!(boards.len() >= 3, "the start and ann's digit: {boards:?}");
    for m in boards {
        let (who, upto) = (
            m["player_id"].as_str().expect("player"),
            m["at_ms"].as_u64().expect("at_ms"),
        );
        assert_eq!(
            m["board"].as_str(),
            Some(replayed(&puzzle, placements, who, upto).as_str()),
            "a racing board is the log up to its at_ms: {m}"
        );
    }
    let duration = replay.body["duration_ms"].as_u64().expect("duration");
    let standings = over["standings"].as_array().expect("standings");
    assert_eq!(finals.len(), standings.len());
    for f in &finals {
        let who = f["player_id"].as_str().expect("player");
        assert_eq!(
            f["board"].as_str(),
            Some(replayed(&puzzle, placements, who, u64::MAX).as_str()),
            "the final board: {f}"
        );
        assert_eq!(f["at_ms"].as_u64(), Some(duration));
    }
}

/// A player's id, from the `progress` its accepted placement just caused.
async fn own_id(c: &mut Client) -> String {
    let p = c.until("progress").await;
    p["player_id"].as_str().expect("player_id").to_owned()
}

/// Register a player on its own connection: (connection, key, handle).
async fn registered(srv: &TestServer, name: &str) -> (Client, String, String) {
    let mut c = srv.client().await;
    c.send(json!({"type": "register", "name": name})).await;
    let r = c.expect("registered").await;
    let (key, handle) = (r["key"].as_str(), r["handle"].as_str());
    let (key, handle) = (
        key.expect("key").to_owned(),
        handle.expect("handle").to_owned(),
    );
    (c, key, handle)
}

/// A race of one, created by `c` (with `key`, if any) and started; its room code.
async fn race_alone(c: &mut Client, key: Option<&str>, public: bool) -> String {
    c.send(json!({"type": "create_room", "name": "solo", "key": key,
                  "settings": {"difficulty": "easy", "public": public}}))
        .await;
    let room = c.expect("room_joined").await["room"]
        .as_str()
        .expect("room")
        .to_owned();
    c.send(json!({"type": "start_race"})).await;
    c.until("race_started").await;
    room
}

/// A stored rated race: `order` finished in this order (all but the last solved, the last
/// timed out with a digit placed), so their ratings differ.
fn rated_race(order: &[&str]) -> RaceRecord {
    let solved = |i: usize| i + 1 < order.len();
    let puzzle =
        "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
            .to_owned();
    let standings = order
        .iter()
        .enumerate()
        .map(|(i, _)| protocol::Standing {
            rank: i as u32 + 1,
            player_id: format!("p{i}").into(),
            name: format!("n{i}").as_str().try_into().expect("a name"),
            status: if solved(i) {
                protocol::FinishStatus::Solved
            } else {
                protocol::FinishStatus::TimedOut
            },
            time_ms: solved(i).then_some(60_000 + 10_000 * i as u64),
            filled: if solved(i) { 40 } else { 1 },
            mistakes: 0,
            time_ms_raw: solved(i).then_some(60_000 + 10_000 * i as u64),
            lag_ms: 0,
            puzzle: None,
            solution: None,
            layout: Default::default(),
        })
        .collect();
    let seats = order
        .iter()
        .enumerate()
        .map(|(i, h)| SeatRecord {
            player_id: format!("p{i}"),
            handle: Some((*h).to_owned()),
            bot: false,
            flags: Vec::new(),
        })
        .collect();
    RaceRecord {
        race_id: "OLD-1".into(),
        room: "OLDD".into(),
        difficulty: "easy",
        solution: solve(&puzzle),
        puzzle,
        started_unix_ms: 1_700_000_000_000,
        duration_ms: 70_000,
        reason: "time_limit",
        rated: true,
        daily: None,
        ghost_of: None,
        standings,
        seats,
        // Each seat placed a digit: a seat that placed nothing is left out of the rating (A8).
        placements: (0..order.len())
            .map(|i| PlacementRecord {
                player_id: format!("p{i}"),
                at_ms: 1_000,
                cell: 0,
                digit: 1,
                outcome: "wrong",
            })
            .collect(),
    }
}

#[tokio::test]
async fn tv_names_the_strongest_public_race_running() {
    let srv = TestServer::start_with(|c| c.fair_play = false).await;
    let none = crate::http::api::get(&srv, "/api/tv").await;
    assert_eq!(
        (none.status, &none.body["error"]),
        (404, &json!("no public race is running"))
    );

    let (mut erin, ke, he) = registered(&srv, "erin").await;
    let (mut ann, ka, ha) = registered(&srv, "ann").await;
    let (mut bob, kb, hb) = registered(&srv, "bob").await;
    srv.store()
        .save_race(&rated_race(&[&he, &ha, &hb]))
        .expect("store a rated race");
    let mut rating = HashMap::new();
    for h in [&he, &ha, &hb] {
        let page = crate::http::api::get(&srv, &format!("/api/players/{h}")).await;
        let r = page.body["ratings"][0]["rating"].as_f64().expect("rated");
        rating.insert(h.clone(), r);
    }
    assert!(
        rating[&he] > rating[&ha] && rating[&ha] > rating[&hb],
        "{rating:?}"
    );

    // Erin, the strongest, races privately: never shown. An anonymous race ranks last.
    let hidden = race_alone(&mut erin, Some(&ke), false).await;
    let r_ann = race_alone(&mut ann, Some(&ka), true).await;
    let r_bob = race_alone(&mut bob, Some(&kb), true).await;
    let mut anon = srv.client().await;
    let r_anon = race_alone(&mut anon, None, true).await;
    let expected = &r_ann;
    // Each race's rating is looked up as it starts, off the room's task: ask until it lands.
    let mut named = Vec::new();
    for _ in 0..200 {
        let got = crate::http::api::get(&srv, "/api/tv").await;
        assert_eq!(got.status, 200, "{}", got.body);
        let room = got.body["room"].as_str().expect("room").to_owned();
        assert_eq!(got.body, json!({"room": room}));
        named.push(room.clone());
        if room == *expected {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(
        named.last(),
        Some(expected),
        "{named:?} {r_ann} {r_bob} {r_anon} {hidden} {rating:?} {ha} {hb}"
    );
    assert!(
        !named.contains(&hidden),
        "a private race is never shown: {named:?}"
    );
    assert_ne!(expected, &r_anon);

    // Every race ends: none runs.
    for c in [&mut erin, &mut ann, &mut bob, &mut anon] {
        c.send(json!({"type": "forfeit"})).await;
        c.until("race_over").await;
    }
    assert_eq!(crate::http::api::get(&srv, "/api/tv").await.status, 404);
}
