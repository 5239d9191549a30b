//! The server's address: one [`ServerUrl`] type for every place that takes one (the `--server`
//! flags, the in-process server's own and advertised addresses, [`DEFAULT_SERVER`]).
//!
//! It parses `ws://` and `wss://` URLs into hostname, port and path, and keeps the text, which is
//! what the connection dials and what messages show. A URL with no path (`ws://HOST:7878`)
//! means the server's `/ws`: the text becomes `ws://HOST:7878/ws`, since that is the only
//! WebSocket path a server has (other paths, such as the invite links' `/r/CODE`, are kept as
//! given). A bad URL is refused with what is wrong and, where it can be guessed, what to type
//! instead (`localhost:7878` and `http://…` are the usual mistakes).
//!
//! It also makes and reads invite links (Amendment A5): [`ServerUrl::invite`] turns a server and
//! a room code into `ws[s]://HOST[:PORT]/r/CODE`, and [`RoomTarget`] is what `join`, `spectate`
//! and `bot` take: a bare room code, or such a link (which names the server too).

use std::fmt;
use std::net::SocketAddr;
use std::str::FromStr;

use protocol::RoomCode;

/// The server URL used when `--server` is not given.
pub const DEFAULT_SERVER: &str = "ws://127.0.0.1:7878/ws";

/// What a server URL looks like, said after every refusal.
pub const SHAPE: &str = "a server URL looks like ws://HOST:7878/ws or wss://HOST/ws";

/// The path a URL without one gets.
const WS_PATH: &str = "/ws";

/// Why a server URL is refused (each reads after the URL: "`x` has no host").
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UrlProblem {
    /// No `scheme://` at all (`localhost:7878/ws`).
    #[error("has no ws:// or wss://")]
    NoScheme,
    /// `http://` or `https://`: a browser's address.
    #[error("is a web address (http:// or https://), not a WebSocket one")]
    Http,
    /// Another scheme.
    #[error("has a scheme other than ws:// or wss://")]
    Scheme,
    /// Nothing after the scheme.
    #[error("has nothing after the scheme")]
    Empty,
    /// No hostname before the port or path.
    #[error("has no host")]
    NoHostname,
    /// A malformed hostname (an unclosed `[`, a space).
    #[error("has a malformed host")]
    Authority,
    /// A port that is not a number from 0 to 65535.
    #[error("has a port that is not a number from 0 to 65535")]
    Port,
}

/// A refused server URL.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a server URL: `{url}` {problem}{} ({SHAPE})", try_this(.suggestion))]
pub struct UrlError {
    /// The text given.
    pub url: String,
    /// What is wrong with it.
    pub problem: UrlProblem,
    /// What to type instead, when it can be guessed.
    pub suggestion: Option<String>,
}

fn try_this(suggestion: &Option<String>) -> String {
    suggestion
        .as_ref()
        .map_or_else(String::new, |s| format!("; try {s}"))
}

/// A parsed `ws://` or `wss://` URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerUrl {
    text: String,
    secure: bool,
    hostname: String,
    port: Option<u16>,
    path: String,
}

impl ServerUrl {
    /// The URL of the race server listening on `addr` (`ws://ADDR/ws`).
    pub fn local(addr: SocketAddr) -> ServerUrl {
        format!("ws://{addr}/ws")
            .parse()
            .expect("a socket address makes a hostname and port")
    }

    /// The URL as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the scheme is `wss`.
    pub fn is_secure(&self) -> bool {
        self.secure
    }

    /// The hostname or IP address (an IPv6 address without its brackets).
    pub fn hostname(&self) -> &str {
        &self.hostname
    }

    /// The port: the one given, else 80 for `ws` and 443 for `wss`.
    pub fn port(&self) -> u16 {
        self.port.unwrap_or(if self.secure { 443 } else { 80 })
    }

    /// The path and query (`/` when none is given).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The invite link to room `code` on this server: `ws[s]://HOST[:PORT]/r/CODE` (a server
    /// whose WebSocket path sits under a prefix, `…/game/ws`, gets `…/game/r/CODE`). The code is
    /// any text, so a lobby line can be made before the room exists (`{code}`).
    pub fn invite(&self, code: impl fmt::Display) -> String {
        self.with_path(&format!("r/{code}")).text
    }

    /// The server and room an invite link names, when this URL is one (`…/r/CODE`).
    pub fn room_link(&self) -> Option<Result<(ServerUrl, RoomCode), protocol::InvalidRoomCode>> {
        let path = self.path.split('?').next().unwrap_or_default();
        let (_, code) = path.rsplit_once("/r/")?;
        if code.contains('/') {
            return None;
        }
        Some(RoomCode::try_from(code).map(|code| (self.with_path("ws"), code)))
    }

    /// The same scheme and authority, with `tail` after this URL's path prefix (the path up to
    /// its last `/ws` or `/r/…`).
    fn with_path(&self, tail: &str) -> ServerUrl {
        let path = self.path.split('?').next().unwrap_or_default();
        let prefix = path
            .rsplit_once("/r/")
            .map(|(p, _)| p)
            .or_else(|| path.strip_suffix("/ws"))
            .unwrap_or("");
        let scheme = if self.secure { "wss" } else { "ws" };
        let hostname = if self.hostname.contains(':') {
            format!("[{}]", self.hostname)
        } else {
            self.hostname.clone()
        };
        let port = self.port.map_or_else(String::new, |p| format!(":{p}"));
        let path = format!("{prefix}/{tail}");
        ServerUrl {
            text: format!("{scheme}://{hostname}{port}{path}"),
            secure: self.secure,
            hostname: self.hostname.clone(),
            port: self.port,
            path,
        }
    }
}

/// The room `join`, `spectate` or `bot` goes to, as typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoomTarget {
    /// A bare room code: the server comes from `--server` or the configuration.
    Code(RoomCode),
    /// An invite link: it names the server and the room.
    Link {
        /// The server's WebSocket URL (`…/ws`).
        server: ServerUrl,
        /// The room.
        code: RoomCode,
    },
}

/// Why a room argument is neither a code nor an invite link.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// Not a code, and no `://` either.
    #[error("`{0}` is not a room code (4 to 8 letters A-Z and digits 2-9) or an invite link (ws://HOST:PORT/r/CODE)")]
    Neither(String),
    /// A URL, but not a good one.
    #[error("not an invite link: {0}")]
    Url(#[from] UrlError),
    /// A good server URL that names no room.
    #[error("`{0}` is a server URL, not an invite link (an invite link ends in /r/CODE; give a server with --server)")]
    NoRoom(String),
    /// A link whose code is not a room code.
    #[error("the invite link `{0}` ends in something that is not a room code (4 to 8 letters A-Z and digits 2-9)")]
    BadCode(String),
}

impl FromStr for RoomTarget {
    type Err = TargetError;

    fn from_str(text: &str) -> Result<RoomTarget, TargetError> {
        let text = text.trim();
        if !text.contains("://") {
            return RoomCode::try_from(text)
                .map(RoomTarget::Code)
                .map_err(|_| TargetError::Neither(text.to_owned()));
        }
        let url: ServerUrl = text.parse()?;
        match url.room_link() {
            Some(Ok((server, code))) => Ok(RoomTarget::Link { server, code }),
            Some(Err(_)) => Err(TargetError::BadCode(text.to_owned())),
            None => Err(TargetError::NoRoom(text.to_owned())),
        }
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
        let refuse = |problem, suggestion| UrlError {
            url: text.to_owned(),
            problem,
            suggestion,
        };
        let (secure, rest) = match text.split_once("://") {
            Some((s, rest)) if s.eq_ignore_ascii_case("ws") => (false, rest),
            Some((s, rest)) if s.eq_ignore_ascii_case("wss") => (true, rest),
            Some((s, rest)) if s.eq_ignore_ascii_case("http") => {
                return Err(refuse(UrlProblem::Http, guess("ws", rest)))
            }
            Some((s, rest)) if s.eq_ignore_ascii_case("https") => {
                return Err(refuse(UrlProblem::Http, guess("wss", rest)))
            }
            Some(_) => return Err(refuse(UrlProblem::Scheme, None)),
            None => return Err(refuse(UrlProblem::NoScheme, guess("ws", text))),
        };
        if rest.is_empty() {
            return Err(refuse(UrlProblem::Empty, None));
        }
        let split = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(split);
        let (hostname, port) = split_authority(authority).map_err(|p| refuse(p, None))?;
        let (path, text) = match path.strip_prefix('/').unwrap_or(path) {
            // No path: the server's one WebSocket path.
            p if p.is_empty() || p.starts_with('?') => {
                let scheme = if secure { "wss" } else { "ws" };
                (
                    format!("{WS_PATH}{p}"),
                    format!("{scheme}://{authority}{WS_PATH}{p}"),
                )
            }
            _ => (path.to_owned(), text.to_owned()),
        };
        Ok(ServerUrl {
            text,
            secure,
            hostname: hostname.to_owned(),
            port,
            path,
        })
    }
}

/// The URL `rest` makes with `scheme` in front, if it is one.
fn guess(scheme: &str, rest: &str) -> Option<String> {
    format!("{scheme}://{rest}")
        .parse::<ServerUrl>()
        .ok()
        .map(|u| u.text)
}

/// `hostname[:port]` or `[v6][:port]`.
fn split_authority(authority: &str) -> Result<(&str, Option<u16>), UrlProblem> {
    if authority.contains(|c: char| c.is_whitespace() || c == '@') {
        return Err(UrlProblem::Authority);
    }
    let (hostname, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (hostname, after) = v6.split_once(']').ok_or(UrlProblem::Authority)?;
        match after {
            "" => (hostname, None),
            p => (
                hostname,
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
    if hostname.is_empty() {
        return Err(UrlProblem::NoHostname);
    }
    let port = port
        .map(|p| p.parse::<u16>().map_err(|_| UrlProblem::Port))
        .transpose()?;
    Ok((hostname, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(text: &str, expected: (bool, &str, u16, &str)) {
        let url: ServerUrl = text.parse().expect("a good URL");
        assert_eq!(
            (url.is_secure(), url.hostname(), url.port(), url.path()),
            expected
        );
        assert_eq!(url.to_string(), text, "shown as given");
    }

    #[track_caller]
    fn check_bad(text: &str, problem: UrlProblem, suggestion: Option<&str>) {
        assert_eq!(
            text.parse::<ServerUrl>(),
            Err(UrlError {
                url: text.to_owned(),
                problem,
                suggestion: suggestion.map(str::to_owned),
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
        check("WS://h:1/ws", (false, "h", 1, "/ws"));
        check("ws://[::1]:9000/ws?x=1", (false, "::1", 9000, "/ws?x=1"));
        check("ws://h:7878/r/K7QX", (false, "h", 7878, "/r/K7QX"));
        assert_eq!(ServerUrl::default().as_str(), DEFAULT_SERVER);
        assert_eq!(
            ServerUrl::local("[::1]:7878".parse().expect("addr")).as_str(),
            "ws://[::1]:7878/ws"
        );
    }

    #[test]
    fn a_url_without_a_path_means_the_servers_ws_path() {
        for (given, dialled) in [
            ("ws://h:7878", "ws://h:7878/ws"),
            ("ws://h:7878/", "ws://h:7878/ws"),
            ("WSS://h", "wss://h/ws"),
            ("ws://h?x", "ws://h/ws?x"),
        ] {
            let url: ServerUrl = given.parse().expect("a good URL");
            assert_eq!(
                (url.as_str(), url.path()),
                (dialled, &dialled[dialled.find("/ws").expect("path")..])
            );
        }
    }

    #[test]
    fn invite_links_go_from_server_and_code_and_back() {
        let code = RoomCode::try_from("k7qx").expect("code");
        for (server, link) in [
            ("ws://127.0.0.1:7878/ws", "ws://127.0.0.1:7878/r/K7QX"),
            ("wss://race.example.org/ws", "wss://race.example.org/r/K7QX"),
            ("ws://[::1]:9000/ws?x=1", "ws://[::1]:9000/r/K7QX"),
            ("wss://h/game/ws", "wss://h/game/r/K7QX"),
        ] {
            let url: ServerUrl = server.parse().expect("url");
            assert_eq!(url.invite(&code), link);
            let back: RoomTarget = link.parse().expect("a link");
            let server_back = server.split('?').next().unwrap_or_default();
            assert_eq!(
                back,
                RoomTarget::Link {
                    server: server_back.parse().expect("url"),
                    code: code.clone()
                }
            );
        }
    }

    #[track_caller]
    fn check_target(text: &str, expected: Result<RoomTarget, TargetError>) {
        assert_eq!(text.parse::<RoomTarget>(), expected);
    }

    #[test]
    fn room_targets_are_codes_or_links() {
        let code = |c: &str| RoomCode::try_from(c).expect("code");
        check_target(" k7qx ", Ok(RoomTarget::Code(code("K7QX"))));
        check_target(
            "ws://h:1/r/ab23?x",
            Ok(RoomTarget::Link {
                server: "ws://h:1/ws".parse().expect("url"),
                code: code("AB23"),
            }),
        );
        check_target("K1", Err(TargetError::Neither("K1".into())));
        check_target("ZZZZZZZZZ", Err(TargetError::Neither("ZZZZZZZZZ".into())));
        check_target(
            "ws://h:1/ws",
            Err(TargetError::NoRoom("ws://h:1/ws".into())),
        );
        check_target(
            "ws://h:1/r/K0",
            Err(TargetError::BadCode("ws://h:1/r/K0".into())),
        );
        check_target(
            "ws://h:1/r/K7QX/x",
            Err(TargetError::NoRoom("ws://h:1/r/K7QX/x".into())),
        );
        assert!(matches!(
            "http://h:1/r/K7QX".parse::<RoomTarget>(),
            Err(TargetError::Url(UrlError { suggestion: Some(s), .. })) if s == "ws://h:1/r/K7QX"
        ));
    }

    #[test]
    fn bad_urls_say_what_is_wrong_and_what_to_type() {
        check_bad(
            "localhost:7878/ws",
            UrlProblem::NoScheme,
            Some("ws://localhost:7878/ws"),
        );
        check_bad(
            "localhost:7878",
            UrlProblem::NoScheme,
            Some("ws://localhost:7878/ws"),
        );
        check_bad("http://h:1/ws", UrlProblem::Http, Some("ws://h:1/ws"));
        check_bad(
            "https://race.example.org",
            UrlProblem::Http,
            Some("wss://race.example.org/ws"),
        );
        check_bad("ftp://h/ws", UrlProblem::Scheme, None);
        check_bad("a b", UrlProblem::NoScheme, None);
        check_bad("ws://", UrlProblem::Empty, None);
        check_bad("ws:///ws", UrlProblem::NoHostname, None);
        check_bad("ws://:7878/ws", UrlProblem::NoHostname, None);
        check_bad("ws://[::1/ws", UrlProblem::Authority, None);
        check_bad("ws://a b/ws", UrlProblem::Authority, None);
        check_bad("ws://h:notaport/ws", UrlProblem::Port, None);
        check_bad("ws://h:70000/ws", UrlProblem::Port, None);
        assert_eq!(
            "localhost:7878".parse::<ServerUrl>().map_err(|e| e.to_string()),
            Err("not a server URL: `localhost:7878` has no ws:// or wss://; try ws://localhost:7878/ws \
                 (a server URL looks like ws://HOST:7878/ws or wss://HOST/ws)"
                .to_owned())
        );
    }
}
