//! Servers that a load run starts itself: a binary beside the running one, on a free loopback
//! port, stopped (SIGTERM, then SIGKILL) when dropped; and a cluster of them on a
//! `redis-server` of its own.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{bail, Context, Result};

use super::launch::Procs;

/// A child server process listening on `addr`.
pub struct Spawned {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its working files (the race server's database), removed on drop.
    _dir: tempfile::TempDir,
    /// Already waited for ([`Spawned::stop`]): nothing to signal on drop.
    exited: bool,
}

/// The path of `name` in the directory of the running executable.
pub fn beside_me(name: &str) -> Result<PathBuf> {
    let me = std::env::current_exe().context("find the running executable")?;
    let dir = me.parent().context("the executable has a directory")?;
    Ok(dir.join(name))
}

/// A loopback port nobody listens on right now.
pub fn free_port() -> Result<u16> {
    let l = TcpListener::bind("127.0.0.1:0").context("bind a free port")?;
    Ok(l.local_addr().context("local address")?.port())
}

impl Spawned {
    /// Starts `bin` with `args`, in which `{addr}` becomes the chosen `127.0.0.1:PORT`, `{port}`
    /// its port and `{dir}` a fresh temporary directory, and waits (up to 15 s) until it accepts. Its
    /// standard error goes to `log` (appended), or nowhere.
    pub async fn start(bin: &PathBuf, args: &[String], log: Option<&Path>) -> Result<Spawned> {
        let addr: SocketAddr = ([127, 0, 0, 1], free_port()?).into();
        Spawned::start_at(bin, args, log, addr).await
    }

    /// As [`Spawned::start`], on `addr` (a restart on the port a node had).
    pub async fn start_at(
        bin: &PathBuf,
        args: &[String],
        log: Option<&Path>,
        addr: SocketAddr,
    ) -> Result<Spawned> {
        let dir = tempfile::tempdir().context("temporary directory")?;
        let args: Vec<String> = args
            .iter()
            .map(|a| {
                a.replace("{addr}", &addr.to_string())
                    .replace("{port}", &addr.port().to_string())
                    .replace("{dir}", &dir.path().display().to_string())
            })
            .collect();
        let stderr = match log {
            Some(path) => Stdio::from(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .with_context(|| format!("open {}", path.display()))?,
            ),
            None => Stdio::null(),
        };
        let mut child = Command::new(bin)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .with_context(|| format!("start {}", bin.display()))?;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
        loop {
            if tokio::net::TcpStream::connect(addr).await.is_ok() {
                break;
            }
            if let Some(status) = child.try_wait().context("wait for the server")? {
                bail!("{} exited at start: {status}", bin.display());
            }
            if tokio::time::Instant::now() >= deadline {
                let _ = child.kill();
                bail!("{} did not listen on {addr} within 15 s", bin.display());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(Spawned {
            child,
            addr,
            _dir: dir,
            exited: false,
        })
    }

    /// Sends SIGTERM and waits (polling, up to `limit`) for the child to exit, as a rolling
    /// deploy does; SIGKILL after `limit`. Answers whether it exited by itself.
    pub async fn stop(&mut self, limit: Duration) -> Result<bool> {
        self.terminate();
        let deadline = tokio::time::Instant::now() + limit;
        while tokio::time::Instant::now() < deadline {
            if self
                .child
                .try_wait()
                .context("wait for the server")?
                .is_some()
            {
                self.exited = true;
                return Ok(true);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.exited = true;
        Ok(false)
    }

    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the child at once (SIGKILL: no goodbye), and reaps it.
    pub fn kill_now(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Reaped: its pid may belong to another process now, which drop must not signal.
        self.exited = true;
    }

    /// Asks the child to stop (SIGTERM), without waiting.
    fn terminate(&self) {
        if self.exited {
            return;
        }
        // `kill` the command, because signalling from here would take unsafe code.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .stderr(Stdio::null())
            .status();
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        if self.exited {
            return;
        }
        // A graceful stop first (the race server finishes its result writes).
        self.terminate();
        for _ in 0..100 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `bin` (a `redis-server`) on a free loopback port, keeping nothing on disk.
pub async fn start_redis(bin: &PathBuf, log: Option<&Path>) -> Result<Spawned> {
    let args = ["--port", "{port}", "--bind", "127.0.0.1"]
        .into_iter()
        .chain(["--save", "", "--appendonly", "no", "--dir", "{dir}"]);
    let args: Vec<String> = args.map(String::from).collect();
    Spawned::start(bin, &args, log)
        .await
        .context("start redis-server (is it installed?)")
}

/// A cluster started here: `redis-server` on a free loopback port, keeping nothing on disk, and
/// nodes on it. Dropped: every node is asked to stop at once, then Redis.
pub struct Cluster {
    /// The nodes, in the order of their ids (`n0`, `n1`, ...).
    pub nodes: Vec<Spawned>,
    /// Their Redis.
    pub redis: Spawned,
}

impl Cluster {
    /// Starts `redis` (a `redis-server` binary) and `n` nodes of `bin`, each with `args` (see
    /// [`Spawned::start`]) and `--cluster URL --node-id nI`.
    pub async fn start(
        bin: &PathBuf,
        redis: &PathBuf,
        n: usize,
        args: &[String],
        log: Option<&Path>,
    ) -> Result<Cluster> {
        let redis = start_redis(redis, log).await?;
        let url = format!("redis://{}", redis.addr);
        let mut nodes = Vec::with_capacity(n);
        for i in 0..n {
            let mut node_args = args.to_vec();
            node_args.extend(["--cluster".to_owned(), url.clone()]);
            node_args.extend(["--node-id".to_owned(), format!("n{i}")]);
            nodes.push(Spawned::start(bin, &node_args, log).await?);
        }
        Ok(Cluster { nodes, redis })
    }

    /// Where the nodes listen.
    pub fn addrs(&self) -> Vec<SocketAddr> {
        self.nodes.iter().map(|s| s.addr).collect()
    }

    /// The nodes' and Redis's pids.
    pub fn procs(&self) -> Procs {
        Procs {
            servers: self.nodes.iter().map(Spawned::pid).collect(),
            redis: Some(self.redis.pid()),
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // All at once: each node's graceful stop takes a while.
        for node in &self.nodes {
            node.terminate();
        }
        // Then each is waited for (and killed if it hangs), before Redis goes.
        self.nodes.clear();
    }
}
