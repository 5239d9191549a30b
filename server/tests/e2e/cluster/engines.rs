//! The engines a cluster test runs on: its own `redis-server` on a free port, and the nodes.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

pub use crate::support::own_pg::Postgres;
use crate::support::process::{Server, Ws, TIMEOUT};

/// A port nothing listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A `redis-server` of the test's own, keeping nothing on disk; killed when dropped.
pub struct Redis {
    child: Option<Child>,
    /// Its port (kept across a restart).
    pub port: u16,
    /// Another address it listens on besides 127.0.0.1 (a test host's link).
    also: Option<String>,
}

impl Redis {
    /// Start one on a free port.
    pub fn start() -> Redis {
        Redis::start_also(None)
    }

    /// Start one on a free port, listening on `also` besides 127.0.0.1.
    pub fn start_also(also: Option<&str>) -> Redis {
        // A free port can be taken by a parallel test between its probe and the server's bind:
        // then this server exits and another test's answers on the port. Only a server that
        // says it is ours (its process id) is kept; else a fresh port is tried.
        for _ in 0..5 {
            let mut r = Redis {
                child: None,
                port: free_port(),
                also: also.map(str::to_owned),
            };
            if r.spawn() {
                return r;
            }
        }
        panic!("redis-server did not start on a free port in five tries");
    }

    /// Start the server on its port; whether it is the one listening there.
    fn spawn(&mut self) -> bool {
        let mut child = Command::new("redis-server")
            .args(["--port", &self.port.to_string()])
            .arg("--bind")
            .args(std::iter::once("127.0.0.1").chain(self.also.as_deref()))
            .args(["--protected-mode", "no", "--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server (is it installed?)");
        let deadline = testkit::wait::Deadline::after(TIMEOUT);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if matches!(child.try_wait(), Ok(Some(_))) {
                return false;
            }
            deadline.check("redis-server listens");
            std::thread::sleep(Duration::from_millis(20));
        }
        let pid = child.id();
        self.child = Some(child);
        self.is_process(pid)
    }

    /// Whether the server on this port is process `pid` (`INFO server` names it).
    fn is_process(&self, pid: u32) -> bool {
        let info = redis::Client::open(self.url())
            .and_then(|c| c.get_connection())
            .and_then(|mut con| redis::cmd("INFO").arg("server").query::<String>(&mut con));
        let ours = format!("process_id:{pid}");
        info.is_ok_and(|i| i.lines().any(|l| l.trim() == ours))
    }

    /// Its URL.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Kill it (everything it held is lost: it keeps nothing on disk).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Start it again on the same port, empty.
    pub fn start_again(&mut self) {
        self.kill();
        assert!(
            self.spawn(),
            "redis-server started again on port {}",
            self.port
        );
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A node of a cluster on `redis`, with results in `db` (or its own SQLite file).
pub fn node(redis: &Redis, id: &str, db: Option<&str>) -> Server {
    node_with(redis, id, db, &[])
}

/// [`node`], with `extra` flags.
pub fn node_with(redis: &Redis, id: &str, db: Option<&str>, extra: &[&str]) -> Server {
    node_with_env(redis, id, db, extra, &[])
}

/// [`node_with`], with `env` added to the node's environment (the owner's test hooks).
pub fn node_with_env(
    redis: &Redis,
    id: &str,
    db: Option<&str>,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Server {
    let url = redis.url();
    let args = node_args(&url, id, extra);
    Server::start_with_env(db, &args, None, env)
}

/// A node's flags: on the Redis at `url`, as node `id`, with `extra`.
pub fn node_args<'a>(url: &'a str, id: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "--cluster",
        url,
        "--node-id",
        id,
        "--countdown-ms",
        "100",
        "--fair-play",
        "false",
        "--puzzle-stock",
        "2",
        // A test places a whole puzzle at once.
        "--rate-limit",
        "10000",
        "--rate-burst",
        "10000",
    ];
    if !extra.contains(&"--lag-cap-ms") {
        // Tests that finish players a few milliseconds apart assert that order; a measured
        // round trip (A8) on a busy machine could turn it around. The lag test sets its cap.
        args.extend_from_slice(&["--lag-cap-ms", "0"]);
    }
    args.extend_from_slice(extra);
    args
}

/// A client that has read `welcome`.
pub async fn client(node: &Server) -> Ws {
    let mut ws = node.connect().await;
    assert_eq!(ws.recv().await.expect("a message")["type"], "welcome");
    ws
}

/// Create a room; its `room_joined`.
pub async fn create(ws: &mut Ws, name: &str, settings: Value) -> Value {
    ws.send(json!({"type": "create_room", "name": name, "settings": settings}))
        .await;
    ws.until("room_joined").await
}

/// Join room `code`; its `room_joined`.
pub async fn join(ws: &mut Ws, code: &str, name: &str) -> Value {
    ws.send(json!({"type": "join_room", "room": code, "name": name}))
        .await;
    let v = ws.until_any(&["room_joined", "error"]).await;
    assert_eq!(v["type"], "room_joined", "{v}");
    v
}

/// Ann creates an easy room, Bob and Cat join it, and Ann starts the race: her
/// `room_joined`, the race's id and its puzzle, once all three are racing.
pub async fn three_racing(ann: &mut Ws, bob: &mut Ws, cat: &mut Ws) -> (Value, String, String) {
    let created = create(ann, "ann", json!({"difficulty": "easy"})).await;
    let code = created["room"].as_str().expect("code").to_owned();
    join(bob, &code, "bob").await;
    join(cat, &code, "cat").await;
    ann.send(json!({"type": "start_race"})).await;
    let started = ann.until("race_started").await;
    let race_id = started["race_id"].as_str().expect("race id").to_owned();
    let puzzle = started["puzzle"].as_str().expect("puzzle").to_owned();
    for ws in [bob, cat] {
        ws.until("race_started").await;
    }
    (created, race_id, puzzle)
}

/// `GET path` on a node: the JSON body of a 200.
pub async fn get_json(node: &Server, path: &str) -> Value {
    let raw = node.http_get(path).await;
    assert!(raw.starts_with("HTTP/1.1 200"), "{path}: {raw}");
    let body = raw.split("\r\n\r\n").nth(1).unwrap_or("");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"))
}

/// Run `f` on a plain thread: the sync PostgreSQL client refuses to block inside a runtime.
pub fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| s.spawn(f).join().expect("the thread"))
}

/// The stored store behind a PostgreSQL URL, read from a test.
pub fn pg_store(url: &str) -> server::PgStore {
    let url = url.to_owned();
    off_runtime(move || server::PgStore::open(&url).expect("open the store"))
}
