//! The close handshake seen by a client that is still sending (Amendment A2): the code a
//! room chose reaches it, since the server reads and discards until the client's Close.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use futures::{SinkExt, StreamExt};
use serde_json::json;
use server::net::writer::LINGER;
use tokio_rustls::rustls::ClientConfig;
use tokio_tungstenite::tungstenite::Message;

use crate::support::{create, join, Client, Closed, TestServer, RECV_TIMEOUT};

#[tokio::test]
async fn a_terminal_still_sending_when_its_seat_moves_gets_the_1000() {
    let srv = TestServer::start().await;
    let mut old = srv.client().await;
    let (_, joined) = create(&mut old, "ann", json!({})).await;
    let token = joined["you"]["token"].as_str().expect("token").to_owned();
    let mut new = srv.client().await;
    new.send(json!({"type": "resume", "token": token})).await;
    new.expect("room_joined").await;
    // The old terminal has not read its close yet and keeps talking: its frames are written
    // as a terminal's writer does, many a syscall (a flush per frame took longer than the
    // server's linger on a loaded machine, and the socket was reset under the last ones).
    let mut ws = old.into_inner();
    for i in 0..13000 {
        let ping = json!({"type": "ping", "id": i}).to_string();
        ws.feed(Message::text(ping)).await.expect("feed");
    }
    ws.flush().await.expect("flush");
    let code = loop {
        match ws.next().await {
            Some(Ok(Message::Close(f))) => break f.map(|f| u16::from(f.code)),
            Some(Ok(_)) => continue,
            Some(Err(_)) | None => break None,
        }
    };
    assert_eq!(Closed::from(code), Closed::Code(1000));
}

/// A terminal busy sending (reading nothing) when its seat moves has more answers queued than
/// its socket takes: when it reads again, after longer than the server gives the queue, it
/// still finds the Close with 1000 after what could be delivered, never a bare EOF. (The
/// slow-reader rule and the rate limit are set out of the way: they would close with 1008.)
#[tokio::test]
async fn a_terminal_busy_sending_when_its_seat_moves_still_finds_the_1000() {
    let srv = TestServer::start_with(|c| {
        c.limits.slow_queue_bytes = 256 * 1024 * 1024;
        c.limits.slow_drain = Duration::from_secs(600);
        c.limits.out_queue = 1_000_000;
        c.limits.rate_limit = 1_000_000;
        c.limits.rate_burst = 1_000_000;
    })
    .await;
    let mut old = srv.small_buffer_client().await;
    let (_, joined) = create(&mut old, "ann", json!({})).await;
    let token = joined["you"]["token"].as_str().expect("token").to_owned();
    // Its answers fill the socket buffers and queue on the server.
    let pad = "p".repeat(100);
    for i in 0..150_000 {
        old.send(json!({"type": "ping", "id": i, "pad": pad})).await;
    }
    let mut new = srv.client().await;
    new.send(json!({"type": "resume", "token": token})).await;
    new.expect("room_joined").await;
    // Still busy for longer than the server's wait for the queue to drain.
    tokio::time::sleep(LINGER + Duration::from_millis(200)).await;
    assert_eq!(old.closed().await, Closed::Code(1000));
}

/// A racing player's old terminal keeps sending placements and pings, reading meanwhile, as
/// its seat moves to another connection: every time, it reads everything up to a Close frame
/// with 1000 (never a dropped TCP connection, which a client takes for a drop and answers by
/// taking the seat back).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_racer_still_sending_when_its_seat_moves_gets_the_1000_every_time() {
    let srv = TestServer::start().await;
    seat_moves_while_sending(&srv, None).await;
}

/// Twenty times: a racer (over TLS when `tls` gives the URL and the client config) keeps
/// sending while its seat moves; it must read a Close with 1000 each time.
pub(crate) async fn seat_moves_while_sending(
    srv: &TestServer,
    tls: Option<(&str, Arc<ClientConfig>)>,
) {
    for attempt in 0..20 {
        let mut ann = dial(srv, &tls).await;
        let (room, joined) = create(&mut ann, "ann", json!({"difficulty": "easy"})).await;
        let token = joined["you"]["token"].as_str().expect("token").to_owned();
        let mut bob = dial(srv, &tls).await;
        join(&mut bob, &room, "bob").await;
        ann.expect("player_joined").await;
        ann.send(json!({"type": "start_race"})).await;
        let started = ann.until("race_started").await;
        bob.until("race_started").await;
        let puzzle = started["puzzle"].as_str().expect("puzzle").to_owned();
        // A given cell: placing on it is answered (`given`) and never a mistake.
        let given = puzzle
            .bytes()
            .position(|b| b != b'.' && b != b'0')
            .expect("a given");
        let (mut sink, mut stream) = ann.into_inner().split();
        let sending = tokio::spawn(async move {
            for i in 0u64.. {
                let place = json!({"type": "place", "cell": given, "digit": 1, "id": i});
                let ping = json!({"type": "ping", "id": i});
                for m in [place, ping] {
                    if sink
                        .send(Message::Text(m.to_string().into()))
                        .await
                        .is_err()
                    {
                        return i;
                    }
                }
                // Busy, yet within the test server's rate limit (10,000/s) and its queue: a
                // flood past either is closed with 1008 on purpose, which a loaded machine
                // running the loop unpaced sometimes reached (attempt 9 of 20, once).
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            unreachable!("the connection closes first")
        });
        let reading = tokio::spawn(async move {
            loop {
                let next = tokio::time::timeout(RECV_TIMEOUT, stream.next())
                    .await
                    .expect("the old connection's close in time");
                match next {
                    Some(Ok(Message::Close(f))) => {
                        return Closed::from(f.map(|f| u16::from(f.code)));
                    }
                    Some(Ok(_)) => {}
                    Some(Err(_)) | None => return Closed::NoFrame,
                }
            }
        });
        // Let the old terminal get going before the seat moves.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let mut new = dial(srv, &tls).await;
        new.send(json!({"type": "resume", "token": token})).await;
        new.until("room_joined").await;
        assert_eq!(
            reading.await.expect("reader"),
            Closed::Code(1000),
            "attempt {attempt}"
        );
        let sent = tokio::time::timeout(RECV_TIMEOUT, sending)
            .await
            .expect("the sender stops once closed")
            .expect("sender");
        assert!(
            sent > 0,
            "attempt {attempt}: nothing was sent before the close"
        );
    }
}

/// A client past `welcome`, over TLS when `tls` says so.
async fn dial(srv: &TestServer, tls: &Option<(&str, Arc<ClientConfig>)>) -> Client {
    match tls {
        None => srv.client().await,
        Some((url, config)) => srv.tls_client(url, config.clone()).await,
    }
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
        let mut raw = RawWs {
            tcp,
            buf: Vec::new(),
        };
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

    /// Read until the server ends TCP (EOF or reset); whether it did within `within`.
    async fn eof_within(&mut self, within: Duration) -> bool {
        let mut chunk = [0u8; 4096];
        let eof = async { while self.tcp.read(&mut chunk).await.unwrap_or(0) > 0 {} };
        tokio::time::timeout(within, eof).await.is_ok()
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
        // The wait for a Close that never comes is 2 s: well before it, or it was not seen.
        assert!(
            ws.eof_within(Duration::from_secs(1)).await,
            "{what}: TCP still open 1 s after the client's Close"
        );
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
        assert!(
            ws.eof_within(RECV_TIMEOUT).await,
            "{what}: TCP still open after the server's wait for a Close"
        );
    }
}
