//! Plain HTTP on the WebSocket port: `/healthz`, `/metrics`, and anything else (the browser
//! client's files are `web_assets.rs`'s).

use serde_json::{json, Value};

use crate::support::{create, TestServer};

#[tokio::test]
async fn healthz_and_metrics() {
    let srv = TestServer::start().await;
    let (status, body) = srv.http_get("/healthz").await.unwrap();
    assert_eq!(status, "HTTP/1.1 200 OK");
    let v: Value = serde_json::from_str(&body).unwrap();
    // One node (no cluster): no node id or Redis state; the database up, nothing queued.
    assert_eq!(
        v,
        json!({"rooms": 0, "connections": 0, "db": "up", "results_queued": 0})
    );

    let mut a = srv.client().await;
    create(&mut a, "ann", json!({})).await;
    let (_, body) = srv.http_get("/healthz").await.unwrap();
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        v,
        json!({"rooms": 1, "connections": 1, "db": "up", "results_queued": 0})
    );

    let (status, body) = srv.http_get("/metrics").await.unwrap();
    assert_eq!(status, "HTTP/1.1 200 OK");
    for name in [
        "sudoku_race_connections 1",
        "sudoku_race_rooms 1",
        "sudoku_race_races_started_total 0",
        "sudoku_race_races_finished_total 0",
        "sudoku_race_messages_in_total 1",
        "sudoku_race_messages_out_total 2",
        "sudoku_race_placements_total{outcome=\"accepted\"} 0",
        "sudoku_race_rate_limited_total 0",
        "sudoku_race_slow_consumer_closes_total 0",
    ] {
        assert!(body.lines().any(|l| l == name), "{name} missing in\n{body}");
    }
    let (status, _) = srv.http_get("/nope").await.unwrap();
    assert_eq!(status, "HTTP/1.1 404 Not Found");
}

#[tokio::test]
async fn invite_links_upgrade_like_ws() {
    use futures::StreamExt;
    let srv = TestServer::start().await;
    let url = format!("ws://{}/r/ABCD", srv.addr);
    let (mut ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .expect("upgrade");
    let first = tokio::time::timeout(crate::support::RECV_TIMEOUT, ws.next())
        .await
        .expect("welcome in time")
        .expect("a frame")
        .expect("read");
    assert!(
        first.to_text().expect("text").contains("\"welcome\""),
        "{first}"
    );
    // A plain GET is a browser following the link: it gets the page (`web_assets.rs`).
    let (status, _) = srv.http_get("/r/ABCD").await.unwrap();
    assert_eq!(status, "HTTP/1.1 200 OK");
    let (status, _) = srv.http_get("/r/A").await.unwrap();
    assert_eq!(status, "HTTP/1.1 404 Not Found");
}
