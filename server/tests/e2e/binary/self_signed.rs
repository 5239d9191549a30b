//! `--tls-self-signed HOST`: the binary writes a certificate and key for trying TLS, says how
//! to use them, never overwrites them, and a server started with them answers over HTTPS to a
//! client that trusts that certificate alone.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore};

use crate::support::process::{Server, TIMEOUT};

fn self_signed(dir: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sudoku-race-server"))
        .args(["--tls-self-signed", "localhost", "--tls-out"])
        .arg(dir)
        .output()
        .expect("run the server binary")
}

#[tokio::test]
async fn tls_self_signed_writes_a_certificate_a_server_and_a_client_can_use() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = self_signed(dir.path());
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    for part in [
        format!("--tls-cert {}", cert.display()),
        format!("--tls-key {}", key.display()),
        format!("--ca-file {}", cert.display()),
        "wss://localhost:7878/ws".to_owned(),
    ] {
        assert!(said.contains(&part), "{part} in {said}");
    }
    let mode = std::fs::metadata(&key).expect("key").permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "the key is the owner's alone");
    // A second run never overwrites them.
    let again = self_signed(dir.path());
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("never overwritten"));

    let (c, k) = (cert.to_string_lossy(), key.to_string_lossy());
    let srv = Server::start(&["--tls-cert", &c, "--tls-key", &k], None);
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_file(&cert).expect("cert"))
        .expect("trust it");
    let config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
    let tcp = TcpStream::connect(&srv.addr).await.expect("connect");
    let name = ServerName::try_from("localhost").expect("name");
    let mut tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .expect("the handshake trusts the written certificate");
    tls.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    let mut answer = String::new();
    let _ = tokio::time::timeout(TIMEOUT, tls.read_to_string(&mut answer))
        .await
        .expect("an answer in time");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}
