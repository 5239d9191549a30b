//! Pinning the certificates of `--ca-file`: a server whose own certificate is byte for byte one
//! of them is trusted as it is, whatever its extensions say. The usual
//! `openssl req -x509 -newkey rsa:2048 …` certificate is marked CA:TRUE, and webpki refuses a
//! CA certificate as a server's own (`CaUsedAsEndEntity`) even when it is a trust anchor: a user
//! who passed exactly that file meant to trust exactly that server. Any other certificate goes
//! through the normal webpki verification, and every handshake signature is still checked with
//! the crypto provider's algorithms, so a pin proves the server holds the pinned key.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::{DigitallySignedStruct, Error, RootCertStore, SignatureScheme};
use rustls_pki_types::{CertificateDer, ServerName, UnixTime};

/// A verifier that accepts a server certificate equal to one pinned, and otherwise asks webpki.
#[derive(Debug)]
pub struct Pinned {
    pins: Vec<CertificateDer<'static>>,
    webpki: Arc<WebPkiServerVerifier>,
    provider: Arc<CryptoProvider>,
}

impl Pinned {
    /// Trust `pins` as they are, and `roots` (which hold them too) the usual way.
    pub fn new(
        pins: Vec<CertificateDer<'static>>,
        roots: RootCertStore,
        provider: Arc<CryptoProvider>,
    ) -> Result<Pinned, rustls::client::VerifierBuilderError> {
        let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()?;
        Ok(Pinned {
            pins,
            webpki,
            provider,
        })
    }
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        if self.pins.iter().any(|p| p.as_ref() == end_entity.as_ref()) {
            return Ok(ServerCertVerified::assertion());
        }
        self.webpki
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}
