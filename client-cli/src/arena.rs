//! `sudoku-race arena`: the server's arenas (Amendment A7). `arena` or `arena list` prints the
//! upcoming, running and finished arenas from `/api/arenas` (times in the local time zone);
//! `arena join ID` joins one under your identity and opens the race screens: while it runs you
//! are seated with its other members race after race, its standings (points, races, wins,
//! streak) beside the board and on the results, and each race's results ask for the next one by
//! themselves after a few seconds (`r` at once); `q` leaves the arena.

use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use client::localtime;
use client::net::Intent;
use protocol::text::terminal_safe;
use serde_json::Value;

use crate::cmd::{self, Lobby, NameArg, ServerArg};

/// `sudoku-race arena`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ArenaArgs {
    #[command(subcommand)]
    action: Option<ArenaAction>,
    #[command(flatten)]
    server: ServerArg,
}

/// What to do with arenas.
#[derive(Debug, Subcommand)]
pub enum ArenaAction {
    /// Print the upcoming, running and finished arenas (the default).
    List {
        #[command(flatten)]
        server: ServerArg,
    },
    /// Join an arena (it needs your identity) and race its other members back to back while it
    /// runs; an upcoming one seats you when it starts.
    Join {
        /// The arena's id, from `sudoku-race arena list`.
        id: String,
        #[command(flatten)]
        server: ServerArg,
        #[command(flatten)]
        name: NameArg,
    },
}

/// `sudoku-race arena [list | join ID]`.
pub fn arena(rt: &tokio::runtime::Runtime, a: ArenaArgs) -> anyhow::Result<ExitCode> {
    match a.action {
        None => list(rt, &a.server),
        Some(ArenaAction::List { server }) => list(rt, &server),
        Some(ArenaAction::Join { id, server, name }) => join(rt, &id, &server, &name),
    }
}

/// Print the arenas.
fn list(rt: &tokio::runtime::Runtime, server: &ServerArg) -> anyhow::Result<ExitCode> {
    let to = cmd::endpoint(
        &cmd::settings(server, None)?.server,
        server.ca_file.as_deref(),
    )?;
    let v = rt
        .block_on(client::api::get(&to, "/api/arenas"))
        .context("the arenas")?;
    print!("{}", arenas_table(&v, localtime::local_offset_s));
    Ok(ExitCode::SUCCESS)
}

/// Join the arena `id` and race in it.
fn join(
    rt: &tokio::runtime::Runtime,
    id: &str,
    server: &ServerArg,
    name: &NameArg,
) -> anyhow::Result<ExitCode> {
    if name.anonymous {
        bail!("an arena keeps standings per identity: it cannot be joined --anonymous");
    }
    let id = id.trim();
    if id.is_empty() || id.len() > 128 || id.chars().any(char::is_control) {
        bail!("an arena id is what `sudoku-race arena list` shows in its ID column");
    }
    let settings = cmd::settings(server, name.name.as_deref())?;
    let player = cmd::checked_name(&settings.name)?;
    let to = cmd::endpoint(&settings.server, server.ca_file.as_deref())?;
    let intent = Intent::Arena {
        arena_id: id.to_owned(),
        name: player.clone(),
    };
    cmd::tui(rt, to, intent, player, Lobby::default(), false)
}

/// A string field, safe for the terminal.
fn text(v: &Value) -> String {
    terminal_safe(v.as_str().unwrap_or("-")).into_owned()
}

/// `/api/arenas`'s answer as a table, running first, then upcoming, then finished; times in the
/// zone whose offset at a time `offset_at(unix_s)` gives.
pub fn arenas_table(v: &Value, offset_at: impl Fn(i64) -> i32) -> String {
    let arenas = v["arenas"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if arenas.is_empty() {
        return "this server runs no arenas\n".to_owned();
    }
    let order = |a: &Value| match a["state"].as_str() {
        Some("running") => 0,
        Some("upcoming") => 1,
        _ => 2,
    };
    let mut rows: Vec<&Value> = arenas.iter().collect();
    rows.sort_by_key(|a| (order(a), a["starts_unix_ms"].as_i64().unwrap_or(0)));
    // The header names the zone's offset now; a row at another offset (across a change to or
    // from daylight saving time) names its own.
    let now_offset = offset_at(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0)),
    );
    let when = |ms: &Value| match ms.as_i64() {
        Some(ms) => {
            let offset = offset_at(ms.div_euclid(1000));
            let mut t = localtime::format(ms, offset);
            if offset != now_offset {
                t = format!("{t} {}", localtime::offset_label(offset));
            }
            t
        }
        None => "-".to_owned(),
    };
    let zone = localtime::offset_label(now_offset);
    let mut out = format!(
        "{:<20} {:<6} {:<8} {:<16} {:<16} {:>7}  {}   (times in {zone})\n",
        "NAME", "LEVEL", "STATE", "STARTS", "ENDS", "PLAYERS", "ID"
    );
    for a in rows {
        out.push_str(&format!(
            "{:<20} {:<6} {:<8} {:<16} {:<16} {:>7}  {}\n",
            text(&a["name"]),
            text(&a["difficulty"]),
            text(&a["state"]),
            when(&a["starts_unix_ms"]),
            when(&a["ends_unix_ms"]),
            a["players"].as_u64().unwrap_or(0),
            text(&a["arena_id"]),
        ));
    }
    out.push_str("join one with: sudoku-race arena join ID\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arenas_print_running_first_in_local_time() {
        let v = serde_json::json!({"arenas": [
            {"arena_id": "hourly-easy-1709254800000", "name": "Hourly easy", "difficulty": "easy",
             "starts_unix_ms": 1_709_254_800_000_i64, "ends_unix_ms": 1_709_256_000_000_i64,
             "state": "upcoming", "players": 0},
            {"arena_id": "blitz-1709249400000", "name": "Blitz\u{1b}[2J", "difficulty": "hard",
             "starts_unix_ms": 1_709_249_400_000_i64, "ends_unix_ms": 1_709_251_200_000_i64,
             "state": "running", "players": 12}]});
        let t = arenas_table(&v, |_| 7200);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4, "{t}");
        assert!(
            lines[0].starts_with("NAME") && lines[0].ends_with("ID   (times in UTC+02:00)"),
            "{t}"
        );
        assert!(
            lines[1].contains("running") && lines[1].contains("hard"),
            "{t}"
        );
        assert!(
            lines[1].contains("2024-03-01 01:30 2024-03-01 02:00"),
            "{t}"
        );
        assert!(lines[1].contains("     12  blitz-1709249400000"), "{t}");
        assert!(
            lines[2].contains("upcoming") && lines[2].contains("Hourly easy"),
            "{t}"
        );
        assert!(!t.contains('\u{1b}'), "{t:?}");
        assert!(lines[3].contains("arena join"), "{t}");
        assert_eq!(
            arenas_table(&serde_json::json!({"arenas": []}), |_| 0),
            "this server runs no arenas\n"
        );
    }
}
