//! `sudoku-race replay RACE_ID`: a finished race from the HTTP API (`/api/races/ID`), played
//! back full-screen by the library's `ReplayApp`.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use client::api::{ApiError, MAX_RACE_ANSWER};
use client::replay::{Replay, ReplayApp};
use client::term::{self, TermError, TermGuard};

use crate::cmd::{endpoint, settings, ServerArg, EXIT_NOT_A_TERMINAL};

/// `sudoku-race replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A finished race's id, like K7QRM-1 (`sudoku-race history` lists them).
    race_id: String,
    #[command(flatten)]
    server: ServerArg,
}

/// Fetch the race, then play it back until the user quits.
pub fn replay(rt: &tokio::runtime::Runtime, a: ReplayArgs) -> anyhow::Result<ExitCode> {
    let id = a.race_id.trim();
    // The API's own rule for ids; checked here too so the id can go in the path as it is.
    if id.is_empty() || id.len() > 64 || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        anyhow::bail!("a race id is letters, digits and dashes, like K7QRM-1");
    }
    let to = endpoint(
        &settings(&a.server, None)?.server,
        a.server.ca_file.as_deref(),
    )?;
    // Fetched before the terminal is checked, so a wrong id says so even without one.
    let path = format!("/api/races/{id}");
    let v = match rt.block_on(client::api::get_up_to(&to, &path, MAX_RACE_ANSWER)) {
        Ok(v) => v,
        Err(ApiError::Status { status: 404, .. }) => anyhow::bail!(
            "no such finished race: {id} on {} (races in progress are not kept; \
             `sudoku-race history` lists a player's races)",
            to.url
        ),
        Err(e) => return Err(e).with_context(|| format!("race {id}")),
    };
    let replay = Replay::from_json(&v).with_context(|| format!("race {id}"))?;
    let mut guard = match TermGuard::enter() {
        Ok(g) => g,
        Err(TermError::NotATerminal) => {
            eprintln!("sudoku-race: {}", TermError::NotATerminal);
            return Ok(ExitCode::from(EXIT_NOT_A_TERMINAL));
        }
        Err(e) => return Err(e.into()),
    };
    term::log_to_file();
    tracing::info!(race = %replay.race_id, placements = replay.placements.len(), "replay");
    let mut app = ReplayApp::new(replay);
    let result = rt.block_on(async {
        let (_reader, keys) = client::run::spawn_key_reader();
        client::run::run(&mut guard.terminal, &mut app, keys, None, None).await
    });
    drop(guard);
    result.context("terminal error")?;
    Ok(ExitCode::SUCCESS)
}
