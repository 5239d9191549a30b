//! Server configuration: every limit of the contract's Limits section, timers, where results
//! are stored (a SQLite file, or a PostgreSQL database), and the front (TLS, proxy trust, allowed origins). `main.rs` fills it from flags;
//! tests build it directly.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use engine::Difficulty;

/// Per-connection and server-wide limits (contract defaults in [`Limits::default`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most open sockets, counted from the TCP accept (a socket still sending its request head
    /// counts); a WebSocket over it gets `server_full`, close 1013. Lowered at start when the
    /// file-descriptor limit cannot hold it.
    pub max_connections: usize,
    /// Most rooms on the server; over it `create_room` gets `server_full`.
    pub max_rooms: usize,
    /// Most rooms created from one IP address that are still open.
    pub max_rooms_per_ip: usize,
    /// Sustained messages per second per connection.
    pub rate_limit: u32,
    /// Burst of messages a connection may send at once.
    pub rate_burst: u32,
    /// Over-limit messages tolerated within [`Limits::abuse_window`] before close 1008.
    pub abuse_threshold: u32,
    /// The window for [`Limits::abuse_threshold`].
    pub abuse_window: Duration,
    /// A connection that sends nothing (pings and pongs count) for this long is closed (1000).
    pub idle_timeout: Duration,
    /// Largest message accepted (close 1009 above it).
    pub max_message_bytes: usize,
    /// Outgoing messages one connection's queue can hold at all: a safety net far above what
    /// [`Limits::slow_queue_bytes`] and [`Limits::slow_drain`] let through (they decide).
    pub out_queue: usize,
    // Fan-out limits (Amendment A4).
    /// Most spectators in one room; the next gets `room_full`.
    pub max_spectators: usize,
    /// Chat messages per second one room passes on, over all its senders.
    pub chat_rate: u32,
    /// Chat messages a room passes on in a burst.
    pub chat_burst: u32,
    /// Bytes queued for one connection above which it is closed as a slow reader (1008).
    pub slow_queue_bytes: usize,
    /// How long a connection's queue may hold messages without the writer taking any before it
    /// is closed as a slow reader (1008).
    pub slow_drain: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 20_000,
            max_rooms: 5_000,
            max_rooms_per_ip: 20,
            rate_limit: 20,
            rate_burst: 40,
            abuse_threshold: 50,
            abuse_window: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_message_bytes: protocol::MAX_MESSAGE_BYTES,
            out_queue: crate::outbox::OUT_QUEUE,
            max_spectators: 32,
            chat_rate: 5,
            chat_burst: 10,
            slow_queue_bytes: 256 * 1024,
            slow_drain: Duration::from_secs(10),
        }
    }
}

impl Limits {
    /// When a connection is a slow reader.
    pub fn slow_rule(&self) -> crate::outbox::SlowRule {
        crate::outbox::SlowRule {
            max_bytes: self.slow_queue_bytes,
            max_stall: self.slow_drain,
        }
    }
}

/// Everything `run` needs to know.
#[derive(Clone, Debug)]
pub struct Config {
    /// SQLite file for race results (created with its parent directory if missing); unused
    /// when [`Config::postgres_url`] is set.
    pub db_path: PathBuf,
    /// A PostgreSQL database for race results instead (`postgres://user@host/db`): what
    /// several nodes share. `None` is SQLite at [`Config::db_path`].
    pub postgres_url: Option<String>,
    /// The results spool (A9): finished races the database cannot take yet wait here, on
    /// local disk, until they land. `None` is [`Config::spool_path`]'s default.
    pub spool_dir: Option<PathBuf>,
    /// A standalone server's room journal (a folder): every running room's command log on
    /// disk, so the rooms come back when the server starts after a crash
    /// ([`crate::room::local_journal`]). `None`: no journal (the library's default; the binary
    /// keeps one at [`Config::journal_path`] unless `--no-journal`). Unused in cluster mode,
    /// whose logs are in Redis.
    pub journal: Option<PathBuf>,
    /// Connection, room and message limits.
    pub limits: Limits,
    /// How long a dropped player's seat is held for `resume`.
    pub resume_grace: Duration,
    /// How long a kicked player's name and address cannot rejoin the room (A5).
    pub kick_bar: Duration,
    /// Raise fair-play flags on identified players' results (`crate::fairplay`); a flagged
    /// result is kept, marked, and left out of ratings and boards. Off only where every
    /// player is trusted (a test harness).
    pub fair_play: bool,
    /// The most lag a race time is compensated by, in milliseconds (A8 `--lag-cap-ms`): a
    /// seat's `lag_ms` is its median measured round trip, at most this.
    pub lag_cap_ms: u32,
    /// Cluster mode (A9 `--takeover-s`): how soon after a lost owner's lease lapses another
    /// node takes its rooms over from their command logs.
    pub takeover: Duration,
    /// How far behind the race a spectator that asked for `boards` sees the players' boards
    /// (A8): long enough that nobody can relay another player's digits to a racer in time.
    pub spectator_delay: Duration,
    /// The secret the daily challenge's puzzles derive from; `None` keeps a random one beside
    /// the SQLite file (`<db>.daily-secret`), or in the PostgreSQL database, which every node
    /// of a cluster then shares.
    pub daily_secret: Option<String>,
    /// Countdown between `start_race` and `race_started` (not fixed by the contract).
    pub countdown: Duration,
    /// Puzzles kept ready per difficulty.
    pub puzzle_stock: usize,
    /// Generate every difficulty from start-up (else each once first asked for).
    pub puzzle_prewarm: bool,
    /// How the pool forms races with strangers (A7).
    pub pool: PoolRules,
    /// The arenas to run (A7, `--arena`).
    pub arenas: Vec<ArenaSpec>,
    /// `name/version` sent in `welcome`.
    pub server_name: String,
    /// A request head (and, with TLS, the handshake before it) must arrive within this long.
    pub request_timeout: Duration,
    /// After shutdown is asked for, connections get this long to close; then they are dropped.
    pub shutdown_grace: Duration,
    /// A9 `--drain-s`: a drain (see [`crate::run_until`]) lasts at most this long; `None`: a
    /// drain is a shutdown.
    pub drain: Option<Duration>,
    /// The `room_closed` reason a shutdown gives (A9): `shutdown` for a server, `host_closed`
    /// for a server a host runs in-process (its rooms end because the host quit).
    pub shutdown_reason: protocol::ClosedReason,
    /// Serve HTTPS and WSS with this certificate and key; plain HTTP without.
    pub tls: Option<TlsFiles>,
    /// Take the client's address from `X-Forwarded-For` or `Forwarded` (behind a reverse proxy).
    pub trust_proxy: bool,
    /// Browser origins allowed to open a WebSocket besides the server's own host.
    pub allowed_origins: Vec<String>,
    /// Cluster mode: the Redis URL (`redis://HOST:PORT`) the nodes share; `None` is one node.
    pub cluster: Option<String>,
    /// Cluster mode: this node's id (random when `None`).
    pub node_id: Option<String>,
    /// The moderators' bearer token (A8 `--admin-token-file`); `None`: no admin API (404).
    pub admin_token: Option<AdminToken>,
}

/// The moderators' secret (A8): never printed (its `Debug` says only that there is one), and
/// compared in constant time ([`AdminToken::admits`]).
#[derive(Clone, PartialEq, Eq)]
pub struct AdminToken([u8; 32]);

impl fmt::Debug for AdminToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AdminToken(..)")
    }
}

/// Why `--admin-token-file` gives no token.
#[derive(Debug, thiserror::Error)]
pub enum BadAdminToken {
    /// The file cannot be read.
    #[error("cannot read the admin token file {path}: {source}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file holds nothing but white space.
    #[error("the admin token file {path} is empty: put a long random secret in it")]
    Empty {
        /// The file.
        path: PathBuf,
    },
}

impl AdminToken {
    /// The token `secret` (surrounding white space is not part of it); `None` when empty.
    pub fn new(secret: &str) -> Option<AdminToken> {
        let secret = secret.trim();
        (!secret.is_empty()).then(|| AdminToken(digest(secret)))
    }

    /// The token in `path`: the file's content, trimmed (a trailing newline is no part of it).
    pub fn from_file(path: &std::path::Path) -> Result<AdminToken, BadAdminToken> {
        let text = std::fs::read_to_string(path).map_err(|source| BadAdminToken::Unreadable {
            path: path.to_owned(),
            source,
        })?;
        AdminToken::new(&text).ok_or_else(|| BadAdminToken::Empty {
            path: path.to_owned(),
        })
    }

    /// Whether `offered` is the token, in time that depends on neither its length nor where
    /// it differs: both sides are SHA-256 digests (32 bytes whatever was sent, and only the
    /// digest of the secret is kept), compared by OR-folding the XOR of every byte pair with
    /// no early exit. No new dependency for it (`subtle` does the same fold; `black_box` keeps
    /// the optimiser from turning the fold back into an early-exit comparison).
    pub fn admits(&self, offered: &str) -> bool {
        let offered = digest(offered);
        let diff = self
            .0
            .iter()
            .zip(offered.iter())
            .fold(0u8, |acc, (a, b)| acc | std::hint::black_box(a ^ b));
        diff == 0
    }
}

fn digest(s: &str) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(s.as_bytes()).into()
}

/// PEM files for TLS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, leaf first.
    pub cert: PathBuf,
    /// The private key (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            db_path: default_db_path(),
            postgres_url: None,
            spool_dir: None,
            journal: None,
            limits: Limits::default(),
            resume_grace: Duration::from_secs(60),
            kick_bar: Duration::from_secs(10 * 60),
            fair_play: true,
            lag_cap_ms: 500,
            takeover: Duration::from_secs(5),
            spectator_delay: Duration::from_secs(30),
            daily_secret: None,
            cluster: None,
            node_id: None,
            countdown: Duration::from_secs(3),
            puzzle_stock: 8,
            puzzle_prewarm: true,
            pool: PoolRules::default(),
            arenas: Vec::new(),
            server_name: concat!("sudoku-race-server/", env!("CARGO_PKG_VERSION")).to_owned(),
            request_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(10),
            drain: None,
            shutdown_reason: protocol::ClosedReason::Shutdown,
            tls: None,
            trust_proxy: false,
            allowed_origins: Vec::new(),
            admin_token: None,
        }
    }
}

/// `$XDG_DATA_HOME/sudoku-race/results.sqlite3`, else `~/.local/share/...`, else the current directory.
pub fn default_db_path() -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".local").join("share"))
        });
    match base {
        Some(b) => b.join("sudoku-race").join("results.sqlite3"),
        None => PathBuf::from("sudoku-race-results.sqlite3"),
    }
}

impl Config {
    /// The results spool's directory: [`Config::spool_dir`] if given; else beside the SQLite
    /// file (`<db>.spool`); else, with PostgreSQL, in the user's data directory:
    /// `sudoku-race/postgres.spool`, or `sudoku-race/postgres-<node id>.spool` for a cluster
    /// node with an id (two nodes on one host must not share one).
    pub fn spool_path(&self) -> PathBuf {
        if let Some(dir) = &self.spool_dir {
            return dir.clone();
        }
        if self.postgres_url.is_none() {
            let mut name = self.db_path.clone().into_os_string();
            name.push(".spool");
            return name.into();
        }
        let name = match &self.node_id {
            Some(id) => format!("postgres-{id}.spool"),
            None => "postgres.spool".to_owned(),
        };
        default_db_path().with_file_name(name)
    }

    /// Where the room journal goes by default: beside the SQLite file (`<db>.journal`); with
    /// PostgreSQL, in the user's data directory (`sudoku-race/postgres.journal`).
    pub fn journal_path(&self) -> PathBuf {
        if self.postgres_url.is_none() {
            let mut name = self.db_path.clone().into_os_string();
            name.push(".journal");
            return name.into();
        }
        default_db_path().with_file_name("postgres.journal")
    }

    /// Where results are stored, for logs and errors: the SQLite path, or the PostgreSQL URL
    /// without its user, password and options.
    pub fn db_name(&self) -> String {
        match &self.postgres_url {
            None => self.db_path.display().to_string(),
            Some(url) => {
                let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
                let rest = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
                let rest = rest.split_once('?').map_or(rest, |(path, _)| path);
                format!("{scheme}://{rest}")
            }
        }
    }
}

/// One configured arena series.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArenaSpec {
    /// Its name, e.g. `Hourly easy`.
    pub name: String,
    /// Its races' difficulty.
    pub difficulty: Difficulty,
    /// One arena starts on every multiple of this since the epoch.
    pub every: Duration,
    /// Each lasts this long (at most `every`).
    pub length: Duration,
}

/// Why an arena spec does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("arena {spec:?}: {why} (expected NAME,DIFFICULTY,EVERY,LENGTH, e.g. \"Hourly easy,easy,1h,20m\")")]
pub struct BadArena {
    spec: String,
    why: String,
}

/// A duration written `30s`, `20m`, `1h` or `2d`.
pub fn parse_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    let unit = s.chars().last()?;
    let n: u64 = s[..s.len() - unit.len_utf8()].parse().ok()?;
    let secs = match unit {
        's' => n,
        'm' => n.checked_mul(60)?,
        'h' => n.checked_mul(3600)?,
        'd' => n.checked_mul(86_400)?,
        _ => return None,
    };
    (secs > 0).then(|| Duration::from_secs(secs))
}

impl std::str::FromStr for ArenaSpec {
    type Err = BadArena;

    fn from_str(spec: &str) -> Result<ArenaSpec, BadArena> {
        let bad = |why: &str| BadArena {
            spec: spec.to_owned(),
            why: why.to_owned(),
        };
        let parts: Vec<&str> = spec.split(',').map(str::trim).collect();
        let [name, difficulty, every, length] = parts[..] else {
            return Err(bad("four comma-separated fields"));
        };
        ArenaSpec::new(name, difficulty, every, length).map_err(|why| bad(&why))
    }
}

impl ArenaSpec {
    /// A spec from its four fields, checked.
    pub fn new(name: &str, difficulty: &str, every: &str, length: &str) -> Result<Self, String> {
        let name = name.trim();
        let odd = |c: char| c.is_control() || c == ',' || c == ';';
        if name.is_empty() || name.chars().count() > 40 || name.chars().any(odd) {
            return Err("a name of 1 to 40 characters".into());
        }
        let difficulty = difficulty
            .parse()
            .map_err(|_| format!("unknown difficulty {difficulty:?}"))?;
        let every = parse_duration(every).ok_or("EVERY like 30s, 20m, 1h")?;
        let length = parse_duration(length).ok_or("LENGTH like 30s, 20m, 1h")?;
        if length > every {
            return Err("LENGTH longer than EVERY".into());
        }
        Ok(ArenaSpec {
            name: name.to_owned(),
            difficulty,
            every,
            length,
        })
    }
}

impl fmt::Display for ArenaSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (e, l) = (self.every.as_secs(), self.length.as_secs());
        write!(f, "{},{},{e}s,{l}s", self.name, self.difficulty)
    }
}

#[cfg(test)]
mod tests {
    use super::{AdminToken, BadAdminToken, Config};

    #[test]
    fn the_admin_token_is_the_trimmed_file_and_never_printed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "s3cret-token\n").unwrap();
        let token = AdminToken::from_file(&path).unwrap();
        assert!(token.admits("s3cret-token"));
        assert!(!token.admits("s3cret-token\n") && !token.admits("s3cret") && !token.admits(""));
        assert!(!format!("{token:?}").contains("s3cret"));
        std::fs::write(&path, " \n\t").unwrap();
        assert!(matches!(
            AdminToken::from_file(&path),
            Err(BadAdminToken::Empty { .. })
        ));
        let missing = AdminToken::from_file(&dir.path().join("nope"));
        assert!(matches!(missing, Err(BadAdminToken::Unreadable { .. })));
    }

    #[test]
    fn a_postgres_url_is_named_without_its_credentials() {
        let mut c = Config {
            db_path: "/data/results.sqlite3".into(),
            ..Config::default()
        };
        assert_eq!(c.db_name(), "/data/results.sqlite3");
        assert_eq!(
            c.spool_path(),
            std::path::PathBuf::from("/data/results.sqlite3.spool")
        );
        assert_eq!(
            c.journal_path(),
            std::path::PathBuf::from("/data/results.sqlite3.journal")
        );
        c.postgres_url =
            Some("postgres://race:s3cret@db.internal:5432/results?sslmode=disable".into());
        assert_eq!(c.db_name(), "postgres://db.internal:5432/results");
        c.postgres_url = Some("postgresql://db/results".into());
        assert_eq!(c.db_name(), "postgresql://db/results");
    }
}

/// How the pool forms races with strangers (A7's flags and defaults).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolRules {
    /// A race forms at once when this many compatible players wait (`--pool-size`, 8).
    pub size: usize,
    /// Or this long after the second of them began waiting (`--pool-wait-ms`, 10 s).
    pub wait: Duration,
    /// One waiting this long with nobody to race gets `pool_alone` (`--pool-alone-ms`, 20 s).
    pub alone: Duration,
}

impl Default for PoolRules {
    fn default() -> Self {
        PoolRules {
            size: 8,
            wait: Duration::from_secs(10),
            alone: Duration::from_secs(20),
        }
    }
}
