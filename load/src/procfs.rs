//! Readings of a live process from `/proc`: CPU time (user + system), resident memory and
//! open file descriptors. Linux only; every reading is a fresh read of the proc files.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use anyhow::{bail, Context, Result};

/// One reading of a process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcSample {
    /// User plus system CPU time of every thread, since the process started.
    pub cpu: Duration,
    /// Resident set size (`VmRSS`), in KiB.
    pub rss_kib: u64,
    /// Open file descriptors.
    pub fds: usize,
}

/// Reads a process's CPU time, resident memory and descriptor count.
pub fn sample(pid: u32) -> Result<ProcSample> {
    Ok(ProcSample {
        cpu: cpu_time(pid)?,
        rss_kib: rss_kib(pid)?,
        fds: fd_count(pid)?,
    })
}

/// Clock ticks per second of the `stat` times (`getconf CLK_TCK`; 100 on every Linux we know).
fn clock_ticks() -> u64 {
    static TICKS: OnceLock<u64> = OnceLock::new();
    *TICKS.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse().ok())
            .filter(|&t| t > 0)
            .unwrap_or(100)
    })
}

fn proc_path(pid: u32, file: &str) -> PathBuf {
    PathBuf::from(format!("/proc/{pid}/{file}"))
}

/// `utime + stime` of a process (all its threads), from `/proc/<pid>/stat`.
pub fn cpu_time(pid: u32) -> Result<Duration> {
    let path = proc_path(pid, "stat");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("read {}", path.display()))?;
    let ticks = parse_stat_ticks(&text).with_context(|| format!("parse {}", path.display()))?;
    Ok(Duration::from_micros(ticks * 1_000_000 / clock_ticks()))
}

/// `utime + stime` in clock ticks from the text of a `stat` file. The command name (field 2)
/// may hold spaces and parentheses, so fields are counted after its last `)`.
fn parse_stat_ticks(text: &str) -> Result<u64> {
    let Some(close) = text.rfind(')') else {
        bail!("no command name");
    };
    // After the name: field 3 (state) is index 0, so utime (field 14) is 11 and stime 12.
    let fields: Vec<&str> = text[close + 1..].split_whitespace().collect();
    let field = |i: usize| -> Result<u64> {
        fields
            .get(i)
            .context("stat too short")?
            .parse::<u64>()
            .context("stat field not a number")
    };
    Ok(field(11)? + field(12)?)
}

/// Resident set size in KiB, from `VmRSS` in `/proc/<pid>/status`.
pub fn rss_kib(pid: u32) -> Result<u64> {
    let path = proc_path(pid, "status");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("read {}", path.display()))?;
    parse_status_kib(&text, "VmRSS:").with_context(|| format!("parse {}", path.display()))
}

fn parse_status_kib(text: &str, key: &str) -> Result<u64> {
    let line = text
        .lines()
        .find(|l| l.starts_with(key))
        .with_context(|| format!("no {key} line"))?;
    line[key.len()..]
        .split_whitespace()
        .next()
        .context("empty line")?
        .parse()
        .context("not a number")
}

/// Open file descriptors: the entries of `/proc/<pid>/fd`.
pub fn fd_count(pid: u32) -> Result<usize> {
    let path = proc_path(pid, "fd");
    Ok(std::fs::read_dir(&path)
        .with_context(|| format!("read {}", path.display()))?
        .count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_stat(text: &str, ticks: u64) {
        assert_eq!(parse_stat_ticks(text).unwrap(), ticks);
    }

    #[test]
    fn stat_times_are_fields_14_and_15() {
        check_stat(
            "1234 (sudoku-race) S 1 1234 1234 0 -1 4194304 100 0 0 0 250 31 0 0 20 0 3 0",
            281,
        );
        // A command name with spaces and a parenthesis does not shift the fields.
        check_stat("77 (a) b (c) R 1 77 77 0 -1 0 0 0 0 0 7 5 0 0 20 0 1 0", 12);
        assert!(parse_stat_ticks("77 (x) R 1").is_err());
    }

    #[test]
    fn status_rss_is_read_in_kib() {
        let text = "Name:\tx\nVmPeak:\t  9000 kB\nVmRSS:\t    4321 kB\nThreads:\t2\n";
        assert_eq!(parse_status_kib(text, "VmRSS:").unwrap(), 4321);
        assert!(parse_status_kib("Name:\tx\n", "VmRSS:").is_err());
    }

    #[test]
    fn this_process_can_be_read() {
        let s = sample(std::process::id()).unwrap();
        assert!(s.rss_kib > 0);
        assert!(s.fds >= 3);
    }
}
