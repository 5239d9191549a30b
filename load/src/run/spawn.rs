//! Servers that a load run starts itself: a binary beside the running one, on a free loopback
//! port, stopped (SIGTERM, then SIGKILL) when dropped.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{bail, Context, Result};

/// A child server process listening on `addr`.
pub struct Spawned {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its working files (the race server's database), removed on drop.
    _dir: tempfile::TempDir,
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
    /// Starts `bin` with `args`, in which `{addr}` becomes the chosen `127.0.0.1:PORT` and
    /// `{dir}` a fresh temporary directory, and waits (up to 15 s) until it accepts. Its
    /// standard error goes to `log` (appended), or nowhere.
    pub async fn start(bin: &PathBuf, args: &[String], log: Option<&Path>) -> Result<Spawned> {
        let dir = tempfile::tempdir().context("temporary directory")?;
        let addr: SocketAddr = ([127, 0, 0, 1], free_port()?).into();
        let args: Vec<String> = args
            .iter()
            .map(|a| {
                a.replace("{addr}", &addr.to_string())
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
        })
    }

    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        // A graceful stop first (the race server finishes its result writes); `kill` the
        // command, because signalling from here would take unsafe code.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
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
