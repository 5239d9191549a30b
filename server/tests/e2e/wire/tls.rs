//! HTTPS and WSS: the server with a certificate made for the test (rcgen), clients over rustls
//! that trust only that certificate; a race over wss, `/healthz` over https, the handshake
//! under the request deadline, and a start-up error that names a bad file.

use std::sync::Arc;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::rustls::{pki_types::ServerName, ClientConfig};

use crate::support::{certificate, create, join, TestServer, RECV_TIMEOUT};
use testkit::{solve, to_fill};

async fn tls_server() -> (TestServer, Arc<ClientConfig>, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let (files, client) = certificate(dir.path());
    let srv = TestServer::start_with(|c| c.tls = Some(files)).await;
    (srv, client, dir)
}

/// A2 over TLS: a racer still sending as its seat moves reads the 1000 every time.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_racer_still_sending_over_wss_when_its_seat_moves_gets_the_1000() {
    let (srv, tls, _dir) = tls_server().await;
    let url = format!("wss://localhost:{}/ws", srv.addr.port());
    super::close_handshake::seat_moves_while_sending(&srv, Some((&url, tls))).await;
}

#[tokio::test]
async fn a_race_over_wss() {
    let (srv, tls, _dir) = tls_server().await;
    let url = format!("wss://localhost:{}/ws", srv.addr.port());
    let mut ann = srv.tls_client(&url, tls.clone()).await;
    let mut bob = srv.tls_client(&url, tls).await;
    let (room, _) = create(&mut ann, "ann", json!({"difficulty": "easy"})).await;
    join(&mut bob, &room, "bob").await;
    ann.send(json!({"type": "start_race"})).await;
    let started = ann.until("race_started").await;
    bob.until("race_started").await;
    let puzzle = started["puzzle"].as_str().expect("puzzle");
    let solution = solve(puzzle);
    for (cell, digit) in to_fill(puzzle, &solution) {
        ann.send(json!({"type": "place", "cell": cell, "digit": digit}))
            .await;
    }
    ann.until("player_finished").await;
    // The race ends when nobody is left racing.
    bob.send(json!({"type": "forfeit"})).await;
    let over = ann.until("race_over").await;
    assert_eq!(over["standings"][0]["name"], "ann", "{over}");
    bob.until("race_over").await;
}

#[tokio::test]
async fn healthz_over_https() {
    let (srv, tls, _dir) = tls_server().await;
    let tcp = TcpStream::connect(srv.addr).await.expect("connect");
    let name = ServerName::try_from("localhost").expect("a server name");
    let mut s = tokio_rustls::TlsConnector::from(tls)
        .connect(name, tcp)
        .await
        .expect("tls handshake");
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    let mut out = Vec::new();
    // The server may end TLS without close_notify after `Connection: close`; what came counts.
    let _ = tokio::time::timeout(RECV_TIMEOUT, s.read_to_end(&mut out))
        .await
        .expect("an answer in time");
    let out = String::from_utf8_lossy(&out);
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    assert!(out.contains(r#""rooms":0"#), "{out}");
    assert!(out.contains(r#""connections":0"#), "{out}");
}

#[tokio::test]
async fn a_silent_socket_is_closed_at_the_request_deadline() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (files, _) = certificate(dir.path());
    let srv = TestServer::start_with(|c| {
        c.tls = Some(files);
        c.request_timeout = std::time::Duration::from_millis(300);
    })
    .await;
    // Half a ClientHello, then nothing: the handshake is under the head's deadline.
    let mut tcp = TcpStream::connect(srv.addr).await.expect("connect");
    tcp.write_all(&[0x16, 0x03, 0x01]).await.expect("write");
    let mut buf = [0u8; 64];
    loop {
        match tokio::time::timeout(RECV_TIMEOUT, tcp.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) => break,
            Ok(Ok(_)) => continue,
            Err(_) => panic!("a silent TLS socket was held open"),
        }
    }
}

#[tokio::test]
async fn a_bad_certificate_is_a_start_up_error_naming_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut files, _) = certificate(dir.path());
    let bad = dir.path().join("not-a-cert.pem");
    std::fs::write(&bad, "hello\n").expect("write");
    files.cert = bad.clone();
    let mut config = crate::support::test_config();
    config.db_path = dir.path().join("results.sqlite3");
    config.tls = Some(files);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let err = server::run(listener, config, std::future::pending())
        .await
        .expect_err("a start-up error");
    let msg = err.to_string();
    assert!(msg.contains(&bad.display().to_string()), "{msg}");
}
