//! The WebSocket handshake (RFC 6455 §4.2), checked here rather than by tungstenite so that a
//! bad one gets an HTTP answer (Amendment A2): 400, or 426 naming version 13; a browser from a
//! foreign origin gets 403. A good one gets 101, and the upgraded socket becomes a
//! [`super::conn`] connection on tungstenite (`from_raw_socket`), which keeps the
//! serialize-once broadcast.

use std::sync::Arc;

use futures::StreamExt;
use hyper::header::{
    HeaderMap, HeaderValue, CONNECTION, HOST, ORIGIN, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_KEY,
    SEC_WEBSOCKET_VERSION, UPGRADE,
};
use hyper::{Method, StatusCode, Version};
use hyper_util::rt::TokioIo;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::WebSocketStream;
use tracing::Instrument;

use super::reply::{self, Response, Socket};
use super::{client_addr, conn, tuning};

/// Why a handshake is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Not a valid WebSocket handshake: 400, with what is wrong.
    Bad(&'static str),
    /// A WebSocket version other than 13: 426.
    Version,
    /// A browser page from an origin that is neither ours nor allowed: 403.
    Origin,
}

impl Refusal {
    fn answer(self) -> Response {
        match self {
            Refusal::Bad(why) => reply::answer(
                StatusCode::BAD_REQUEST,
                "text/plain; charset=utf-8",
                format!("bad websocket handshake: {why}\n"),
            ),
            Refusal::Version => {
                let mut resp = reply::error(StatusCode::UPGRADE_REQUIRED);
                resp.headers_mut()
                    .insert(SEC_WEBSOCKET_VERSION, HeaderValue::from_static("13"));
                resp
            }
            Refusal::Origin => reply::error(StatusCode::FORBIDDEN),
        }
    }
}

/// Whether a request tries to be a WebSocket handshake at all.
pub fn is_upgrade<B>(req: &hyper::Request<B>) -> bool {
    req.headers().contains_key(UPGRADE) || req.headers().contains_key(SEC_WEBSOCKET_KEY)
}

/// Whether the request asks for a WebSocket (`Upgrade: websocket`, or a `Sec-WebSocket-Key`),
/// not another protocol (`Upgrade: h2c` is no WebSocket).
pub fn is_websocket_upgrade<B>(req: &hyper::Request<B>) -> bool {
    has_token(req.headers(), UPGRADE, "websocket") || req.headers().contains_key(SEC_WEBSOCKET_KEY)
}

/// Whether any `name` header lists `token` (comma-separated, any case).
fn has_token(headers: &HeaderMap, name: hyper::header::HeaderName, token: &str) -> bool {
    headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim().eq_ignore_ascii_case(token))
}

/// A `Sec-WebSocket-Key` is 16 bytes in base64: 22 characters and `==`.
fn valid_key(key: &[u8]) -> bool {
    key.len() == 24
        && key.ends_with(b"==")
        && key[..22]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
}

/// Whether the `Origin` (if any: terminal clients and bots send none) is the server's own
/// host or listed in `allowed`.
fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let origin = origin.trim_end_matches('/');
    if allowed
        .iter()
        .any(|a| a.trim_end_matches('/').eq_ignore_ascii_case(origin))
    {
        return true;
    }
    let host = headers.get(HOST).and_then(|h| h.to_str().ok());
    let origin_host = origin.split_once("://").map(|(_, h)| h);
    matches!((host, origin_host), (Some(h), Some(o)) if h.eq_ignore_ascii_case(o))
}

/// Check a handshake; the `Sec-WebSocket-Accept` value for a good one.
pub fn check<B>(req: &hyper::Request<B>, allowed_origins: &[String]) -> Result<String, Refusal> {
    let h = req.headers();
    if req.method() != Method::GET {
        return Err(Refusal::Bad("not GET"));
    }
    if req.version() < Version::HTTP_11 {
        return Err(Refusal::Bad("HTTP/1.1 or later is needed"));
    }
    if !h.contains_key(HOST) {
        return Err(Refusal::Bad("no Host"));
    }
    if !has_token(h, UPGRADE, "websocket") {
        return Err(Refusal::Bad("no Upgrade: websocket"));
    }
    if !has_token(h, CONNECTION, "upgrade") {
        return Err(Refusal::Bad("no Connection: Upgrade"));
    }
    let Some(key) = h.get(SEC_WEBSOCKET_KEY).map(HeaderValue::as_bytes) else {
        return Err(Refusal::Bad("no Sec-WebSocket-Key"));
    };
    if !valid_key(key) {
        return Err(Refusal::Bad("Sec-WebSocket-Key is not 16 bytes of base64"));
    }
    match h.get(SEC_WEBSOCKET_VERSION).map(HeaderValue::as_bytes) {
        None => return Err(Refusal::Bad("no Sec-WebSocket-Version")),
        Some(b"13") => {}
        Some(_) => return Err(Refusal::Version),
    }
    if !origin_allowed(h, allowed_origins) {
        return Err(Refusal::Origin);
    }
    Ok(derive_accept_key(key))
}

/// Answer a handshake: 101 and a connection task for the upgraded socket, or the refusal.
pub fn accept(mut req: hyper::Request<hyper::body::Incoming>, ctx: &Socket) -> Response {
    let server = ctx.slot.server.clone();
    let accept_key = match check(&req, &server.config.allowed_origins) {
        Ok(k) => k,
        Err(why) => {
            tracing::warn!(peer = %ctx.peer, ?why, "websocket handshake refused");
            return why.answer();
        }
    };
    let Ok(accept_key) = HeaderValue::try_from(accept_key) else {
        // base64 is always a valid header value: a bug, not the client's doing.
        tracing::error!("accept key is not a header value");
        return reply::error(StatusCode::INTERNAL_SERVER_ERROR);
    };
    let client = client_addr::client_ip(ctx.peer, req.headers(), server.config.trust_proxy);
    let on_upgrade = hyper::upgrade::on(&mut req);
    let slot = Arc::clone(&ctx.slot);
    let id = super::next_id(&server);
    let span = tracing::info_span!(
        "conn",
        conn_id = id.0,
        peer = %client,
        room = tracing::field::Empty,
        player_id = tracing::field::Empty
    );
    let max = server.config.limits.max_message_bytes;
    server.sockets.tasks.spawn(
        async move {
            let upgraded = match on_upgrade.await {
                Ok(u) => u,
                Err(e) => return tracing::debug!(error = %e, "upgrade failed"),
            };
            let config = tuning::websocket_config(max);
            let ws = WebSocketStream::from_raw_socket(
                TokioIo::new(upgraded),
                Role::Server,
                Some(config),
            )
            .await;
            // Split here: the socket moves into the halves' shared allocation at once, rather
            // than being carried (320 bytes) in the task's state for the connection's life.
            conn::serve(slot, ws.split(), client, id).await;
        }
        .instrument(span),
    );
    let mut resp = hyper::Response::new(reply::Body::default());
    *resp.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let headers = resp.headers_mut();
    headers.insert(UPGRADE, HeaderValue::from_static("websocket"));
    headers.insert(CONNECTION, HeaderValue::from_static("Upgrade"));
    headers.insert(SEC_WEBSOCKET_ACCEPT, accept_key);
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(headers: &[(&'static str, &str)]) -> hyper::Request<()> {
        let mut r = hyper::Request::get("/ws").body(()).expect("a request");
        for (k, v) in headers {
            r.headers_mut()
                .append(*k, HeaderValue::from_str(v).expect("a header value"));
        }
        r
    }

    const GOOD: [(&str, &str); 5] = [
        ("host", "example.org:7878"),
        ("upgrade", "websocket"),
        ("connection", "keep-alive, Upgrade"),
        ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ("sec-websocket-version", "13"),
    ];

    #[track_caller]
    fn check_with(extra: &[(&'static str, &str)], allowed: &[&str], expected: Result<(), Refusal>) {
        let mut h = GOOD.to_vec();
        h.retain(|(k, _)| !extra.iter().any(|(e, _)| e == k));
        h.extend(extra.iter().filter(|(_, v)| !v.is_empty()));
        let allowed: Vec<String> = allowed.iter().map(|s| s.to_string()).collect();
        assert_eq!(check(&req(&h), &allowed).map(|_| ()), expected, "{extra:?}");
    }

    #[test]
    fn the_rfc_example_key() {
        assert_eq!(
            check(&req(&GOOD), &[]),
            Ok("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=".to_owned())
        );
    }

    #[test]
    fn handshake_checks() {
        check_with(&[], &[], Ok(()));
        check_with(
            &[("upgrade", "")],
            &[],
            Err(Refusal::Bad("no Upgrade: websocket")),
        );
        check_with(
            &[("connection", "keep-alive")],
            &[],
            Err(Refusal::Bad("no Connection: Upgrade")),
        );
        check_with(
            &[("sec-websocket-key", "")],
            &[],
            Err(Refusal::Bad("no Sec-WebSocket-Key")),
        );
        check_with(
            &[("sec-websocket-key", "short")],
            &[],
            Err(Refusal::Bad("Sec-WebSocket-Key is not 16 bytes of base64")),
        );
        check_with(
            &[("sec-websocket-version", "8")],
            &[],
            Err(Refusal::Version),
        );
    }

    #[test]
    fn origins() {
        check_with(&[("origin", "http://example.org:7878")], &[], Ok(()));
        check_with(
            &[("origin", "https://evil.example")],
            &[],
            Err(Refusal::Origin),
        );
        check_with(&[("origin", "null")], &[], Err(Refusal::Origin));
        // The browser client served from this port: its origin is the Host it asked.
        let loopback = [
            ("host", "127.0.0.1:7878"),
            ("origin", "http://127.0.0.1:7878"),
        ];
        check_with(&loopback, &[], Ok(()));
        check_with(
            &[
                ("host", "127.0.0.1:7878"),
                ("origin", "http://127.0.0.1:7879"),
            ],
            &[],
            Err(Refusal::Origin),
        );
        check_with(
            &[("origin", "https://play.example")],
            &["https://play.example/"],
            Ok(()),
        );
    }
}
