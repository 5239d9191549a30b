//! The bench's cluster: a `redis-server` of its own and three race-server nodes on loopback,
//! each logging JSON to its own file (a restarted node appends to its file), with the flags of
//! the end-to-end cluster tests and otherwise the defaults (the lease and poll under test).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use load::run::spawn::{start_redis, Spawned};

use crate::probe::{Reply, Resp};

/// The nodes, by index (`n0`, `n1`, `n2`), and their Redis.
pub struct Nodes {
    bin: PathBuf,
    workers: u16,
    log_dir: PathBuf,
    url: String,
    nodes: Vec<Spawned>,
    /// The Redis (dropped last).
    pub redis: Spawned,
}

impl Nodes {
    /// Starts Redis (`redis_bin`) and `n` nodes of `bin`, logging into `log_dir`.
    pub async fn start(
        bin: &Path,
        redis_bin: &PathBuf,
        n: usize,
        workers: u16,
        log_dir: &Path,
    ) -> Result<Nodes> {
        std::fs::create_dir_all(log_dir)
            .with_context(|| format!("create {}", log_dir.display()))?;
        let redis = start_redis(redis_bin, None).await?;
        let mut nodes = Nodes {
            bin: bin.to_path_buf(),
            workers,
            log_dir: log_dir.to_path_buf(),
            url: format!("redis://{}", redis.addr),
            nodes: Vec::with_capacity(n),
            redis,
        };
        for i in 0..n {
            let node = nodes.spawn(i).await?;
            nodes.nodes.push(node);
            nodes.wait_joined(i).await?;
        }
        Ok(nodes)
    }

    async fn spawn(&self, i: usize) -> Result<Spawned> {
        let id = format!("n{i}");
        let workers = self.workers.to_string();
        let args = [
            "--listen",
            "{addr}",
            "--db",
            "{dir}/n.sqlite3",
            "--log-format",
            "json",
            "--workers",
            &workers,
            "--cluster",
            &self.url,
            "--node-id",
            &id,
            // As the end-to-end cluster tests run their nodes (`engines.rs`, `node_args`).
            "--countdown-ms",
            "100",
            "--fair-play",
            "false",
            "--puzzle-stock",
            "2",
            "--rate-limit",
            "10000",
            "--rate-burst",
            "10000",
            "--lag-cap-ms",
            "0",
        ];
        let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
        Spawned::start(&self.bin, &args, Some(&self.log(i)))
            .await
            .with_context(|| format!("start node {id}"))
    }

    /// Node `i`'s log file.
    pub fn log(&self, i: usize) -> PathBuf {
        self.log_dir.join(format!("n{i}.log"))
    }

    /// Where node `i` listens.
    pub fn addr(&self, i: usize) -> SocketAddr {
        self.nodes[i].addr
    }

    /// `kill -9` of node `i` (reaped).
    pub fn kill(&mut self, i: usize) {
        self.nodes[i].kill_now();
    }

    /// Node `i` started again under its id, on a new port, and in the cluster.
    pub async fn restart(&mut self, i: usize) -> Result<()> {
        self.nodes[i].kill_now();
        self.nodes[i] = self.spawn(i).await?;
        self.wait_joined(i).await
    }

    /// Waits (up to 15 s) until node `i`'s key is in Redis: a node listens before it has
    /// joined the cluster.
    pub async fn wait_joined(&self, i: usize) -> Result<()> {
        let mut resp = Resp::connect(self.redis.addr).await?;
        let key = format!("sr:node:n{i}");
        let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
        while tokio::time::Instant::now() < deadline {
            if let Reply::Int(1) = resp.cmd(&["EXISTS", &key]).await? {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        bail!("node n{i} did not join the cluster within 15 s")
    }

    /// Redis commands per second per node, by command, over `window` with nothing happening
    /// but the nodes' own upkeep (the bench's `INFO` left out).
    pub async fn idle_traffic(&self, window: Duration) -> Result<BTreeMap<String, f64>> {
        let mut resp = Resp::connect(self.redis.addr).await?;
        let before = resp.command_calls().await?;
        tokio::time::sleep(window).await;
        let after = resp.command_calls().await?;
        let per = window.as_secs_f64() * self.nodes.len() as f64;
        Ok(after
            .iter()
            .filter(|(name, _)| *name != "info")
            .map(|(name, &n)| {
                let was = before.get(name).copied().unwrap_or(0);
                (name.clone(), n.saturating_sub(was) as f64 / per)
            })
            .filter(|(_, rate)| *rate > 0.0)
            .collect())
    }
}

impl Drop for Nodes {
    fn drop(&mut self) {
        // The nodes first (each stops gracefully), then Redis with the struct's fields.
        self.nodes.clear();
    }
}
