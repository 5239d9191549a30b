//! TLS against a small `wss://` server made here (a self-signed certificate from rcgen, a
//! rustls acceptor), since the race server's own TLS is not in this crate: trusted with
//! `--ca-file`, refused without it (with the advice), a `wss` dial to a plain server, ALPN.

use std::sync::Arc;
use std::time::Duration;

use engine::Difficulty;
use futures::{SinkExt, StreamExt};
use protocol::{ClientMsg, RoomSummary, ServerMsg};
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

use super::*;
use crate::net::{connect, Endpoint, Intent, NetEvent};

/// A bound limit on every wait, so a broken handshake fails the test instead of hanging it.
const WAIT: Duration = Duration::from_secs(10);

struct TlsServer {
    port: u16,
    /// The certificate, as a `--ca-file`.
    pem: std::path::PathBuf,
    /// The ALPN protocol each handshake settled on.
    alpn: mpsc::UnboundedReceiver<Option<Vec<u8>>>,
    _dir: tempfile::TempDir,
}

/// A `wss` server for `localhost`: `welcome`, then a `room_list` for every `list_rooms`. It
/// offers `h2` first, so a client that offered `h2` would get it.
async fn tls_server() -> TlsServer {
    let key = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("cert");
    let dir = tempfile::tempdir().expect("dir");
    let pem = dir.path().join("cert.pem");
    std::fs::write(&pem, key.cert.pem()).expect("write pem");
    let certs: Vec<CertificateDer<'static>> = vec![key.cert.der().clone()];
    let private = PrivateKeyDer::Pkcs8(key.signing_key.serialize_der().into());
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("versions")
    .with_no_client_auth()
    .with_single_cert(certs, private)
    .expect("server config");
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let (alpn_tx, alpn) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            let alpn_tx = alpn_tx.clone();
            tokio::spawn(async move {
                // A client that does not trust us aborts the handshake: nothing to serve.
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let _ = alpn_tx.send(tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec));
                let Ok(mut ws) = tokio_tungstenite::accept_async(tls).await else {
                    return;
                };
                let send = |m: &ServerMsg| Message::text(serde_json::to_string(m).expect("json"));
                let welcome = ServerMsg::Welcome {
                    protocol: 1,
                    server: "tls-test/0".into(),
                };
                if ws.send(send(&welcome)).await.is_err() {
                    return;
                }
                while let Some(Ok(Message::Text(t))) = ws.next().await {
                    if let Ok(ClientMsg::ListRooms) = serde_json::from_str(t.as_str()) {
                        let list = ServerMsg::RoomList {
                            rooms: vec![room()],
                        };
                        if ws.send(send(&list)).await.is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    TlsServer {
        port,
        pem,
        alpn,
        _dir: dir,
    }
}

fn room() -> RoomSummary {
    RoomSummary {
        room: "K7QX".try_into().expect("code"),
        players: 2,
        max_players: 8,
        phase: protocol::Phase::Lobby,
        difficulty: Difficulty::Hard,
    }
}

/// What `sudoku-race rooms` does: connect, `list_rooms`, wait for the list or the end.
async fn list_rooms(to: Endpoint) -> Result<Vec<RoomSummary>, String> {
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
    tokio::time::timeout(WAIT, wait)
        .await
        .expect("an answer in time")
}

fn wss(port: u16) -> ServerUrl {
    format!("wss://localhost:{port}/ws").parse().expect("url")
}

#[tokio::test]
async fn a_self_signed_server_is_trusted_with_its_ca_file_over_http_1_1() {
    let mut server = tls_server().await;
    let trust = Trust::with_ca_file(&server.pem).expect("ca file");
    let rooms = list_rooms(Endpoint::new(wss(server.port), trust)).await;
    assert_eq!(rooms, Ok(vec![room()]));
    let alpn = tokio::time::timeout(WAIT, server.alpn.recv())
        .await
        .expect("handshake in time");
    assert_eq!(alpn, Some(Some(b"http/1.1".to_vec())), "never h2");
}

#[tokio::test]
async fn without_the_ca_file_the_certificate_is_refused_with_advice() {
    let server = tls_server().await;
    let e = list_rooms(wss(server.port).into())
        .await
        .expect_err("refused");
    assert_eq!(
        e,
        format!(
            "cannot connect to wss://localhost:{}/ws: the certificate of localhost is not trusted \
             (self-signed or an unknown authority): use --ca-file PEM to trust it",
            server.port
        )
    );
}

#[tokio::test]
async fn wss_to_a_plain_server_says_to_use_ws() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            // A plain WebSocket server: the TLS hello is not an HTTP request.
            tokio::spawn(async move {
                let _ = tokio_tungstenite::accept_async(tcp).await;
            });
        }
    });
    let e = list_rooms(wss(port).into()).await.expect_err("refused");
    assert!(e.contains("use ws:// instead of wss://"), "{e}");
}

#[tokio::test]
async fn wss_to_a_server_that_waits_for_an_http_request_gives_up_with_advice() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    // Like the race server: it reads a request head for seconds, and a TLS hello is none.
    let held = tokio::spawn(async move { listener.accept().await });
    let mut to = Endpoint::from(wss(port));
    to.connect_timeout = Duration::from_millis(300);
    let e = list_rooms(to).await.expect_err("refused");
    assert!(e.contains("did not answer the TLS handshake"), "{e}");
    assert!(e.contains("use ws:// instead of wss://"), "{e}");
    held.abort();
}

#[tokio::test]
async fn ws_to_a_tls_server_says_to_use_wss() {
    let server = tls_server().await;
    let url: ServerUrl = format!("ws://localhost:{}/ws", server.port)
        .parse()
        .expect("url");
    let e = list_rooms(url.into()).await.expect_err("refused");
    assert!(e.contains("use wss://"), "{e}");
}

#[test]
fn alpn_never_offers_h2() {
    let config = Trust::default().client_config();
    assert_eq!(config.alpn_protocols, vec![b"http/1.1".to_vec()]);
}

#[test]
fn a_ca_file_must_hold_a_certificate() {
    let dir = tempfile::tempdir().expect("dir");
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "no pem here\n").expect("write");
    let e = Trust::with_ca_file(&empty).expect_err("no certificate");
    assert!(matches!(e, CaFileError::NoCertificate { .. }), "{e}");
    let missing = dir.path().join("missing.pem");
    let e = Trust::with_ca_file(&missing).expect_err("no file");
    assert!(e.to_string().starts_with("cannot read --ca-file"), "{e}");
}

/// Every refused certificate reads as advice in words: the host, what is wrong, what to do;
/// never a debug string such as `Other(OtherError(CaUsedAsEndEntity))`.
#[test]
fn every_certificate_refusal_reads_as_advice() {
    #[derive(Debug)]
    struct CaUsedAsEndEntity;
    impl std::fmt::Display for CaUsedAsEndEntity {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{self:?}")
        }
    }
    impl std::error::Error for CaUsedAsEndEntity {}
    let other = |e| CertificateError::Other(rustls::OtherError(Arc::new(e)));
    let cases = [
        (CertificateError::UnknownIssuer, "use --ca-file"),
        (CertificateError::NotValidForName, "another name"),
        (CertificateError::Expired, "expired"),
        (CertificateError::NotValidYet, "clock"),
        (CertificateError::Revoked, "revoked"),
        (CertificateError::InvalidPurpose, "--ca-file"),
        (CertificateError::BadEncoding, "--ca-file"),
        (other(CaUsedAsEndEntity), "CA:TRUE"),
        (
            CertificateError::ApplicationVerificationFailure,
            "--ca-file",
        ),
    ];
    for (c, advice) in cases {
        let said = explain_tls(
            "example.test",
            443,
            &Trust::default(),
            &rustls::Error::InvalidCertificate(c.clone()),
        );
        assert!(
            said.starts_with("the certificate of example.test"),
            "{said}"
        );
        assert!(said.contains(advice), "{c:?}: {said}");
        assert!(
            !said.contains("Error(") && !said.contains("Other"),
            "{said}"
        );
    }
}
