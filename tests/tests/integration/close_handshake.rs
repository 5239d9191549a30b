//! The close handshake seen by a client that is still sending (Amendment A2): the code a
//! room chose reaches it, since the server reads and discards until the client's Close.

use serde_json::json;

use crate::support::{create, Closed, TestServer};

#[tokio::test]
async fn a_terminal_still_sending_when_its_seat_moves_gets_the_1000() {
    let srv = TestServer::start().await;
    let mut old = srv.client().await;
    let (_, joined) = create(&mut old, "ann", json!({})).await;
    let token = joined["you"]["token"].as_str().expect("token").to_owned();
    let mut new = srv.client().await;
    new.send(json!({"type": "resume", "token": token})).await;
    new.expect("room_joined").await;
    // The old terminal has not read its close yet and keeps talking.
    for i in 0..20 {
        old.send(json!({"type": "ping", "id": i})).await;
    }
    assert_eq!(old.closed().await, Closed::Code(1000));
}
