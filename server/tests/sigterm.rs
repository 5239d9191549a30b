//! The real `sudoku-race-server` binary: SIGTERM (or SIGINT) in the middle of a race closes
//! every connection with 1001, stores the running race, and exits 0.
// A test of a real process waits on the real clock.
#![allow(clippy::disallowed_methods)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use shared::engine::{solver, Grid};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

const TIMEOUT: Duration = Duration::from_secs(20);

type Ws = WebSocketStream<TcpStream>;

/// Kills the child if the test fails before it exits.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

async fn connect(addr: &str) -> Ws {
    let stream = TcpStream::connect(addr).await.expect("connect");
    let (mut ws, _) = tokio_tungstenite::client_async(format!("ws://{addr}/ws"), stream)
        .await
        .expect("handshake");
    assert_eq!(recv(&mut ws).await["type"], "welcome");
    ws
}

async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into()))
        .await
        .expect("send");
}

async fn recv(ws: &mut Ws) -> Value {
    loop {
        let m = tokio::time::timeout(TIMEOUT, ws.next())
            .await
            .expect("timed out waiting for a message")
            .expect("connection ended")
            .expect("read");
        match m {
            Message::Text(t) => return serde_json::from_str(&t).expect("json"),
            Message::Ping(_) | Message::Pong(_) => continue,
            other => panic!("unexpected frame {other:?}"),
        }
    }
}

async fn until(ws: &mut Ws, ty: &str) -> Value {
    loop {
        let v = recv(ws).await;
        if v["type"] == ty {
            return v;
        }
    }
}

/// The close code, skipping any messages before it.
async fn close_code(ws: &mut Ws) -> Option<u16> {
    loop {
        let m = tokio::time::timeout(TIMEOUT, ws.next())
            .await
            .expect("timed out waiting for the close");
        match m {
            Some(Ok(Message::Close(f))) => return f.map(|f| u16::from(f.code)),
            Some(Ok(_)) => continue,
            Some(Err(_)) | None => return None,
        }
    }
}

/// The address from the server's JSON `listening` log line.
fn listening_addr(lines: &mpsc::Receiver<String>) -> String {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = lines.recv_timeout(left).expect("a `listening` log line");
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if v["fields"]["message"] == "listening" {
            return v["fields"]["addr"].as_str().expect("addr").to_owned();
        }
    }
}

fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        assert!(Instant::now() < deadline, "the server did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[tokio::test]
async fn sigterm_mid_race_closes_1001_stores_the_race_and_exits_0() {
    check_signal("-TERM").await;
}

#[tokio::test]
async fn sigint_mid_race_closes_1001_stores_the_race_and_exits_0() {
    check_signal("-INT").await;
}

async fn check_signal(signal: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("results.sqlite3");
    let child = Command::new(env!("CARGO_BIN_EXE_sudoku-race-server"))
        .args(["--listen", "127.0.0.1:0", "--log-format", "json"])
        .args(["--countdown-ms", "10", "--pool-size", "1"])
        .arg("--db")
        .arg(&db)
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the server binary");
    let mut child = Guard(child);
    let stderr = child.0.stderr.take().expect("stderr");
    let (tx, lines) = mpsc::channel();
    // Drain stderr for the whole run so the server never blocks on a full pipe.
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                // Nobody listens any more; keep draining.
                continue;
            }
        }
    });
    let addr = listening_addr(&lines);

    let (mut a, mut b) = (connect(&addr).await, connect(&addr).await);
    send(
        &mut a,
        json!({"type": "create_room", "name": "ann", "settings": {"difficulty": "easy"}}),
    )
    .await;
    let room = until(&mut a, "room_joined").await["room"]
        .as_str()
        .expect("room")
        .to_owned();
    send(
        &mut b,
        json!({"type": "join_room", "room": room, "name": "bob"}),
    )
    .await;
    until(&mut b, "room_joined").await;
    send(&mut a, json!({"type": "start_race"})).await;
    let rs = until(&mut a, "race_started").await;
    until(&mut b, "race_started").await;
    let race_id = rs["race_id"].as_str().expect("race_id").to_owned();
    let puzzle = rs["puzzle"].as_str().expect("puzzle");
    let grid = Grid::parse(puzzle).expect("grid");
    let solution = solver::solve_unique(&grid).expect("unique").to_line();
    let cells: Vec<(usize, u8)> = puzzle
        .bytes()
        .zip(solution.bytes())
        .enumerate()
        .filter(|(_, (p, _))| *p == b'.')
        .map(|(i, (_, s))| (i, s - b'0'))
        .take(2)
        .collect();
    for &(cell, digit) in &cells {
        send(
            &mut a,
            json!({"type": "place", "cell": cell, "digit": digit}),
        )
        .await;
        assert_eq!(until(&mut a, "placement").await["accepted"], true);
    }

    let pid = child.0.id().to_string();
    let killed = Command::new("kill")
        .args([signal, &pid])
        .status()
        .expect("run kill");
    assert!(killed.success());
    assert_eq!(close_code(&mut a).await, Some(1001));
    assert_eq!(close_code(&mut b).await, Some(1001));
    let status = tokio::task::spawn_blocking(move || {
        let s = wait_exit(&mut child.0);
        drop(child);
        s
    })
    .await
    .expect("wait");
    assert_eq!(status.code(), Some(0), "{status:?}");

    let store = server::Store::open(&db).expect("open the results");
    assert_eq!(
        store.race_reason(&race_id).expect("reason").as_deref(),
        Some("shutdown")
    );
    let st = store.standings(&race_id).expect("standings");
    assert_eq!(st.len(), 2);
    assert_eq!(st.iter().find(|r| r.name == "ann").expect("ann").filled, 2);
    assert_eq!(store.placement_count(&race_id).expect("placements"), 2);
}

#[test]
fn help_explains_every_flag() {
    let out = Command::new(env!("CARGO_BIN_EXE_sudoku-race-server"))
        .arg("--help")
        .output()
        .expect("run --help");
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--listen",
        "--db",
        "--max-connections",
        "--max-rooms",
        "--max-rooms-per-ip",
        "--rate-limit",
        "--rate-burst",
        "--idle-timeout-s",
        "--max-message-bytes",
        "--max-spectators",
        "--chat-rate",
        "--chat-burst",
        "--slow-queue-bytes",
        "--slow-drain-s",
        "--resume-grace-s",
        "--log-format",
    ] {
        assert!(
            help.lines().any(|l| l.trim_start().starts_with(flag)),
            "{flag} missing in\n{help}"
        );
        let env = format!(
            "[env: SUDOKU_RACE_{}",
            flag[2..].to_ascii_uppercase().replace('-', "_")
        );
        assert!(help.contains(&env), "{env} missing in\n{help}");
    }
}
