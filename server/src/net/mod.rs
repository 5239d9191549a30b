//! Transport: the accept loop, HTTP/1.1 on the one listener (hyper, optionally under TLS), and
//! the WebSocket connections that carry client messages to rooms (their outgoing queues are
//! [`crate::outbox`]'s).
//!
//! - [`http`]: the router, `/healthz`, `/metrics`, the HTTP answers.
//! - [`assets`]: the browser client's files, embedded at build time and compressed at start,
//!   and their answers; [`encoding`]: which coding (`br`, `gzip`, none) a request takes.
//! - [`upgrade`]: the WebSocket handshake (validation, origin check, 101) on `/ws` and `/r/CODE`.
//! - [`client_addr`]: the client's address, from the socket or a trusted proxy's headers.
//! - [`conn`]: one WebSocket connection's read loop; [`writer`]: its writer and its close.
//! - [`cmd`]: one handler per client command, and the connection's [`cmd::Session`].
//! - [`rate`]: the per-connection rate limit.
//! - [`tls`]: the rustls acceptor from PEM files; [`fd`]: the file-descriptor budget;
//!   [`admit`]: the sockets still in their handshake, evicted oldest first to make room, and
//!   the descriptor held in reserve; [`refuse`]: the refusal written straight to a socket.
//! - [`tuning`]: WebSocket, socket and queue settings (shared with the echo baseline).
//!
//! Every socket counts against the connection cap from its accept until it is gone, whether
//! it is still sending its head, serving plain HTTP or upgraded. At the cap, and when accept
//! runs out of descriptors, the oldest socket still in its handshake for longer than
//! [`admit::HANDSHAKE_GRACE`] is closed to make room (`handshakes_evicted_total`), so that
//! sockets that never finish their head cannot lock clients out until the head deadline.
//! Past that no client waits in the backlog: far past the cap, or with no descriptor left,
//! it is refused at accept (`connections_refused_total{reason}`), with the descriptor held
//! in reserve when accept has none.

pub mod admit;
pub mod api;
pub mod assets;
pub mod client_addr;
pub mod cmd;
pub mod conn;
pub mod encoding;
pub mod fd;
pub mod http;
pub mod live;
pub mod rate;
pub mod refuse;
pub mod reply;
pub mod slim;
pub mod tls;
pub mod tuning;
pub mod upgrade;
pub mod writer;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::arena::Arenas;
use crate::config::Config;
use crate::metrics::{Metrics, Refused};
use crate::outbox::stop::Reason;
use crate::pool::queue::Pool;
use crate::pool::shared::SharedPool;
use crate::room::rooms::Rooms;
use crate::room::task::RoomEnv;
use crate::store::Store;

/// Sockets accepted past the cap (to tell WebSocket clients `server_full`, and to answer
/// `/healthz`) before further ones are refused at once ([`refuse`]): the fd budget
/// ([`fd::fit_connections`]) holds them.
pub const OVERFLOW: usize = 16;

/// What every connection task shares, grouped by what each part serves: the config and
/// metrics, what connections play in (`Play`), how the server stops (`Stop`), and the
/// sockets under the cap (`Sockets`).
#[derive(Debug)]
pub struct Transport {
    config: Config,
    metrics: Arc<Metrics>,
    tls: Option<Arc<ServerConfig>>,
    play: Play,
    stop: Stop,
    sockets: Sockets,
}

/// What a connection's commands act on: the rooms (and through them what rooms share: the
/// store, the daily challenge, the backlog), the pool and the arenas.
#[derive(Debug)]
struct Play {
    /// Finding and opening rooms, on this node or (in a cluster) any.
    rooms: Rooms,
    /// The pool of players waiting for a race with strangers (A7).
    pool: Arc<Pool>,
    /// The arenas (A7).
    arenas: Arc<Arenas>,
}

impl Play {
    /// What this node's rooms share.
    fn env(&self) -> &Arc<RoomEnv> {
        self.rooms.env()
    }

    /// The players' store (identities, ratings, replays).
    fn store(&self) -> &Arc<dyn Store> {
        &self.rooms.env().store
    }
}

/// How the server stops: the shutdown, the hard stop at the end of its grace, and the list of
/// connections that hear of both.
#[derive(Debug)]
struct Stop {
    /// Cancelled when the server begins to shut down.
    shutdown: CancellationToken,
    /// Cancelled when the shutdown grace is over: every connection task drops its socket.
    hard_stop: CancellationToken,
    /// The WebSocket connections, which hear of the shutdown and the hard stop through this.
    live: Arc<live::Live>,
}

/// The sockets: their tasks, their count under the cap, those still in their handshake, and
/// the next connection id.
#[derive(Debug)]
struct Sockets {
    tasks: TaskTracker,
    open: AtomicUsize,
    /// The sockets still in their handshake, which may make way for new ones.
    handshakes: Arc<admit::Handshakes>,
    /// What a client refused at accept is told.
    refuser: refuse::Refuser,
    /// The one refusal at a time that may wait for its client's handshake.
    turn: admit::WaitTurn,
    next_conn: AtomicU64,
}

impl Transport {
    /// The transport for `rooms`, stopping when their environment's `shutdown` is cancelled;
    /// TLS when `tls` is given; its pool shared across a cluster's nodes when `shared` is.
    pub fn new(
        config: Config,
        rooms: Rooms,
        shared: Option<Arc<dyn SharedPool>>,
        tls: Option<Arc<ServerConfig>>,
    ) -> Arc<Transport> {
        let env = rooms.env().clone();
        let pool = Pool::new(config.pool.clone(), rooms.clone(), shared);
        env.tasks.spawn(pool.clone().run(env.shutdown.clone()));
        let arenas = Arenas::new(config.arenas.clone(), &config.pool, rooms.clone());
        env.tasks.spawn(arenas.clone().run(env.shutdown.clone()));
        let live = Arc::new(live::Live::default());
        let (stopping, on_list) = (env.shutdown.clone(), live.clone());
        env.tasks.spawn(async move {
            stopping.cancelled().await;
            on_list.raise(Reason::Shutdown);
        });
        let refuser = refuse::Refuser::new(&config, tls.is_some());
        Arc::new(Transport {
            config,
            metrics: env.metrics.clone(),
            tls,
            play: Play {
                rooms,
                pool,
                arenas,
            },
            stop: Stop {
                shutdown: env.shutdown.clone(),
                hard_stop: CancellationToken::new(),
                live,
            },
            sockets: Sockets {
                tasks: TaskTracker::new(),
                open: AtomicUsize::new(0),
                handshakes: Arc::default(),
                refuser,
                turn: admit::WaitTurn::default(),
                next_conn: AtomicU64::new(1),
            },
        })
    }

    /// Wait until every connection task has ended (after shutdown), at most until `deadline`;
    /// then drop whatever is left. Returns whether everything ended in time.
    pub async fn drain(&self, deadline: Instant) -> bool {
        self.sockets.tasks.close();
        if tokio::time::timeout_at(deadline, self.sockets.tasks.wait())
            .await
            .is_ok()
        {
            return true;
        }
        self.stop.hard_stop.cancel();
        self.stop.live.raise(Reason::HardStop);
        // Every task selects on the hard stop; this wait is short.
        let _ = tokio::time::timeout(Duration::from_secs(1), self.sockets.tasks.wait()).await;
        false
    }
}

/// One accepted socket's place under the cap, given back when the last part of it (the HTTP
/// connection, then the WebSocket it upgraded to) is gone.
#[derive(Debug)]
pub struct Slot {
    server: Arc<Transport>,
    /// Whether it came in under the cap (else a WebSocket on it gets `server_full`).
    pub admitted: bool,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.server.sockets.open.fetch_sub(1, Relaxed);
    }
}

/// Accept until shutdown; each socket gets its own task.
pub async fn accept_loop(server: Arc<Transport>, listener: TcpListener) {
    let mut reserve = admit::Reserve::new(&listener, server.sockets.turn.clone());
    let mut failing = false;
    loop {
        let accepted = tokio::select! {
            () = server.stop.shutdown.cancelled() => break,
            r = listener.accept() => r,
        };
        match accepted {
            Ok((stream, peer)) => {
                failing = false;
                // The reserve comes before any client: without it the next client the
                // backlog holds would wait there.
                match reserve.restore(&listener) {
                    admit::Restored::Held => admit(&server, stream, peer),
                    admit::Restored::NoNow => {
                        server.refuse(stream, peer, Refused::Descriptors);
                        reserve.restore(&listener);
                    }
                    admit::Restored::NoWait(turn) => {
                        server.refuse_waiting(stream, peer, Refused::Descriptors, turn);
                    }
                }
            }
            Err(e) if fd::out_of_descriptors(&e) => {
                let stuck = no_descriptor(&server, &listener, &mut reserve).await;
                if stuck && !failing {
                    tracing::error!(error = %e, "accept failed with no descriptor in reserve");
                }
                failing = stuck;
            }
            Err(e) => {
                // Other failures: back off instead of spinning, and say so once per spell
                // rather than every 50 ms.
                if !failing {
                    tracing::error!(error = %e, "accept failed");
                }
                failing = true;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
    tracing::info!("stopped accepting connections");
}

/// Accept found no descriptor for the next client in the backlog: the oldest handshake makes
/// room for it, or the reserve takes it out to refuse it, so that none is left waiting there.
/// With neither (every descriptor taken, the reserve's too), wait a moment for one to free:
/// then returns true.
async fn no_descriptor(
    server: &Arc<Transport>,
    listener: &TcpListener,
    reserve: &mut admit::Reserve,
) -> bool {
    if server.evict_handshake() {
        // Its task closes the socket: let it run before accepting again.
        tokio::time::sleep(Duration::from_millis(5)).await;
        return false;
    }
    match reserve.shed(listener) {
        admit::Shed::Now(stream, peer) => {
            server.refuse(stream, peer, Refused::Descriptors);
            reserve.restore(listener);
        }
        admit::Shed::Wait(stream, peer, turn) => {
            server.refuse_waiting(stream, peer, Refused::Descriptors, turn);
        }
        // The accept loop's budget spent: accept again after the other tasks' turns.
        admit::Shed::Nothing => tokio::task::yield_now().await,
        admit::Shed::NoReserve => {
            // The reserve is taken back first when accept is tried again.
            tokio::time::sleep(Duration::from_millis(50)).await;
            return true;
        }
    }
    false
}

/// Give an accepted socket its place under the cap (evicting the oldest handshake at the
/// cap) and its task; far past the cap, refuse it at once.
#[allow(clippy::disallowed_methods)] // a handshake's age runs from its accept
fn admit(server: &Arc<Transport>, stream: TcpStream, peer: SocketAddr) {
    let cap = server.config.limits.max_connections;
    let before = server.sockets.open.fetch_add(1, Relaxed);
    let admitted = before < cap || server.evict_handshake();
    let slot = Slot {
        server: server.clone(),
        admitted,
    };
    if !admitted && before >= cap + OVERFLOW {
        // Far past the cap: keep the descriptors for the ones already here (one refusal at a
        // time may wait a moment for its client's handshake).
        match server.sockets.turn.take() {
            Some(turn) => server.refuse_waiting(stream, peer, Refused::Overflow, turn),
            None => server.refuse(stream, peer, Refused::Overflow),
        }
        drop(slot);
        return;
    }
    let ticket = server.sockets.handshakes.enter(Instant::now());
    server
        .sockets
        .tasks
        .spawn(serve_socket(slot, ticket, stream, peer));
}

impl Transport {
    /// Refuse a client at accept ([`refuse`]) and count it.
    fn refuse(&self, stream: TcpStream, peer: SocketAddr, why: Refused) {
        let told = self.sockets.refuser.refuse(stream);
        self.metrics.refused(why);
        tracing::debug!(%peer, ?why, ?told, "refused at accept");
    }

    /// Refuse a client once its request head is in, waiting at most [`refuse::HEAD_WAIT`], in
    /// a task of its own that holds the waiting `turn` until the socket is closed.
    fn refuse_waiting(
        self: &Arc<Self>,
        stream: TcpStream,
        peer: SocketAddr,
        why: Refused,
        turn: admit::Turn,
    ) {
        let server = self.clone();
        self.sockets.tasks.spawn(async move {
            if server.sockets.refuser.answers() {
                let _ = tokio::time::timeout(refuse::HEAD_WAIT, refuse::head_in(&stream)).await;
            }
            server.refuse(stream, peer, why);
            drop(turn);
        });
    }

    /// Close the oldest socket still in its handshake past the grace, counting it; whether
    /// there was one.
    #[allow(clippy::disallowed_methods)] // a handshake's age runs from its accept
    fn evict_handshake(&self) -> bool {
        let evicted = self.sockets.handshakes.evict_oldest(Instant::now());
        if evicted {
            self.metrics.handshakes_evicted.inc();
            tracing::debug!("the oldest unfinished handshake evicted to make room");
        }
        evicted
    }
}

#[allow(clippy::disallowed_methods)] // the request deadline runs from the accept
async fn serve_socket(slot: Slot, ticket: admit::Ticket, stream: TcpStream, peer: SocketAddr) {
    tuning::tune_socket(&stream);
    let server = slot.server.clone();
    let deadline = Instant::now() + server.config.request_timeout;
    let hard_stop = server.stop.hard_stop.clone();
    let evicted = ticket.evicted().clone();
    let slot = Arc::new(slot);
    let serve = async {
        match server.tls.clone() {
            None => serve_http(slot, &ticket, stream, peer, deadline).await,
            Some(tls) => {
                let acceptor = TlsAcceptor::from(tls);
                let accepted = tokio::select! {
                    r = tokio::time::timeout_at(deadline, acceptor.accept(stream)) => r,
                    () = server.stop.shutdown.cancelled() => return,
                };
                match accepted {
                    Ok(Ok(tls)) => serve_http(slot, &ticket, tls, peer, deadline).await,
                    Ok(Err(e)) => tracing::debug!(%peer, error = %e, "tls handshake failed"),
                    Err(_) => tracing::debug!(%peer, "tls handshake timed out"),
                }
            }
        }
    };
    tokio::select! {
        () = serve => {}
        () = hard_stop.cancelled() => {}
        () = evicted.cancelled() => tracing::debug!(%peer, "evicted before its request head"),
    }
}

/// HTTP/1.1 on one socket (keep-alive, upgrades) until it closes, its first head misses
/// `deadline`, or shutdown. Its handshake `ticket` is done once the first head is in.
async fn serve_http<I>(
    slot: Arc<Slot>,
    ticket: &admit::Ticket,
    io: I,
    peer: SocketAddr,
    deadline: Instant,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let server = slot.server.clone();
    let head_seen = CancellationToken::new();
    let socket = reply::Socket {
        slot,
        peer,
        head_seen: head_seen.clone(),
    };
    let service = service_fn(move |req| {
        let socket = socket.clone();
        async move { Ok::<_, Infallible>(http::route(req, &socket).await) }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        // Every later head on a kept-alive socket; the first is held to `deadline` below.
        .header_read_timeout(server.config.request_timeout)
        // A request head is small; a socket that is only sending one costs little.
        .max_buf_size(16 * 1024)
        .keep_alive(true);
    let conn = builder
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades();
    tokio::pin!(conn);
    let first_head = async {
        tokio::select! {
            () = tokio::time::sleep_until(deadline) => {}
            () = head_seen.cancelled() => {
                ticket.done();
                std::future::pending().await
            }
        }
    };
    tokio::select! {
        r = conn.as_mut() => {
            if let Err(e) = r {
                tracing::debug!(%peer, error = %e, "http connection ended");
            }
        }
        () = first_head => {
            tracing::debug!(%peer, "no request head within the deadline: closing");
        }
        () = server.stop.shutdown.cancelled() => {
            if head_seen.is_cancelled() {
                // A request may be in flight: let it finish (the hard stop bounds this).
                conn.as_mut().graceful_shutdown();
                let _ = conn.await;
            }
        }
    }
}

/// A new connection id.
fn next_id(server: &Transport) -> crate::outbox::ConnId {
    crate::outbox::ConnId(server.sockets.next_conn.fetch_add(1, Relaxed))
}
