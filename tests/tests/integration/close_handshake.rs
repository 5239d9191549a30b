//! The close handshake seen by a client that is still sending (Amendment A2): the code a
//! room chose reaches it, since the server reads and discards until the client's Close.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use serde_json::json;

use crate::support::{create, Closed, TestServer, RECV_TIMEOUT};

#[tokio::test]
async fn a_terminal_still_sending_when_its_seat_moves_gets_the_1000() {
    let srv = TestServer::start().await;
    let mut old = srv.client().await;
    let (_, joined) = create(&mut old, "ann", json!({})).await;
    let token = joined["you"]["token"].as_str().expect("token").to_owned();
    let mut new = srv.client().await;
    new.send(json!({"type": "resume", "token": token})).await;
    new.expect("room_joined").await;
    // The old terminal has not read its close yet and keeps talking.
    for i in 0..20 {
        old.send(json!({"type": "ping", "id": i})).await;
    }
    assert_eq!(old.closed().await, Closed::Code(1000));
}

/// A WebSocket client on a bare TCP socket, to send frames no library would and to see when
/// the server ends TCP.
struct RawWs {
    tcp: TcpStream,
    buf: Vec<u8>,
}

impl RawWs {
    /// Connect and upgrade; `welcome` is left unread.
    async fn connect(srv: &TestServer) -> RawWs {
        let mut tcp = TcpStream::connect(srv.addr).await.expect("connect");
        let head = format!(
            "GET /ws HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
            srv.addr
        );
        tcp.write_all(head.as_bytes()).await.expect("write");
        let mut raw = RawWs { tcp, buf: Vec::new() };
        let end = loop {
            if let Some(i) = raw.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            assert!(raw.fill().await > 0, "no answer to the upgrade");
        };
        let answer = String::from_utf8_lossy(&raw.buf[..end]).into_owned();
        assert!(answer.starts_with("HTTP/1.1 101"), "{answer}");
        raw.buf.drain(..end);
        raw
    }

    /// Read more bytes into the buffer: how many (0 at EOF).
    async fn fill(&mut self) -> usize {
        let mut chunk = [0u8; 4096];
        let n = tokio::time::timeout(RECV_TIMEOUT, self.tcp.read(&mut chunk))
            .await
            .expect("bytes in time")
            .unwrap_or(0);
        self.buf.extend_from_slice(&chunk[..n]);
        n
    }

    /// The next frame from the server: (opcode, payload).
    async fn frame(&mut self) -> (u8, Vec<u8>) {
        loop {
            if let Some((op, len, at)) = Self::header(&self.buf) {
                if self.buf.len() >= at + len {
                    let payload = self.buf[at..at + len].to_vec();
                    self.buf.drain(..at + len);
                    return (op, payload);
                }
            }
            assert!(self.fill().await > 0, "EOF before a whole frame");
        }
    }

    /// An unmasked frame's opcode, payload length and where its payload starts.
    fn header(b: &[u8]) -> Option<(u8, usize, usize)> {
        let (op, len7) = (*b.first()? & 0x0f, *b.get(1)? & 0x7f);
        match len7 {
            126 => Some((op, u16::from_be_bytes([*b.get(2)?, *b.get(3)?]).into(), 4)),
            127 => None,
            n => Some((op, n.into(), 2)),
        }
    }

    /// Read frames until the server's Close: its code.
    async fn server_close(&mut self) -> u16 {
        loop {
            let (op, payload) = self.frame().await;
            if op == 0x8 {
                return u16::from_be_bytes([payload[0], payload[1]]);
            }
        }
    }

    /// Send one masked frame (`first` is the FIN/RSV/opcode byte).
    async fn send(&mut self, first: u8, payload: &[u8]) {
        let mask = [0x37, 0xfa, 0x21, 0x3d];
        let mut f = vec![first];
        match payload.len() {
            n if n < 126 => f.push(0x80 | n as u8),
            n => {
                f.push(0x80 | 126);
                f.extend_from_slice(&(n as u16).to_be_bytes());
            }
        }
        f.extend_from_slice(&mask);
        f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.tcp.write_all(&f).await.expect("write");
    }

    /// Read until the server ends TCP (EOF or reset); how long that took.
    async fn until_eof(&mut self) -> Duration {
        let started = std::time::Instant::now();
        let mut chunk = [0u8; 4096];
        loop {
            let n = tokio::time::timeout(RECV_TIMEOUT, self.tcp.read(&mut chunk))
                .await
                .expect("the server ends TCP in time")
                .unwrap_or(0);
            if n == 0 {
                return started.elapsed();
            }
        }
    }
}

/// The frames that break a connection, and the close each gets (A2).
fn breakers() -> [(&'static str, u8, Vec<u8>, u16); 3] {
    [
        // A text frame longer than the 4096-byte limit.
        ("too big", 0x81, vec![b'x'; 5000], 1009),
        ("not utf-8", 0x81, vec![b'"', 0xff, 0xfe, b'"'], 1007),
        // RSV1 set, with no extension that gives it a meaning.
        ("reserved bit", 0xc1, b"{}".to_vec(), 1002),
    ]
}

/// A2: the server ends TCP at the client's Close, not at the end of its 2 s wait, also when the
/// framing broke (1009, 1007, 1002): a flood of bad connections does not hold descriptors.
#[tokio::test]
async fn after_a_broken_frame_tcp_ends_at_the_clients_close() {
    let srv = TestServer::start().await;
    for (what, first, payload, code) in breakers() {
        let mut ws = RawWs::connect(&srv).await;
        ws.send(first, &payload).await;
        assert_eq!(ws.server_close().await, code, "{what}");
        ws.send(0x88, &code.to_be_bytes()).await;
        let took = ws.until_eof().await;
        // The wait for a Close that never comes is 2 s: well before it, or it was not seen.
        assert!(took < Duration::from_secs(1), "{what}: TCP ended after {took:?}");
    }
}

/// A2: a client that never answers the server's Close is still dropped, at the end of the wait.
#[tokio::test]
async fn after_a_broken_frame_a_silent_client_is_dropped() {
    let srv = TestServer::start().await;
    for (what, first, payload, code) in breakers() {
        let mut ws = RawWs::connect(&srv).await;
        ws.send(first, &payload).await;
        assert_eq!(ws.server_close().await, code, "{what}");
        // `until_eof` fails the test if TCP is still open after its timeout.
        ws.until_eof().await;
    }
}
