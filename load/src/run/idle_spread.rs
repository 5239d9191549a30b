//! Idle connections across a cluster: one child `loadgen --idle N --server A --idle-gate` per
//! node, because one process may hold only so many descriptors (20,000 on the bench machine),
//! so the clients of 3 × 19,900 connections cannot live in one. Each child opens its
//! connections, reads its node's memory and prints [`HELD`]; once every child has, the parent
//! reads every node at that moment (so every connection was open at once), then closes the
//! children's standard input, which lets them all close their connections and report.

use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use futures::future::try_join_all;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};

use super::idle;
use crate::procfs;

/// The line a gated child prints, with its open count, once its connections are open and its
/// node's memory is read.
pub const HELD: &str = "idle-held";

/// How long a child may take to open its connections: 19,900 take about a minute here.
const OPEN_LIMIT: Duration = Duration::from_secs(600);

/// One node's share of the connections.
#[derive(Clone, Debug)]
pub struct NodeIdle {
    /// Where the node listens.
    pub addr: SocketAddr,
    /// Connections asked of it, and open when every child held its own.
    pub wanted: usize,
    /// ... open.
    pub open: usize,
    /// The node's resident memory before its child's first connection, KiB.
    pub rss_before_kib: u64,
    /// The node's resident memory and open descriptors while every child held its connections.
    pub rss_all_open_kib: u64,
    /// ... descriptors.
    pub fds_all_open: usize,
}

impl NodeIdle {
    /// The node's memory per open connection, in bytes.
    pub fn bytes_per_conn(&self) -> Option<f64> {
        idle::per_conn(self.rss_before_kib, self.rss_all_open_kib, self.open)
    }
}

/// A child loadgen holding one node's connections.
struct Holder {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
    addr: SocketAddr,
    pid: u32,
}

impl Holder {
    /// Reads the child's output until its [`HELD`] line; its open count.
    async fn held(&mut self) -> Result<usize> {
        while let Some(line) = self.lines.next_line().await? {
            if let Some(open) = line.strip_prefix(HELD) {
                return open.trim().parse().context("the held line's count");
            }
        }
        bail!("the loadgen for {} ended before holding", self.addr)
    }

    /// Lets the child close its connections; its last line (the JSON report).
    async fn release(mut self) -> Result<Value> {
        drop(self.child.stdin.take());
        let mut last = None;
        while let Some(line) = self.lines.next_line().await? {
            last = Some(line);
        }
        let _ = self.child.wait().await;
        let last = last.with_context(|| format!("no report from the loadgen for {}", self.addr))?;
        serde_json::from_str(&last).context("the child's JSON report")
    }
}

/// Opens `n` idle connections to each node of `nodes` (address and pid) at once, each set held
/// by a child process of `loadgen` given `child_args` as well; every node's memory and
/// descriptors while all are open.
pub async fn run(
    loadgen: &Path,
    nodes: &[(SocketAddr, u32)],
    n: usize,
    child_args: &[String],
) -> Result<Vec<NodeIdle>> {
    let mut holders = Vec::with_capacity(nodes.len());
    for &(addr, pid) in nodes {
        let mut child = Command::new(loadgen)
            .args(["--idle", &n.to_string(), "--idle-gate"])
            .args([
                "--server",
                &addr.to_string(),
                "--server-pid",
                &pid.to_string(),
            ])
            .args(child_args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("start {}", loadgen.display()))?;
        let stdout = child.stdout.take().context("the child's stdout")?;
        let lines = BufReader::new(stdout).lines();
        holders.push(Holder {
            child,
            lines,
            addr,
            pid,
        });
    }
    let opens = tokio::time::timeout(
        OPEN_LIMIT,
        try_join_all(holders.iter_mut().map(Holder::held)),
    )
    .await
    .context("the children took too long to open their connections")??;
    // Every child holds its connections now: read every node before any lets go.
    let samples = holders
        .iter()
        .map(|h| procfs::sample(h.pid))
        .collect::<Result<Vec<_>>>()?;
    let reports = try_join_all(holders.into_iter().map(Holder::release)).await?;
    Ok(nodes
        .iter()
        .zip(opens)
        .zip(samples)
        .zip(reports)
        .map(|(((&(addr, _), open), s), r)| NodeIdle {
            addr,
            wanted: n,
            open,
            rss_before_kib: r["rss_before_kib"].as_u64().unwrap_or(0),
            rss_all_open_kib: s.rss_kib,
            fds_all_open: s.fds,
        })
        .collect())
}

/// The table of a spread idle run.
pub fn table(nodes: &[NodeIdle]) -> String {
    let open: usize = nodes.iter().map(|n| n.open).sum();
    let wanted: usize = nodes.iter().map(|n| n.wanted).sum();
    let mut out = format!(
        "idle across {} nodes: {open} of {wanted} connections open at once",
        nodes.len()
    );
    for n in nodes {
        out.push_str(&format!(
            "\n  {}: {} open, RSS {} -> {} KiB, {} fds, per connection {}",
            n.addr,
            n.open,
            n.rss_before_kib,
            n.rss_all_open_kib,
            n.fds_all_open,
            idle::per_conn_text(n.bytes_per_conn()),
        ));
    }
    out
}

/// The JSON summary of a spread idle run.
pub fn json(nodes: &[NodeIdle]) -> Value {
    let open: usize = nodes.iter().map(|n| n.open).sum();
    let wanted: usize = nodes.iter().map(|n| n.wanted).sum();
    json!({
        "idle_wanted": wanted,
        "idle_open_at_once": open,
        "idle_failed": wanted - open,
        "nodes": nodes.iter().map(|n| json!({
            "addr": n.addr.to_string(),
            "open": n.open,
            "rss_before_kib": n.rss_before_kib,
            "rss_all_open_kib": n.rss_all_open_kib,
            "fds_all_open": n.fds_all_open,
            "bytes_per_conn": n.bytes_per_conn().map(|b| b.round()),
        })).collect::<Vec<_>>(),
    })
}
