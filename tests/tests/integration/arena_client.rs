//! The terminal client in an arena (A7), end to end, in an arena that runs all day. Two
//! `sudoku-race arena join ID` sessions (the client's `App` on real sessions, driven as the
//! TUI's run loop drives it) join the running arena, are seated together in an arena room
//! (`settings.arena`), race; the results bring the arena's standings, and after a few seconds
//! the clients ask for the next race by themselves and are seated again; `q` leaves the arena.

use client::app::App;
use client::net::{self, Intent};
use crossterm::event::KeyCode;
use protocol::{Phase, ServerMsg};

use crate::driver::Driven;
use crate::support::TestServer;

/// The id of the server's one running arena, from `/api/arenas`.
async fn running_arena(srv: &TestServer) -> String {
    let (status, body) = srv.http_get("/api/arenas").await.expect("the arenas");
    assert!(status.contains("200"), "{status}: {body}");
    let v: serde_json::Value = serde_json::from_str(&body).expect("json");
    let arenas = v["arenas"].as_array().expect("arenas");
    let running = arenas
        .iter()
        .find(|a| a["state"] == "running")
        .unwrap_or_else(|| panic!("a running arena: {v}"));
    running["arena_id"].as_str().expect("an id").to_owned()
}

/// `sudoku-race arena join ID` as `name`, with a registered key.
async fn member(srv: &TestServer, url: &net::ServerUrl, arena_id: &str, name: &str) -> Driven {
    let mut c = srv.client().await;
    c.send(serde_json::json!({"type": "register", "name": name}))
        .await;
    let key = c.expect("registered").await["key"]
        .as_str()
        .expect("a key")
        .to_owned();
    let intent = Intent::Arena {
        arena_id: arena_id.to_owned(),
        name: name.to_owned(),
    };
    let who = net::Identity {
        key: Some(protocol::IdentityKey::from(key)),
        bot: false,
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as i64;
    let app = App::new(name).with_intent(&intent).with_wall_clock(now);
    Driven::connect_as(url, intent, who, app)
}

#[tokio::test]
async fn two_members_race_in_the_arena_see_its_standings_and_are_seated_again_by_themselves() {
    let srv = TestServer::start_with(|c| {
        c.fair_play = false;
        // One that runs all day (only a run across UTC midnight sees it end).
        c.arenas = vec!["Day,easy,1d,1d".parse().expect("an arena")];
    })
    .await;
    let url: net::ServerUrl = srv.url().parse().expect("the test server URL");
    let arena_id = running_arena(&srv).await;

    let mut ann = member(&srv, &url, &arena_id, "ann").await;
    ann.until("arena_joined", |a| a.arena.is_some()).await;
    let mut bob = member(&srv, &url, &arena_id, "bob").await;
    for m in [&mut ann, &mut bob] {
        m.until("an arena room", |a| a.in_arena_room()).await;
        m.until("the race", |a| {
            a.room().is_some_and(|r| r.phase == Phase::Racing) && a.race().is_some()
        })
        .await;
        m.key(KeyCode::Char('f'));
        m.key(KeyCode::Char('f'));
    }
    let first = ann.app.room().map(|r| r.code.clone()).expect("a room");
    for m in [&mut ann, &mut bob] {
        m.until("the results and the standings", |a| {
            a.room().is_some_and(|r| r.results.is_some())
                && a.arena.as_ref().is_some_and(|x| x.standings.len() == 2)
        })
        .await;
    }
    // Nobody presses r: both are seated again within a few seconds, in one new arena room.
    let again = |first: protocol::RoomCode| {
        move |a: &App| a.in_arena_room() && a.room().is_some_and(|r| r.code != first)
    };
    tokio::join!(
        ann.until("seated again", again(first.clone())),
        bob.until("seated again", again(first.clone())),
    );
    assert_eq!(
        ann.app.room().map(|r| r.code.clone()),
        bob.app.room().map(|r| r.code.clone())
    );
    // q leaves the arena (and the room).
    ann.key(KeyCode::Char('q'));
    ann.key(KeyCode::Char('q'));
    assert!(ann.app.quit);
    ann.next_message("left_arena", |m| matches!(m, ServerMsg::LeftArena { .. }))
        .await;
}
