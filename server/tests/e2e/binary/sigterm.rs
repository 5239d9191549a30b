//! SIGTERM (or SIGINT) in the middle of a race tells every member `room_closed`, closes every
//! connection with 1001, stores the running race, and exits 0; a socket held half-open does not
//! keep the process alive; `--help` explains every flag.

use std::process::Command;
use std::time::Duration;

use serde_json::json;
use server::Store as _;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::support::process::{player, two_in_a_room, Server, TIMEOUT};
use testkit::{solve, to_fill};

#[tokio::test]
async fn sigterm_mid_race_closes_1001_stores_the_race_and_exits_0() {
    check_signal("-TERM").await;
}

#[tokio::test]
async fn sigint_mid_race_closes_1001_stores_the_race_and_exits_0() {
    check_signal("-INT").await;
}

async fn check_signal(signal: &str) {
    let mut srv = Server::start(&["--countdown-ms", "10", "--puzzle-stock", "1"], None);
    let (mut a, mut b) = (player(&srv).await, player(&srv).await);
    let room = two_in_a_room(
        (
            &mut a,
            json!({"type": "create_room", "name": "ann", "settings": {"difficulty": "easy"}}),
        ),
        (&mut b, json!({"type": "join_room", "name": "bob"})),
    )
    .await;
    a.send(json!({"type": "start_race"})).await;
    let rs = a.until("race_started").await;
    b.until("race_started").await;
    let race_id = rs["race_id"].as_str().expect("race_id").to_owned();
    let puzzle = rs["puzzle"].as_str().expect("puzzle");
    let cells: Vec<(usize, u8)> = to_fill(puzzle, &solve(puzzle))
        .into_iter()
        .take(2)
        .collect();
    for &(cell, digit) in &cells {
        a.send(json!({"type": "place", "cell": cell, "digit": digit}))
            .await;
        assert_eq!(a.until("placement").await["accepted"], true);
    }

    srv.signal(signal);
    for ws in [&mut a, &mut b] {
        assert_eq!(ws.until("room_closed").await["room"], room.as_str());
        assert_eq!(ws.close_code().await, Some(1001));
    }
    let status = srv.exit(TIMEOUT).await;
    assert_eq!(status.code(), Some(0), "{status:?}");

    let store = server::SqliteStore::open(&srv.db).expect("open the results");
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
        "--kick-bar-s",
        "--log-format",
        "--request-timeout",
        "--shutdown-grace",
        "--drain-s",
        "--tls-cert",
        "--tls-key",
        "--trust-proxy",
        "--allowed-origin",
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
    // The routes on the one port, the browser client's among them.
    for route in ["/ws", "/r/CODE", "/assets/", "/healthz", "/metrics"] {
        assert!(help.contains(route), "{route} missing in\n{help}");
    }
}

#[tokio::test]
async fn sigterm_with_a_half_open_socket_exits_0_within_the_grace() {
    let mut srv = Server::start(&["--shutdown-grace", "2", "--request-timeout", "60"], None);
    let mut half = TcpStream::connect(&srv.addr).await.expect("connect");
    half.write_all(b"GET /ws HTTP/1.1\r\n")
        .await
        .expect("write");
    let _silent = srv.connect().await; // upgraded, never reads nor answers the close
    srv.signal("-TERM");
    // The grace, the rooms' last second, and slack for a loaded machine: bounded, not hanging.
    let status = srv.exit(Duration::from_secs(2 + 10)).await;
    assert_eq!(status.code(), Some(0), "{status:?}");
    drop(half);
}
