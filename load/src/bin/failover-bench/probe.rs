//! What the bench reads besides the game: Redis over a bare RESP connection (a node key's time
//! to live, `INFO commandstats`), a finished race over HTTP, and the nodes' JSON logs.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// A bare Redis connection: commands as RESP arrays, replies read as far as these need.
pub struct Resp {
    conn: BufReader<TcpStream>,
}

/// A reply: an integer, a string (simple or bulk), or nil.
#[derive(Debug)]
pub enum Reply {
    Int(i64),
    Text(String),
    Nil,
}

impl Resp {
    /// Connects to the Redis at `addr`.
    pub async fn connect(addr: SocketAddr) -> Result<Resp> {
        let tcp = TcpStream::connect(addr)
            .await
            .with_context(|| format!("connect to redis at {addr}"))?;
        tcp.set_nodelay(true).context("set TCP_NODELAY")?;
        Ok(Resp {
            conn: BufReader::new(tcp),
        })
    }

    /// Sends one command and reads its reply.
    pub async fn cmd(&mut self, args: &[&str]) -> Result<Reply> {
        let mut out = format!("*{}\r\n", args.len());
        for a in args {
            out.push_str(&format!("${}\r\n{a}\r\n", a.len()));
        }
        self.conn.get_mut().write_all(out.as_bytes()).await?;
        let mut line = String::new();
        self.conn.read_line(&mut line).await?;
        let (kind, rest) = line.trim_end().split_at(1.min(line.len()));
        match kind {
            "+" => Ok(Reply::Text(rest.to_owned())),
            ":" => Ok(Reply::Int(rest.parse().context("an integer reply")?)),
            "-" => bail!("redis: {rest}"),
            "$" if rest == "-1" => Ok(Reply::Nil),
            "$" => {
                let n: usize = rest.parse().context("a bulk length")?;
                let mut buf = vec![0; n + 2];
                self.conn.read_exact(&mut buf).await?;
                buf.truncate(n);
                Ok(Reply::Text(String::from_utf8_lossy(&buf).into_owned()))
            }
            _ => bail!("an unexpected redis reply: {line:?}"),
        }
    }

    /// How long `key` lives yet (`PTTL`); `None` when it has no expiry or is gone.
    pub async fn pttl(&mut self, key: &str) -> Result<Option<Duration>> {
        match self.cmd(&["PTTL", key]).await? {
            Reply::Int(ms) if ms >= 0 => Ok(Some(Duration::from_millis(ms.unsigned_abs()))),
            _ => Ok(None),
        }
    }

    /// Calls so far per command (`INFO commandstats`).
    pub async fn command_calls(&mut self) -> Result<BTreeMap<String, u64>> {
        let Reply::Text(info) = self.cmd(&["INFO", "commandstats"]).await? else {
            bail!("INFO answered no text");
        };
        Ok(parse_commandstats(&info))
    }
}

/// `cmdstat_NAME:calls=N,...` lines as NAME → N.
fn parse_commandstats(info: &str) -> BTreeMap<String, u64> {
    info.lines()
        .filter_map(|l| {
            let (name, rest) = l.strip_prefix("cmdstat_")?.split_once(':')?;
            let calls = rest.split(',').find_map(|kv| kv.strip_prefix("calls="))?;
            Some((name.to_owned(), calls.parse().ok()?))
        })
        .collect()
}

/// `GET path` on `addr` over HTTP/1.0: the status and the body.
pub async fn http_get(addr: SocketAddr, path: &str) -> Result<(u16, String)> {
    let mut tcp = TcpStream::connect(addr)
        .await
        .with_context(|| format!("connect to {addr}"))?;
    let req = format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n");
    tcp.write_all(req.as_bytes()).await?;
    let mut raw = Vec::new();
    tcp.read_to_end(&mut raw).await?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").context("an HTTP response")?;
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .context("an HTTP status")?;
    Ok((status, body.to_owned()))
}

/// Seconds since the Unix epoch of `t`.
pub fn unix_s(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// A node's "room taken over" line for one room: when it was logged (Unix seconds) and the
/// gap the node logged with it.
#[derive(Clone, Copy, Debug)]
pub struct TakenOver {
    /// When it was logged.
    pub at_unix_s: f64,
    /// Its `gap_ms`: from the room's last log entry to the rebuild.
    pub gap_ms: u64,
}

/// The "room taken over" line of `room` in the JSON log at `path`, if there is one.
pub fn taken_over(path: &Path, room: &str) -> Option<TakenOver> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines().find_map(|l| {
        if !l.contains("room taken over") || !l.contains(room) {
            return None;
        }
        let v: Value = serde_json::from_str(l).ok()?;
        let f = &v["fields"];
        if f["message"] != "room taken over" || f["room"] != room {
            return None;
        }
        let gap_ms = match &f["gap_ms"] {
            Value::Number(n) => n.as_u64()?,
            Value::String(s) => s.parse().ok()?,
            _ => return None,
        };
        let at_unix_s = rfc3339_unix_s(v["timestamp"].as_str()?)?;
        Some(TakenOver { at_unix_s, gap_ms })
    })
}

/// `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, as the server's JSON log writes it) in Unix seconds.
fn rfc3339_unix_s(ts: &str) -> Option<f64> {
    let (date, time) = ts.strip_suffix('Z')?.split_once('T')?;
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let mut t = time.split(':');
    let (h, min) = (
        t.next()?.parse::<f64>().ok()?,
        t.next()?.parse::<f64>().ok()?,
    );
    let s: f64 = t.next()?.parse().ok()?;
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days as f64 * 86_400.0 + h * 3600.0 + min * 60.0 + s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_logs_timestamps_and_redis_commandstats() {
        assert_eq!(rfc3339_unix_s("1970-01-02T00:00:01.5Z"), Some(86_401.5));
        assert_eq!(
            rfc3339_unix_s("2026-12-05T16:49:33.250000Z"),
            Some(1_796_489_373.25)
        );
        let info =
            "# Commandstats\r\ncmdstat_set:calls=12,usec=3\r\ncmdstat_exists:calls=4,usec=1\r\n";
        let calls = parse_commandstats(info);
        assert_eq!(calls.get("set"), Some(&12));
        assert_eq!(calls.get("exists"), Some(&4));
    }
}
