//! The server in process: the real server on 127.0.0.1:0 with a temp-dir database, and a JSON
//! WebSocket client (testkit's, whose every receive is bounded by a timeout) that checks each
//! message against the protocol.

use std::net::SocketAddr;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use protocol::ServerMsg;
use serde_json::{json, Value};
use server::{Config, SqliteStore, TlsFiles};
use testkit::JsonWs;
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{Connector, MaybeTlsStream, WebSocketStream};

/// How long any single receive may take before the test fails.
pub const RECV_TIMEOUT: Duration = Duration::from_secs(10);

/// A running server.
pub struct TestServer {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its results database.
    pub db: PathBuf,
    _dir: tempfile::TempDir,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), server::ServerError>>>,
}

/// The config tests use: a short countdown, a high rate limit (bots place fast), puzzles
/// generated only for the difficulties a test asks for, and no lag compensation: tests that
/// finish players a few milliseconds apart assert the order they finished in, which a
/// measured round trip of a few milliseconds on a busy machine could turn around (A8's
/// rule; `lag.rs` tests it with the cap on).
pub fn test_config() -> Config {
    let d = Config::default();
    Config {
        countdown: Duration::from_millis(20),
        lag_cap_ms: 0,
        limits: server::Limits {
            rate_limit: 10_000,
            rate_burst: 10_000,
            ..d.limits.clone()
        },
        puzzle_stock: 2,
        puzzle_prewarm: false,
        ..d
    }
}

/// For a test on a paused clock (`start_paused`): no room journal. Its `fdatasync` runs on a
/// thread of its own, which tokio's paused clock does not wait for: the clock would jump
/// ahead while a room waits for its log.
pub fn no_journal(config: &mut Config) {
    config.journal = None;
}

impl TestServer {
    /// Start with [`test_config`].
    pub async fn start() -> TestServer {
        TestServer::start_with(|_| {}).await
    }

    /// Start with [`test_config`] changed by `f`, its rooms' logs in a journal as the binary
    /// keeps them (unless `f` takes it away: [`no_journal`]).
    pub async fn start_with(f: impl FnOnce(&mut Config)) -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = test_config();
        config.db_path = dir.path().join("results.sqlite3");
        // As the binary runs by default: every room's log in a journal, synced before it sends.
        config.journal = Some(dir.path().join("journal"));
        f(&mut config);
        let db = config.db_path.clone();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(server::run(listener, config, async move {
            let _ = stopped.await;
        }));
        TestServer {
            addr,
            db,
            _dir: dir,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// The WebSocket URL.
    pub fn url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    /// A connected client, past `welcome`.
    pub async fn client(&self) -> Client {
        let mut c = self.raw_client().await;
        let w = c.recv().await.expect("welcome");
        assert_eq!(w["type"], "welcome", "{w}");
        assert_eq!(w["protocol"], 1);
        c
    }

    /// A connected client that has not read `welcome` yet.
    pub async fn raw_client(&self) -> Client {
        let stream = TcpStream::connect(self.addr).await.expect("connect");
        Client::over(stream, &self.url()).await
    }

    /// A client past `welcome` whose handshake carries `headers` (an `Origin`, a proxy's
    /// `X-Forwarded-For`); the handshake's error if the server refuses it.
    pub async fn client_with_headers(
        &self,
        headers: &[(&'static str, &str)],
    ) -> Result<Client, tokio_tungstenite::tungstenite::Error> {
        self.client_at_with_headers("/ws", headers).await
    }

    /// [`Self::client_with_headers`] on another path (an invite link, `/r/CODE`).
    pub async fn client_at_with_headers(
        &self,
        path: &str,
        headers: &[(&'static str, &str)],
    ) -> Result<Client, tokio_tungstenite::tungstenite::Error> {
        let mut req = format!("ws://{}{path}", self.addr).into_client_request()?;
        for (k, v) in headers {
            let v = HeaderValue::from_str(v).expect("a header value");
            req.headers_mut().append(*k, v);
        }
        let stream = TcpStream::connect(self.addr).await.expect("connect");
        let (ws, _) = tokio_tungstenite::client_async(req, MaybeTlsStream::Plain(stream)).await?;
        Client::past_welcome(ws).await
    }

    /// A client past `welcome` over TLS to `url` (a `wss://` URL naming this server),
    /// trusting what `tls` trusts.
    pub async fn tls_client(&self, url: &str, tls: Arc<rustls::ClientConfig>) -> Client {
        let stream = TcpStream::connect(self.addr).await.expect("connect");
        let (ws, _) = tokio_tungstenite::client_async_tls_with_config(
            url,
            stream,
            None,
            Some(Connector::Rustls(tls)),
        )
        .await
        .expect("websocket handshake over TLS");
        Client::past_welcome(ws).await.expect("welcome")
    }

    /// A client whose socket has a tiny receive buffer (for clients that do not read).
    pub async fn small_buffer_client(&self) -> Client {
        let sock = TcpSocket::new_v4().expect("socket");
        sock.set_recv_buffer_size(4096).expect("rcvbuf");
        let stream = sock.connect(self.addr).await.expect("connect");
        let mut c = Client::over(stream, &self.url()).await;
        let w = c.recv().await.expect("welcome");
        assert_eq!(w["type"], "welcome");
        c
    }

    /// Ask for shutdown and wait until `run` returns.
    pub async fn shutdown(&mut self) -> Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.task.take() {
            Some(t) => tokio::time::timeout(Duration::from_secs(30), t)
                .await
                .context("shutdown timed out")?
                .context("server task panicked")?
                .context("server failed"),
            None => Ok(()),
        }
    }

    /// The results store (a second connection to the server's database).
    pub fn store(&self) -> Box<dyn server::Store> {
        Box::new(SqliteStore::open(&self.db).expect("open results db"))
    }

    /// `GET path` over plain HTTP: (status line, body).
    pub async fn http_get(&self, path: &str) -> Result<(String, String)> {
        let resp = self.http(&format!("GET {path}"), &[]).await?;
        Ok((resp.status, String::from_utf8(resp.body)?))
    }

    /// `GET path`'s JSON body, which must come with 200.
    pub async fn get_json(&self, path: &str) -> Value {
        let resp = self
            .http(&format!("GET {path}"), &[])
            .await
            .expect("an answer");
        assert!(resp.status.contains(" 200 "), "{path}: {}", resp.status);
        serde_json::from_slice(&resp.body).expect("a JSON body")
    }

    /// One plain HTTP/1.1 request, `line` being its method and target (`HEAD /`), with these
    /// extra headers; the answer as it came, read to the end.
    pub async fn http(&self, line: &str, headers: &[(&str, &str)]) -> Result<HttpResponse> {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = TcpStream::connect(self.addr).await?;
        // `close`: the server keeps a socket alive otherwise, and this reads to EOF.
        let mut req = format!(
            "{line} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
            self.addr
        );
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        s.write_all(req.as_bytes()).await?;
        let mut buf = Vec::new();
        tokio::time::timeout(RECV_TIMEOUT, s.read_to_end(&mut buf)).await??;
        let end = buf
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .ok_or_else(|| anyhow!("no head"))?;
        let head = std::str::from_utf8(&buf[..end])?;
        let mut lines = head.split("\r\n");
        let status = lines.next().unwrap_or("").to_owned();
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        Ok(HttpResponse {
            status,
            headers,
            body: buf[end + 4..].to_vec(),
        })
    }
}

/// A plain HTTP answer.
#[derive(Debug)]
pub struct HttpResponse {
    /// The status line, `HTTP/1.1 200 OK`.
    pub status: String,
    /// Every header, its name lower-cased, in order.
    pub headers: Vec<(String, String)>,
    /// The body as sent (the server answers with a length, not chunks).
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// The first header named `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A WebSocket client speaking JSON, over TCP or TLS: testkit's [`JsonWs`] with every
/// message checked against the protocol's [`ServerMsg`], and the suite's expectations.
pub struct Client {
    ws: JsonWs<MaybeTlsStream<TcpStream>>,
}

/// How a connection ended, as the client saw it.
#[derive(Debug, PartialEq, Eq)]
pub enum Closed {
    /// A close frame with this code.
    Code(u16),
    /// The stream ended without a close frame.
    NoFrame,
}

impl From<Option<u16>> for Closed {
    fn from(code: Option<u16>) -> Closed {
        code.map_or(Closed::NoFrame, Closed::Code)
    }
}

/// Every message must be a valid [`ServerMsg`].
fn contract(v: &Value) -> Result<()> {
    serde_json::from_value::<ServerMsg>(v.clone())
        .with_context(|| format!("not a contract message: {v}"))?;
    Ok(())
}

impl Client {
    fn on(ws: WebSocketStream<MaybeTlsStream<TcpStream>>) -> Client {
        Client {
            ws: JsonWs::new(ws, RECV_TIMEOUT).with_check(contract),
        }
    }

    async fn over(stream: TcpStream, url: &str) -> Client {
        let (ws, _) = tokio_tungstenite::client_async(url, MaybeTlsStream::Plain(stream))
            .await
            .expect("websocket handshake");
        Client::on(ws)
    }

    async fn past_welcome(
        ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    ) -> Result<Client, tokio_tungstenite::tungstenite::Error> {
        let mut c = Client::on(ws);
        c.expect("welcome").await;
        Ok(c)
    }

    /// Change the receive timeout (paused-clock tests need a long one).
    pub fn set_timeout(&mut self, t: Duration) {
        self.ws.set_timeout(t);
    }

    /// The WebSocket, for a test that reads and writes it from two tasks.
    pub fn into_inner(self) -> WebSocketStream<MaybeTlsStream<TcpStream>> {
        self.ws.into_inner()
    }

    /// Send a JSON value as a text frame.
    pub async fn send(&mut self, v: Value) {
        self.ws.send(v).await;
    }

    /// Send any frame.
    pub async fn send_raw(&mut self, m: Message) {
        self.ws.send_raw(m).await;
    }

    /// The next message, which must be a text frame holding a valid [`ServerMsg`].
    pub async fn recv(&mut self) -> Result<Value> {
        self.ws.recv().await
    }

    /// The next message, which must have this `type`.
    #[track_caller]
    pub fn expect<'a>(&'a mut self, ty: &'a str) -> impl std::future::Future<Output = Value> + 'a {
        let caller = std::panic::Location::caller();
        async move {
            let v = self
                .recv()
                .await
                .unwrap_or_else(|e| panic!("{caller}: expected {ty}: {e:#}"));
            assert_eq!(v["type"], ty, "{caller}: expected {ty}, got {v}");
            v
        }
    }

    /// The next `error`, which must have this code.
    #[track_caller]
    pub fn expect_error<'a>(
        &'a mut self,
        code: &'a str,
    ) -> impl std::future::Future<Output = Value> + 'a {
        let caller = std::panic::Location::caller();
        async move {
            let v = self
                .recv()
                .await
                .unwrap_or_else(|e| panic!("{caller}: expected error {code}: {e:#}"));
            assert_eq!(
                v["type"], "error",
                "{caller}: expected error {code}, got {v}"
            );
            assert_eq!(v["code"], code, "{caller}: got {v}");
            v
        }
    }

    /// Skip messages until one of this `type` arrives.
    pub async fn until(&mut self, ty: &str) -> Value {
        self.ws.until(ty).await
    }

    /// Every message up to and including the first of type `ty`.
    pub async fn collect_until(&mut self, ty: &str) -> Vec<Value> {
        let mut out = Vec::new();
        loop {
            let v = self
                .recv()
                .await
                .unwrap_or_else(|e| panic!("waiting for {ty}: {e:#}; got {out:?}"));
            let done = v["type"] == ty;
            out.push(v);
            if done {
                return out;
            }
        }
    }

    /// Read until the connection ends; text frames before it are skipped.
    pub async fn closed(&mut self) -> Closed {
        self.ws.close_code().await.into()
    }

    /// Round trip a `ping`: everything the server had queued before it has been read.
    pub async fn sync(&mut self) -> Vec<Value> {
        self.send(json!({"type": "ping", "id": "sync"})).await;
        let mut seen = Vec::new();
        loop {
            let v = self.recv().await.expect("pong");
            if v["type"] == "pong" && v["id"] == "sync" {
                return seen;
            }
            seen.push(v);
        }
    }

    /// Drop the TCP connection without a close frame.
    pub fn vanish(self) {
        drop(self);
    }

    /// Close cleanly with 1000 and wait for the server's close reply.
    pub async fn close(self) -> Closed {
        self.ws.close().await.into()
    }
}

/// Create a room as `name` with these settings; returns (room code, room_joined).
pub async fn create(c: &mut Client, name: &str, settings: Value) -> (String, Value) {
    c.send(json!({"type": "create_room", "name": name, "settings": settings}))
        .await;
    let j = c.expect("room_joined").await;
    (j["room"].as_str().expect("room code").to_owned(), j)
}

/// Ann creates a room with `settings` and Bob joins it; Ann has seen him arrive.
pub async fn ann_and_bob(srv: &TestServer, settings: Value) -> (Client, Client, String) {
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let (room, _) = create(&mut a, "ann", settings).await;
    join(&mut b, &room, "bob").await;
    a.expect("player_joined").await;
    (a, b, room)
}

/// Join `room` as a player.
pub async fn join(c: &mut Client, room: &str, name: &str) -> Value {
    c.send(json!({"type": "join_room", "room": room, "name": name}))
        .await;
    c.expect("room_joined").await
}

/// Ann creates a room and a client with a tiny receive buffer joins it as `slow` (it reads
/// nothing from here on); returns (ann, slow, slow's `room_joined`).
pub async fn host_and_slow_reader(srv: &TestServer) -> (Client, Client, Value) {
    let mut a = srv.client().await;
    let (room, _) = create(&mut a, "ann", json!({})).await;
    let mut slow = srv.small_buffer_client().await;
    let joined = join(&mut slow, &room, "slow").await;
    a.expect("player_joined").await;
    (a, slow, joined)
}

/// Chat long lines from `c` in rounds of ten, reading each round back, until the room tells `c`
/// that another player's connection dropped (a slow reader closed): (the round, that
/// `player_updated`), or `None` after 5000 rounds.
pub async fn chat_until_a_drop(c: &mut Client) -> Option<(usize, Value)> {
    let text = "é".repeat(200);
    for round in 0..5000 {
        for _ in 0..10 {
            c.send(json!({"type": "chat", "text": text})).await;
        }
        for _ in 0..10 {
            let v = c.recv().await.expect("the sender keeps receiving");
            if v["type"] == "player_updated" {
                return Some((round, v));
            }
            assert_eq!(v["type"], "chat");
        }
    }
    None
}

/// A digit that is wrong at `cell` but clashes with nothing on `board` (if any).
pub fn wrong_digit(board: &str, solution: &str, cell: usize) -> Option<u8> {
    let b = board.as_bytes();
    let right = solution.as_bytes()[cell] - b'0';
    let (r, c) = (cell / 9, cell % 9);
    (1..=9u8).find(|&d| {
        d != right
            && (0..81).all(|o| {
                let (or, oc) = (o / 9, o % 9);
                let peer =
                    o != cell && (or == r || oc == c || (or / 3 == r / 3 && oc / 3 == c / 3));
                !peer || b[o] != b'0' + d
            })
    })
}

/// A self-signed certificate for `localhost` written to `dir`; its files and a client config
/// that trusts it alone.
pub fn certificate(dir: &Path) -> (TlsFiles, Arc<ClientConfig>) {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("cert");
    let files = TlsFiles {
        cert: dir.join("cert.pem"),
        key: dir.join("key.pem"),
    };
    std::fs::write(&files.cert, made.cert.pem()).expect("write cert");
    std::fs::write(&files.key, made.signing_key.serialize_pem()).expect("write key");
    let mut roots = RootCertStore::empty();
    roots.add(made.cert.der().clone()).expect("trust the cert");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    (files, Arc::new(config))
}
