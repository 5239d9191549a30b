//! Under a file-descriptor limit below `--max-connections` the server lowers its cap and says
//! so; clients past the lowered cap get `welcome`, `server_full` and 1013, or a refused
//! connection (none hangs, and each is counted), and `/healthz` still answers; sockets that
//! never finish their request head make way for new clients at the cap; when accept runs out
//! of descriptors, the descriptors held in reserve take the waiting clients out to refuse them.

use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use server::net::admit::HANDSHAKE_GRACE;
use server::net::fd::MARGIN;
use server::net::OVERFLOW;
use std::time::Duration;

use testkit::wait::within;

use crate::support::process::{Server, Ws, TIMEOUT};

/// `ulimit -n` for the server.
const FD_LIMIT: u32 = 128;

#[tokio::test]
async fn clients_past_a_lowered_cap_get_server_full() {
    let srv = Server::start(&["--max-connections", "20000"], Some(FD_LIMIT));
    let warning = srv
        .log
        .iter()
        .find(|v| v["level"] == "WARN" && v["fields"]["lowered_to"].is_number())
        .unwrap_or_else(|| panic!("no warning about the cap in {:?}", srv.log));
    assert_eq!(warning["fields"]["max_connections"], 20000, "{warning}");
    assert_eq!(
        warning["fields"]["fd_limit"],
        u64::from(FD_LIMIT),
        "{warning}"
    );
    // The limit less what the server holds, a margin, and the refusals' overflow.
    let held = warning["fields"]["fds_open"].as_u64().expect("fds_open");
    let reserve = held + MARGIN + OVERFLOW as u64;
    assert!(held > 3 && reserve < u64::from(FD_LIMIT), "{warning}");
    assert_eq!(
        warning["fields"]["lowered_to"],
        u64::from(FD_LIMIT) - reserve,
        "{warning}"
    );
    let cap = (u64::from(FD_LIMIT) - reserve) as usize;

    let mut admitted: Vec<Ws> = Vec::new();
    for _ in 0..cap {
        let mut ws = srv.connect().await;
        assert_eq!(ws.recv().await.expect("a message")["type"], "welcome");
        admitted.push(ws);
    }
    for _ in 0..5 {
        let mut ws = srv.connect().await;
        assert_eq!(ws.recv().await.expect("a message")["type"], "welcome");
        let v = ws.recv().await.expect("a message");
        assert_eq!(v["code"], "server_full", "{v}");
        assert_eq!(ws.close_code().await, Some(1013));
    }
    let health = srv.http_get("/healthz").await;
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    let body: serde_json::Value =
        serde_json::from_str(health.split("\r\n\r\n").nth(1).unwrap_or("")).expect("json");
    // The refused ones may still be finishing their close handshake.
    let open = body["connections"].as_u64().expect("connections");
    assert!((cap as u64..=cap as u64 + 5).contains(&open), "{body}");
}

/// A slowloris (sockets that never finish their request head) at the descriptor limit does not
/// lock anyone out until the head deadline: the oldest sockets still in their handshake make
/// room for new ones, and `/metrics` counts them.
#[tokio::test]
async fn half_open_sockets_at_the_limit_are_evicted_for_new_clients() {
    // A head deadline far beyond every wait of the test: only an eviction answers in time.
    let srv = Server::start(
        &["--max-connections", "20000", "--request-timeout", "600"],
        Some(FD_LIMIT),
    );
    let mut half_open = Vec::new();
    for _ in 0..150 {
        let mut s = TcpStream::connect(&srv.addr).await.expect("connect");
        // Past the cap and its overflow a socket is closed at once: the write may fail.
        let _ = s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n").await;
        half_open.push(s);
    }
    // Handshakes make way once they are older than a real client's would be.
    tokio::time::sleep(HANDSHAKE_GRACE + Duration::from_millis(200)).await;
    let health = srv.http_get("/healthz").await;
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    let mut ws = srv.connect().await;
    assert_eq!(ws.recv().await.expect("welcome")["type"], "welcome");
    ws.send(json!({"type": "ping", "id": 1})).await;
    assert_eq!(ws.recv().await.expect("pong")["type"], "pong");
    let metrics = srv.http_get("/metrics").await;
    let evicted = metric(&metrics, "sudoku_race_handshakes_evicted_total");
    // `/healthz`, the WebSocket and `/metrics` each took a half-open socket's place.
    assert!(evicted >= 3, "{evicted} evicted:\n{metrics}");
}

/// Under a descriptor limit of 64, with `--max-connections` at its default, every one of 70
/// clients connecting at once gets an answer: `welcome` (and play: one of them creates a room),
/// or `welcome`, `server_full` and 1013, or a prompt close; none is left waiting, and every
/// one turned away is counted in `/metrics`.
#[tokio::test]
async fn every_client_past_a_small_fd_limit_gets_an_answer() {
    let srv = Server::start(&[], Some(64));
    let all = futures::future::join_all((0..70).map(|i| outcome(&srv.addr, i)));
    let outcomes = within("every client has an answer", 2 * TIMEOUT, all).await;
    let mut admitted = Vec::new();
    let (mut full, mut refused) = (0, 0);
    for o in outcomes {
        match o {
            Outcome::Playing(ws) => admitted.push(ws),
            Outcome::Full => full += 1,
            Outcome::Refused => refused += 1,
        }
    }
    eprintln!(
        "{} playing, {full} server_full, {refused} refused",
        admitted.len()
    );
    let Some(host) = admitted.first_mut() else {
        panic!("nobody could play")
    };
    host.send(json!({"type": "create_room", "name": "host"}))
        .await;
    host.until("room_joined").await;
    // With the players still connected, `/healthz` and `/metrics` answer.
    let health = srv.http_get("/healthz").await;
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    let metrics = srv.http_get("/metrics").await;
    let counted = ["cap", "overflow", "descriptors"]
        .map(|reason| {
            metric(
                &metrics,
                &format!("sudoku_race_connections_refused_total{{reason=\"{reason}\"}}"),
            )
        })
        .iter()
        .sum::<u64>()
        + metric(&metrics, "sudoku_race_handshakes_evicted_total");
    assert!(
        counted >= (full + refused) as u64,
        "{counted} counted for {full} server_full and {refused} refused:\n{metrics}"
    );
}

/// When the descriptors run out below the cap (here the limit is lowered under the running
/// server with `prlimit`, as anything else holding descriptors would), accept fails: the
/// clients waiting in the backlog are still taken out with the descriptors held in reserve and
/// refused, never left waiting there; and a client that comes alone is told `server_full`.
#[tokio::test]
async fn clients_are_refused_not_left_waiting_when_accept_runs_out_of_descriptors() {
    let srv = Server::start(&["--max-connections", "20000"], Some(FD_LIMIT));
    let lowered = std::process::Command::new("prlimit")
        .arg(format!("--pid={}", srv.pid()))
        .arg("--nofile=48:48")
        .status()
        .expect("run prlimit");
    assert!(lowered.success());
    let all = futures::future::join_all((0..100).map(|i| outcome(&srv.addr, i)));
    let outcomes = within("every client has an answer", 2 * TIMEOUT, all).await;
    let count = |f: fn(&Outcome) -> bool| outcomes.iter().filter(|o| f(o)).count();
    let playing = count(|o| matches!(o, Outcome::Playing(_)));
    let turned_away = count(|o| matches!(o, Outcome::Full | Outcome::Refused));
    eprintln!("{playing} playing, {turned_away} refused or told server_full");
    assert!(
        playing > 0 && turned_away > 0,
        "{playing} playing, {turned_away} turned away"
    );
    // One at a time, with the players still holding every descriptor: the reserve lets each
    // wait a moment for its handshake, so they hear `server_full` rather than a bare close.
    let mut alone = Vec::new();
    for i in 100..105 {
        alone.push(outcome(&srv.addr, i).await);
    }
    assert!(
        alone.iter().any(|o| matches!(o, Outcome::Full)),
        "nobody who came alone was told server_full"
    );
    drop(outcomes);
    // Once the players' descriptors are given back, `/metrics` is served again.
    let metrics = within("/metrics served again", TIMEOUT, async {
        loop {
            let answer = srv.http_get("/metrics").await;
            if answer.starts_with("HTTP/1.1 200") {
                break answer;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    let refused = metric(
        &metrics,
        "sudoku_race_connections_refused_total{reason=\"descriptors\"}",
    );
    assert!(refused >= 5, "{refused} counted:\n{metrics}");
}

/// How one client fared.
enum Outcome {
    /// `welcome`, and its `ping` is answered: it plays (kept open).
    Playing(Box<Ws>),
    /// `welcome`, `server_full` and close 1013.
    Full,
    /// The connection or its handshake was refused, or it closed before `welcome`.
    Refused,
}

/// Connect as client `i` and see what the server makes of it; every step bounded (a client that
/// waits longer than [`TIMEOUT`] for any answer fails the test).
async fn outcome(addr: &str, i: usize) -> Outcome {
    let Ok(stream) = tokio::time::timeout(TIMEOUT, TcpStream::connect(addr))
        .await
        .unwrap_or_else(|_| panic!("client {i}: no answer to its connect"))
    else {
        return Outcome::Refused;
    };
    let url = format!("ws://{addr}/ws");
    let Ok(handshake) =
        tokio::time::timeout(TIMEOUT, tokio_tungstenite::client_async(url, stream)).await
    else {
        panic!("client {i}: no answer to its handshake")
    };
    let Ok((ws, _)) = handshake else {
        return Outcome::Refused;
    };
    let mut ws = Ws::new(ws, TIMEOUT);
    let Ok(welcome) = ws.recv().await else {
        return Outcome::Refused;
    };
    assert_eq!(welcome["type"], "welcome", "client {i}: {welcome}");
    ws.send(json!({"type": "ping", "id": i})).await;
    let answer = ws
        .recv()
        .await
        .unwrap_or_else(|e| panic!("client {i}: {e:#}"));
    match answer["type"].as_str() {
        Some("pong") => Outcome::Playing(Box::new(ws)),
        _ => {
            assert_eq!(answer["code"], "server_full", "client {i}: {answer}");
            assert_eq!(ws.close_code().await, Some(1013), "client {i}");
            Outcome::Full
        }
    }
}

/// A counter's value in a `/metrics` answer (0 if absent); `name` with its labels, if any.
fn metric(text: &str, name: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or(0)
}
