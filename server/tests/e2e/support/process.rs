//! Running the real `sudoku-race-server` binary: start it (optionally under a file-descriptor
//! limit), read its JSON log for the address, talk to it over WebSocket and HTTP, signal it,
//! wait for it to exit. Every wait is bounded.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};
use testkit::wait::{within, Deadline};
use testkit::JsonWs;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long any wait may take.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// A WebSocket client (every receive bounded by [`TIMEOUT`]).
pub type Ws = JsonWs<TcpStream>;

/// Where and how a server process starts.
struct Start<'a> {
    /// A command the binary runs under (`ip netns exec NS`), if any.
    wrap: &'a [&'a str],
    listen: &'a str,
    db_url: Option<&'a str>,
    args: &'a [&'a str],
    fd_limit: Option<u32>,
    env: &'a [(&'a str, &'a str)],
}

/// A running server process; killed if the test fails before it exits.
pub struct Server {
    child: Child,
    /// Where it listens.
    pub addr: String,
    /// Its results database.
    pub db: PathBuf,
    /// The JSON log lines up to `listening`.
    pub log: Vec<Value>,
    /// Every log line, for a failing test to show.
    all: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    /// Its database, spool and journal (moved to the server that restarts it).
    _dir: Option<tempfile::TempDir>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if std::thread::panicking() {
            if let Ok(lines) = self.all.lock() {
                let from = lines.len().saturating_sub(40);
                eprintln!("--- last log lines of the server at {} ---", self.addr);
                for l in &lines[from..] {
                    eprintln!("{l}");
                }
            }
        }
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Server {
    /// Start the binary with `args` (after the listen, log and db flags), under `ulimit -n`
    /// when `fd_limit` is given, with its results in a SQLite file of a temp dir.
    pub fn start(args: &[&str], fd_limit: Option<u32>) -> Server {
        Server::start_on(None, args, fd_limit)
    }

    /// [`Server::start`] with `--db db_url` (a PostgreSQL URL) instead of the SQLite file.
    #[cfg_attr(not(feature = "pg-tests"), allow(dead_code))]
    pub fn start_with_db(db_url: &str, args: &[&str]) -> Server {
        Server::start_on(Some(db_url), args, None)
    }

    pub fn start_on(db_url: Option<&str>, args: &[&str], fd_limit: Option<u32>) -> Server {
        Server::start_with_env(db_url, args, fd_limit, &[])
    }

    /// [`Server::start_on`] with `env` added to the server's environment (test hooks).
    pub fn start_with_env(
        db_url: Option<&str>,
        args: &[&str],
        fd_limit: Option<u32>,
        env: &[(&str, &str)],
    ) -> Server {
        let dir = tempfile::tempdir().expect("temp dir");
        let at = Start {
            wrap: &[],
            listen: "127.0.0.1:0",
            db_url,
            args,
            fd_limit,
            env,
        };
        Server::spawn(dir, at)
    }

    /// Start the binary again where this one ran (its address, its results database, its
    /// spool and journal), with `args`, once this one has exited (kill it first).
    pub fn restart(mut self, args: &[&str]) -> Server {
        let status = self.child.wait().expect("the old server exits");
        assert!(!status.success(), "the old server was killed: {status}");
        let addr = std::mem::take(&mut self.addr);
        let dir = self._dir.take().expect("the server's dir");
        let at = Start {
            wrap: &[],
            listen: &addr,
            db_url: None,
            args,
            fd_limit: None,
            env: &[],
        };
        Server::spawn(dir, at)
    }

    /// The binary run by the command `wrap` (`ip netns exec NS`: on a test host of its own),
    /// listening on `listen`, with `args`.
    #[cfg_attr(not(feature = "cluster-tests"), allow(dead_code))]
    pub fn start_wrapped(wrap: &[&str], listen: &str, args: &[&str]) -> Server {
        let dir = tempfile::tempdir().expect("temp dir");
        let at = Start {
            wrap,
            listen,
            db_url: None,
            args,
            fd_limit: None,
            env: &[],
        };
        Server::spawn(dir, at)
    }

    fn spawn(dir: tempfile::TempDir, at: Start<'_>) -> Server {
        let db = dir.path().join("results.sqlite3");
        let db_arg = at
            .db_url
            .map_or_else(|| db.clone().into_os_string(), Into::into);
        let bin = env!("CARGO_BIN_EXE_sudoku-race-server");
        let mut cmd = match (at.fd_limit, at.wrap.split_first()) {
            (None, None) => Command::new(bin),
            (None, Some((first, rest))) => {
                let mut c = Command::new(first);
                c.args(rest).arg(bin);
                c
            }
            (Some(n), _) => {
                let mut c = Command::new("sh");
                c.arg("-c")
                    .arg(format!("ulimit -n {n} && exec \"$0\" \"$@\""))
                    .arg(bin);
                c
            }
        };
        // Each server its own results spool and room journal, unless the test keeps one
        // across a restart.
        if !at.args.contains(&"--spool") {
            cmd.arg("--spool").arg(dir.path().join("spool"));
        }
        if !at.args.iter().any(|a| a.contains("journal")) {
            cmd.arg("--journal").arg(dir.path().join("journal"));
        }
        let mut child = cmd
            .args(["--listen", at.listen, "--log-format", "json"])
            .arg("--db")
            .arg(&db_arg)
            .args(at.args)
            .env("RUST_LOG", "info")
            .envs(at.env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the server binary");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, lines) = mpsc::channel();
        let all = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let keep = all.clone();
        // Drain stderr for the whole run so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Ok(mut k) = keep.lock() {
                    k.push(line.clone());
                }
                // Nobody may listen any more; keep draining.
                let _ = tx.send(line);
            }
        });
        let mut server = Server {
            child,
            addr: String::new(),
            db,
            log: Vec::new(),
            all,
            _dir: Some(dir),
        };
        let deadline = Deadline::after(TIMEOUT);
        loop {
            let line = lines
                .recv_timeout(deadline.left())
                .expect("a `listening` log line");
            let Ok(v) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let listening = v["fields"]["message"] == "listening";
            if listening {
                server.addr = v["fields"]["addr"].as_str().expect("addr").to_owned();
            }
            server.log.push(v);
            if listening {
                return server;
            }
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether a log line has this message, waiting up to [`TIMEOUT`] for it (the log is read
    /// on a thread of its own).
    pub async fn logged(&self, message: &str) -> bool {
        let has = |l: &String| {
            serde_json::from_str::<Value>(l).is_ok_and(|v| v["fields"]["message"] == message)
        };
        let seen = async {
            loop {
                let lines = self.all.lock().map(|l| l.clone()).unwrap_or_default();
                if lines.iter().any(has) {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        tokio::time::timeout(TIMEOUT, seen).await.is_ok()
    }

    /// Send a signal (`-TERM`, `-INT`, `-KILL`).
    pub fn signal(&self, signal: &str) {
        let pid = self.child.id().to_string();
        let killed = Command::new("kill")
            .args([signal, &pid])
            .status()
            .expect("run kill");
        assert!(killed.success());
    }

    /// Wait for the process to exit, at most `limit`.
    pub async fn exit(&mut self, limit: Duration) -> ExitStatus {
        let exited = async {
            loop {
                if let Some(status) = self.child.try_wait().expect("try_wait") {
                    return status;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        within("the server exits", limit, exited).await
    }

    /// A WebSocket client that has not read `welcome` yet.
    pub async fn connect(&self) -> Ws {
        let stream = TcpStream::connect(&self.addr).await.expect("connect");
        let url = format!("ws://{}/ws", self.addr);
        let (ws, _) = tokio_tungstenite::client_async(url, stream)
            .await
            .expect("handshake");
        JsonWs::new(ws, TIMEOUT)
    }

    /// `GET path` (status line and body).
    pub async fn http_get(&self, path: &str) -> String {
        let mut s = TcpStream::connect(&self.addr).await.expect("connect");
        let req = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        s.write_all(req.as_bytes()).await.expect("write");
        let mut out = String::new();
        tokio::time::timeout(TIMEOUT, s.read_to_string(&mut out))
            .await
            .expect("an answer in time")
            .expect("read");
        out
    }
}

/// A connected client that has read its `welcome`.
pub async fn player(srv: &Server) -> Ws {
    let mut ws = srv.connect().await;
    assert_eq!(ws.recv().await.expect("welcome")["type"], "welcome");
    ws
}

/// The host sends its `create_room` message, then the guest its `join_room` (the room's code
/// filled in); both are in once each has its `room_joined`. Returns the code.
pub async fn two_in_a_room(host: (&mut Ws, Value), guest: (&mut Ws, Value)) -> String {
    let ((host, create), (guest, mut join)) = (host, guest);
    host.send(create).await;
    let room = host.until("room_joined").await["room"]
        .as_str()
        .expect("room")
        .to_owned();
    join["room"] = Value::from(room.as_str());
    guest.send(join).await;
    guest.until("room_joined").await;
    room
}

/// Register on `ws`: (key, handle).
pub async fn register(ws: &mut Ws, name: &str) -> (String, String) {
    ws.send(json!({"type": "register", "name": name})).await;
    let r = ws.until("registered").await;
    let field = |f: &str| r[f].as_str().expect("a string").to_owned();
    (field("key"), field("handle"))
}

/// `GET path`: the status code and the JSON body.
pub async fn get_json(srv: &Server, path: &str) -> (u16, Value) {
    let answer = srv.http_get(path).await;
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    let body = serde_json::from_str(body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"));
    (status, body)
}
