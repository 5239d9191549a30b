//! The HTTP JSON API (Amendment A6) over real sockets and a real SQLite file: every route's
//! answer after a rated race between two registered players (and a daily attempt written
//! through the store), and every route's refusals (`api_schema.rs` holds the answers to the
//! schema `/api/openapi.json` documents). No answer may carry a key.

use serde_json::{json, Value};
use server::store::period::utc_date;
use server::store::{RaceRecord, SeatRecord};

use crate::support::{Client, TestServer};
use testkit::{solve, to_fill};

/// What a test learns of one GET.
pub struct Got {
    pub status: u16,
    cache_control: Option<String>,
    content_type: Option<String>,
    pub body: Value,
}

/// Two registered players, a finished rated race between them and a daily attempt of ann's.
pub struct Raced {
    pub srv: TestServer,
    pub ann: (String, String),
    pub bob: (String, String),
    pub race_id: String,
    pub puzzle: String,
    pub today: String,
    /// Every body seen, to scan for keys at the end.
    pub seen: Vec<String>,
}

impl Raced {
    pub async fn get(&mut self, path: &str) -> Got {
        let got = get(&self.srv, path).await;
        self.seen.push(got.body.to_string());
        got
    }

    /// No body seen carried either key (nor the hex of its hash, for good measure).
    pub fn assert_no_keys(&self) {
        for (key, _) in [&self.ann, &self.bob] {
            let hash: String = server::store::key_hash(key)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            for body in &self.seen {
                assert!(!body.contains(key.as_str()), "a key in {body}");
                assert!(!body.contains(&hash), "a key hash in {body}");
            }
        }
    }
}

pub async fn get(srv: &TestServer, path: &str) -> Got {
    let resp = srv
        .http(&format!("GET {path}"), &[])
        .await
        .expect("an answer");
    let status = resp.status.split(' ').nth(1).and_then(|s| s.parse().ok());
    let body = serde_json::from_slice(&resp.body)
        .unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {:?}", resp.body));
    Got {
        status: status.expect("a status code"),
        cache_control: resp.header("cache-control").map(str::to_owned),
        content_type: resp.header("content-type").map(str::to_owned),
        body,
    }
}

async fn register(c: &mut Client, name: &str) -> (String, String) {
    c.send(json!({"type": "register", "name": name})).await;
    let r = c.expect("registered").await;
    (
        r["key"].as_str().expect("key").to_owned(),
        r["handle"].as_str().expect("handle").to_owned(),
    )
}

/// Ann beats bob in a rated easy race; then a daily attempt of ann's is written to the store.
pub async fn raced() -> Raced {
    let srv = TestServer::start_with(|c| {
        c.fair_play = false;
        // An arena that always runs, for the arena routes.
        c.arenas = vec!["Day,easy,1d,1d".parse().expect("an arena spec")];
    })
    .await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let ann = register(&mut a, "ann").await;
    let bob = register(&mut b, "bob").await;
    a.send(json!({"type": "create_room", "name": "ann", "key": ann.0,
                  "settings": {"difficulty": "easy", "rated": true}}))
        .await;
    let room = a.expect("room_joined").await["room"]
        .as_str()
        .expect("room")
        .to_owned();
    b.send(json!({"type": "join_room", "room": room, "name": "bob", "key": bob.0}))
        .await;
    b.expect("room_joined").await;
    a.send(json!({"type": "start_race"})).await;
    let rs = a.until("race_started").await;
    let puzzle = rs["puzzle"].as_str().expect("puzzle").to_owned();
    let race_id = rs["race_id"].as_str().expect("race_id").to_owned();
    b.until("race_started").await;
    // Bob places a digit: a seat that placed nothing is left out of the rating (A8).
    let (cell, d) = to_fill(&puzzle, &solve(&puzzle))[0];
    b.send(json!({"type": "place", "cell": cell, "digit": d}))
        .await;
    b.expect("placement").await;
    for (cell, d) in to_fill(&puzzle, &solve(&puzzle)) {
        a.send(json!({"type": "place", "cell": cell, "digit": d}))
            .await;
    }
    a.until("player_finished").await;
    b.send(json!({"type": "forfeit"})).await;
    let over = b.until("race_over").await;
    assert_eq!(over["ratings"].as_array().map(Vec::len), Some(2), "{over}");

    // The daily challenge is not open on the wire yet: its attempt goes in through the store.
    #[allow(clippy::disallowed_methods)] // the API's "today" is the wall clock's
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as i64;
    let today = utc_date(now);
    let daily = RaceRecord {
        race_id: "DAILY-1".into(),
        room: "DAYY".into(),
        difficulty: "hard",
        puzzle: puzzle.clone(),
        solution: solve(&puzzle),
        started_unix_ms: now - 90_000,
        duration_ms: 80_000,
        reason: "all_done",
        rated: false,
        daily: Some(today.clone()),
        ghost_of: None,
        standings: vec![protocol::Standing {
            rank: 1,
            player_id: "p1".into(),
            name: "ann".try_into().expect("a name"),
            status: protocol::FinishStatus::Solved,
            time_ms: Some(80_000),
            filled: 40,
            mistakes: 2,
            time_ms_raw: None,
            lag_ms: 0,
            puzzle: None,
            solution: None,
            layout: Default::default(),
        }],
        seats: vec![SeatRecord {
            player_id: "p1".into(),
            handle: Some(ann.1.clone()),
            bot: false,
            flags: Vec::new(),
        }],
        placements: Vec::new(),
    };
    srv.store().save_race(&daily).expect("save the daily");
    Raced {
        srv,
        ann,
        bob,
        race_id,
        puzzle,
        today,
        seen: Vec::new(),
    }
}

#[tokio::test]
async fn every_route_answers_what_the_store_holds() {
    let mut r = raced().await;
    let (ha, hb) = (r.ann.1.clone(), r.bob.1.clone());

    let lb = r.get("/api/leaderboard?difficulty=easy&period=day").await;
    assert_eq!(lb.status, 200, "{}", lb.body);
    assert_eq!(lb.content_type.as_deref(), Some("application/json"));
    assert_eq!(lb.cache_control.as_deref(), Some("no-store"));
    assert_eq!(
        (lb.body["difficulty"].as_str(), lb.body["period"].as_str()),
        (Some("easy"), Some("day"))
    );
    let rows = lb.body["rows"].as_array().expect("rows");
    let order: Vec<_> = rows.iter().map(|row| row["handle"].as_str()).collect();
    assert_eq!(
        order,
        [Some(ha.as_str()), Some(hb.as_str())],
        "winner first"
    );
    assert_eq!(rows[0]["rank"], 1);
    assert_eq!(rows[0]["name"], "ann");
    assert_eq!(
        (rows[0]["races"].as_u64(), rows[0]["wins"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(
        (rows[1]["races"].as_u64(), rows[1]["wins"].as_u64()),
        (Some(1), Some(0))
    );
    assert!(rows[0]["best_time_ms"].is_u64() && rows[1]["best_time_ms"].is_null());
    assert!(rows[0]["rating"].as_f64() > rows[1]["rating"].as_f64());
    let mu = rows[0]["mu"].as_f64().expect("mu");
    let sigma = rows[0]["sigma"].as_f64().expect("sigma");
    let rating = rows[0]["rating"].as_f64().expect("rating");
    assert!(
        (mu - 3.0 * sigma - rating).abs() < 1e-9,
        "rating is mu - 3 sigma"
    );
    // Defaults: medium, all time, where nobody has raced.
    let medium = r.get("/api/leaderboard").await;
    assert_eq!(
        medium.body,
        json!({"difficulty": "medium", "period": "all", "rows": []})
    );
    let second = r
        .get("/api/leaderboard?difficulty=easy&limit=1&offset=1")
        .await;
    assert_eq!(second.body["rows"][0]["handle"], hb.as_str());
    assert_eq!(second.body["rows"][0]["rank"], 2, "rank counts the offset");

    let page = r.get(&format!("/api/players/{ha}")).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(page.body["handle"], ha.as_str());
    assert_eq!(page.body["name"], "ann");
    assert!(page.body["created_unix_ms"].as_i64() > Some(0));
    let ratings = page.body["ratings"].as_array().expect("ratings");
    assert_eq!(ratings.len(), 1, "{ratings:?}");
    assert_eq!(ratings[0]["difficulty"], "easy");
    assert_eq!(ratings[0]["rating"], rows[0]["rating"]);
    // Her best solves (A7): the race she just won, and the daily, which counts too.
    assert_eq!(
        page.body["best"],
        json!({
            "easy": {"time_ms": rows[0]["best_time_ms"], "race_id": r.race_id},
            "hard": {"time_ms": 80_000, "race_id": "DAILY-1"},
        })
    );
    let loser = r.get(&format!("/api/players/{hb}")).await;
    assert_eq!(loser.body["best"], json!({}), "bob solved nothing");

    let hist = r.get(&format!("/api/players/{hb}/races")).await;
    assert_eq!(hist.status, 200, "{}", hist.body);
    assert_eq!(hist.body["handle"], hb.as_str());
    let races = hist.body["races"].as_array().expect("races");
    assert_eq!(races.len(), 1);
    let h = &races[0];
    assert_eq!(h["race_id"], r.race_id.as_str());
    assert_eq!(
        (h["difficulty"].as_str(), h["rated"].as_bool()),
        (Some("easy"), Some(true))
    );
    assert_eq!(
        (h["rank"].as_u64(), h["players"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(h["status"], "forfeited");
    assert!(h["time_ms"].is_null());
    assert!(
        h["rating_after"].as_f64() < h["rating_before"].as_f64(),
        "{h}"
    );
    assert_eq!(h["flags"], json!([]));
    assert!(h["finished_unix_ms"].as_i64() > Some(0));
    // Ann's history: the rated race (just now) and the daily (ten seconds ago), newest first.
    let ann_hist = r.get(&format!("/api/players/{ha}/races?limit=5")).await;
    let ids: Vec<_> = ann_hist.body["races"]
        .as_array()
        .expect("races")
        .iter()
        .map(|h| h["race_id"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(ids, [Some(r.race_id.clone()), Some("DAILY-1".to_owned())]);

    let replay = r.get(&format!("/api/races/{}", r.race_id)).await;
    assert_eq!(replay.status, 200, "{}", replay.body);
    let v = &replay.body;
    assert_eq!(v["race_id"], r.race_id.as_str());
    // A rated race deals every seat its own isomorph (A8): the top level is the race's
    // puzzle, ann's seat (first in the standings) has the one she was dealt.
    let race_puzzle = v["puzzle"].as_str().expect("puzzle");
    assert_eq!(v["solution"], solve(race_puzzle).as_str());
    assert_eq!(v["players"][0]["puzzle"], r.puzzle.as_str());
    assert_eq!(v["players"][0]["solution"], solve(&r.puzzle).as_str());
    assert_ne!(v["players"][1]["puzzle"], r.puzzle.as_str());
    assert_eq!(
        (v["difficulty"].as_str(), v["rated"].as_bool()),
        (Some("easy"), Some(true))
    );
    assert_eq!(
        (v["reason"].as_str(), v["daily"].is_null()),
        (Some("all_done"), true)
    );
    let players = v["players"].as_array().expect("players");
    let handles: Vec<_> = players.iter().map(|p| p["handle"].as_str()).collect();
    assert_eq!(
        handles,
        [Some(ha.as_str()), Some(hb.as_str())],
        "in standings order"
    );
    assert!(players.iter().all(|p| p["bot"] == false));
    let standings = v["standings"].as_array().expect("standings");
    assert_eq!(standings[0]["status"], "solved");
    assert_eq!(standings[1]["status"], "forfeited");
    assert_eq!(standings[0]["player_id"], players[0]["player_id"]);
    let placements = v["placements"].as_array().expect("placements");
    let to_fill = to_fill(&r.puzzle, &solve(&r.puzzle));
    // Ann's solve, and the one digit Bob placed before he forfeited.
    assert_eq!(
        placements.len(),
        to_fill.len() + 1,
        "every placement, all accepted"
    );
    let anns: Vec<&Value> = placements
        .iter()
        .filter(|p| p["player_id"] == players[0]["player_id"])
        .collect();
    assert_eq!(anns.len(), to_fill.len());
    for (p, (cell, digit)) in anns.into_iter().zip(&to_fill) {
        assert_eq!(
            (p["cell"].as_u64(), p["digit"].as_u64()),
            (Some(*cell as u64), Some(u64::from(*digit)))
        );
        assert_eq!(p["outcome"], "accepted");
        assert_eq!(p["player_id"], players[0]["player_id"]);
    }
    let times: Vec<_> = placements.iter().map(|p| p["at_ms"].as_u64()).collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "in order: {times:?}"
    );

    let daily = r.get("/api/daily").await;
    assert_eq!(daily.status, 200, "{}", daily.body);
    assert_eq!(daily.body["date"], r.today.as_str());
    let boards = daily.body["boards"].as_object().expect("boards");
    assert_eq!(
        boards.keys().collect::<Vec<_>>(),
        ["easy", "expert", "hard", "medium"]
    );
    assert_eq!(
        daily.body["boards"]["hard"],
        json!([{"rank": 1, "handle": ha, "name": "ann", "race_id": "DAILY-1",
                "status": "solved", "time_ms": 80_000, "mistakes": 2}])
    );
    assert_eq!(daily.body["boards"]["easy"], json!([]));

    r.assert_no_keys();
}

#[tokio::test]
async fn bad_parameters_unknown_ids_and_wrong_methods() {
    let srv = TestServer::start().await;
    let mut bodies = Vec::new();
    let mut c = srv.client().await;
    let (key, handle) = register(&mut c, "ann").await;
    let long_handle = format!("h{}", "A".repeat(32));
    let long_race = "A".repeat(65);
    let bad = [
        "/api/leaderboard?difficulty=extreme",
        "/api/leaderboard?difficulty=",
        "/api/leaderboard?period=year",
        "/api/leaderboard?limit=101",
        "/api/leaderboard?limit=0",
        "/api/leaderboard?limit=-1",
        "/api/leaderboard?limit=ten",
        "/api/leaderboard?limit=1.5",
        "/api/leaderboard?offset=-1",
        "/api/leaderboard?offset=100001",
        "/api/leaderboard?offset=99999999999999999999",
        "/api/leaderboard?limit=1&limit=2",
        "/api/players/not%0Aname",
        // A8: a path that is no handle is a name; one that is neither is refused.
        "/api/players/%E2%80%8B",
        &format!("/api/players/{long_handle}"),
        "/api/players/h%ZZ",
        "/api/players/hABC/races?limit=101",
        "/api/players/hABC/races?offset=x",
        "/api/players/b%00d/races",
        &format!("/api/races/{long_race}"),
        "/api/races/a_b",
        "/api/races/a%2Fb",
        "/api/races/a.b",
    ];
    for path in bad {
        let got = get(&srv, path).await;
        assert_eq!(got.status, 400, "{path}: {}", got.body);
        assert!(
            got.body["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{path}: {}",
            got.body
        );
        assert_eq!(
            got.content_type.as_deref(),
            Some("application/json"),
            "{path}"
        );
        assert_eq!(got.cache_control.as_deref(), Some("no-store"), "{path}");
        bodies.push(got.body.to_string());
    }
    let over = get(&srv, "/api/leaderboard?limit=101").await;
    assert!(
        over.body["error"]
            .as_str()
            .is_some_and(|e| e.contains("not clamped")),
        "{}",
        over.body
    );
    // Unknown parameters are ignored; the edges of the ranges are fine.
    for ok in [
        "/api/leaderboard?limit=100&offset=100000&colour=blue",
        "/api/leaderboard?limit=1&offset=0",
        &format!("/api/players/{handle}/races?limit=100"),
        &format!("/api/players/{handle}?x"),
    ] {
        let got = get(&srv, ok).await;
        assert_eq!(got.status, 200, "{ok}: {}", got.body);
        bodies.push(got.body.to_string());
    }
    let not_found = [
        "/api/players/hZZZZZZZ",
        "/api/players/hZZZZZZZ/races",
        "/api/races/ABCD-0000000000000000",
        "/api",
        "/api/",
        "/api/nope",
        "/api/players/hABC/races/extra",
    ];
    for path in not_found {
        let got = get(&srv, path).await;
        assert_eq!(got.status, 404, "{path}: {}", got.body);
        assert!(got.body["error"].is_string(), "{path}: {}", got.body);
        bodies.push(got.body.to_string());
    }
    for line in [
        "POST /api/leaderboard",
        "DELETE /api/players/hABCDEFG",
        "PUT /api/daily",
    ] {
        let resp = srv
            .http(line, &[("Content-Length", "0")])
            .await
            .expect("an answer");
        assert!(
            resp.status.starts_with("HTTP/1.1 405"),
            "{line}: {}",
            resp.status
        );
        assert_eq!(resp.header("allow"), Some("GET, HEAD"), "{line}");
        let body: Value = serde_json::from_slice(&resp.body).expect("JSON");
        assert!(body["error"].is_string(), "{line}: {body}");
    }
    let head = srv
        .http("HEAD /api/leaderboard", &[])
        .await
        .expect("an answer");
    assert!(head.status.starts_with("HTTP/1.1 200"), "{}", head.status);
    assert!(head.body.is_empty(), "HEAD has no body");
    assert!(
        bodies.iter().all(|b| !b.contains(&key)),
        "a key in an answer"
    );
}

#[tokio::test]
async fn a_failing_store_is_a_500_that_says_only_internal() {
    let srv = TestServer::start().await;
    // Once a client is welcome the server has opened its store; break it under the server.
    let _c = srv.client().await;
    let db = rusqlite::Connection::open(&srv.db).expect("open the db");
    db.execute_batch("DROP TABLE placements; DROP TABLE standings; DROP TABLE races;")
        .expect("drop the race tables");
    let got = get(&srv, "/api/races/ABCD-0000000000000000").await;
    assert_eq!(got.status, 500, "{}", got.body);
    assert_eq!(got.body, json!({"error": "internal"}));
    assert_eq!(got.cache_control.as_deref(), Some("no-store"));
}
