//! Transport: the accept loop, plain-HTTP routes, and the WebSocket connections that carry
//! client messages to rooms (their outgoing queues are [`crate::outbox`]'s).
//!
//! - [`http`]: request-line routing, `/healthz`, `/metrics`.
//! - [`conn`]: one connection's reader and writer.
//! - [`rate`]: the per-connection rate limit.
//! - [`tuning`]: WebSocket, socket and queue settings (shared with the echo baseline).

pub mod conn;
pub mod http;
pub mod rate;
pub mod tuning;

use std::net::SocketAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::Instrument;

use crate::config::Config;
use crate::metrics::Metrics;
use crate::outbox::ConnId;
use crate::room::task::RoomEnv;

/// What every connection task shares: the config, the rooms, and the connection counts.
#[derive(Debug)]
pub struct Transport {
    config: Config,
    rooms: Arc<RoomEnv>,
    metrics: Arc<Metrics>,
    /// Cancelled when the server begins to shut down.
    shutdown: CancellationToken,
    conn_tasks: TaskTracker,
    open_conns: AtomicUsize,
    next_conn: AtomicU64,
}

impl Transport {
    /// The transport for `rooms`, stopping when `rooms.shutdown` is cancelled.
    pub fn new(config: Config, rooms: Arc<RoomEnv>) -> Arc<Transport> {
        Arc::new(Transport {
            config,
            metrics: rooms.metrics.clone(),
            shutdown: rooms.shutdown.clone(),
            rooms,
            conn_tasks: TaskTracker::new(),
            open_conns: AtomicUsize::new(0),
            next_conn: AtomicU64::new(1),
        })
    }

    /// Wait until every connection task has ended (after shutdown).
    pub async fn drain(&self) {
        self.conn_tasks.close();
        self.conn_tasks.wait().await;
    }
}

/// Accept until shutdown; each socket gets its own task.
pub async fn accept_loop(server: Arc<Transport>, listener: TcpListener) {
    loop {
        tokio::select! {
            () = server.shutdown.cancelled() => break,
            r = listener.accept() => match r {
                Ok((stream, peer)) => {
                    let s = server.clone();
                    server.conn_tasks.spawn(serve_socket(s, stream, peer));
                }
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::error!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }
    tracing::info!("stopped accepting connections");
}

async fn serve_socket(server: Arc<Transport>, stream: TcpStream, peer: SocketAddr) {
    tuning::tune_socket(&stream);
    let routed = tokio::select! {
        r = tokio::time::timeout(Duration::from_secs(10), http::peek_route(&stream)) => r,
        () = server.shutdown.cancelled() => return,
    };
    let Ok(Some(route)) = routed else { return };
    match route {
        http::Route::Ws => {
            let id = ConnId(server.next_conn.fetch_add(1, Relaxed));
            let span = tracing::info_span!(
                "conn",
                conn_id = id.0,
                peer = %peer,
                room = tracing::field::Empty,
                player_id = tracing::field::Empty
            );
            conn::serve(server, stream, peer, id).instrument(span).await;
        }
        http::Route::Healthz => {
            let body = format!(
                "{{\"rooms\":{},\"connections\":{}}}",
                server.rooms.directory.len(),
                server.metrics.connections.get()
            );
            http::respond(stream, "200 OK", "application/json", &body).await;
        }
        http::Route::Metrics => {
            let body = server.metrics.render();
            http::respond(stream, "200 OK", crate::metrics::CONTENT_TYPE, &body).await;
        }
        http::Route::NotFound => {
            http::respond(stream, "404 Not Found", "text/plain", "not found\n").await;
        }
        http::Route::Bad => {
            http::respond(stream, "400 Bad Request", "text/plain", "bad request\n").await;
        }
    }
}
