//! The server's HTTP JSON API (Amendment A6) from the terminal: one small HTTP/1.1 `GET` over
//! the same trust as the WebSocket (plain or TLS), and the tables `sudoku-race leaderboard`
//! and `sudoku-race history` (a player's best solves, then their races) print. Every string from the server passes
//! [`protocol::text::terminal_safe`] before it is printed.

use std::time::Duration;

use protocol::text::terminal_safe;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::net::Endpoint;

/// The most an answer may be: a leaderboard page is a few kilobytes.
const MAX_ANSWER: usize = 1 << 20;

/// The most a race's answer may be ([`get_up_to`]): its placements are a few kilobytes in a
/// fair race, but a full room sending wrong digits at the rate limit for the whole time limit
/// sends megabytes, and such a race is still one to replay.
pub const MAX_RACE_ANSWER: usize = 64 << 20;

/// How long a request may take, connect to last byte.
const TIMEOUT: Duration = Duration::from_secs(10);

/// A failed API call.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The socket or TLS failed.
    #[error("cannot reach {hostname}: {source}")]
    Io {
        /// Where: the server's hostname or IP address.
        hostname: String,
        /// Why.
        source: std::io::Error,
    },
    /// The TLS handshake failed; the advice ([`crate::net::tls::explain_tls`]).
    #[error("{0}")]
    Tls(String),
    /// No answer in time.
    #[error("no answer from {0} in 10 s")]
    Timeout(String),
    /// The server answered with an error status.
    #[error("{status}: {message}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// The API's `error` text.
        message: String,
    },
    /// The answer was longer than the caller allows.
    #[error("the server's answer is over {} MiB", .0 >> 20)]
    TooLarge(usize),
    /// The answer was not HTTP with a JSON body.
    #[error("the server's answer is not the API's: {0}")]
    Malformed(String),
}

/// `GET path` (with its query, starting `/api/`) on the server `to` names; the JSON body of a
/// `200`. The path goes under the WebSocket URL's prefix, so a server a proxy publishes at
/// `wss://hostname/sudoku/ws` is asked `/sudoku/api/…`, as the proxy publishes its API.
pub async fn get(to: &Endpoint, path: &str) -> Result<Value, ApiError> {
    get_up_to(to, path, MAX_ANSWER).await
}

/// [`get`] for an answer of up to `max` bytes.
pub async fn get_up_to(to: &Endpoint, path: &str, max: usize) -> Result<Value, ApiError> {
    let hostname = to.url.hostname().to_owned();
    let path = format!("{}{path}", prefix(to.url.path()));
    tokio::time::timeout(TIMEOUT, fetch(to, &path, max))
        .await
        .map_err(|_| ApiError::Timeout(hostname))?
}

/// The path a server's routes sit under, from its WebSocket URL's path: what comes before
/// `/ws` or before an invite's `/r/CODE` (empty at the server's root).
fn prefix(ws_path: &str) -> &str {
    let path = ws_path.trim_end_matches('/');
    if let Some(base) = path.strip_suffix("/ws") {
        return base;
    }
    match path.rfind("/r/") {
        Some(i) => &path[..i],
        None => path,
    }
}

async fn fetch(to: &Endpoint, path: &str, max: usize) -> Result<Value, ApiError> {
    let (hostname, port) = (to.url.hostname().to_owned(), to.url.port());
    let io = |source| ApiError::Io {
        hostname: hostname.clone(),
        source,
    };
    let tcp = TcpStream::connect((hostname.trim_matches(['[', ']']), port))
        .await
        .map_err(io)?;
    let authority = if (to.url.is_secure() && port == 443) || (!to.url.is_secure() && port == 80) {
        hostname.clone()
    } else {
        format!("{hostname}:{port}")
    };
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nAccept: application/json\r\nConnection: close\r\nUser-Agent: sudoku-race/{}\r\n\r\n",
        env!("CARGO_PKG_VERSION")
    );
    let raw = if to.url.is_secure() {
        let name =
            rustls_pki_types::ServerName::try_from(hostname.trim_matches(['[', ']']).to_owned())
                .map_err(|e| ApiError::Malformed(format!("server name: {e}")))?;
        let tls = tokio_rustls::TlsConnector::from(to.trust.client_config())
            .connect(name, tcp)
            .await
            .map_err(
                |e| match e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
                    Some(r) => {
                        ApiError::Tls(crate::net::tls::explain_tls(&hostname, port, &to.trust, r))
                    }
                    None => io(e),
                },
            )?;
        exchange(tls, &request, max).await.map_err(io)?
    } else {
        exchange(tcp, &request, max).await.map_err(io)?
    };
    // Cut off at `max + 1`: more than `max` is too long, not a body that ends early.
    if raw.len() > max {
        return Err(ApiError::TooLarge(max));
    }
    parse(&raw)
}

/// Send the request and read the whole answer (the server closes after it).
async fn exchange(
    mut s: impl AsyncRead + AsyncWrite + Unpin,
    request: &str,
    max: usize,
) -> std::io::Result<Vec<u8>> {
    s.write_all(request.as_bytes()).await?;
    let mut out = Vec::new();
    (&mut s).take(max as u64 + 1).read_to_end(&mut out).await?;
    Ok(out)
}

/// `s` as one path segment: every byte but letters, digits and `-._~` percent-encoded (a
/// player's name may hold spaces, slashes or any letter).
pub fn path_segment(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The status and JSON body of an HTTP/1.1 answer with a `Content-Length` body.
fn parse(raw: &[u8]) -> Result<Value, ApiError> {
    let text = std::str::from_utf8(raw).map_err(|_| ApiError::Malformed("not UTF-8".into()))?;
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| ApiError::Malformed("no end of headers".into()))?;
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| ApiError::Malformed("no status".into()))?;
    let json: Value =
        serde_json::from_str(body.trim()).map_err(|e| ApiError::Malformed(format!("body: {e}")))?;
    if status != 200 {
        let message = json["error"].as_str().unwrap_or("error");
        return Err(ApiError::Status {
            status,
            message: terminal_safe(message).into_owned(),
        });
    }
    Ok(json)
}

/// A server string, safe for the terminal.
fn text(v: &Value) -> String {
    terminal_safe(v.as_str().unwrap_or("-")).into_owned()
}

/// A rating, or `-`.
fn rating(v: &Value) -> String {
    v.as_f64()
        .map_or_else(|| "-".to_owned(), |r| format!("{r:.1}"))
}

/// A race time, or `-`.
fn time(v: &Value) -> String {
    v.as_u64().map_or_else(|| "-".to_owned(), crate::app::clock)
}

/// `/api/leaderboard`'s answer as a table.
pub fn leaderboard_table(v: &Value) -> String {
    let mut out = format!(
        "{} · {}\n{:>4}  {:<9} {:<24} {:>7} {:>6} {:>5} {:>7}\n",
        text(&v["difficulty"]),
        text(&v["period"]),
        "#",
        "handle",
        "name",
        "rating",
        "races",
        "wins",
        "best"
    );
    let rows = v["rows"].as_array().map(Vec::as_slice).unwrap_or_default();
    if rows.is_empty() {
        out.push_str("(nobody rated yet)\n");
    }
    for r in rows {
        out.push_str(&format!(
            "{:>4}  {:<9} {:<24} {:>7} {:>6} {:>5} {:>7}\n",
            r["rank"].as_u64().unwrap_or(0),
            text(&r["handle"]),
            text(&r["name"]),
            rating(&r["rating"]),
            r["races"].as_u64().unwrap_or(0),
            r["wins"].as_u64().unwrap_or(0),
            time(&r["best_time_ms"]),
        ));
    }
    out
}

/// The difficulties `best` may name, in the order shown.
const DIFFICULTIES: [&str; 4] = ["easy", "medium", "hard", "expert"];

/// `/api/players/HANDLE`'s `best` (A7) as a table: the fastest solve per difficulty solved,
/// easiest first.
pub fn best_table(v: &Value) -> String {
    let mut out = format!(
        "best of {}\n{:<7} {:>7}  race\n",
        text(&v["handle"]),
        "level",
        "time"
    );
    let solved: Vec<(&str, &Value)> = DIFFICULTIES
        .iter()
        .filter_map(|&d| v["best"].get(d).map(|b| (d, b)))
        .collect();
    if solved.is_empty() {
        out.push_str("(no solves yet)\n");
    }
    for (difficulty, b) in solved {
        out.push_str(&format!(
            "{:<7} {:>7}  {}\n",
            difficulty,
            time(&b["time_ms"]),
            text(&b["race_id"]),
        ));
    }
    out
}

/// `/api/players/HANDLE/races`'s answer as a table, newest first.
pub fn history_table(v: &Value) -> String {
    let mut out = format!(
        "{}\n{:<28} {:<7} {:>5} {:<10} {:>7} {:>15}  flags\n",
        text(&v["handle"]),
        "race",
        "level",
        "rank",
        "result",
        "time",
        "rating"
    );
    let races = v["races"].as_array().map(Vec::as_slice).unwrap_or_default();
    if races.is_empty() {
        out.push_str("(no races yet)\n");
    }
    for r in races {
        let change = match (r["rating_before"].as_f64(), r["rating_after"].as_f64()) {
            (Some(b), Some(a)) => format!("{a:.1} ({:+.1})", a - b),
            _ => "unrated".to_owned(),
        };
        let flags: Vec<String> = r["flags"]
            .as_array()
            .map(|f| f.iter().map(text).collect())
            .unwrap_or_default();
        out.push_str(&format!(
            "{:<28} {:<7} {:>5} {:<10} {:>7} {:>15}  {}\n",
            text(&r["race_id"]),
            text(&r["difficulty"]),
            format!(
                "{}/{}",
                r["rank"].as_u64().unwrap_or(0),
                r["players"].as_u64().unwrap_or(0)
            ),
            text(&r["status"]),
            time(&r["time_ms"]),
            change,
            flags.join(","),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_go_into_paths_encoded() {
        assert_eq!(path_segment("hK7QM2XP"), "hK7QM2XP");
        assert_eq!(path_segment("Ann Lee/x"), "Ann%20Lee%2Fx");
        assert_eq!(path_segment("Zé"), "Z%C3%A9");
    }

    #[test]
    fn the_api_sits_under_the_websockets_prefix() {
        assert_eq!(prefix("/ws"), "");
        assert_eq!(prefix("/"), "");
        assert_eq!(prefix(""), "");
        assert_eq!(prefix("/sudoku/ws"), "/sudoku");
        assert_eq!(prefix("/sudoku/ws/"), "/sudoku");
        assert_eq!(prefix("/r/ABCD"), "");
        assert_eq!(prefix("/games/r/ABCD"), "/games");
        assert_eq!(prefix("/games"), "/games");
    }

    #[test]
    fn answers_parse_and_refusals_carry_the_apis_words() {
        let ok = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{\"rows\":[]}";
        assert_eq!(parse(ok).expect("json")["rows"], serde_json::json!([]));
        let bad =
            b"HTTP/1.1 400 Bad Request\r\n\r\n{\"error\":\"limit: 101 \\u001b[2J is over 100\"}";
        match parse(bad) {
            Err(ApiError::Status { status, message }) => {
                assert_eq!(status, 400);
                assert!(!message.contains('\u{1b}'), "{message:?}");
            }
            other => panic!("{other:?}"),
        }
        assert!(parse(b"HTTP/1.1 200 OK\r\n\r\nnot json").is_err());
    }

    #[tokio::test]
    async fn an_answer_over_the_limit_is_too_large_not_malformed() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            for _ in 0..2 {
                let (mut s, _) = listener.accept().await.expect("accept");
                let mut head = [0u8; 1024];
                let _ = s.read(&mut head).await;
                let body = format!("[{}0]", "0,".repeat(1000));
                let answer = format!("HTTP/1.1 200 OK\r\n\r\n{body}");
                s.write_all(answer.as_bytes()).await.expect("write");
            }
        });
        let url: crate::net::ServerUrl = format!("ws://{addr}/ws").parse().expect("url");
        let to = Endpoint::from(&url);
        let small = get_up_to(&to, "/api/races/A-1", 1000).await;
        assert!(matches!(small, Err(ApiError::TooLarge(1000))), "{small:?}");
        let big = get_up_to(&to, "/api/races/A-1", 1 << 20).await;
        assert_eq!(big.expect("fits").as_array().map(Vec::len), Some(1001));
    }

    #[test]
    fn tables_show_rows_and_strip_control_characters() {
        let v = serde_json::json!({"difficulty": "easy", "period": "all", "rows": [
            {"rank": 1, "handle": "hABCDEFG", "name": "ann\u{1b}[31m", "rating": 2.4567,
             "races": 3, "wins": 2, "best_time_ms": 125000}]});
        let t = leaderboard_table(&v);
        assert!(
            t.contains("hABCDEFG") && t.contains("2.5") && t.contains("2:05"),
            "{t}"
        );
        assert!(!t.contains('\u{1b}'));
        let h = serde_json::json!({"handle": "hABCDEFG", "races": [
            {"race_id": "K7QRM-1", "difficulty": "easy", "rank": 1, "players": 2, "status": "solved",
             "time_ms": 65000, "rating_before": 0.0, "rating_after": 2.4, "flags": ["too_fast"]}]});
        let t = history_table(&h);
        assert!(
            t.contains("2.4 (+2.4)") && t.contains("too_fast") && t.contains("1/2"),
            "{t}"
        );
    }

    #[test]
    fn best_solves_show_easiest_first_and_only_those_solved() {
        let page = serde_json::json!({"handle": "hABCDEFG", "best": {
            "hard": {"time_ms": 200000, "race_id": "H-1\u{1b}[2J"},
            "easy": {"time_ms": 65000, "race_id": "E-1"}}});
        let t = best_table(&page);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4, "{t}");
        assert!(lines[0].contains("hABCDEFG"), "{t}");
        assert!(
            lines[2].starts_with("easy") && lines[2].contains("1:05"),
            "{t}"
        );
        assert!(
            lines[3].starts_with("hard") && lines[3].contains("3:20"),
            "{t}"
        );
        assert!(!t.contains('\u{1b}') && !t.contains("medium"), "{t}");
        let none = best_table(&serde_json::json!({"handle": "hABCDEFG", "best": {}}));
        assert!(none.contains("(no solves yet)"), "{none}");
    }
}
