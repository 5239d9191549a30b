//! `sudoku-race leaderboard` and `sudoku-race history`: the server's HTTP API (A6, and A7's
//! best solves) as tables.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use engine::Difficulty;

use crate::cmd::{endpoint, settings, ServerArg};

/// A leaderboard's period.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Period {
    /// Since 00:00 UTC today.
    Day,
    /// Since Monday 00:00 UTC.
    Week,
    /// Since the 1st, 00:00 UTC.
    Month,
    /// All time.
    All,
}

/// `sudoku-race leaderboard`.
#[derive(Args, Debug)]
pub struct LeaderboardArgs {
    /// easy, medium, hard or expert [default: medium].
    #[arg(long, value_parser = crate::difficulty_arg)]
    difficulty: Option<Difficulty>,
    /// The period.
    #[arg(long, value_enum, default_value = "all")]
    period: Period,
    /// Rows, 1 to 100.
    #[arg(long, default_value_t = 20)]
    limit: u32,
    #[command(flatten)]
    server: ServerArg,
}

/// `sudoku-race history`.
#[derive(Args, Debug)]
pub struct HistoryArgs {
    /// A player's handle, or their name when only one player goes by it (A8) [default: yours
    /// on this server, from keys.toml].
    handle: Option<String>,
    /// Races, 1 to 100, newest first.
    #[arg(long, default_value_t = 20)]
    limit: u32,
    #[command(flatten)]
    server: ServerArg,
}

/// Print the leaderboard.
pub fn leaderboard(rt: &tokio::runtime::Runtime, a: LeaderboardArgs) -> anyhow::Result<ExitCode> {
    let to = endpoint(
        &settings(&a.server, None)?.server,
        a.server.ca_file.as_deref(),
    )?;
    let difficulty = a.difficulty.unwrap_or(Difficulty::Medium);
    let period = format!("{:?}", a.period).to_lowercase();
    let path = format!(
        "/api/leaderboard?difficulty={}&period={period}&limit={}",
        difficulty.as_str(),
        a.limit
    );
    let v = rt
        .block_on(client::api::get(&to, &path))
        .context("the leaderboard")?;
    print!("{}", client::api::leaderboard_table(&v));
    Ok(ExitCode::SUCCESS)
}

/// Print a player's best solves, then their races.
pub fn history(rt: &tokio::runtime::Runtime, a: HistoryArgs) -> anyhow::Result<ExitCode> {
    let to = endpoint(
        &settings(&a.server, None)?.server,
        a.server.ca_file.as_deref(),
    )?;
    let handle = match a.handle {
        Some(h) => h,
        None => {
            let file =
                client::identity::file_path().context("no config directory on this platform")?;
            let id = client::identity::server_id(&to.url);
            client::identity::load(&file)
                .servers
                .get(&id)
                .map(|e| e.handle.clone())
                .with_context(|| {
                    format!("no identity for {id} yet: race there once, or name a handle")
                })?
        }
    };
    if handle.is_empty() || handle.chars().count() > 64 || handle.chars().any(char::is_control) {
        anyhow::bail!("a handle (like hK7QM2XP) or a player's name");
    }
    // A name may hold spaces and any letter: the server decodes the path segment.
    let segment = client::api::path_segment(&handle);
    let page = rt
        .block_on(client::api::get(&to, &format!("/api/players/{segment}")))
        .with_context(|| format!("the player {handle}"))?;
    // The page names the handle: the races of that player, whatever the name was.
    let handle = page["handle"]
        .as_str()
        .map_or_else(|| segment.clone(), client::api::path_segment);
    let path = format!("/api/players/{handle}/races?limit={}", a.limit);
    let v = rt
        .block_on(client::api::get(&to, &path))
        .with_context(|| format!("the history of {handle}"))?;
    print!(
        "{}\n{}",
        client::api::best_table(&page),
        client::api::history_table(&v)
    );
    Ok(ExitCode::SUCCESS)
}
