//! Amendment A8's moderation and rating rules over real sockets and a real SQLite: the admin
//! API's 404/401/405/200, bans (unrated, off the boards, history kept, restored by an unban),
//! reports (kept once, refused for oneself and strangers), races that move no rating, and
//! names (the board shows the latest, the player pages take one).

use serde_json::{json, Value};

use crate::identity::{place_one, rated_room, register, solve_all, start};
use crate::support::{Client, HttpResponse, TestServer};

pub const TOKEN: &str = "moderators-only-0123456789abcdef";

/// A server with the admin API, fair play `fair_play`.
pub async fn admin_server(fair_play: bool) -> TestServer {
    TestServer::start_with(|c| {
        c.fair_play = fair_play;
        c.admin_token = server::config::AdminToken::new(TOKEN);
    })
    .await
}

/// `line` (`GET /api/…`) with `auth` as the Authorization header, if any: status and body.
pub async fn call(srv: &TestServer, line: &str, auth: Option<&str>) -> (u16, Value, HttpResponse) {
    let headers: Vec<(&str, &str)> = auth.map(|a| ("Authorization", a)).into_iter().collect();
    let resp = srv.http(line, &headers).await.expect("an answer");
    let status = resp
        .status
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let body = serde_json::from_slice(&resp.body).unwrap_or(Value::Null);
    (status, body, resp)
}

pub async fn admin(srv: &TestServer, line: &str) -> (u16, Value) {
    let bearer = format!("Bearer {TOKEN}");
    let (status, body, _) = call(srv, line, Some(&bearer)).await;
    (status, body)
}

/// A rated race in `room` of `host` (who solves) against `others` (each places one digit,
/// then forfeits); the `race_over` the host sees.
pub async fn race(host: &mut Client, others: &mut [&mut Client]) -> Value {
    // A rated race deals each seat its own isomorph (A8): the host's puzzle first.
    let (_, puzzles) = start(host, others).await;
    for (o, puzzle) in others.iter_mut().zip(&puzzles[1..]) {
        place_one(o, puzzle).await;
    }
    solve_all(host, &puzzles[0]).await;
    host.until("player_finished").await;
    for o in others.iter_mut() {
        o.send(json!({"type": "forfeit"})).await;
    }
    host.until("race_over").await
}

fn handles(over: &Value) -> Vec<String> {
    let mut h: Vec<String> = over["ratings"]
        .as_array()
        .expect("ratings")
        .iter()
        .map(|r| r["handle"].as_str().expect("handle").to_owned())
        .collect();
    h.sort();
    h
}

/// `c` opens a rated easy room as `name`; its code.
async fn open_room(c: &mut Client, name: &str, key: &str) -> String {
    c.send(json!({"type": "create_room", "name": name, "key": key,
                  "settings": {"difficulty": "easy", "rated": true}}))
        .await;
    let joined = c.until("room_joined").await;
    joined["room"].as_str().expect("room code").to_owned()
}

pub async fn join(c: &mut Client, room: &str, name: &str, key: &str) {
    c.send(json!({"type": "join_room", "room": room, "name": name, "key": key}))
        .await;
    c.until("room_joined").await;
}

#[tokio::test]
async fn the_admin_api_is_absent_without_its_flag_and_closed_without_its_token() {
    let plain = TestServer::start().await;
    let bearer = format!("Bearer {TOKEN}");
    let (status, _, _) = call(&plain, "GET /api/admin/flags", Some(&bearer)).await;
    assert_eq!(status, 404, "no --admin-token-file: no admin API");

    let srv = admin_server(true).await;
    for auth in [
        None,
        Some("Bearer wrong"),
        Some("Basic bW9kOnM="),
        Some(TOKEN),
    ] {
        let (status, body, resp) = call(&srv, "GET /api/admin/flags", auth).await;
        assert_eq!(status, 401, "{auth:?}: {body}");
        assert_eq!(resp.header("www-authenticate"), Some("Bearer"));
    }
    let (status, _, _) = call(&srv, "POST /api/admin/players/hNOPE/ban", None).await;
    assert_eq!(status, 401);
    assert_eq!(admin(&srv, "GET /api/admin/players/hNOPE/ban").await.0, 405);
    assert_eq!(
        admin(&srv, "POST /api/admin/players/hNOPE/ban").await.0,
        404
    );
    assert_eq!(admin(&srv, "POST /api/admin/players/x!/ban").await.0, 400);
    assert_eq!(admin(&srv, "GET /api/admin/nothing").await.0, 404);
    assert_eq!(
        admin(&srv, "GET /api/admin/flags").await,
        (200, json!({"flags": []}))
    );

    // A machine's solve is too fast for a human: flagged, and listed for the moderators.
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let (ka, ha) = register(&mut a, "ann").await;
    let (kb, _) = register(&mut b, "bob").await;
    let room = rated_room(&mut a, &ka).await;
    join(&mut b, &room, "bob", &kb).await;
    let over = race(&mut a, &mut [&mut b]).await;
    assert_eq!(
        over["ratings"],
        json!([]),
        "one clean seat is no rated race"
    );
    let (status, flags) = admin(&srv, "GET /api/admin/flags?limit=5").await;
    assert_eq!(status, 200);
    let row = &flags["flags"][0];
    assert_eq!(
        (row["handle"].as_str(), row["name"].as_str()),
        (Some(ha.as_str()), Some("ann"))
    );
    assert!(
        row["flags"]
            .as_array()
            .expect("flags")
            .contains(&json!("too_fast")),
        "{row}"
    );
    assert_eq!(row["race_id"], over["race_id"]);

    // The token is in no answer and no metric.
    let (_, metrics) = srv.http_get("/metrics").await.expect("metrics");
    assert!(!metrics.contains(TOKEN));
}

#[tokio::test]
async fn a_ban_makes_races_unrated_and_hides_the_player_until_the_unban() {
    let srv = admin_server(false).await;
    let (mut a, mut b, mut c) = (srv.client().await, srv.client().await, srv.client().await);
    let (ka, ha) = register(&mut a, "ann").await;
    let (kb, hb) = register(&mut b, "bob").await;
    let (kc, hc) = register(&mut c, "cid").await;
    let room = rated_room(&mut a, &ka).await;
    join(&mut b, &room, "bob", &kb).await;
    let over = race(&mut a, &mut [&mut b]).await;
    assert_eq!(handles(&over), sorted([&ha, &hb]));

    let (status, body) = admin(&srv, &format!("POST /api/admin/players/{ha}/ban")).await;
    assert_eq!((status, body), (200, json!({"handle": ha, "banned": true})));
    let board = srv.get_json("/api/leaderboard?difficulty=easy").await;
    let on_board: Vec<&str> = board["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["handle"].as_str().unwrap())
        .collect();
    assert_eq!(
        on_board,
        [hb.as_str()],
        "the banned player is off the board"
    );
    let races = srv.get_json(&format!("/api/players/{ha}/races")).await;
    assert_eq!(
        races["races"].as_array().map(Vec::len),
        Some(1),
        "the history stays"
    );

    // With the banned player and one other, the race is unrated from the start (fresh
    // connections: the first pair still sits in its finished room).
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let room = rated_room(&mut a, &ka).await;
    join(&mut b, &room, "bob", &kb).await;
    let (rs, _) = start(&mut a, &mut [&mut b]).await;
    assert_eq!(
        rs["rated"], false,
        "a banned player does not count towards a rated race"
    );
    // With two others, it is rated without the banned player (Bob solves: a race no rated
    // seat solved moves no rating).
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let room = open_room(&mut b, "bob", &kb).await;
    join(&mut a, &room, "ann", &ka).await;
    join(&mut c, &room, "cid", &kc).await;
    let over = race(&mut b, &mut [&mut a, &mut c]).await;
    assert_eq!(handles(&over), sorted([&hb, &hc]));

    let (status, _) = admin(&srv, &format!("POST /api/admin/players/{ha}/unban")).await;
    assert_eq!(status, 200);
    let board = srv.get_json("/api/leaderboard?difficulty=easy").await;
    assert!(
        board["rows"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["handle"] == ha.as_str()),
        "{board}"
    );
}

fn sorted(h: [&String; 2]) -> Vec<String> {
    let mut v: Vec<String> = h.iter().map(|s| (*s).clone()).collect();
    v.sort();
    v
}

#[tokio::test]
async fn reports_are_kept_once_and_refused_for_oneself_and_strangers() {
    let srv = admin_server(false).await;
    let (mut a, mut b, mut w) = (srv.client().await, srv.client().await, srv.client().await);
    let (ka, ha) = register(&mut a, "ann").await;
    let (kb, hb) = register(&mut b, "bob").await;
    let room = rated_room(&mut a, &ka).await;
    join(&mut b, &room, "bob", &kb).await;
    w.send(json!({"type": "spectate", "room": room, "name": "wes"}))
        .await;
    w.expect("room_joined").await;
    let over = race(&mut a, &mut [&mut b]).await;
    let ann_id = over["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "ann")
        .expect("ann")["player_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for _ in 0..2 {
        b.send(json!({"type": "report", "player_id": ann_id, "reason": "inhumanly quick"}))
            .await;
        assert_eq!(b.until("reported").await["player_id"], ann_id.as_str());
    }
    w.send(json!({"type": "report", "player_id": ann_id, "reason": "watched it"}))
        .await;
    w.until("reported").await;
    a.send(json!({"type": "report", "player_id": ann_id, "reason": "me"}))
        .await;
    a.expect_error("bad_message").await;
    b.send(json!({"type": "report", "player_id": "nobody", "reason": "who"}))
        .await;
    b.expect_error("bad_message").await;
    for reason in [String::new(), "x".repeat(201), "two\nlines".into()] {
        b.send(json!({"type": "report", "player_id": ann_id, "reason": reason}))
            .await;
        b.expect_error("bad_message").await;
    }
    let (status, body) = admin(&srv, "GET /api/admin/reports").await;
    assert_eq!(status, 200);
    let reports = body["reports"].as_array().expect("reports");
    assert_eq!(
        reports.len(),
        2,
        "one per reporter, target and race: {body}"
    );
    let bob = reports
        .iter()
        .find(|r| r["reporter_name"] == "bob")
        .expect("bob's");
    assert_eq!(
        (
            bob["reporter_handle"].as_str(),
            bob["handle"].as_str(),
            bob["name"].as_str()
        ),
        (Some(hb.as_str()), Some(ha.as_str()), Some("ann"))
    );
    assert_eq!(
        (bob["room"].as_str(), bob["race_id"].clone()),
        (Some(room.as_str()), over["race_id"].clone())
    );
    assert_eq!(bob["reason"], "inhumanly quick");
    let wes = reports
        .iter()
        .find(|r| r["reporter_name"] == "wes")
        .expect("wes's");
    assert!(wes["reporter_handle"].is_null());
}

#[tokio::test]
async fn a_rated_race_everyone_forfeits_with_nothing_placed_moves_no_rating() {
    let srv = TestServer::start_with(|c| c.fair_play = false).await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let (ka, _) = register(&mut a, "ann").await;
    let (kb, _) = register(&mut b, "bob").await;
    let room = rated_room(&mut a, &ka).await;
    join(&mut b, &room, "bob", &kb).await;
    let (rs, _) = start(&mut a, &mut [&mut b]).await;
    assert_eq!(rs["rated"], true);
    a.send(json!({"type": "forfeit"})).await;
    b.send(json!({"type": "forfeit"})).await;
    let over = a.until("race_over").await;
    assert_eq!(over["ratings"], json!([]), "{over}");
    assert!(srv.store().ratings().expect("ratings").is_empty());
    let board = srv.get_json("/api/leaderboard?difficulty=easy").await;
    assert_eq!(board["rows"], json!([]));
}

#[tokio::test]
async fn the_board_shows_the_latest_name_and_pages_take_a_name() {
    let srv = TestServer::start_with(|c| c.fair_play = false).await;
    let (mut a, mut b, mut c) = (srv.client().await, srv.client().await, srv.client().await);
    let (ka, ha) = register(&mut a, "ann").await;
    let (kb, hb) = register(&mut b, "bob").await;
    let (kc, hc) = register(&mut c, "cid").await;
    // Ann registered as "ann" and races as "Annie Oak": the board says "Annie Oak".
    a.send(
        json!({"type": "create_room", "name": "Annie Oak", "key": ka,
                  "settings": {"difficulty": "easy", "rated": true}}),
    )
    .await;
    let room = a.expect("room_joined").await["room"]
        .as_str()
        .unwrap()
        .to_owned();
    join(&mut b, &room, "bob", &kb).await;
    race(&mut a, &mut [&mut b]).await;
    let board = srv.get_json("/api/leaderboard?difficulty=easy").await;
    let row = board["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["handle"] == ha.as_str())
        .cloned()
        .expect("ann");
    assert_eq!(row["name"], "Annie Oak");
    let page = srv.get_json("/api/players/Annie%20Oak").await;
    assert_eq!(
        (page["handle"].as_str(), page["name"].as_str()),
        (Some(ha.as_str()), Some("Annie Oak"))
    );
    let races = srv.get_json("/api/players/Annie%20Oak/races").await;
    assert_eq!(races["handle"], ha.as_str());
    // The terminal client's `history` asks the same way.
    let url: client::net::ServerUrl = srv.url().parse().expect("url");
    let to = client::net::Endpoint::from(&url);
    let path = format!("/api/players/{}", client::api::path_segment("Annie Oak"));
    let v = client::api::get(&to, &path)
        .await
        .expect("the page by name");
    assert_eq!(v["handle"], ha.as_str());
    // Cid goes by "bob" too: the name is ambiguous, the answer lists both handles.
    let mut a = srv.client().await;
    let room = rated_room(&mut a, &ka).await;
    join(&mut c, &room, "bob", &kc).await;
    race(&mut a, &mut [&mut c]).await;
    let (status, body, _) = call(&srv, "GET /api/players/bob", None).await;
    assert_eq!(status, 409, "{body}");
    let mut both = vec![hb.clone(), hc.clone()];
    both.sort();
    assert_eq!(body["handles"], json!(both));
    assert_eq!(call(&srv, "GET /api/players/Nobody", None).await.0, 404);
}
