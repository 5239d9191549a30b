//! `sudoku-race host`: open the lobby of a new room as its room host. With a server in force
//! (`--server`, `SUDOKU_RACE_SERVER` or the config file) the room is created there; otherwise
//! the race server runs in-process (the `server` library) on `--listen`, and quitting stops it
//! (after a confirmation while others are in the room). The lobby shows the invite link a friend
//! joins by, with this machine's address when the listener is not loopback-only.

use std::net::{IpAddr, SocketAddr};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use client::net::{Intent, ServerUrl};
use client::term::{self, TermError};

use crate::cmd::{
    checked_name, endpoint, join_command, settings, tui, Lobby, NameArg, RoomSettings, ServerArg,
    EXIT_NOT_A_TERMINAL,
};

/// `sudoku-race host`.
#[derive(Args, Debug)]
pub struct HostArgs {
    /// Address the in-process server listens on; `0.0.0.0:7878` lets friends on your network join
    /// [default: 127.0.0.1:7878]. Given, it runs the server here even when one is configured.
    #[arg(long, conflicts_with = "server")]
    pub listen: Option<String>,
    /// SQLite file for the in-process server's race results [default: the server's, in the
    /// user's data directory].
    #[arg(long, env = "SUDOKU_RACE_DB", conflicts_with = "server")]
    pub db: Option<std::path::PathBuf>,
    /// Create the room on this server (see below) instead of running one here.
    #[command(flatten)]
    server: ServerArg,
    #[command(flatten)]
    settings: RoomSettings,
    #[command(flatten)]
    name: NameArg,
}

/// Run `sudoku-race host`. The name and settings are checked before anything else, so a bad
/// one is refused with its reason before any screen or server starts.
pub fn host(rt: &tokio::runtime::Runtime, a: HostArgs) -> anyhow::Result<ExitCode> {
    let settings_in_force = settings(&a.server, a.name.name.as_deref())?;
    let name = checked_name(&settings_in_force.name)?;
    let settings = a.settings.request()?;
    let intent = Intent::Create {
        name: name.clone(),
        settings: Some(settings),
    };
    if settings_in_force.server_configured() && a.listen.is_none() {
        let to = endpoint(&settings_in_force.server, a.server.ca_file.as_deref())?;
        let lobby = Lobby {
            join_command: Some(join_command(
                &to.url.invite("{code}"),
                a.server.ca_file.is_some(),
            )),
            runs_server: false,
        };
        return tui(rt, to, intent, name, lobby, a.name.anonymous);
    }
    if !term::is_interactive() {
        eprintln!("sudoku-race: {}", TermError::NotATerminal);
        return Ok(ExitCode::from(EXIT_NOT_A_TERMINAL));
    }
    let listen = a.listen.as_deref().unwrap_or(DEFAULT_LISTEN);
    let listener = rt
        .block_on(tokio::net::TcpListener::bind(listen))
        .with_context(|| format!("cannot listen on {listen}"))?;
    let local = listener.local_addr().context("listener address")?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    // Its rooms end because the host quit: `host_closed`, not a server restarting (A9).
    let mut config = server::Config {
        shutdown_reason: protocol::ClosedReason::HostClosed,
        ..server::Config::default()
    };
    if let Some(db) = a.db {
        config.db_path = db;
    }
    // The browser client's compressed copies, off the async workers (the server binary makes
    // them before it serves; in a library they are made at the first request for a file).
    drop(rt.spawn_blocking(server::net::assets::prepare));
    let server = rt.spawn(server::run(listener, config, async move {
        let _ = stopped.await;
    }));
    let lobby = Lobby {
        join_command: Some(join_command(&advertised_url(local).invite("{code}"), false)),
        runs_server: true,
    };
    let code = tui(
        rt,
        connect_url(local).into(),
        intent,
        name,
        lobby,
        a.name.anonymous,
    );
    // Stopping the server sends everyone still in the room `room_closed` and a 1001 close.
    let _ = stop.send(());
    match rt.block_on(async { tokio::time::timeout(SERVER_STOP, server).await }) {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(e))) => eprintln!("sudoku-race: the server stopped with an error: {e}"),
        Ok(Err(e)) => eprintln!("sudoku-race: the server task failed: {e}"),
        Err(_) => eprintln!(
            "sudoku-race: the server did not stop within {} s",
            SERVER_STOP.as_secs()
        ),
    }
    code
}

/// Where the in-process server listens without `--listen`.
const DEFAULT_LISTEN: &str = "127.0.0.1:7878";

/// Longest wait for the in-process server to stop after this program quits (its shutdown grace
/// is bounded too, A2).
const SERVER_STOP: Duration = Duration::from_secs(3);

/// The URL this program's own client connects to (loopback when listening on all interfaces).
pub fn connect_url(local: SocketAddr) -> ServerUrl {
    let ip = match local.ip() {
        IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::from([127, 0, 0, 1]),
        IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    ServerUrl::local(SocketAddr::new(ip, local.port()))
}

/// The URL a friend uses: the listener's own address, or this machine's first non-loopback
/// address when listening on all interfaces.
pub fn advertised_url(local: SocketAddr) -> ServerUrl {
    if local.ip().is_unspecified() {
        let hostname_or_ip = machine_addresses()
            .into_iter()
            .next()
            .map(|ip| ip.to_string())
            .or_else(machine_hostname)
            .unwrap_or_else(|| "THIS-MACHINE".to_owned());
        // A hostname that makes no URL (it should not happen) falls back to the local one.
        return format!("ws://{hostname_or_ip}:{}/ws", local.port())
            .parse()
            .unwrap_or_else(|_| connect_url(local));
    }
    connect_url(local)
}

/// This machine's IPv4 addresses other than loopback, from `/proc/net/fib_trie` (Linux).
pub fn machine_addresses() -> Vec<IpAddr> {
    std::fs::read_to_string("/proc/net/fib_trie")
        .map(|t| local_addresses_in_fib_trie(&t))
        .unwrap_or_default()
}

/// The `/32 host LOCAL` addresses in a `fib_trie` dump, loopback excluded, deduplicated.
pub fn local_addresses_in_fib_trie(text: &str) -> Vec<IpAddr> {
    let mut out: Vec<IpAddr> = Vec::new();
    let mut last: Option<IpAddr> = None;
    for line in text.lines() {
        let t = line.trim_start_matches([' ', '|', '+', '-']).trim();
        if let Ok(ip) = t.parse::<IpAddr>() {
            last = Some(ip);
            continue;
        }
        if t.contains("host LOCAL") {
            if let Some(ip) = last {
                if !ip.is_loopback() && !out.contains(&ip) {
                    out.push(ip);
                }
            }
        }
    }
    out
}

/// This machine's hostname, from `/proc/sys/kernel/hostname` (Linux).
fn machine_hostname() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_for_the_host_and_for_friends() {
        let lo: SocketAddr = "127.0.0.1:7878".parse().expect("addr");
        assert_eq!(connect_url(lo).as_str(), "ws://127.0.0.1:7878/ws");
        assert_eq!(advertised_url(lo).as_str(), "ws://127.0.0.1:7878/ws");
        let lan: SocketAddr = "192.168.1.20:9000".parse().expect("addr");
        assert_eq!(advertised_url(lan).as_str(), "ws://192.168.1.20:9000/ws");
        let any: SocketAddr = "0.0.0.0:7878".parse().expect("addr");
        assert_eq!(connect_url(any).as_str(), "ws://127.0.0.1:7878/ws");
        assert!(!advertised_url(any).as_str().contains("0.0.0.0"));
    }

    #[test]
    fn fib_trie_local_addresses() {
        let dump = "Main:\n  +-- 0.0.0.0/0 3 0 5\n     |-- 10.0.2.15\n        /32 host LOCAL\n     |-- 10.0.2.255\n        /32 link BROADCAST\n     |-- 127.0.0.1\n        /32 host LOCAL\nLocal:\n     |-- 10.0.2.15\n        /32 host LOCAL\n";
        assert_eq!(
            local_addresses_in_fib_trie(dump),
            vec!["10.0.2.15".parse::<IpAddr>().expect("ip")]
        );
    }
}
