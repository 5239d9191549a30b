//! Names on the boards through the terminal client: the latest name shows, and the player
//! page takes a name the way `history` asks for it.

use serde_json::json;

use crate::support::rated::{call, join, race, rated_room, register};
use crate::support::TestServer;

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
