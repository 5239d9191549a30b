//! The server's address: one [`ServerUrl`] type for every place that takes one (the `--server`
//! flags, the in-process host's own and advertised addresses, [`DEFAULT_SERVER`]).
//!
//! It parses `ws://` and `wss://` URLs into host, port and path, and keeps the text as given,
//! which is what the connection dials and what messages show. A `wss` URL parses; the socket
//! is opened exactly as for `ws` (TLS is not built in yet, so connecting to one fails the way
//! it always has). A bad URL is refused with the message the connection used to give when it
//! dialled it.

use std::fmt;
use std::net::SocketAddr;
use std::str::FromStr;

/// The server URL used when `--server` is not given.
pub const DEFAULT_SERVER: &str = "ws://127.0.0.1:7878/ws";

/// Why a server URL is refused (the wording of the WebSocket library that dialled it before).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UrlProblem {
    /// Neither `ws://` nor `wss://`.
    #[error("URL error: URL scheme not supported")]
    Scheme,
    /// Nothing after the scheme.
    #[error("HTTP format error: empty string")]
    Empty,
    /// No host before the port or path.
    #[error("URL error: URL contains empty host name")]
    NoHost,
    /// A malformed host (an unclosed `[`, a space).
    #[error("HTTP format error: invalid authority")]
    Authority,
    /// A port that is not a number from 0 to 65535.
    #[error("HTTP format error: invalid port")]
    Port,
}

/// A refused server URL.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot connect to {url}: {problem}")]
pub struct UrlError {
    /// The text given.
    pub url: String,
    /// What is wrong with it.
    pub problem: UrlProblem,
}

/// A parsed `ws://` or `wss://` URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerUrl {
    text: String,
    secure: bool,
    host: String,
    port: Option<u16>,
    path: String,
}

impl ServerUrl {
    /// The URL of the race server listening on `addr` (`ws://ADDR/ws`).
    pub fn local(addr: SocketAddr) -> ServerUrl {
        format!("ws://{addr}/ws")
            .parse()
            .expect("a socket address makes a host and port")
    }

    /// The URL as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the scheme is `wss`.
    pub fn is_secure(&self) -> bool {
        self.secure
    }

    /// The host (an IPv6 address without its brackets).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The port: the one given, else 80 for `ws` and 443 for `wss`.
    pub fn port(&self) -> u16 {
        self.port.unwrap_or(if self.secure { 443 } else { 80 })
    }

    /// The path and query (`/` when none is given).
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl Default for ServerUrl {
    fn default() -> ServerUrl {
        DEFAULT_SERVER
            .parse()
            .expect("the default server URL parses")
    }
}

impl fmt::Display for ServerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for ServerUrl {
    type Err = UrlError;

    fn from_str(text: &str) -> Result<ServerUrl, UrlError> {
        let refuse = |problem| UrlError {
            url: text.to_owned(),
            problem,
        };
        let (secure, rest) = match text.split_once("://") {
            Some((s, rest)) if s.eq_ignore_ascii_case("ws") => (false, rest),
            Some((s, rest)) if s.eq_ignore_ascii_case("wss") => (true, rest),
            _ => return Err(refuse(UrlProblem::Scheme)),
        };
        if rest.is_empty() {
            return Err(refuse(UrlProblem::Empty));
        }
        let split = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(split);
        let (host, port) = split_authority(authority).map_err(refuse)?;
        let path = match path {
            "" => "/".to_owned(),
            p if p.starts_with('?') => format!("/{p}"),
            p => p.to_owned(),
        };
        Ok(ServerUrl {
            text: text.to_owned(),
            secure,
            host: host.to_owned(),
            port,
            path,
        })
    }
}

/// `host[:port]` or `[v6][:port]`.
fn split_authority(authority: &str) -> Result<(&str, Option<u16>), UrlProblem> {
    if authority.contains(|c: char| c.is_whitespace() || c == '@') {
        return Err(UrlProblem::Authority);
    }
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6.split_once(']').ok_or(UrlProblem::Authority)?;
        match after {
            "" => (host, None),
            p => (
                host,
                Some(p.strip_prefix(':').ok_or(UrlProblem::Authority)?),
            ),
        }
    } else if authority.contains(['[', ']']) {
        return Err(UrlProblem::Authority);
    } else {
        match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return Err(UrlProblem::NoHost);
    }
    let port = port
        .map(|p| p.parse::<u16>().map_err(|_| UrlProblem::Port))
        .transpose()?;
    Ok((host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(text: &str, expected: (bool, &str, u16, &str)) {
        let url: ServerUrl = text.parse().expect("a good URL");
        assert_eq!(
            (url.is_secure(), url.host(), url.port(), url.path()),
            expected
        );
        assert_eq!(url.to_string(), text, "shown as given");
    }

    #[track_caller]
    fn check_bad(text: &str, problem: UrlProblem) {
        assert_eq!(
            text.parse::<ServerUrl>(),
            Err(UrlError {
                url: text.to_owned(),
                problem
            })
        );
    }

    #[test]
    fn good_urls_parse_into_host_port_and_path() {
        check(DEFAULT_SERVER, (false, "127.0.0.1", 7878, "/ws"));
        check(
            "ws://race.example.org/ws",
            (false, "race.example.org", 80, "/ws"),
        );
        check(
            "wss://race.example.org/ws",
            (true, "race.example.org", 443, "/ws"),
        );
        check("WS://h:1", (false, "h", 1, "/"));
        check("ws://[::1]:9000/ws?x=1", (false, "::1", 9000, "/ws?x=1"));
        check("ws://h?x", (false, "h", 80, "/?x"));
        assert_eq!(ServerUrl::default().as_str(), DEFAULT_SERVER);
        assert_eq!(
            ServerUrl::local("[::1]:7878".parse().expect("addr")).as_str(),
            "ws://[::1]:7878/ws"
        );
    }

    #[test]
    fn bad_urls_are_refused_with_the_old_connection_messages() {
        check_bad("foo", UrlProblem::Scheme);
        check_bad("http://h:1/ws", UrlProblem::Scheme);
        check_bad("ws://", UrlProblem::Empty);
        check_bad("ws:///ws", UrlProblem::NoHost);
        check_bad("ws://:7878/ws", UrlProblem::NoHost);
        check_bad("ws://[::1/ws", UrlProblem::Authority);
        check_bad("ws://a b/ws", UrlProblem::Authority);
        check_bad("ws://h:notaport/ws", UrlProblem::Port);
        check_bad("ws://h:70000/ws", UrlProblem::Port);
        assert_eq!(
            "foo".parse::<ServerUrl>().map_err(|e| e.to_string()),
            Err("cannot connect to foo: URL error: URL scheme not supported".to_owned())
        );
    }
}
