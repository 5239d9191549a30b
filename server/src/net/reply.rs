//! What every HTTP answer is made of, shared by the router ([`super::http`]) and the WebSocket
//! handshake ([`super::upgrade`]) so neither imports the other: the body and response types,
//! what a request knows of its socket, and the two ways to build an answer.

use std::net::SocketAddr;
use std::sync::Arc;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::StatusCode;
use tokio_util::sync::CancellationToken;

use super::Slot;

/// Every answer's body: small and whole.
pub type Body = Full<Bytes>;

/// An answer.
pub type Response = hyper::Response<Body>;

/// What a request knows of its socket.
#[derive(Clone, Debug)]
pub struct Socket {
    /// The socket's place under the connection cap (kept by a WebSocket upgraded from it).
    pub slot: Arc<Slot>,
    /// The TCP peer.
    pub peer: SocketAddr,
    /// Cancelled once the first request head has arrived (the head deadline is met).
    pub head_seen: CancellationToken,
}

/// An answer with a body.
pub fn answer(status: StatusCode, content_type: &'static str, body: impl Into<Bytes>) -> Response {
    let mut resp = hyper::Response::new(Full::new(body.into()));
    *resp.status_mut() = status;
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    resp
}

/// A plain-text error answer: the status's own words.
pub fn error(status: StatusCode) -> Response {
    let words = status.canonical_reason().unwrap_or("error");
    answer(status, "text/plain; charset=utf-8", format!("{words}\n"))
}
