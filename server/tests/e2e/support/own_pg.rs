//! A PostgreSQL of the test's own (`initdb` into a temp dir, on a free port), so a test can
//! stop and start it: the cluster suite and the real-binary suite share it.

use std::net::TcpListener;
use std::process::{Command, Stdio};

/// A port nothing listens on right now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A PostgreSQL cluster of the test's own (`initdb` into a temp dir, on a free port), so the
/// test can stop and start it; stopped when dropped.
pub struct Postgres {
    dir: tempfile::TempDir,
    /// Its port.
    pub port: u16,
}

/// The PostgreSQL programs (Debian keeps them out of PATH, under one directory per version).
fn pg_bin(name: &str) -> std::path::PathBuf {
    let versions = std::fs::read_dir("/usr/lib/postgresql").expect("PostgreSQL is installed");
    let mut dirs: Vec<_> = versions.filter_map(|d| Some(d.ok()?.path())).collect();
    dirs.sort();
    dirs.last()
        .expect("a PostgreSQL version")
        .join("bin")
        .join(name)
}

/// Run a PostgreSQL program as the `postgres` user (it refuses to run as root).
fn as_postgres(prog: &str, args: &[&str]) {
    let mut cmd = if nix_is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(pg_bin(prog));
        c
    } else {
        Command::new(pg_bin(prog))
    };
    let out = cmd
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run a PostgreSQL program");
    assert!(
        out.status.success(),
        "{prog} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn nix_is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

impl Postgres {
    /// A fresh cluster, started.
    pub fn start() -> Postgres {
        let dir = tempfile::tempdir().expect("temp dir");
        if nix_is_root() {
            let ok = Command::new("chown")
                .args(["postgres"])
                .arg(dir.path())
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "chown the temp dir to postgres");
        }
        let data = dir.path().join("data");
        let data = data.to_str().expect("a UTF-8 path");
        as_postgres("initdb", &["-D", data, "-A", "trust", "-U", "postgres"]);
        let pg = Postgres {
            dir,
            port: free_port(),
        };
        pg.up();
        pg
    }

    fn data(&self) -> String {
        self.dir.path().join("data").to_string_lossy().into_owned()
    }

    /// Start it (again).
    pub fn up(&self) {
        let opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("log").to_string_lossy().into_owned();
        as_postgres(
            "pg_ctl",
            &["-D", &self.data(), "-o", &opts, "-l", &log, "-w", "start"],
        );
    }

    /// Stop it at once, as a crash would (`-m immediate`).
    pub fn down(&self) {
        as_postgres(
            "pg_ctl",
            &["-D", &self.data(), "-m", "immediate", "-w", "stop"],
        );
    }

    /// Its URL, on the `postgres` database.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(pg_bin("pg_ctl"))
            .args(["-D", &self.data(), "-m", "immediate", "stop"])
            .output();
    }
}
