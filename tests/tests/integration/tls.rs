//! HTTPS and WSS: the server with a certificate made for the test (rcgen), clients over rustls
//! that trust only that certificate; a race over wss, `/healthz` over https, the handshake
//! under the request deadline, and a start-up error that names a bad file.

use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use server::TlsFiles;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::rustls::{self, pki_types::ServerName, ClientConfig, RootCertStore};

use crate::support::{create, join, TestServer, RECV_TIMEOUT};
use testkit::{solve, to_fill};

/// A self-signed certificate for `localhost` written to `dir`; its files and a client config
/// that trusts it alone.
fn certificate(dir: &Path) -> (TlsFiles, Arc<ClientConfig>) {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("cert");
    let files = TlsFiles {
        cert: dir.join("cert.pem"),
        key: dir.join("key.pem"),
    };
    std::fs::write(&files.cert, made.cert.pem()).expect("write cert");
    std::fs::write(&files.key, made.signing_key.serialize_pem()).expect("write key");
    let mut roots = RootCertStore::empty();
    roots.add(made.cert.der().clone()).expect("trust the cert");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    (files, Arc::new(config))
}

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
    crate::close_handshake::seat_moves_while_sending(&srv, Some((&url, tls))).await;
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

#[tokio::test]
async fn terminal_client_bots_race_over_wss_trusting_the_ca_file() {
    use client::bot::{self, BotConfig, BotRole, Style};
    use client::net::{tls::Trust, Endpoint};
    use std::time::Duration;

    let dir = tempfile::tempdir().expect("temp dir");
    let (files, tls) = certificate(dir.path());
    let cert_file = files.cert.clone();
    let srv = TestServer::start_with(|c| c.tls = Some(files)).await;
    let url = format!("wss://localhost:{}/ws", srv.addr.port());
    let mut host = srv.tls_client(&url, tls).await;
    let (room, _) = create(
        &mut host,
        "host",
        json!({"difficulty": "easy", "max_mistakes": 0}),
    )
    .await;
    // The bots trust the server the way `--ca-file cert.pem` does.
    let trust = Trust::with_ca_file(&cert_file).expect("the certificate file loads");
    let mut bots = Vec::new();
    for i in 1..=2u64 {
        let to = Endpoint::new(url.parse().expect("a wss URL"), trust.clone());
        let config = BotConfig {
            name: format!("bot{i}"),
            style: Style::flat(Duration::from_millis(5), 0.0),
            seed: i,
            races: Some(1),
        };
        let room = room.clone();
        bots.push(tokio::spawn(async move {
            bot::run(to, config, BotRole::Join { room }, std::future::pending()).await
        }));
    }
    for _ in 0..2 {
        host.until("player_joined").await;
    }
    host.send(json!({"type": "start_race"})).await;
    host.until("race_started").await;
    // The host watches the bots race; it leaves the race so that it ends when they finish.
    host.send(json!({"type": "forfeit"})).await;
    let over = tokio::time::timeout(RECV_TIMEOUT * 6, host.until("race_over"))
        .await
        .expect("race_over");
    for b in bots {
        let report = b.await.expect("bot task").expect("the bot raced over wss");
        let race = report.races.first().expect("one race");
        assert_eq!(race.standings.len(), 3, "{over}");
        assert_eq!(report.mistakes, 0);
    }
    let names: Vec<&str> = over["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names.len(), 3, "{over}");
    assert_eq!(names[2], "host", "the forfeiting host ranks last: {over}");
}

/// A certificate made as a new user makes one: `openssl req -x509 -newkey rsa:2048 -nodes …`
/// with a subjectAltName, which OpenSSL marks CA:TRUE. With no `openssl` on the machine, rcgen
/// makes the same shape (a self-signed CA:TRUE certificate for `localhost` and 127.0.0.1).
fn openssl_style_certificate(dir: &Path) -> TlsFiles {
    let files = TlsFiles {
        cert: dir.join("cert.pem"),
        key: dir.join("key.pem"),
    };
    let made = std::process::Command::new("openssl")
        .args(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout"])
        .arg(&files.key)
        .arg("-out")
        .arg(&files.cert)
        .args(["-days", "365", "-subj", "/CN=localhost"])
        .args(["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        let mut params =
            rcgen::CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
                .expect("params");
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let key = rcgen::KeyPair::generate().expect("key");
        let cert = params.self_signed(&key).expect("cert");
        std::fs::write(&files.cert, cert.pem()).expect("write cert");
        std::fs::write(&files.key, key.serialize_pem()).expect("write key");
    }
    files
}

/// The terminal client's answer to `rooms` against `url` trusting `trust`: the room list, or
/// the error it shows.
async fn client_rooms(
    url: &str,
    trust: client::net::tls::Trust,
) -> Result<Vec<protocol::RoomSummary>, String> {
    use client::net::{connect, Endpoint, Intent, NetEvent};
    use protocol::{ClientMsg, ServerMsg};
    let to = Endpoint::new(url.parse().expect("a wss URL"), trust);
    let (session, mut events) = connect(to, Intent::Nothing);
    session.send(ClientMsg::ListRooms);
    let wait = async {
        while let Some(ev) = events.recv().await {
            match ev {
                NetEvent::Message(m) => {
                    if let ServerMsg::RoomList { rooms } = *m {
                        return Ok(rooms);
                    }
                }
                NetEvent::Closed { error } => return Err(error.unwrap_or_default()),
                _ => {}
            }
        }
        Err("no more events".to_owned())
    };
    tokio::time::timeout(RECV_TIMEOUT, wait)
        .await
        .expect("an answer in time")
}

/// Issue 22 item 8: the openssl certificate (CA:TRUE) passed as `--ca-file` is pinned, so the
/// terminal client connects (WebSocket and HTTP API) instead of failing with
/// `CaUsedAsEndEntity`; a wrong `--ca-file` gets advice in words.
#[tokio::test]
async fn the_terminal_client_trusts_an_openssl_certificate_given_as_its_ca_file() {
    use client::net::tls::Trust;
    let dir = tempfile::tempdir().expect("temp dir");
    let files = openssl_style_certificate(dir.path());
    let cert_file = files.cert.clone();
    let srv = TestServer::start_with(|c| c.tls = Some(files)).await;
    for host in ["localhost", "127.0.0.1"] {
        let url = format!("wss://{host}:{}/ws", srv.addr.port());
        let trust = Trust::with_ca_file(&cert_file).expect("the certificate file loads");
        let rooms = client_rooms(&url, trust.clone()).await;
        assert_eq!(rooms, Ok(vec![]), "{url}");
        let to = client::net::Endpoint::new(url.parse().expect("url"), trust);
        let daily = client::api::get(&to, "/api/daily").await;
        assert!(daily.is_ok(), "{daily:?}");
    }
    // Another certificate as --ca-file: refused, in words that say what to do.
    let other = tempfile::tempdir().expect("temp dir");
    let wrong = openssl_style_certificate(other.path()).cert;
    let url = format!("wss://localhost:{}/ws", srv.addr.port());
    let e = client_rooms(&url, Trust::with_ca_file(&wrong).expect("loads"))
        .await
        .expect_err("a wrong --ca-file is refused");
    // webpki judges the CA:TRUE mark before the issuer: the advice is to pin the right file.
    assert!(e.contains("the certificate of localhost"), "{e}");
    assert!(e.contains("--ca-file"), "{e}");
    assert!(
        !e.contains("Error(") && !e.contains("Other"),
        "no debug string: {e}"
    );
    let to = client::net::Endpoint::new(url.parse().expect("url"), Trust::default());
    let e = client::api::get(&to, "/api/daily")
        .await
        .expect_err("refused");
    let e = e.to_string();
    assert!(
        e.contains("the certificate of localhost") && e.contains("--ca-file"),
        "{e}"
    );
    assert!(
        !e.contains("Error(") && !e.contains("Other"),
        "no debug string: {e}"
    );
}
