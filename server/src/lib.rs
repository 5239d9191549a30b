//! The sudoku-race server as a library: [`run`] serves rooms and races on a listener until
//! its shutdown future completes. This file only wires the parts together.
//!
//! Layers, bottom to top (nothing imports upward):
//! - [`outbox`], [`config`], [`metrics`], [`store`], [`rate`]: a connection's way out (ids,
//!   queue, close codes, encoding, slow-reader accounting); [`Config`] and [`Limits`]; counters
//!   for `/metrics`; race results in SQLite; the token bucket behind every rate limit.
//! - [`pool`]: puzzles per difficulty, generated off the async workers.
//! - [`room`]: the room directory, the room task, and the race rules as a state machine.
//! - [`net`]: accept loop, plain HTTP (`/healthz`, `/metrics`), WebSocket connections, rate limit.
//!
//! Invariants: a room's state is owned by its task alone; the directory alone owns which rooms
//! and tokens exist; no lock is held across an `.await`; a race's results are stored before
//! `race_over` is sent; the rules read no clock and no global RNG.
#![warn(missing_docs)]

pub mod config;
#[doc(hidden)]
pub mod fuzzing;
pub mod metrics;
pub mod net;
pub mod outbox;
pub mod pool;
pub mod rate;
pub mod room;
pub mod store;

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use config::{Config, Limits};
pub use store::Store;

use room::directory::Directory;
use room::rules::RoomOpts;
use room::task::RoomEnv;

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
    let rooms = Arc::new(RoomEnv {
        directory: Arc::new(Directory::new(
            config.limits.max_rooms,
            config.limits.max_rooms_per_ip,
        )),
        pool: pool::Pool::start(config.pool_size, config.pool_prewarm, token.clone()),
        store: Arc::new(store),
        metrics: Arc::new(metrics::Metrics::default()),
        opts: RoomOpts::from_config(&config),
        shutdown: token.clone(),
        tasks: TaskTracker::new(),
    });
    if let Ok(addr) = listener.local_addr() {
        tracing::info!(%addr, db = %config.db_path.display(), "listening");
    }
    let transport = net::Transport::new(config, rooms.clone());
    let acceptor = tokio::spawn(net::accept_loop(transport.clone(), listener));
    shutdown.await;
    tracing::info!("shutting down");
    token.cancel();
    let _ = acceptor.await;
    transport.drain().await;
    rooms.tasks.close();
    rooms.tasks.wait().await;
    tracing::info!("stopped");
    Ok(())
}
