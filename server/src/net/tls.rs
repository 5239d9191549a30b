//! TLS for HTTPS and WSS: a rustls acceptor (ring crypto, ALPN `http/1.1` only, since the
//! server speaks HTTP/1.1) from a PEM certificate chain and private key.

use std::path::PathBuf;
use std::sync::Arc;

use tokio_rustls::rustls::pki_types::pem::{self, PemObject};
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::{self, ServerConfig};

use crate::config::TlsFiles;

/// Why TLS could not be set up; every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// The certificate file could not be read or parsed.
    #[error("cannot read the TLS certificate {path}")]
    Cert {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: pem::Error,
    },
    /// The certificate file holds no certificate.
    #[error("no certificate in {path}")]
    NoCert {
        /// The file.
        path: PathBuf,
    },
    /// The key file could not be read or parsed.
    #[error("cannot read the TLS private key {path}")]
    Key {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: pem::Error,
    },
    /// rustls refused the pair (e.g. the key does not fit the certificate).
    #[error("cannot use the TLS key {key} with the certificate {cert}")]
    Config {
        /// The certificate file.
        cert: PathBuf,
        /// The key file.
        key: PathBuf,
        /// The cause.
        source: rustls::Error,
    },
}

/// The server config for `files` (a `TlsAcceptor` wraps it per socket).
pub fn acceptor(files: &TlsFiles) -> Result<Arc<ServerConfig>, TlsError> {
    let cert_err = |source| TlsError::Cert {
        path: files.cert.clone(),
        source,
    };
    let certs = CertificateDer::pem_file_iter(&files.cert)
        .map_err(cert_err)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(cert_err)?;
    if certs.is_empty() {
        return Err(TlsError::NoCert {
            path: files.cert.clone(),
        });
    }
    let key = PrivateKeyDer::from_pem_file(&files.key).map_err(|source| TlsError::Key {
        path: files.key.clone(),
        source,
    })?;
    let config_err = |source| TlsError::Config {
        cert: files.cert.clone(),
        key: files.key.clone(),
        source,
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(config_err)?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(config_err)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}
