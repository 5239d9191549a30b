//! The terminal client over TLS: bots racing over wss trusting a CA file, and an
//! openssl-made certificate pinned as `--ca-file` (or refused, in words that say what to do).

use std::path::Path;

use serde_json::json;
use server::TlsFiles;

use crate::support::{certificate, create, TestServer, RECV_TIMEOUT};

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
