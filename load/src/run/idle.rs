//! The idle load: many connections that only say hello, and what they cost the server in
//! resident memory.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use futures::future::join_all;
use protocol::ServerMsg;
use tokio::sync::Semaphore;

use crate::procfs;
use crate::wsclient::{self, Ws};

/// What an idle run measured.
#[derive(Clone, Debug)]
pub struct IdleReport {
    /// Connections asked for.
    pub wanted: usize,
    /// Connections open (upgraded and welcomed) at the measurement.
    pub open: usize,
    /// Connections that failed to open.
    pub failed: usize,
    /// The server's resident memory before the first connection, KiB.
    pub rss_before_kib: Option<u64>,
    /// ... with every connection open.
    pub rss_open_kib: Option<u64>,
    /// ... after they closed again.
    pub rss_after_kib: Option<u64>,
    /// The server's open descriptors before, with the connections open, and after.
    pub fds: Option<(usize, usize, usize)>,
}

impl IdleReport {
    /// Server memory per open connection, in bytes.
    pub fn bytes_per_conn(&self) -> Option<f64> {
        per_conn(self.rss_before_kib?, self.rss_open_kib?, self.open)
    }
}

/// Resident memory grown from `before_kib` to `open_kib` with `open` connections: bytes each.
pub fn per_conn(before_kib: u64, open_kib: u64, open: usize) -> Option<f64> {
    (open > 0).then(|| (open_kib.saturating_sub(before_kib) * 1024) as f64 / open as f64)
}

/// Bytes per connection as the tables show them.
pub fn per_conn_text(bytes: Option<f64>) -> String {
    bytes.map_or("n/a".to_owned(), |b| {
        format!("{b:.0} B ({:.2} KiB)", b / 1024.0)
    })
}

/// Opens `n` idle connections to `addr` (at most `concurrency` handshakes at a time), holds
/// them for `hold`, and reads the server's memory (pid `pid`) before, during and after.
pub async fn run(
    addr: SocketAddr,
    pid: Option<u32>,
    n: usize,
    concurrency: usize,
    hold: Duration,
) -> Result<IdleReport> {
    run_gated(addr, pid, n, concurrency, hold, |_| async {}).await
}

/// [`run`], but the connections stay open after the memory is read until `gate(open)` is done:
/// a parent holding several of these at once (one per cluster node) closes them together.
pub async fn run_gated<G, F>(
    addr: SocketAddr,
    pid: Option<u32>,
    n: usize,
    concurrency: usize,
    hold: Duration,
    gate: G,
) -> Result<IdleReport>
where
    G: FnOnce(usize) -> F,
    F: std::future::Future<Output = ()>,
{
    let before = pid.map(procfs::sample).transpose()?;
    let permits = Arc::new(Semaphore::new(concurrency.max(1)));
    let opened: Vec<Option<Ws>> = join_all((0..n).map(|_| {
        let permits = Arc::clone(&permits);
        async move {
            let _permit = permits.acquire().await.ok()?;
            let mut ws = wsclient::connect(addr, "/ws", 1024).await.ok()?;
            match wsclient::recv(&mut ws, Duration::from_secs(20)).await {
                Ok(ServerMsg::Welcome { .. }) => Some(ws),
                _ => None,
            }
        }
    }))
    .await;
    let conns: Vec<Ws> = opened.into_iter().flatten().collect();
    let open = conns.len();
    // Let the server settle (allocator caches, tasks parked) before reading.
    tokio::time::sleep(hold).await;
    let during = pid.map(procfs::sample).transpose()?;
    gate(open).await;
    join_all(
        conns
            .into_iter()
            .map(|ws| wsclient::close(ws, Duration::from_secs(5))),
    )
    .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = pid.map(procfs::sample).transpose()?;
    Ok(IdleReport {
        wanted: n,
        open,
        failed: n - open,
        rss_before_kib: before.map(|s| s.rss_kib),
        rss_open_kib: during.map(|s| s.rss_kib),
        rss_after_kib: after.map(|s| s.rss_kib),
        fds: before
            .zip(during)
            .zip(after)
            .map(|((b, d), a)| (b.fds, d.fds, a.fds)),
    })
}
