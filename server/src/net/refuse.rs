//! A refusal at accept, written straight to the socket: for a client taken out of the backlog
//! with a descriptor held in reserve ([`super::admit::Reserve`]), or one far past the
//! connection cap. It holds the socket's descriptor for one read and one write, never for a
//! round trip (only the one refusal at a time with the waiting turn waits, at most
//! [`HEAD_WAIT`], for the client's head): what the client has sent already decides the answer —
//! a complete WebSocket handshake gets 101, `welcome`, `error` `server_full` and close 1013
//! (what a client past the cap gets through [`super::conn`]), another complete request head
//! 503, anything else (no head yet, TLS) a plain close.

use std::io::{Read, Write};
use std::time::Duration;

use hyper::{Request, Version};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{
    CloseCode as WsCloseCode, Data, OpCode,
};
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;

use super::http::Route;
use super::{conn, upgrade};
use crate::config::Config;
use crate::outbox::CloseCode;

/// The most of a request head read for a refusal; a longer one gets a plain close.
const HEAD_MAX: usize = 4096;

/// How long the one refusal at a time that may wait ([`super::admit::WaitTurn`]) waits for its
/// client's request head: a client sends it right behind its connect, so a socket accepted
/// the moment it connects has it a little later, not a round trip later.
pub const HEAD_WAIT: Duration = Duration::from_millis(100);

/// The answer to a request that is no WebSocket handshake.
const UNAVAILABLE: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\n\
    content-type: text/plain; charset=utf-8\r\ncontent-length: 12\r\n\
    connection: close\r\n\r\nserver full\n";

/// What a refused client is told, made once at start.
#[derive(Debug)]
pub struct Refuser {
    /// `welcome`, `error` `server_full` and the close frame (1013), as WebSocket frames.
    frames: Vec<u8>,
    allowed_origins: Vec<String>,
    /// Under TLS nothing can be said before a TLS handshake: a refusal is a close.
    tls: bool,
}

/// What a refused client was told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Told {
    /// 101, `welcome`, `server_full` and close 1013.
    ServerFull,
    /// 503: its request was no WebSocket handshake.
    Unavailable,
    /// Nothing: the connection was closed (no complete head yet, TLS, or a failed write).
    Closed,
}

impl Refuser {
    /// The refusals of a server with `config`, under TLS when `tls`.
    pub fn new(config: &Config, tls: bool) -> Refuser {
        let mut frames = Vec::new();
        for msg in [conn::welcome(config), conn::server_full()] {
            match protocol::encode::to_json(&msg) {
                Ok(json) => push(
                    &mut frames,
                    Frame::message(json, OpCode::Data(Data::Text), true),
                ),
                // Our own messages always encode: a bug, and the refusals become closes.
                Err(e) => tracing::error!(error = %e, "cannot encode a refusal"),
            }
        }
        let close = CloseFrame {
            code: WsCloseCode::from(CloseCode::TryLater.as_u16()),
            reason: CloseCode::TryLater.reason().into(),
        };
        push(&mut frames, Frame::close(Some(close)));
        Refuser {
            frames,
            allowed_origins: config.allowed_origins.clone(),
            tls,
        }
    }

    /// Whether a refusal can say anything (not under TLS): whether waiting for a client's
    /// request head is any use.
    pub fn answers(&self) -> bool {
        !self.tls && !self.frames.is_empty()
    }

    /// Refuse the client on `stream` and close it.
    pub fn refuse(&self, stream: TcpStream) -> Told {
        // Off the runtime's poller: the read below must try the socket, not its cached state.
        let Ok(stream) = stream.into_std() else {
            return Told::Closed;
        };
        if !self.answers() {
            return Told::Closed;
        }
        self.answer(&stream)
        // Dropped here: closed after what was written.
    }

    /// Read what the client sent (without waiting) and write its answer.
    fn answer(&self, mut stream: &std::net::TcpStream) -> Told {
        let mut buf = [0u8; HEAD_MAX];
        let n = match stream.read(&mut buf) {
            // A full buffer may have more behind it, which a close would answer with a reset.
            Ok(n) if n < buf.len() => n,
            _ => return Told::Closed,
        };
        let Some(req) = parse_head(&buf[..n]) else {
            return Told::Closed;
        };
        let (bytes, told) = match self.handshake(&req) {
            Some(accept_key) => {
                let mut bytes = format!(
                    "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\
                     connection: Upgrade\r\nsec-websocket-accept: {accept_key}\r\n\r\n"
                )
                .into_bytes();
                bytes.extend_from_slice(&self.frames);
                (bytes, Told::ServerFull)
            }
            None => (UNAVAILABLE.to_vec(), Told::Unavailable),
        };
        // A few hundred bytes into an empty send buffer: written whole or the socket failed.
        match stream.write(&bytes) {
            Ok(k) if k == bytes.len() => told,
            _ => Told::Closed,
        }
    }

    /// The `Sec-WebSocket-Accept` value, if `req` is a good WebSocket handshake on a path that
    /// takes one.
    fn handshake(&self, req: &Request<()>) -> Option<String> {
        let route = Route::of(req.uri().path());
        let upgrades = route == Route::Ws || (route == Route::Invite && upgrade::is_upgrade(req));
        upgrades
            .then(|| upgrade::check(req, &self.allowed_origins).ok())
            .flatten()
    }
}

/// Wait until `stream` holds a whole request head, [`HEAD_MAX`] bytes, or its end (bound this
/// with a timeout).
pub async fn head_in(stream: &TcpStream) {
    let mut buf = vec![0u8; HEAD_MAX];
    loop {
        match stream.peek(&mut buf).await {
            Ok(n) if n > 0 && n < buf.len() && !has_head(&buf[..n]) => {}
            _ => return,
        }
        // Part of a head: the rest comes in another segment.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Whether `bytes` hold the end of a request head.
fn has_head(bytes: &[u8]) -> bool {
    bytes.windows(4).any(|w| w == b"\r\n\r\n")
}

fn push(out: &mut Vec<u8>, frame: Frame) {
    // Into a Vec: cannot fail.
    let _ = frame.format(out);
}

/// A complete HTTP/1 request head at the start of `bytes`, if there is one.
fn parse_head(bytes: &[u8]) -> Option<Request<()>> {
    let end = bytes.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&bytes[..end]).ok()?;
    let mut lines = head.split("\r\n");
    let mut start = lines.next()?.split(' ');
    let (method, target, version) = (start.next()?, start.next()?, start.next()?);
    let version = match version {
        "HTTP/1.1" => Version::HTTP_11,
        "HTTP/1.0" => Version::HTTP_10,
        _ => return None,
    };
    let mut req = Request::builder()
        .method(method)
        .uri(target)
        .version(version);
    for line in lines {
        let (name, value) = line.split_once(':')?;
        req = req.header(name.trim(), value.trim());
    }
    req.body(()).ok()
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;
    use tokio_tungstenite::tungstenite::Message;

    use super::*;

    /// A client connected to a fresh listener, and the server's end of it.
    async fn pair() -> (TcpStream, TcpStream, String) {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr").to_string();
        let client = TcpStream::connect(&addr).await.expect("connect");
        let (server, _) = listener.accept().await.expect("accept");
        (client, server, addr)
    }

    fn refuser() -> Refuser {
        Refuser::new(&Config::default(), false)
    }

    #[tokio::test]
    async fn a_handshake_already_in_gets_welcome_server_full_and_1013() {
        let (client, server, addr) = pair().await;
        let handshake = tokio::spawn(tokio_tungstenite::client_async(
            format!("ws://{addr}/ws"),
            client,
        ));
        head_in(&server).await;
        assert_eq!(refuser().refuse(server), Told::ServerFull);
        let (mut ws, _) = handshake.await.expect("join").expect("101");
        let mut got = Vec::new();
        while let Some(Ok(m)) = ws.next().await {
            got.push(m);
        }
        let text =
            |m: &Message| serde_json::from_str::<serde_json::Value>(m.to_text().unwrap_or("")).ok();
        assert_eq!(
            text(&got[0]).map(|v| v["type"].clone()),
            Some("welcome".into()),
            "{got:?}"
        );
        assert_eq!(
            text(&got[1]).map(|v| v["code"].clone()),
            Some("server_full".into()),
            "{got:?}"
        );
        match &got[2] {
            Message::Close(Some(f)) => assert_eq!(u16::from(f.code), 1013),
            m => panic!("not a close: {m:?}"),
        }
    }

    #[tokio::test]
    async fn another_request_gets_503_and_no_head_a_close() {
        let (mut client, server, _) = pair().await;
        client
            .write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
            .await
            .expect("write");
        head_in(&server).await;
        assert_eq!(refuser().refuse(server), Told::Unavailable);
        let mut answer = String::new();
        client.read_to_string(&mut answer).await.expect("read");
        assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");

        let (mut client, server, _) = pair().await;
        assert_eq!(refuser().refuse(server), Told::Closed);
        assert_eq!(client.read(&mut [0u8; 16]).await.expect("eof"), 0);
    }

    #[test]
    fn a_head_is_complete_or_none() {
        let req = parse_head(b"GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n\r\n")
            .expect("a head");
        assert_eq!(req.uri().path(), "/ws");
        assert_eq!(req.headers()["upgrade"], "websocket");
        assert!(parse_head(b"GET /ws HTTP/1.1\r\nHost: a\r\n").is_none());
        assert!(parse_head(b"GET /ws HTTP/2\r\n\r\n").is_none());
        assert!(parse_head(b"GET /ws HTTP/1.1\r\nno colon\r\n\r\n").is_none());
    }
}
