//! Registered players through the terminal client: its HTTP tables after a rated race, and
//! its key file (registered once, owner-only, reused).

use engine::Difficulty;
use serde_json::{json, Value};

use crate::support::rated::{place_one, register, solve_all, start};
use crate::support::TestServer;

#[tokio::test]
async fn registered_players_race_rated_and_the_winner_gains() {
    // A machine solves in milliseconds, which fair play rightly flags: off for this race.
    let srv = TestServer::start_with(|c| c.fair_play = false).await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let (ka, ha) = register(&mut a, "ann").await;
    let (kb, hb) = register(&mut b, "bob").await;
    assert_eq!(ka.len(), 64, "256 bits as hex");
    assert!(ka.chars().all(|c| c.is_ascii_hexdigit()));
    assert!(ha.starts_with('h') && ha.len() == 8, "{ha}");
    assert_ne!(ha, hb);

    a.send(json!({"type": "create_room", "name": "ann", "key": ka,
                  "settings": {"difficulty": "easy", "rated": true}}))
        .await;
    let j = a.expect("room_joined").await;
    assert_eq!(j["settings"]["rated"], true);
    assert_eq!(j["players"][0]["handle"], ha.as_str());
    assert_eq!(j["players"][0]["bot"], false);
    let room = j["room"].as_str().unwrap().to_owned();
    b.send(json!({"type": "join_room", "room": room, "name": "bob", "key": kb}))
        .await;
    b.expect("room_joined").await;
    let pj = a.expect("player_joined").await;
    assert_eq!(pj["player"]["handle"], hb.as_str());

    let (rs, puzzles) = start(&mut a, &mut [&mut b]).await;
    assert_eq!(rs["rated"], true);
    place_one(&mut b, &puzzles[1]).await;
    solve_all(&mut a, &puzzles[0]).await;
    a.until("player_finished").await;
    b.send(json!({"type": "forfeit"})).await;
    let over = b.until("race_over").await;
    let ratings = over["ratings"].as_array().expect("ratings");
    assert_eq!(ratings.len(), 2, "{over}");
    let of = |h: &str| {
        let r = ratings.iter().find(|r| r["handle"] == h).expect("a rating");
        (r["before"].as_f64().unwrap(), r["after"].as_f64().unwrap())
    };
    let (a0, a1) = of(&ha);
    let (b0, b1) = of(&hb);
    assert_eq!(a0, b0, "newcomers start level");
    assert!(a1 > a0 && b1 < b0, "ann {a0}→{a1}, bob {b0}→{b1}");

    // The stored board agrees, and nobody else ever saw a key.
    let board = srv
        .store()
        .leaderboard(Difficulty::Easy, server::store::Period::All, 0, 10, 0)
        .expect("leaderboard");
    assert_eq!(board.first().map(|r| r.handle.as_str()), Some(ha.as_str()));
    let seen = format!(
        "{over}{}",
        b.sync()
            .await
            .iter()
            .map(Value::to_string)
            .collect::<String>()
    );
    assert!(!seen.contains(&ka), "ann's key reached bob");
    // The terminal client's tables read the same through the HTTP API.
    let url: client::net::ServerUrl = srv.url().parse().expect("url");
    let to = client::net::Endpoint::from(&url);
    let v = client::api::get(&to, "/api/leaderboard?difficulty=easy&period=day")
        .await
        .expect("leaderboard over HTTP");
    let table = client::api::leaderboard_table(&v);
    let first = table.lines().nth(2).expect("a first row");
    assert!(first.contains(&ha) && first.contains("ann"), "{table}");
    let v = client::api::get(&to, &format!("/api/players/{hb}/races"))
        .await
        .expect("history over HTTP");
    let table = client::api::history_table(&v);
    assert!(
        table.contains("forfeited") && table.contains("(-"),
        "{table}"
    );
    let page = client::api::get(&to, &format!("/api/players/{ha}"))
        .await
        .expect("player over HTTP");
    let best = client::api::best_table(&page);
    let easy = best.lines().nth(2).expect("a best row");
    assert!(
        easy.starts_with("easy") && easy.contains(rs["race_id"].as_str().expect("id")),
        "{best}"
    );
    let err = client::api::get(&to, "/api/leaderboard?limit=101").await;
    assert!(
        matches!(err, Err(client::api::ApiError::Status { status: 400, .. })),
        "{err:?}"
    );
    let (_, metrics) = srv.http_get("/metrics").await.expect("metrics");
    assert!(!metrics.contains(&ka) && !metrics.contains(&kb));
}

/// The terminal client registers on first use, keeps the key owner-only, reuses it, and its
/// seats then carry the handle.
#[tokio::test]
async fn the_terminal_client_registers_once_and_keeps_its_key() {
    use client::net::{self, Endpoint, Intent, NetEvent, ServerUrl};
    use protocol::ServerMsg;

    let srv = TestServer::start().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("keys.toml");
    let url: ServerUrl = srv.url().parse().expect("url");
    let to = Endpoint::from(&url);
    let first = client::identity::identity_for(&to, "ann", Some(&file)).await;
    let key = first.key.clone().expect("a key on first use");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file)
            .expect("keys file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "the key file is the owner's alone");
    }
    let kept = client::identity::load(&file);
    let entry = kept
        .servers
        .get(&client::identity::server_id(&url))
        .expect("kept for this server");
    assert_eq!(entry.key, key.as_str());
    let again = client::identity::identity_for(&to, "ann", Some(&file)).await;
    assert_eq!(again.key, Some(key), "the same key, not a second identity");

    let intent = Intent::Create {
        name: "ann".into(),
        settings: None,
    };
    let (_session, mut events) = net::connect_as(to, intent, again);
    let joined = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        while let Some(ev) = events.recv().await {
            if let NetEvent::Message(m) = ev {
                if let ServerMsg::RoomJoined { players, .. } = *m {
                    return players;
                }
            }
        }
        Vec::new()
    })
    .await
    .expect("room_joined in time");
    assert_eq!(joined[0].handle.as_deref(), Some(entry.handle.as_str()));
}
