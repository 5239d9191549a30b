//! The sudoku-race server as a library: [`run`] serves rooms and races on a listener until
//! its shutdown future completes. This file only wires the parts together.
//!
//! Layers, bottom to top (nothing imports upward; tests/tests/integration/layers.rs checks it):
//! - [`clock`], [`outbox`], [`config`], [`metrics`], [`token_bucket`], [`rating`], [`fairplay`], [`hex`],
//!   [`store`]: the wall clock; a connection's way out (ids, queue, close codes, encoding,
//!   slow-reader accounting); [`Config`] and [`Limits`]; counters for `/metrics`; the token
//!   bucket behind every rate limit; rating math; anti-cheat flags; hex and minted secrets;
//!   races, players and ratings behind the [`Store`] trait (SQLite on one node, or PostgreSQL
//!   that several share).
//! - [`puzzles`]: where races' puzzles come from: the stock per difficulty, generated off the
//!   async workers, and the daily challenge's.
//! - [`room`]: the room directory and the [`room::rooms::Rooms`] handle every lookup goes
//!   through, the room task, and the race rules as a state machine.
//! - [`pool`]: "Play now" (A7): where players wait for a race with strangers; the matcher
//!   that decides who races whom, pure, and the queue that seats its races in pool rooms.
//! - [`arena`]: arenas (A7): the schedule and points, pure, and each arena's members, standings
//!   and pool, opened and closed on time.
//! - [`cluster`]: cluster mode on Redis: the shared directory, leases, and the relay that
//!   reaches rooms owned by other nodes, plugged in behind the room layer's two seams
//!   (`OtherNodes` and `DirectoryFeed`).
//! - [`net`]: accept loop, HTTP/1.1 (hyper, optionally TLS), `/healthz`, `/metrics`, the
//!   WebSocket handshake and connections, one handler per client command (`net::cmd`), their
//!   close, rate limit, file-descriptor budget. It never names the cluster.
//!
//! Invariants: a room's state is owned by its task alone; the directory alone owns which rooms
//! and tokens exist; no lock is held across an `.await`; a race's results are stored before
//! `race_over` is sent; the rules read no clock and no global RNG.
#![warn(missing_docs)]

pub mod arena;
pub mod clock;
pub mod cluster;
pub mod config;
pub mod fairplay;
#[doc(hidden)]
pub mod fuzzing;
pub mod hex;
pub mod metrics;
pub mod net;
pub mod outbox;
pub mod pool;
pub mod puzzles;
pub mod rating;
pub mod room;
pub mod store;
pub mod token_bucket;

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use config::{Config, Limits, TlsFiles};
pub use store::{PgStore, SqliteStore, Store};

use room::directory::{Directory, DirectoryFeed};
use room::local_journal::{self, LocalJournal};
use room::rules::RoomOpts;
use room::task::RoomEnv;

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The results database could not be opened.
    #[error("cannot open the results database {db}: {source}")]
    Store {
        /// The database ([`Config::db_name`]).
        db: String,
        /// The cause.
        source: store::StoreError,
    },
    /// The TLS certificate or key could not be used.
    #[error(transparent)]
    Tls(#[from] net::tls::TlsError),
    /// Cluster mode could not start.
    #[error(transparent)]
    Cluster(#[from] cluster::ClusterError),
    /// The room journal could not be opened.
    #[error(transparent)]
    Journal(#[from] room::local_journal::JournalError),
}

/// Open the results database of `config` and the daily challenge's secret, on a blocking
/// thread: both stores block, and the PostgreSQL client refuses to on an async worker.
async fn open_store(
    config: &Config,
) -> Result<(Arc<dyn Store>, puzzles::daily::Daily), ServerError> {
    let (path, url) = (config.db_path.clone(), config.postgres_url.clone());
    let secret = config.daily_secret.clone();
    let opened = tokio::task::spawn_blocking(move || -> Result<_, store::StoreError> {
        let given = secret.map(|s| puzzles::daily::Daily::new(s.into_bytes()));
        Ok(match url {
            None => {
                let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path)?);
                (
                    store,
                    given.unwrap_or_else(|| puzzles::daily::Daily::beside(&path)),
                )
            }
            Some(url) => {
                let pg = open_postgres(&url)?;
                let daily = match given {
                    Some(d) => d,
                    None => puzzles::daily::Daily::new(
                        pg.daily_secret(&puzzles::daily::fresh_secret())?,
                    ),
                };
                let store: Arc<dyn Store> = Arc::new(pg);
                (store, daily)
            }
        })
    })
    .await;
    let db = config.db_name();
    match opened {
        Ok(result) => result.map_err(|source| ServerError::Store { db, source }),
        // The open panicked: said as a store failure rather than taking the caller down.
        Err(e) => Err(ServerError::Store {
            db,
            source: store::StoreError::Backend(Box::new(e)),
        }),
    }
}

/// How many times start-up tries a PostgreSQL that is away, starting up or shutting down,
/// half a second apart (and each connection attempt bounded): a minute or more.
const PG_START_TRIES: u32 = 120;

/// Open PostgreSQL, waiting while it cannot answer yet (up to [`PG_START_TRIES`]): results
/// spooled before a restart land as soon as it does (A9). A malformed URL fails at once.
fn open_postgres(url: &str) -> Result<PgStore, store::StoreError> {
    let mut tries = 1;
    loop {
        match PgStore::open(url) {
            Err(e) if e.is_transient() && tries < PG_START_TRIES => {
                tracing::warn!(error = %e, "PostgreSQL does not answer yet: waiting");
                std::thread::sleep(std::time::Duration::from_millis(500));
                tries += 1;
            }
            other => return other,
        }
    }
}

/// The room journal and the rooms it holds, if this server keeps one (on its own, with
/// [`Config::journal`]); read on a blocking thread.
async fn open_journal(
    config: &Config,
) -> Result<Option<(Arc<LocalJournal>, Vec<local_journal::Recovered>)>, ServerError> {
    let (Some(dir), None) = (&config.journal, &config.cluster) else {
        return Ok(None);
    };
    let (dir, at) = (dir.clone(), dir.clone());
    let opened = tokio::task::spawn_blocking(move || {
        LocalJournal::open(&dir, local_journal::Options::default())
    })
    .await;
    let opened = opened.map_err(|e| local_journal::JournalError {
        dir: at,
        source: std::io::Error::other(e),
    })??;
    Ok(Some(opened))
}

/// Where the directory reports: the cluster's queue (to Redis), else the room journal.
fn feed(
    queue: Option<&cluster::Queue>,
    journal: Option<&Arc<LocalJournal>>,
) -> Option<Arc<dyn DirectoryFeed>> {
    match (queue, journal) {
        (Some(q), _) => Some(q.feed()),
        (None, Some(j)) => Some(j.clone()),
        (None, None) => None,
    }
}

/// Run again the rooms a crash interrupted, before anyone can connect: the journal then
/// keeps them with the rest.
fn restore(
    rooms: &Arc<RoomEnv>,
    config: &Config,
    journal: Option<(Arc<LocalJournal>, Vec<local_journal::Recovered>)>,
) -> Option<Arc<LocalJournal>> {
    let (journal, recovered) = journal?;
    let restored = local_journal::restore(rooms, &journal, recovered);
    tracing::info!(dir = ?config.journal, restored, "room journal open");
    Some(journal)
}

/// What every room shares, its directory reporting to `feed` if there is one (the cluster's
/// queue, or the room journal).
fn room_env(
    config: &Config,
    feed: Option<Arc<dyn DirectoryFeed>>,
    store: Arc<dyn Store>,
    daily: puzzles::daily::Daily,
    token: &CancellationToken,
) -> Arc<RoomEnv> {
    let directory = Directory::new(config.limits.max_rooms, config.limits.max_rooms_per_ip);
    let metrics = Arc::new(metrics::Metrics::default());
    Arc::new(RoomEnv {
        directory: Arc::new(match feed {
            Some(f) => directory.with_feed(f),
            None => directory,
        }),
        puzzles: puzzles::stock::PuzzleStock::start(
            config.puzzle_stock,
            config.puzzle_prewarm,
            token.clone(),
        ),
        store,
        backlog: Arc::new(room::backlog::Backlog::open(&config.spool_path(), &metrics)),
        daily: Arc::new(daily),
        metrics,
        opts: RoomOpts::from_config(config),
        shutdown: token.clone(),
        draining: CancellationToken::new(),
        tasks: TaskTracker::new(),
        arena_races: tokio::sync::broadcast::channel(1024).0,
    })
}

/// The seams a cluster node fills: the other nodes (for the room layer) and the shared pool.
type Seams = (
    Option<Arc<dyn room::rooms::OtherNodes>>,
    Option<Arc<dyn pool::shared::SharedPool>>,
);

fn seams(node: Option<&cluster::Node>) -> Seams {
    let Some(n) = node else {
        return (None, None);
    };
    let others: Arc<dyn room::rooms::OtherNodes> = Arc::new(n.other_nodes());
    (Some(others), Some(n.pool()))
}

/// Serve on `listener` until `shutdown` completes, then stop accepting, close every
/// connection with 1001, let every room store its results, and return: within
/// [`Config::shutdown_grace`], after which whatever is left is dropped.
///
/// It raises the process's soft file-descriptor limit to the hard one, and lowers
/// `max_connections` (with a warning) when even that cannot hold it ([`net::fd`]).
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    run_until(listener, config, std::future::pending(), shutdown).await
}

/// [`run`], with a drain (A9): when `drain` completes and [`Config::drain`] is set, the
/// server stops opening rooms and taking pool entries (`server_draining`, `/healthz` 503),
/// rooms between races close (`room_closed` `drain`), races already under way finish and are
/// stored, and once no room is left (or the drain time is over, or `stop` completes) it shuts
/// down as [`run`] does. Without [`Config::drain`], `drain` is a shutdown; `stop` always is.
pub async fn run_until(
    listener: TcpListener,
    mut config: Config,
    drain: impl Future<Output = ()> + Send + 'static,
    stop: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let tls = config.tls.as_ref().map(net::tls::acceptor).transpose()?;
    let (store, daily) = open_store(&config).await?;
    config.limits.max_connections = net::fd::fit_connections(config.limits.max_connections);
    let token = CancellationToken::new();
    // In cluster mode the directory reports its changes to the node's queue to Redis; on
    // its own, a server keeps its rooms' logs in its journal.
    let queue = config.cluster.as_ref().map(|_| cluster::Queue::new());
    let journal = open_journal(&config).await?;
    let feed = feed(queue.as_ref(), journal.as_ref().map(|(j, _)| j));
    let rooms = room_env(&config, feed, store.clone(), daily, &token);
    let journal = restore(&rooms, &config, journal);
    if let Ok(addr) = listener.local_addr() {
        let scheme = if tls.is_some() { "https" } else { "http" };
        tracing::info!(%addr, scheme, db = %config.db_name(), "listening");
    }
    rooms.tasks.spawn(rooms.backlog.clone().run(
        store,
        rooms.directory.clone(),
        rooms.metrics.clone(),
        token.clone(),
    ));
    let node = match (&config.cluster, queue) {
        (Some(url), Some(queue)) => {
            let id = config.node_id.clone().unwrap_or_else(cluster::random_id);
            Some(
                cluster::Node::start(url, id, queue, &rooms, config.takeover, token.clone())
                    .await?,
            )
        }
        _ => None,
    };
    let grace = config.shutdown_grace;
    let drain_for = config.drain;
    let (others, shared) = seams(node.as_deref());
    let rooms_handle = room::rooms::Rooms::new(rooms.clone(), others);
    let transport = net::Transport::new(config, rooms_handle, shared, tls);
    let acceptor = tokio::spawn(net::accept_loop(transport.clone(), listener));
    tokio::pin!(stop);
    tokio::select! {
        () = &mut stop => {}
        () = drain => if let Some(limit) = drain_for {
            drained(&rooms, limit, stop).await;
        },
    }
    tracing::info!("shutting down");
    #[allow(clippy::disallowed_methods)] // the grace runs from now
    let deadline = tokio::time::Instant::now() + grace;
    token.cancel();
    let _ = acceptor.await;
    if !transport.drain(deadline).await {
        tracing::warn!(?grace, "connections still open after the grace: dropped");
    }
    rooms.tasks.close();
    // Rooms store their results on shutdown; a second past the grace is theirs.
    let rooms_done = deadline + std::time::Duration::from_secs(1);
    if tokio::time::timeout_at(rooms_done, rooms.tasks.wait())
        .await
        .is_err()
    {
        tracing::error!("rooms still running after the grace");
    }
    if let Some(node) = &node {
        // The rooms' last messages to members on other nodes are still on their way.
        node.flush(std::time::Duration::from_secs(1)).await;
    }
    if let Some(j) = journal {
        // The rooms' ends, on disk: a clean stop brings no room back.
        let _ = tokio::task::spawn_blocking(move || j.stop()).await;
    }
    tracing::info!("stopped");
    Ok(())
}

/// A drain (A9): rooms told, then a wait until no room is left on this node, `limit` has
/// passed, or `stop` completes (a second signal), whichever comes first.
async fn drained(rooms: &Arc<RoomEnv>, limit: std::time::Duration, stop: impl Future<Output = ()>) {
    tracing::info!(
        limit_s = limit.as_secs(),
        rooms = rooms.directory.len(),
        "draining"
    );
    rooms.draining.cancel();
    let emptied = async {
        // Rooms close by themselves (between races at once, after a race's results shortly
        // after); a room count is cheap to look at.
        while !rooms.directory.is_empty() {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    };
    tokio::select! {
        () = emptied => tracing::info!("drained: no room left"),
        () = tokio::time::sleep(limit) => {
            tracing::warn!(rooms = rooms.directory.len(), "drain time over: stopping the rest");
        }
        () = stop => tracing::warn!("stopped during the drain"),
    }
}
