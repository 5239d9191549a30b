//! `--db postgres://…`: a rated race played on the real binary lands in a fresh PostgreSQL
//! database, where another node (a second store on the same database) reads it back, and the
//! HTTP API answers from it.

use serde_json::json;
use server::store::postgres::scratch::ScratchDb;
use server::{PgStore, Store as _};

use crate::support::process::{get_json, player, register, two_in_a_room, Server};
use testkit::{solve, to_fill};

#[tokio::test]
async fn a_rated_race_lands_in_postgres_and_the_api_answers_from_it() {
    let db = ScratchDb::create().expect("a scratch database: is PostgreSQL on 127.0.0.1:5432?");
    let url = db.url();
    let srv = Server::start_with_db(
        &url,
        &[
            "--countdown-ms",
            "10",
            "--puzzle-stock",
            "1",
            "--fair-play",
            "false",
            // Ann fills the grid as fast as she can send.
            "--rate-limit",
            "1000",
            "--rate-burst",
            "1000",
        ],
    );
    let listening = srv.log.last().expect("the listening line");
    let named = listening["fields"]["db"].as_str().expect("db");
    assert!(named.starts_with("postgres://127.0.0.1"), "{named}");

    let (mut a, mut b) = (player(&srv).await, player(&srv).await);
    let ann = register(&mut a, "ann").await;
    let bob = register(&mut b, "bob").await;
    two_in_a_room(
        (
            &mut a,
            json!({"type": "create_room", "name": "ann", "key": ann.0,
                   "settings": {"difficulty": "easy", "rated": true}}),
        ),
        (
            &mut b,
            json!({"type": "join_room", "name": "bob", "key": bob.0}),
        ),
    )
    .await;
    a.send(json!({"type": "start_race"})).await;
    let rs = a.until("race_started").await;
    let race_id = rs["race_id"].as_str().expect("race_id").to_owned();
    let puzzle = rs["puzzle"].as_str().expect("puzzle").to_owned();
    let mut blanks = 0;
    for (cell, digit) in to_fill(&puzzle, &solve(&puzzle)) {
        blanks += 1;
        a.send(json!({"type": "place", "cell": cell, "digit": digit}))
            .await;
    }
    // Bob places one digit of his own isomorph first: a seat that placed nothing is left
    // out of the rating (A8).
    let bobs = b.until("race_started").await;
    let bobs = bobs["puzzle"].as_str().expect("bob's puzzle").to_owned();
    let (cell, digit) = to_fill(&bobs, &solve(&bobs))[0];
    b.send(json!({"type": "place", "cell": cell, "digit": digit}))
        .await;
    b.until("placement").await;
    a.until("player_finished").await;
    b.send(json!({"type": "forfeit"})).await;
    let over = b.until("race_over").await;
    assert_eq!(over["ratings"].as_array().map(Vec::len), Some(2), "{over}");

    // Another node's view: a second store on the same database.
    let (id, ha) = (race_id.clone(), ann.1.clone());
    let stored = tokio::task::spawn_blocking(move || {
        let other = PgStore::open(&url).expect("a second node opens the database");
        let standings = other.standings(&id).expect("standings");
        let reason = other.race_reason(&id).expect("reason");
        let placements = other.placement_count(&id).expect("placements");
        let page = other.player(&ha).expect("player").expect("ann is stored");
        let secret = other.daily_secret("not this one").expect("secret");
        (standings, reason, placements, page, secret)
    })
    .await
    .expect("no panic");
    let (standings, reason, placements, page, secret) = stored;
    let names: Vec<(&str, &str)> = standings
        .iter()
        .map(|s| (s.name.as_str(), s.status.as_str()))
        .collect();
    assert_eq!(names, [("ann", "solved"), ("bob", "forfeited")]);
    assert_eq!(reason.as_deref(), Some("all_done"));
    assert_eq!(placements, blanks + 1, "ann's and bob's one");
    assert_eq!(page.ratings.len(), 1);
    assert_eq!(page.ratings[0].stats.wins, 1);
    assert_eq!(secret.len(), 64, "the server kept its own daily secret");

    let (status, lb) = get_json(&srv, "/api/leaderboard?difficulty=easy&period=day").await;
    assert_eq!(status, 200, "{lb}");
    let text = lb.to_string();
    let (at_ann, at_bob) = (text.find(&ann.1), text.find(&bob.1));
    assert!(
        matches!((at_ann, at_bob), (Some(x), Some(y)) if x < y),
        "ann above bob: {lb}"
    );
    let (status, race) = get_json(&srv, &format!("/api/races/{race_id}")).await;
    assert_eq!(status, 200, "{race}");
    let text = race.to_string();
    assert!(text.contains(&race_id) && text.contains(&puzzle), "{race}");
    drop(srv);
    drop(db);
}
