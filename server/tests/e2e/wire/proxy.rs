//! The front behind a reverse proxy and before browsers: `--trust-proxy` takes the client's
//! address from `X-Forwarded-For` (only then), and `--allowed-origin` decides which browser
//! pages may open a WebSocket.

use serde_json::json;
use tokio_tungstenite::tungstenite::Error as WsError;

use crate::support::{create, TestServer};

/// Two clients, "from" `a` and `b` by their `X-Forwarded-For`, each create a room under a
/// limit of one room per address; whether the second gets its room.
async fn second_room_opens(trust_proxy: bool, a: &str, b: &str) -> bool {
    let srv = TestServer::start_with(|c| {
        c.trust_proxy = trust_proxy;
        c.limits.max_rooms_per_ip = 1;
    })
    .await;
    let mut first = srv
        .client_with_headers(&[("x-forwarded-for", a)])
        .await
        .expect("handshake");
    create(&mut first, "ann", json!({})).await;
    let mut second = srv
        .client_with_headers(&[("x-forwarded-for", b)])
        .await
        .expect("handshake");
    second
        .send(json!({"type": "create_room", "name": "bob"}))
        .await;
    let v = second.recv().await.expect("an answer");
    match v["type"].as_str() {
        Some("room_joined") => true,
        Some("error") if v["code"] == "server_full" => false,
        _ => panic!("unexpected {v}"),
    }
}

#[tokio::test]
async fn forwarded_addresses_count_only_with_trust_proxy() {
    assert!(second_room_opens(true, "203.0.113.1", "203.0.113.2").await);
    // The right-most entry is the proxy's: a client cannot pose as another by prepending.
    assert!(!second_room_opens(true, "203.0.113.1", "203.0.113.2, 203.0.113.1").await);
    assert!(!second_room_opens(false, "203.0.113.1", "203.0.113.2").await);
}

#[tokio::test]
async fn only_own_and_allowed_origins_may_upgrade() {
    let srv =
        TestServer::start_with(|c| c.allowed_origins = vec!["https://play.example".into()]).await;
    let own = format!("http://{}", srv.addr);
    for origin in [own.as_str(), "https://play.example"] {
        srv.client_with_headers(&[("origin", origin)])
            .await
            .unwrap_or_else(|e| panic!("{origin} refused: {e}"));
    }
    srv.client_with_headers(&[])
        .await
        .expect("no origin: a terminal client");
    match srv
        .client_with_headers(&[("origin", "https://evil.example")])
        .await
    {
        Err(WsError::Http(resp)) => assert_eq!(resp.status(), 403),
        Err(e) => panic!("refused, but not with 403: {e}"),
        Ok(_) => panic!("a foreign origin was let in"),
    }
}
