//! TLS for `wss://` servers: which certificates the client trusts ([`Trust`]), the rustls
//! client configuration built from them, and the one-line explanation of a failed handshake
//! ([`explain`]).
//!
//! The trust is the platform's roots (rustls-native-certs), the bundled web roots
//! (webpki-roots) and, with `--ca-file`, the certificates of that PEM file (a self-signed
//! server). The crypto is always ring: aws-lc needs cmake to build, and one provider chosen in
//! one place means no "which provider?" panic when another crate in the process enables a second.
//! ALPN offers `http/1.1` only: a WebSocket upgrade is HTTP/1.1, and a server that picked `h2`
//! could not upgrade.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rustls::{CertificateError, ClientConfig, RootCertStore};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;
use tokio_tungstenite::tungstenite;
use tracing::{debug, warn};

use super::url::ServerUrl;

/// The ALPN protocols offered: HTTP/1.1, never `h2`.
pub const ALPN: &[&[u8]] = &[b"http/1.1"];

/// Why `--ca-file` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CaFileError {
    /// The file could not be read or is not PEM.
    #[error("cannot read --ca-file {}: {why}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What went wrong (in the message, not a `source`, or `{:#}` would say it twice).
        why: rustls_pki_types::pem::Error,
    },
    /// The file holds no `CERTIFICATE` block.
    #[error("--ca-file {} holds no PEM certificate (BEGIN CERTIFICATE)", path.display())]
    NoCertificate {
        /// The file.
        path: PathBuf,
    },
    /// A certificate rustls cannot use as a trust anchor.
    #[error("--ca-file {}: a certificate cannot be trusted: {why}", path.display())]
    Unusable {
        /// The file.
        path: PathBuf,
        /// What rustls said.
        why: rustls::Error,
    },
}

/// The certificates a `wss://` connection trusts. Cheap to clone; the rustls configuration is
/// built once, at the first `wss` connection (a `ws://` session never reads the platform's roots).
#[derive(Clone, Debug, Default)]
pub struct Trust {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// From `--ca-file`.
    extra: Vec<CertificateDer<'static>>,
    config: OnceLock<Arc<ClientConfig>>,
}

impl Trust {
    /// The platform's and the bundled roots, plus every certificate in the PEM file at `path`.
    /// Read now, so a wrong path is said before any connection.
    pub fn with_ca_file(path: &Path) -> Result<Trust, CaFileError> {
        let read = |why| CaFileError::Read {
            path: path.to_owned(),
            why,
        };
        let extra = CertificateDer::pem_file_iter(path)
            .map_err(read)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(read)?;
        if extra.is_empty() {
            return Err(CaFileError::NoCertificate {
                path: path.to_owned(),
            });
        }
        // Refuse what is no certificate at all now rather than at the handshake; one that is no
        // anchor (webpki's view) can still be pinned.
        if let Some(bad) = extra.iter().find(|c| !is_der_sequence(c)) {
            debug!(bytes = bad.len(), "a --ca-file block is no DER certificate");
            return Err(CaFileError::Unusable {
                path: path.to_owned(),
                why: rustls::Error::InvalidCertificate(CertificateError::BadEncoding),
            });
        }
        Ok(Trust {
            inner: Arc::new(Inner {
                extra,
                config: OnceLock::new(),
            }),
        })
    }

    /// `--ca-file` when given, else the default trust.
    pub fn from_flag(ca_file: Option<&Path>) -> Result<Trust, CaFileError> {
        ca_file.map_or_else(|| Ok(Trust::default()), Trust::with_ca_file)
    }

    /// Whether a `--ca-file` was given.
    pub fn has_ca_file(&self) -> bool {
        !self.inner.extra.is_empty()
    }

    /// The rustls client configuration (built on first use).
    pub fn client_config(&self) -> Arc<ClientConfig> {
        self.inner
            .config
            .get_or_init(|| Arc::new(build_config(&self.inner.extra)))
            .clone()
    }
}

/// Whether `der` is shaped like a certificate: one DER SEQUENCE. rustls parses it fully at the
/// handshake; this catches a PEM block of garbage when the file is read.
fn is_der_sequence(der: &[u8]) -> bool {
    der.len() > 2 && der[0] == 0x30
}

fn build_config(extra: &[CertificateDer<'static>]) -> ClientConfig {
    let mut roots = RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs();
    if !native.errors.is_empty() {
        debug!(errors = ?native.errors, "some platform certificates could not be read");
    }
    let (added, ignored) = roots.add_parsable_certificates(native.certs);
    debug!(added, ignored, "platform root certificates");
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    for cert in extra {
        // Not an anchor to webpki (it is still pinned, below).
        if let Err(e) = roots.add(cert.clone()) {
            debug!(error = %e, "a --ca-file certificate is no trust anchor: pinned only");
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .expect("ring supports the default TLS versions");
    // With --ca-file, a server whose certificate is one in that file is trusted as it is.
    let pinned = (!extra.is_empty())
        .then(|| pin::Pinned::new(extra.to_vec(), roots.clone(), provider))
        .and_then(|p| {
            p.map_err(|e| warn!(error = %e, "cannot pin the --ca-file certificates"))
                .ok()
        });
    let mut config = match pinned {
        Some(p) => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(p))
            .with_no_client_auth(),
        None => builder.with_root_certificates(roots).with_no_client_auth(),
    };
    config.alpn_protocols = ALPN.iter().map(|p| p.to_vec()).collect();
    config
}

/// Make ring the process's rustls crypto provider (call once, at the start of `main`), so any
/// other rustls user in the process (the in-process server) finds the same one. A provider
/// already installed is kept.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A failed TLS handshake with `hostname` as advice: what is wrong and what to do, in words
/// (never a debug string).
pub fn explain_tls(hostname: &str, port: u16, trust: &Trust, e: &rustls::Error) -> String {
    match e {
        rustls::Error::InvalidCertificate(c) => explain_certificate(hostname, trust, c),
        rustls::Error::InvalidMessage(_) | rustls::Error::InappropriateMessage { .. } => {
            format!("{hostname}:{port} does not speak TLS: if it is a plain server, use ws:// instead of wss://")
        }
        rustls::Error::AlertReceived(alert) => format!(
            "{hostname} refused the TLS handshake (alert: {alert:?}): the server may need another \
             certificate, or speaks another TLS version"
        ),
        other => format!("TLS with {hostname} failed: {other}"),
    }
}

/// Why the server's certificate was refused, and what to do.
fn explain_certificate(hostname: &str, trust: &Trust, c: &CertificateError) -> String {
    const PIN: &str = "pass the server's own cert.pem with --ca-file to trust exactly it";
    match c {
        CertificateError::UnknownIssuer | CertificateError::BadSignature => {
            if trust.has_ca_file() {
                format!("the certificate of {hostname} is not trusted: it is not in --ca-file, nor signed by it or a known authority (is --ca-file the server's certificate?)")
            } else {
                format!("the certificate of {hostname} is not trusted (self-signed or an unknown authority): use --ca-file PEM to trust it")
            }
        }
        CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
            format!("the certificate of {hostname} is for another name: connect by the name it was issued for")
        }
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
            format!("the certificate of {hostname} has expired: the server needs a new one")
        }
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
            format!("the certificate of {hostname} is not valid yet (check this machine's clock)")
        }
        CertificateError::Revoked => format!("the certificate of {hostname} has been revoked"),
        CertificateError::InvalidPurpose | CertificateError::InvalidPurposeContext { .. } => {
            format!("the certificate of {hostname} is not one for a TLS server (its key usage): {PIN}, or give the server a server certificate")
        }
        CertificateError::BadEncoding | CertificateError::UnhandledCriticalExtension => {
            format!("the certificate of {hostname} cannot be read as a server certificate: {PIN}")
        }
        // webpki says `CaUsedAsEndEntity` for the usual `openssl req -x509` certificate
        // (CA:TRUE) used as the server's own; pinned with --ca-file, it never gets here.
        CertificateError::Other(other) if format!("{other:?}").contains("CaUsedAsEndEntity") => {
            format!("the certificate of {hostname} is a CA certificate (CA:TRUE, as `openssl req -x509` makes) used as the server's own: {PIN}, or make one with `sudoku-race-server --tls-self-signed HOST`")
        }
        _ => format!("the certificate of {hostname} is refused by this client's checks: {PIN}, or give the server one from a known authority"),
    }
}

/// The one-line reason a connection to `url` failed, with what to do where we know it.
pub fn explain(url: &ServerUrl, trust: &Trust, e: &tungstenite::Error) -> String {
    let tls = match e {
        tungstenite::Error::Tls(tungstenite::error::TlsError::Rustls(r)) => Some(r),
        tungstenite::Error::Io(io) => io.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()),
        _ => None,
    };
    let hostname = url.hostname();
    if let Some(r) = tls {
        return explain_tls(hostname, url.port(), trust, r);
    }
    match e {
        tungstenite::Error::Tls(tungstenite::error::TlsError::InvalidDnsName) => {
            format!("`{hostname}` is not a name a TLS certificate can be for")
        }
        tungstenite::Error::Http(resp) if resp.status().as_u16() == 404 => format!(
            "the server has no WebSocket at {}: {}",
            url.path(),
            super::url::SHAPE
        ),
        tungstenite::Error::Io(io) if io.kind() == ErrorKind::ConnectionRefused => format!(
            "nothing is listening at {hostname}:{} (is the server running, and is that its port?)",
            url.port()
        ),
        tungstenite::Error::Io(io) if url.is_secure() && io.kind() == ErrorKind::UnexpectedEof => {
            format!("{hostname}:{} closed the TLS handshake: if it is a plain server, use ws:// instead of wss://", url.port())
        }
        // A TLS server hangs up on a plain HTTP request, or answers it with a TLS alert.
        tungstenite::Error::Protocol(_) | tungstenite::Error::Io(_) if !url.is_secure() => {
            format!("{e} (if the server uses TLS, use wss://)")
        }
        _ => e.to_string(),
    }
}

mod pin;
#[cfg(test)]
mod tests;
