//! The sudoku-race server as a library: [`run`] serves rooms and races on a listener until
//! its shutdown future completes.
//!
//! - [`config`]: [`Config`] and [`Limits`], the contract's defaults.
//! - [`net`]: accept loop, plain HTTP (`/healthz`, `/metrics`), WebSocket connections, rate limit.
//! - [`room`]: the registry of rooms, the room task, and the race rules as a state machine.
//! - [`pool`]: puzzles per difficulty, generated off the async workers.
//! - [`store`]: race results in SQLite.
//! - [`metrics`]: counters for `/metrics`.
//!
//! Invariants: a room's state is owned by its task alone; no lock is held across an
//! `.await`; a race's results are stored before `race_over` is sent.
#![warn(missing_docs)]

pub mod config;
pub mod metrics;
pub mod net;
pub mod pool;
pub mod room;
pub mod store;

use std::future::Future;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::Arc;

use dashmap::DashMap;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use config::{Config, Limits};
pub use store::Store;

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The results database could not be opened.
    #[error("cannot open the results database {path}: {source}")]
    Store {
        /// The database file.
        path: std::path::PathBuf,
        /// The cause.
        source: store::StoreError,
    },
}

/// Everything the connection and room tasks share.
#[derive(Debug)]
pub(crate) struct Server {
    pub(crate) config: Config,
    pub(crate) metrics: Arc<metrics::Metrics>,
    /// Room code -> room.
    pub(crate) rooms: DashMap<protocol::RoomCode, room::RoomHandle>,
    /// Resume token -> room code.
    pub(crate) tokens: DashMap<protocol::ResumeToken, protocol::RoomCode>,
    /// Open rooms created from each address.
    pub(crate) rooms_per_ip: DashMap<IpAddr, usize>,
    pub(crate) pool: Arc<pool::Pool>,
    pub(crate) store: Arc<Store>,
    /// Cancelled when the server begins to shut down.
    pub(crate) shutdown: CancellationToken,
    pub(crate) room_tasks: TaskTracker,
    pub(crate) conn_tasks: TaskTracker,
    pub(crate) open_conns: AtomicUsize,
    pub(crate) next_conn: AtomicU64,
}

/// Serve on `listener` until `shutdown` completes, then stop accepting, close every
/// connection with 1001, let every room store its results, and return.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let store = Store::open(&config.db_path).map_err(|source| ServerError::Store {
        path: config.db_path.clone(),
        source,
    })?;
    let token = CancellationToken::new();
    let pool = pool::Pool::start(config.pool_size, config.pool_prewarm, token.clone());
    let server = Arc::new(Server {
        config,
        metrics: Arc::new(metrics::Metrics::default()),
        rooms: DashMap::new(),
        tokens: DashMap::new(),
        rooms_per_ip: DashMap::new(),
        pool,
        store: Arc::new(store),
        shutdown: token,
        room_tasks: TaskTracker::new(),
        conn_tasks: TaskTracker::new(),
        open_conns: AtomicUsize::new(0),
        next_conn: AtomicU64::new(1),
    });
    if let Ok(addr) = listener.local_addr() {
        tracing::info!(%addr, db = %server.config.db_path.display(), "listening");
    }
    let acceptor = tokio::spawn(net::accept_loop(server.clone(), listener));
    shutdown.await;
    tracing::info!("shutting down");
    server.shutdown.cancel();
    let _ = acceptor.await;
    server.conn_tasks.close();
    server.conn_tasks.wait().await;
    server.room_tasks.close();
    server.room_tasks.wait().await;
    tracing::info!("stopped");
    Ok(())
}
