//! Amendment A8's moderation and rating rules over real sockets and a real SQLite: the admin
//! API's 404/401/405/200, bans (unrated, off the boards, history kept, restored by an unban),
//! reports (kept once, refused for oneself and strangers), races that move no rating, and
//! names (the board shows the latest, the player pages take one).

use serde_json::{json, Value};

use crate::support::rated::{
    admin, admin_server, call, join, race, rated_room, register, start, TOKEN,
};
use crate::support::{Client, TestServer};

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
