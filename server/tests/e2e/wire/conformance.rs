//! Raw-socket conformance of the transport (Amendment A2): HTTP answers to bad upgrades, the
//! request-head deadline, half-open sockets under the connection limit, WebSocket framing
//! errors and their close codes, and a close that reaches a client which keeps sending.
//!
//! Frames are written by hand here (a client library would refuse to send the bad ones).

use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;

use crate::support::TestServer;

const T: Duration = Duration::from_secs(10);

/// A raw client-to-server frame: FIN flag, opcode, payload, masked or not (clients must mask).
fn frame(fin: bool, opcode: u8, payload: &[u8], masked: bool) -> Vec<u8> {
    let mut f = vec![(u8::from(fin) << 7) | opcode];
    let mask_bit = if masked { 0x80 } else { 0 };
    match payload.len() {
        n if n < 126 => f.push(mask_bit | n as u8),
        n if n <= 0xFFFF => {
            f.push(mask_bit | 126);
            f.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            f.push(mask_bit | 127);
            f.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    if masked {
        let key = [0x37, 0xfa, 0x21, 0x3d];
        f.extend_from_slice(&key);
        f.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
    } else {
        f.extend_from_slice(payload);
    }
    f
}

fn text(s: &str) -> Vec<u8> {
    frame(true, 0x1, s.as_bytes(), true)
}

/// A server-to-client frame as read back: opcode and payload.
struct Frame {
    opcode: u8,
    payload: Vec<u8>,
}

impl Frame {
    fn close_code(&self) -> Option<u16> {
        (self.opcode == 0x8 && self.payload.len() >= 2)
            .then(|| u16::from_be_bytes([self.payload[0], self.payload[1]]))
    }
}

/// A WebSocket connection past the handshake (and past `welcome`), driven byte by byte.
struct Raw {
    tcp: TcpStream,
    buf: Vec<u8>,
}

impl Raw {
    async fn open(srv: &TestServer) -> Raw {
        let mut tcp = TcpStream::connect(srv.addr).await.expect("connect");
        let req = format!(
            "GET /ws HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
            srv.addr
        );
        tcp.write_all(req.as_bytes()).await.expect("write upgrade");
        let mut raw = Raw {
            tcp,
            buf: Vec::new(),
        };
        let head = raw.read_head().await;
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        let welcome = raw.next().await.expect("welcome frame");
        assert_eq!(welcome.opcode, 0x1);
        raw
    }

    async fn fill(&mut self) -> bool {
        let mut chunk = [0u8; 4096];
        match timeout(T, self.tcp.read(&mut chunk)).await {
            Ok(Ok(0)) | Ok(Err(_)) => false,
            Ok(Ok(n)) => {
                self.buf.extend_from_slice(&chunk[..n]);
                true
            }
            Err(_) => panic!("no data from the server within {T:?}"),
        }
    }

    async fn read_head(&mut self) -> String {
        loop {
            if let Some(i) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&self.buf[..i]).into_owned();
                self.buf.drain(..i + 4);
                return head;
            }
            assert!(self.fill().await, "EOF before the response head");
        }
    }

    /// The next frame, or `None` at EOF. Panics on a reset: A2 says the client gets the close.
    async fn next(&mut self) -> Option<Frame> {
        loop {
            if self.buf.len() >= 2 {
                let len0 = usize::from(self.buf[1] & 0x7f);
                let (len, off) = match len0 {
                    126 if self.buf.len() >= 4 => (
                        usize::from(u16::from_be_bytes([self.buf[2], self.buf[3]])),
                        4,
                    ),
                    127 if self.buf.len() >= 10 => {
                        let mut b = [0u8; 8];
                        b.copy_from_slice(&self.buf[2..10]);
                        (u64::from_be_bytes(b) as usize, 10)
                    }
                    126 | 127 => (usize::MAX, 0),
                    n => (n, 2),
                };
                if len != usize::MAX && self.buf.len() >= off + len {
                    let f = Frame {
                        opcode: self.buf[0] & 0x0f,
                        payload: self.buf[off..off + len].to_vec(),
                    };
                    self.buf.drain(..off + len);
                    return Some(f);
                }
            }
            let mut chunk = [0u8; 4096];
            match timeout(T, self.tcp.read(&mut chunk)).await {
                Ok(Ok(0)) => return None,
                Ok(Ok(n)) => self.buf.extend_from_slice(&chunk[..n]),
                Ok(Err(e)) => panic!("read failed (a reset loses the close): {e}"),
                Err(_) => panic!("no frame within {T:?}"),
            }
        }
    }

    async fn send(&mut self, bytes: &[u8]) {
        self.tcp.write_all(bytes).await.expect("write");
    }

    /// Frames until the server's close frame; its code.
    async fn close_code(&mut self) -> u16 {
        while let Some(f) = self.next().await {
            if f.opcode == 0x8 {
                return f.close_code().unwrap_or(1005);
            }
        }
        panic!("EOF without a close frame");
    }
}

#[track_caller]
fn check_close(code: u16, expected: u16) {
    assert_eq!(code, expected, "close code");
}

#[tokio::test]
async fn framing_errors_close_with_their_codes() {
    let srv = TestServer::start().await;
    // An unmasked client frame.
    let mut c = Raw::open(&srv).await;
    c.send(&frame(true, 0x1, br#"{"type":"ping"}"#, false))
        .await;
    check_close(c.close_code().await, 1002);
    // Invalid UTF-8 in a text frame.
    let mut c = Raw::open(&srv).await;
    c.send(&frame(true, 0x1, &[b'"', 0xff, 0xfe, b'"'], true))
        .await;
    check_close(c.close_code().await, 1007);
    // Over the 4096-byte limit.
    let mut c = Raw::open(&srv).await;
    c.send(&text(&format!(
        r#"{{"type":"chat","text":"{}"}}"#,
        "x".repeat(5000)
    )))
    .await;
    check_close(c.close_code().await, 1009);
    // A fragmented control frame, and an oversized one.
    let mut c = Raw::open(&srv).await;
    c.send(&frame(false, 0x9, b"hi", true)).await;
    check_close(c.close_code().await, 1002);
    let mut c = Raw::open(&srv).await;
    c.send(&frame(true, 0x9, &[7u8; 126], true)).await;
    check_close(c.close_code().await, 1002);
    // A continuation with no message started.
    let mut c = Raw::open(&srv).await;
    c.send(&frame(true, 0x0, b"{}", true)).await;
    check_close(c.close_code().await, 1002);
}

#[tokio::test]
async fn a_client_close_is_echoed() {
    let srv = TestServer::start().await;
    let mut c = Raw::open(&srv).await;
    c.send(&frame(true, 0x8, &1000u16.to_be_bytes(), true))
        .await;
    check_close(c.close_code().await, 1000);
    assert!(c.next().await.is_none(), "EOF after the close handshake");
}

#[tokio::test]
async fn a_client_that_keeps_sending_still_gets_the_close() {
    // Flood past the rate limit while never stopping: the 1008 and the errors before it arrive
    // (the server drains input after its Close instead of resetting the connection).
    let srv = TestServer::start_with(|c| {
        c.limits.rate_limit = 20;
        c.limits.rate_burst = 40;
    })
    .await;
    let mut c = Raw::open(&srv).await;
    let ping = text(r#"{"type":"ping","id":1}"#);
    let mut burst = Vec::new();
    for _ in 0..150 {
        burst.extend_from_slice(&ping);
    }
    c.send(&burst).await;
    let (mut pongs, mut limited) = (0, 0);
    let code = loop {
        // Keep sending while reading, as a misbehaving client would.
        let _ = c.tcp.try_write(&ping);
        let f = c.next().await.expect("a frame, not EOF, before the close");
        match f.opcode {
            0x1 => {
                let v: serde_json::Value = serde_json::from_slice(&f.payload).unwrap();
                match v["type"].as_str() {
                    Some("pong") => pongs += 1,
                    Some("error") if v["code"] == "rate_limited" => limited += 1,
                    _ => {}
                }
            }
            0x8 => break f.close_code().unwrap_or(1005),
            _ => {}
        }
    };
    check_close(code, 1008);
    assert!(pongs >= 40, "pongs {pongs}");
    assert!(limited >= 50, "rate_limited errors {limited}");
}

#[tokio::test]
async fn an_oversized_message_mid_stream_still_gets_1009() {
    let srv = TestServer::start().await;
    let mut c = Raw::open(&srv).await;
    let mut bytes = text(r#"{"type":"ping","id":"a"}"#);
    bytes.extend(text(&"y".repeat(6000)));
    for _ in 0..20 {
        bytes.extend(text(r#"{"type":"ping","id":"b"}"#));
    }
    c.send(&bytes).await;
    let mut got_pong = false;
    loop {
        let f = c.next().await.expect("frame");
        if f.opcode == 0x1 {
            got_pong |= String::from_utf8_lossy(&f.payload).contains(r#""id":"a""#);
        }
        if f.opcode == 0x8 {
            check_close(f.close_code().unwrap_or(1005), 1009);
            break;
        }
    }
    assert!(got_pong, "the pong queued before the close arrives");
}

#[tokio::test]
async fn ids_beyond_64_bits_echo_exactly() {
    let srv = TestServer::start().await;
    let mut c = Raw::open(&srv).await;
    for id in [
        "18446744073709551616",
        "1.50",
        "123456789012345678901234567890",
        "-0.0",
    ] {
        c.send(&text(&format!(r#"{{"type":"ping","id":{id}}}"#)))
            .await;
        let f = c.next().await.expect("pong");
        assert_eq!(
            String::from_utf8(f.payload).unwrap(),
            format!(r#"{{"type":"pong","id":{id}}}"#)
        );
    }
}

/// The next text frame whose payload holds `"type":"<ty>"`, as text (other frames skipped).
async fn text_of_type(c: &mut Raw, ty: &str) -> String {
    let want = format!(r#""type":"{ty}""#);
    loop {
        let f = c.next().await.expect("a frame");
        if f.opcode == 0x1 {
            let s = String::from_utf8(f.payload).expect("utf-8");
            if s.contains(&want) {
                return s;
            }
        }
    }
}

/// Valid JSON numbers that no `f64` or 64-bit integer holds digit for digit (A3): `pong` and
/// `placement` echo them byte for byte, never `bad_message`, never a rounded number.
#[tokio::test]
async fn huge_and_overflowing_ids_echo_byte_for_byte_in_pong_and_placement() {
    let srv = TestServer::start().await;
    let mut c = Raw::open(&srv).await;
    let ids = ["1e400", "999999999999999999999999999999", "-1E-400"];
    for id in ids {
        c.send(&text(&format!(r#"{{"type":"ping","id":{id}}}"#)))
            .await;
        let f = c.next().await.expect("pong");
        assert_eq!(
            String::from_utf8(f.payload).unwrap(),
            format!(r#"{{"type":"pong","id":{id}}}"#)
        );
    }
    c.send(&text(
        r#"{"type":"create_room","name":"ann","settings":{"max_players":1}}"#,
    ))
    .await;
    text_of_type(&mut c, "room_joined").await;
    c.send(&text(r#"{"type":"start_race"}"#)).await;
    let started: serde_json::Value =
        serde_json::from_str(&text_of_type(&mut c, "race_started").await).unwrap();
    let puzzle = started["puzzle"].as_str().expect("puzzle").to_owned();
    // Givens answer `given` without ending anything: the id still comes back.
    let given = puzzle.find(|ch| ch != '.').expect("a given");
    for id in ids {
        c.send(&text(&format!(
            r#"{{"type":"place","cell":{given},"digit":1,"id":{id}}}"#
        )))
        .await;
        let placement = text_of_type(&mut c, "placement").await;
        assert!(
            placement.contains(&format!(r#""id":{id},"#)),
            "{id} in {placement}"
        );
    }
}

/// Send `req` on a fresh socket and read the whole answer head (and body when short).
async fn http(srv: &TestServer, req: &str) -> String {
    let mut tcp = TcpStream::connect(srv.addr).await.expect("connect");
    tcp.write_all(req.as_bytes()).await.expect("write");
    let mut out = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match timeout(T, tcp.read(&mut chunk)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => {
                out.extend_from_slice(&chunk[..n]);
                if out.windows(4).any(|w| w == b"\r\n\r\n") {
                    // Give a body a moment, then stop (keep-alive would hold the socket open).
                    if let Ok(Ok(n)) =
                        timeout(Duration::from_millis(200), tcp.read(&mut chunk)).await
                    {
                        out.extend_from_slice(&chunk[..n]);
                    }
                    break;
                }
            }
            Err(_) => panic!("no answer within {T:?} to {req:?}"),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn bad_upgrades_get_an_http_answer() {
    let srv = TestServer::start().await;
    let host = srv.addr;
    let key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
    let up = "Upgrade: websocket\r\nConnection: Upgrade\r\n";
    let cases = [
        // No key.
        (format!("GET /ws HTTP/1.1\r\nHost: {host}\r\n{up}Sec-WebSocket-Version: 13\r\n\r\n"), "400"),
        // No Upgrade header, and no Connection: Upgrade.
        (format!("GET /ws HTTP/1.1\r\nHost: {host}\r\nConnection: Upgrade\r\n{key}Sec-WebSocket-Version: 13\r\n\r\n"), "400"),
        (format!("GET /ws HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n{key}Sec-WebSocket-Version: 13\r\n\r\n"), "400"),
        // HTTP/1.0 cannot upgrade.
        (format!("GET /ws HTTP/1.0\r\nHost: {host}\r\n{up}{key}Sec-WebSocket-Version: 13\r\n\r\n"), "400"),
    ];
    for (req, code) in &cases {
        let answer = http(&srv, req).await;
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {code}"))
                || answer.starts_with(&format!("HTTP/1.0 {code}")),
            "{req:?} got {answer:?}"
        );
    }
    // An unsupported version: 426 naming the one we speak.
    let answer = http(
        &srv,
        &format!("GET /ws HTTP/1.1\r\nHost: {host}\r\n{up}{key}Sec-WebSocket-Version: 8\r\n\r\n"),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 426"), "{answer}");
    assert!(
        answer
            .to_ascii_lowercase()
            .contains("sec-websocket-version: 13"),
        "{answer}"
    );
    // Unknown paths, wrong methods, HEAD.
    let answer = http(&srv, &format!("GET /nope HTTP/1.1\r\nHost: {host}\r\n\r\n")).await;
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
    let answer = http(
        &srv,
        &format!("POST /healthz HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\n\r\n"),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 405"), "{answer}");
    let answer = http(
        &srv,
        &format!("HEAD /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n"),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with("\r\n\r\n"), "HEAD has no body: {answer:?}");
}

/// The contract's WebSocket endpoints are `/ws` and the invite links `/r/CODE` (Transport, A5):
/// an upgrade there upgrades; an upgrade anywhere else is 404 (A2: unknown paths), never the
/// page with 200. A plain GET of `/` still gets the page.
#[tokio::test]
async fn an_upgrade_off_the_websocket_paths_is_404_never_the_page() {
    let srv = TestServer::start().await;
    let host = srv.addr;
    let up = "Upgrade: websocket\r\nConnection: Upgrade\r\n\
              Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
    for path in [
        "/",
        "/healthz",
        "/metrics",
        "/assets/app.js",
        "/api/daily",
        "/nope",
        "/r/AB",
    ] {
        let answer = http(
            &srv,
            &format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n{up}\r\n"),
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 404"), "{path}: {answer}");
    }
    for path in ["/ws", "/r/ABCD"] {
        let answer = http(
            &srv,
            &format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n{up}\r\n"),
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 101"), "{path}: {answer}");
    }
    let answer = http(&srv, &format!("GET / HTTP/1.1\r\nHost: {host}\r\n\r\n")).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // Another protocol's upgrade (HTTP/2 over cleartext) is no WebSocket: the page, as HTTP/1.1.
    let answer = http(
        &srv,
        &format!("GET / HTTP/1.1\r\nHost: {host}\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n"),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[tokio::test]
async fn keep_alive_serves_several_requests_on_one_socket() {
    let srv = TestServer::start().await;
    let mut tcp = TcpStream::connect(srv.addr).await.unwrap();
    let req = format!("GET /healthz HTTP/1.1\r\nHost: {}\r\n\r\n", srv.addr);
    let mut seen = String::new();
    for _ in 0..2 {
        tcp.write_all(req.as_bytes()).await.unwrap();
        let mut chunk = [0u8; 4096];
        let n = timeout(T, tcp.read(&mut chunk)).await.unwrap().unwrap();
        seen.push_str(&String::from_utf8_lossy(&chunk[..n]));
    }
    assert_eq!(seen.matches("HTTP/1.1 200").count(), 2, "{seen}");
}

#[tokio::test]
async fn a_half_open_head_is_closed_after_the_deadline() {
    let srv = TestServer::start_with(|c| c.request_timeout = Duration::from_millis(300)).await;
    for partial in [
        "GET /ws HTTP/1.1\r\n",
        "GET /ws HTTP/1.1\r\nHost: x\r\nUpg",
        "",
    ] {
        let mut tcp = TcpStream::connect(srv.addr).await.unwrap();
        tcp.write_all(partial.as_bytes()).await.unwrap();
        let mut chunk = [0u8; 1024];
        // Closed (EOF, perhaps after a 408) well before our own 10 s bound.
        loop {
            match timeout(T, tcp.read(&mut chunk)).await {
                Ok(Ok(0)) | Ok(Err(_)) => break,
                Ok(Ok(_)) => continue,
                Err(_) => panic!("a half-open socket ({partial:?}) was held open"),
            }
        }
    }
}

#[tokio::test]
async fn half_open_sockets_count_against_the_connection_limit() {
    let srv = TestServer::start_with(|c| c.limits.max_connections = 2).await;
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut tcp = TcpStream::connect(srv.addr).await.unwrap();
        tcp.write_all(b"GET /ws HTTP/1.1\r\n").await.unwrap();
        held.push(tcp);
    }
    // Give the server a moment to count them.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut c = Raw::open(&srv).await; // the upgrade still completes, then:
    let f = c.next().await.expect("error frame");
    let v: serde_json::Value = serde_json::from_slice(&f.payload).unwrap();
    assert_eq!(v["code"], json!("server_full"), "{v}");
    check_close(c.close_code().await, 1013);
    drop(held);
    // Once they are gone, a client gets in.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut ok = srv.client().await;
    ok.send(json!({"type": "ping", "id": 1})).await;
    ok.expect("pong").await;
}

#[tokio::test]
async fn shutdown_finishes_within_the_grace_whatever_clients_do() {
    let mut srv = TestServer::start_with(|c| {
        c.request_timeout = Duration::from_secs(60);
        c.shutdown_grace = Duration::from_millis(500);
    })
    .await;
    // A half-open socket, and a client that never reads nor answers the close.
    let mut half = TcpStream::connect(srv.addr).await.unwrap();
    half.write_all(b"GET /ws HTTP/1.1\r\n").await.unwrap();
    let _silent = Raw::open(&srv).await;
    timeout(Duration::from_secs(5), srv.shutdown())
        .await
        .expect("shutdown within the grace, well before 5 s")
        .expect("run returns");
}
