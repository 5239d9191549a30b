//! `sudoku-race-server`: flags (each with an environment variable), tracing, bind, then
//! [`server::run_until`] until SIGINT or SIGTERM (with `--drain-s`, SIGTERM drains first).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, ValueEnum};
use server::{Config, Limits, TlsFiles};
use tokio_util::sync::CancellationToken;

/// The sudoku-race server.
///
/// Rooms that deal one puzzle to racing players and verify every placement. WebSocket at /ws
/// (and /r/CODE); on the same port the browser client (built in) at / and /r/CODE with its files
/// under /assets/…, and HTTP GET /healthz and /metrics; HTTPS and WSS with --tls-cert and
/// --tls-key, else plain HTTP (e.g. behind a reverse proxy).
// `about` is the package description (for -h); the doc comment is --help's long about.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "SUDOKU_RACE_LISTEN", default_value = "127.0.0.1:7878")]
    listen: String,
    /// Where race results go: a SQLite file, or a PostgreSQL URL (postgres://user@host/db or
    /// postgresql://…) that several nodes share [default: the user's data directory,
    /// sudoku-race/results.sqlite3].
    #[arg(long, env = "SUDOKU_RACE_DB")]
    db: Option<String>,
    /// The results spool: finished races the database cannot take yet wait in this directory
    /// until they land [default: beside a SQLite file, `<db>.spool`; with PostgreSQL, the
    /// user's data directory, sudoku-race/postgres[-<node id>].spool].
    #[arg(long, env = "SUDOKU_RACE_SPOOL", value_name = "DIR")]
    spool: Option<PathBuf>,
    /// Keep no room journal: a crash (kill -9, an abort, the OOM killer, a power cut) then
    /// ends every race under way. By default a server without --cluster appends each running room's commands
    /// to a journal on disk (fdatasync'd before a player hears of them) and, when it starts
    /// again, brings those rooms back: their players resume with their tokens.
    #[arg(long, env = "SUDOKU_RACE_NO_JOURNAL")]
    no_journal: bool,
    /// The room journal's directory [default: beside a SQLite file, `<db>.journal`; with
    /// PostgreSQL, the user's data directory, sudoku-race/postgres.journal]. Unused with
    /// --cluster (the cluster keeps rooms' logs in Redis).
    #[arg(
        long,
        env = "SUDOKU_RACE_JOURNAL",
        value_name = "DIR",
        conflicts_with = "no_journal"
    )]
    journal: Option<PathBuf>,
    /// Most open connections (sockets still sending their request count); more get `server_full`
    /// and close 1013. Lowered to fit the file-descriptor limit.
    #[arg(long, env = "SUDOKU_RACE_MAX_CONNECTIONS", default_value_t = Limits::default().max_connections)]
    max_connections: usize,
    /// Most rooms on the server.
    #[arg(long, env = "SUDOKU_RACE_MAX_ROOMS", default_value_t = Limits::default().max_rooms)]
    max_rooms: usize,
    /// Most open rooms created from one IP address.
    #[arg(long, env = "SUDOKU_RACE_MAX_ROOMS_PER_IP", default_value_t = Limits::default().max_rooms_per_ip)]
    max_rooms_per_ip: usize,
    /// Messages per second allowed per connection (sustained).
    #[arg(long, env = "SUDOKU_RACE_RATE_LIMIT", default_value_t = Limits::default().rate_limit)]
    rate_limit: u32,
    /// Messages a connection may send in a burst.
    #[arg(long, env = "SUDOKU_RACE_RATE_BURST", default_value_t = Limits::default().rate_burst)]
    rate_burst: u32,
    /// Over-limit messages within 10 s that close a connection (1008).
    #[arg(long, env = "SUDOKU_RACE_RATE_ABUSE", default_value_t = Limits::default().abuse_threshold)]
    rate_abuse: u32,
    /// Seconds without any message (pings and pongs count) before a connection is closed (1000).
    #[arg(long, env = "SUDOKU_RACE_IDLE_TIMEOUT_S", default_value_t = 60)]
    idle_timeout_s: u64,
    /// Largest message in bytes (close 1009 above it).
    #[arg(long, env = "SUDOKU_RACE_MAX_MESSAGE_BYTES", default_value_t = Limits::default().max_message_bytes)]
    max_message_bytes: usize,
    /// Outgoing messages a connection's queue holds at most (a safety net: bytes and drain time decide who is slow).
    #[arg(long, env = "SUDOKU_RACE_OUT_QUEUE", default_value_t = Limits::default().out_queue)]
    out_queue: usize,
    /// Most spectators per room; more get `room_full`.
    #[arg(long, env = "SUDOKU_RACE_MAX_SPECTATORS", default_value_t = Limits::default().max_spectators)]
    max_spectators: usize,
    /// Chat messages per second a room passes on, over all its senders (more get `rate_limited`).
    #[arg(long, env = "SUDOKU_RACE_CHAT_RATE", default_value_t = Limits::default().chat_rate)]
    chat_rate: u32,
    /// Chat messages a room passes on in a burst.
    #[arg(long, env = "SUDOKU_RACE_CHAT_BURST", default_value_t = Limits::default().chat_burst)]
    chat_burst: u32,
    /// Bytes queued for a connection above which it is closed as a slow reader (1008).
    #[arg(long, env = "SUDOKU_RACE_SLOW_QUEUE_BYTES", default_value_t = Limits::default().slow_queue_bytes)]
    slow_queue_bytes: usize,
    /// Seconds a connection's queue may go without draining before it is closed as a slow reader (1008).
    #[arg(long, env = "SUDOKU_RACE_SLOW_DRAIN_S", default_value_t = Limits::default().slow_drain.as_secs())]
    slow_drain_s: u64,
    /// Seconds a dropped player's seat is held for `resume`.
    #[arg(long, env = "SUDOKU_RACE_RESUME_GRACE_S", default_value_t = 60)]
    resume_grace_s: u64,
    /// Seconds a kicked player's name and address cannot rejoin the room.
    #[arg(long, env = "SUDOKU_RACE_KICK_BAR_S", default_value_t = Config::default().kick_bar.as_secs())]
    kick_bar_s: u64,
    /// Raise fair-play flags on identified players' results (a flagged result is kept, marked,
    /// and left out of ratings and leaderboards). `false` only where every player is trusted.
    #[arg(long, env = "SUDOKU_RACE_FAIR_PLAY", default_value_t = true, action = clap::ArgAction::Set)]
    fair_play: bool,
    /// The most lag a race time is compensated by (A8): a player's `lag_ms` is the median
    /// round trip the server measured to them in the race, at most this many milliseconds.
    #[arg(long, env = "SUDOKU_RACE_LAG_CAP_MS", default_value_t = Config::default().lag_cap_ms)]
    lag_cap_ms: u32,
    /// Cluster mode (A9): seconds after a lost node's lease lapses within which another node
    /// takes its rooms over from their logs in Redis.
    #[arg(long, env = "SUDOKU_RACE_TAKEOVER_S", default_value_t = Config::default().takeover.as_secs())]
    takeover_s: u64,
    /// Seconds behind the race that a spectator asking for `boards` sees the boards (A8).
    #[arg(long, env = "SUDOKU_RACE_SPECTATOR_DELAY_S", default_value_t = Config::default().spectator_delay.as_secs())]
    spectator_delay_s: u64,
    /// Countdown between `start_race` and `race_started`, in milliseconds.
    #[arg(long, env = "SUDOKU_RACE_COUNTDOWN_MS", default_value_t = 3000)]
    countdown_ms: u64,
    /// Puzzles kept ready per difficulty.
    #[arg(long, env = "SUDOKU_RACE_PUZZLE_STOCK", default_value_t = Config::default().puzzle_stock)]
    puzzle_stock: usize,
    /// The pool (A7): a race forms at once when this many compatible players wait (2..=16).
    #[arg(long, env = "SUDOKU_RACE_POOL_SIZE", default_value_t = 8,
          value_parser = clap::value_parser!(u8).range(2..=16))]
    pool_size: u8,
    /// The pool: or this long after the second of them began waiting, in milliseconds.
    #[arg(long, env = "SUDOKU_RACE_POOL_WAIT_MS", default_value_t = 10_000)]
    pool_wait_ms: u64,
    /// The pool: one waiting this long with nobody to race is offered a ghost, in milliseconds.
    #[arg(long, env = "SUDOKU_RACE_POOL_ALONE_MS", default_value_t = 20_000)]
    pool_alone_ms: u64,
    /// An arena (A7): `NAME,DIFFICULTY,EVERY,LENGTH`, e.g. `Hourly easy,easy,1h,20m`: one every
    /// EVERY on the UTC epoch's multiples of EVERY, lasting LENGTH (`30s`, `20m`, `1h`, `1d`).
    /// Repeatable; `;`-separated in the environment.
    #[arg(
        long = "arena",
        env = "SUDOKU_RACE_ARENAS",
        value_delimiter = ';',
        value_name = "SPEC"
    )]
    arena: Vec<server::config::ArenaSpec>,
    /// A TOML file of server settings: `[[arena]]` tables (`name`, `difficulty`, `every`,
    /// `length`), run besides any `--arena`.
    #[arg(long, env = "SUDOKU_RACE_CONFIG", value_name = "FILE")]
    config: Option<PathBuf>,
    /// Seconds for a request head (and the TLS handshake) to arrive before the socket is closed.
    #[arg(long, env = "SUDOKU_RACE_REQUEST_TIMEOUT", default_value_t = 10)]
    request_timeout: u64,
    /// Seconds that connections get to close at shutdown before they are dropped.
    #[arg(long, env = "SUDOKU_RACE_SHUTDOWN_GRACE", default_value_t = 10)]
    shutdown_grace: u64,
    /// On SIGTERM, drain for at most this many seconds before stopping (A9): no new rooms or
    /// pool entries (`server_draining`, /healthz 503), races under way finish and are stored,
    /// rooms between races close; it exits once no room is left. A second SIGTERM, or SIGINT,
    /// stops at once. Without it SIGTERM stops at once.
    #[arg(long, env = "SUDOKU_RACE_DRAIN_S", value_name = "N")]
    drain_s: Option<u64>,
    /// PEM certificate chain: serve HTTPS and WSS (needs --tls-key).
    #[arg(long, env = "SUDOKU_RACE_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// PEM private key for --tls-cert.
    #[arg(long, env = "SUDOKU_RACE_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Write a self-signed certificate for HOST (a name or an IP address; `localhost` also
    /// covers 127.0.0.1 and ::1) and its key, as cert.pem and key.pem in --tls-out, print the
    /// server and client commands that use them, and exit. For trying TLS, not for the internet.
    #[arg(long, value_name = "HOST", conflicts_with_all = ["tls_cert", "tls_key"])]
    tls_self_signed: Option<String>,
    /// Where --tls-self-signed writes cert.pem and key.pem (it never overwrites them).
    #[arg(
        long,
        value_name = "DIR",
        default_value = ".",
        requires = "tls_self_signed"
    )]
    tls_out: PathBuf,
    /// Take client addresses from X-Forwarded-For / Forwarded (only behind a proxy that sets them).
    #[arg(long, env = "SUDOKU_RACE_TRUST_PROXY")]
    trust_proxy: bool,
    /// A browser origin (e.g. `https://play.example`) allowed to open a WebSocket besides the
    /// server's own host; repeatable, comma-separated in the environment.
    #[arg(long, env = "SUDOKU_RACE_ALLOWED_ORIGIN", value_delimiter = ',')]
    allowed_origin: Vec<String>,
    /// Cluster mode: the Redis every node shares (`redis://HOST:PORT`); rooms are found and
    /// relayed across nodes through it. Without it, one node on its own.
    #[arg(long, env = "SUDOKU_RACE_CLUSTER", value_name = "REDIS_URL")]
    cluster: Option<String>,
    /// Cluster mode: this node's id, unique in the cluster [default: random].
    #[arg(long, env = "SUDOKU_RACE_NODE_ID", requires = "cluster", value_parser = node_id)]
    node_id: Option<String>,
    /// Worker threads of the async runtime [default: one per core]. Nodes that share a host
    /// split its cores between them (docs/deploy.md).
    #[arg(long, env = "SUDOKU_RACE_WORKERS", value_parser = clap::value_parser!(u16).range(1..=1024))]
    workers: Option<u16>,
    /// A file whose content (trimmed) is the moderators' bearer token: enables the admin API
    /// under /api/admin/ (A8). The server refuses to start if it is unreadable or empty.
    #[arg(long, env = "SUDOKU_RACE_ADMIN_TOKEN_FILE", value_name = "FILE")]
    admin_token_file: Option<PathBuf>,
    /// Log format on stderr (filter with RUST_LOG, default info).
    #[arg(long, env = "SUDOKU_RACE_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

/// A node id goes into Redis key and channel names: letters, digits, `-` and `_`, 1 to 32.
fn node_id(s: &str) -> Result<String, String> {
    let ok = (1..=32).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    ok.then(|| s.to_owned())
        .ok_or_else(|| "1 to 32 letters, digits, '-' or '_'".to_owned())
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

/// The server's config file.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    arena: Vec<FileArena>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileArena {
    name: String,
    difficulty: String,
    every: String,
    length: String,
}

impl Args {
    /// The arenas of `--arena` and of the config file.
    fn arenas(&self) -> anyhow::Result<Vec<server::config::ArenaSpec>> {
        let mut arenas = self.arena.clone();
        if let Some(path) = &self.config {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let file: File =
                toml::from_str(&text).with_context(|| format!("in {}", path.display()))?;
            for a in file.arena {
                let spec =
                    server::config::ArenaSpec::new(&a.name, &a.difficulty, &a.every, &a.length)
                        .map_err(|why| {
                            anyhow::anyhow!("in {}: arena {:?}: {why}", path.display(), a.name)
                        })?;
                arenas.push(spec);
            }
        }
        Ok(arenas)
    }

    fn config(&self) -> Config {
        let c = self.config_without_journal();
        let journal = (!self.no_journal && self.cluster.is_none())
            .then(|| self.journal.clone().unwrap_or_else(|| c.journal_path()));
        Config { journal, ..c }
    }

    fn config_without_journal(&self) -> Config {
        let d = Config::default();
        Config {
            db_path: match &self.db {
                Some(db) if !server::store::postgres::is_url(db) => PathBuf::from(db),
                _ => d.db_path.clone(),
            },
            postgres_url: self
                .db
                .clone()
                .filter(|db| server::store::postgres::is_url(db)),
            spool_dir: self.spool.clone(),
            limits: Limits {
                max_connections: self.max_connections,
                max_rooms: self.max_rooms,
                max_rooms_per_ip: self.max_rooms_per_ip,
                rate_limit: self.rate_limit,
                rate_burst: self.rate_burst,
                abuse_threshold: self.rate_abuse,
                idle_timeout: Duration::from_secs(self.idle_timeout_s),
                max_message_bytes: self.max_message_bytes,
                out_queue: self.out_queue,
                max_spectators: self.max_spectators,
                chat_rate: self.chat_rate,
                chat_burst: self.chat_burst,
                slow_queue_bytes: self.slow_queue_bytes,
                slow_drain: Duration::from_secs(self.slow_drain_s),
                ..Limits::default()
            },
            resume_grace: Duration::from_secs(self.resume_grace_s),
            kick_bar: Duration::from_secs(self.kick_bar_s),
            fair_play: self.fair_play,
            lag_cap_ms: self.lag_cap_ms,
            takeover: Duration::from_secs(self.takeover_s.max(1)),
            spectator_delay: Duration::from_secs(self.spectator_delay_s),
            cluster: self.cluster.clone(),
            node_id: self.node_id.clone(),
            countdown: Duration::from_millis(self.countdown_ms),
            puzzle_stock: self.puzzle_stock,
            pool: server::config::PoolRules {
                size: usize::from(self.pool_size),
                wait: Duration::from_millis(self.pool_wait_ms),
                alone: Duration::from_millis(self.pool_alone_ms),
            },
            request_timeout: Duration::from_secs(self.request_timeout),
            shutdown_grace: Duration::from_secs(self.shutdown_grace),
            drain: self.drain_s.map(Duration::from_secs),
            tls: match (&self.tls_cert, &self.tls_key) {
                (Some(cert), Some(key)) => Some(TlsFiles {
                    cert: cert.clone(),
                    key: key.clone(),
                }),
                _ => None,
            },
            trust_proxy: self.trust_proxy,
            allowed_origins: self.allowed_origin.clone(),
            ..d
        }
    }
}

fn init_tracing(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Colour only on a terminal: escape codes in a log file are noise.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}

/// The process's signals as two tokens: `drain` at the first SIGTERM when the server drains,
/// `stop` at SIGINT (ctrl-c), at SIGTERM when it does not drain, and at a second SIGTERM.
fn signals(drains: bool) -> (CancellationToken, CancellationToken) {
    let (drain, stop) = (CancellationToken::new(), CancellationToken::new());
    let (d, s) = (drain.clone(), stop.clone());
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for ctrl-c");
            std::future::pending::<()>().await;
        }
    };
    let mut term = listen_term();
    tokio::spawn(async move {
        tokio::pin!(ctrl_c);
        let mut terms = 0u32;
        loop {
            tokio::select! {
                () = &mut ctrl_c => break,
                () = terminated(&mut term) => {
                    terms += 1;
                    if !drains || terms > 1 {
                        break;
                    }
                    tracing::info!("SIGTERM: draining (a second SIGTERM or SIGINT stops at once)");
                    d.cancel();
                }
            }
        }
        s.cancel();
    });
    (drain, stop)
}

/// SIGTERM's listener, if it could be had.
#[cfg(unix)]
type Term = Option<tokio::signal::unix::Signal>;
#[cfg(not(unix))]
type Term = ();

fn listen_term() -> Term {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        signal(SignalKind::terminate())
            .inspect_err(|e| tracing::error!(error = %e, "cannot listen for SIGTERM"))
            .ok()
    }
}

/// The next SIGTERM (never where there is none).
async fn terminated(term: &mut Term) {
    #[cfg(unix)]
    if let Some(term) = term {
        if term.recv().await.is_some() {
            return;
        }
    }
    let _ = term;
    std::future::pending::<()>().await;
}

async fn run(args: Args) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    // Read here, not in `config()`: an unreadable or empty file stops the start with its reason.
    let admin_token = match &args.admin_token_file {
        Some(path) => Some(server::config::AdminToken::from_file(path)?),
        None => None,
    };
    let config = Config {
        arenas: args.arenas()?,
        admin_token,
        ..args.config()
    };
    let (drain, stop) = signals(config.drain.is_some());
    // The browser client's compressed copies, made before the first request rather than by it
    // (Brotli at quality 11 takes a moment); connections wait in the listen backlog meanwhile.
    #[allow(clippy::disallowed_methods)] // a log line's duration, not a room's clock
    let started = std::time::Instant::now();
    let assets = tokio::task::spawn_blocking(server::net::assets::prepare)
        .await
        .context("compressing the browser client")?;
    tracing::info!(
        files = assets.files,
        bytes = assets.plain_bytes,
        br_bytes = assets.br_bytes,
        ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        "browser client compressed"
    );
    server::run_until(
        listener,
        config,
        drain.cancelled_owned(),
        stop.cancelled_owned(),
    )
    .await
    .context("server failed")
}

/// `--tls-self-signed HOST`: write `cert.pem` and `key.pem` (0600) into `dir`, then say how to
/// use them.
fn self_signed(host: &str, dir: &std::path::Path, listen: &str) -> anyhow::Result<()> {
    let mut names = vec![host.to_owned()];
    if host == "localhost" {
        names.extend(["127.0.0.1".to_owned(), "::1".to_owned()]);
    }
    let made = rcgen::generate_simple_self_signed(names)
        .with_context(|| format!("cannot make a certificate for {host}"))?;
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    write_new(&cert, made.cert.pem().as_bytes(), 0o644)?;
    write_new(&key, made.signing_key.serialize_pem().as_bytes(), 0o600)?;
    let port = listen.rsplit_once(':').map_or("7878", |(_, p)| p);
    let at = if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_owned()
    };
    let (cert, key) = (cert.display(), key.display());
    println!("wrote {cert} and {key}: a self-signed certificate for {host}, for testing");
    println!();
    println!("server:   sudoku-race-server --listen {listen} --tls-cert {cert} --tls-key {key}");
    println!("client:   sudoku-race rooms --server wss://{at}:{port}/ws --ca-file {cert}");
    println!("browser:  https://{at}:{port}/ (accept the warning once, or import {cert})");
    Ok(())
}

/// Write `bytes` to a file that must not exist yet, with `mode` (Unix).
fn write_new(path: &std::path::Path, bytes: &[u8], mode: u32) -> anyhow::Result<()> {
    use std::io::Write;
    let mut open = std::fs::OpenOptions::new();
    open.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, mode);
    #[cfg(not(unix))]
    let _ = mode;
    let mut f = open.open(path).with_context(|| {
        format!(
            "cannot write {} (an existing file is never overwritten: remove it, or pick --tls-out DIR)",
            path.display()
        )
    })?;
    f.write_all(bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(host) = &args.tls_self_signed {
        return match self_signed(host, &args.tls_out, &args.listen) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e:#}");
                ExitCode::FAILURE
            }
        };
    }
    init_tracing(args.log_format);
    let mut rt = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = args.workers {
        rt.worker_threads(usize::from(n));
    }
    let rt = match rt.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = rt.block_on(run(args));
    // `run` has stored every result; what may still run (puzzle generation on the blocking
    // pool) is not worth waiting for past the grace.
    rt.shutdown_timeout(Duration::from_secs(1));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
