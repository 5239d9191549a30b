//! TLS for load runs (`loadgen --tls`): a self-signed certificate for `localhost`, made afresh
//! for each run and written where the server started by loadgen reads it, and a client config
//! (rustls with ring, ALPN `http/1.1`) that trusts that certificate alone.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore};

/// A certificate's files and a client config that trusts it.
pub struct SelfSigned {
    /// The certificate, PEM.
    pub cert: PathBuf,
    /// Its private key, PEM.
    pub key: PathBuf,
    /// Clients trusting only this certificate.
    pub client: Arc<ClientConfig>,
}

/// Make a certificate for `localhost` and `127.0.0.1` and write it to `dir`.
pub fn self_signed(dir: &Path) -> Result<SelfSigned> {
    let made =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .context("make a certificate")?;
    let cert = dir.join("cert.pem");
    let key = dir.join("key.pem");
    std::fs::write(&cert, made.cert.pem()).context("write the certificate")?;
    std::fs::write(&key, made.signing_key.serialize_pem()).context("write the key")?;
    let mut roots = RootCertStore::empty();
    roots
        .add(made.cert.der().clone())
        .context("trust the certificate")?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut client = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("TLS protocol versions")?
        .with_root_certificates(roots)
        .with_no_client_auth();
    client.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(SelfSigned {
        cert,
        key,
        client: Arc::new(client),
    })
}
