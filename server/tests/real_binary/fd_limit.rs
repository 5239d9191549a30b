//! Under a file-descriptor limit below `--max-connections` the server lowers its cap and says
//! so; clients past the lowered cap get `welcome`, `server_full` and 1013 (none hangs), and
//! `/healthz` still answers.

use crate::support::{Server, Ws};

/// `ulimit -n` for the server, and the cap that leaves (the limit less the server's reserve).
const FD_LIMIT: u32 = 128;
const CAP: usize = FD_LIMIT as usize - server::net::fd::RESERVE as usize;

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
    assert_eq!(warning["fields"]["lowered_to"], CAP, "{warning}");

    let mut admitted: Vec<Ws> = Vec::new();
    for _ in 0..CAP {
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
    assert!((CAP as u64..=CAP as u64 + 5).contains(&open), "{body}");
}
