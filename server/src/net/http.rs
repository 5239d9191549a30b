//! Plain HTTP on the WebSocket port: the request line is peeked (not consumed) to route `/ws`
//! to the WebSocket handshake; `/healthz` and `/metrics` get a tiny HTTP/1.1 answer here, so
//! no web framework sits between the socket and the game.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Where a request goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// The WebSocket upgrade.
    Ws,
    /// `GET /healthz`.
    Healthz,
    /// `GET /metrics`.
    Metrics,
    /// Any other path: 404.
    NotFound,
    /// Not HTTP, or not GET: 400.
    Bad,
}

/// Longest request head read.
const MAX_HEAD: usize = 8192;

/// Route by the request line, e.g. `GET /ws?x=1 HTTP/1.1`.
pub fn route(line: &str) -> Route {
    let mut parts = line.split(' ');
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Route::Bad;
    };
    if method != "GET" {
        return Route::Bad;
    }
    let path = target.split('?').next().unwrap_or("");
    match path {
        "/ws" => Route::Ws,
        "/healthz" => Route::Healthz,
        "/metrics" => Route::Metrics,
        _ => Route::NotFound,
    }
}

/// Peek until the request line is complete and route it. `None`: the peer went away or sent
/// no line within its head limit.
pub async fn peek_route(stream: &TcpStream) -> Option<Route> {
    let mut buf = vec![0u8; 1024];
    loop {
        let n = stream.peek(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        if let Some(end) = buf[..n].windows(2).position(|w| w == b"\r\n") {
            let line = std::str::from_utf8(&buf[..end]).ok()?;
            return Some(route(line));
        }
        if n == buf.len() {
            return Some(Route::Bad);
        }
        // Only part of the line has arrived; peek does not wait for more.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Read and discard the request head, then answer with `status` and `body` and close.
pub async fn respond(mut stream: TcpStream, status: &str, content_type: &str, body: &str) {
    let mut head = Vec::with_capacity(512);
    let mut chunk = [0u8; 512];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_HEAD {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&chunk[..n]),
        }
    }
    let resp = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(resp.as_bytes()).await;
    let _ = stream.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(line: &str, expected: Route) {
        assert_eq!(route(line), expected, "{line}");
    }

    #[test]
    fn routes_by_request_line() {
        check("GET /ws HTTP/1.1", Route::Ws);
        check("GET /ws?token=1 HTTP/1.1", Route::Ws);
        check("GET /healthz HTTP/1.1", Route::Healthz);
        check("GET /metrics HTTP/1.0", Route::Metrics);
        check("GET / HTTP/1.1", Route::NotFound);
        check("POST /ws HTTP/1.1", Route::Bad);
        check("garbage", Route::Bad);
    }
}
