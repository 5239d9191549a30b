//! `sudoku-race quick`: race strangers (Amendment A7). The session asks the pool of a difficulty
//! (`quick_race`, with the identity key like any ask for a seat); the screen shows the queue
//! until the server seats us in a pool room, and after each race `r` goes back to the pool.

use std::process::ExitCode;

use clap::Args;
use client::net::Intent;
use engine::{Difficulty, Variant};

use crate::cmd::{self, Lobby, NameArg, ServerArg};

/// `sudoku-race quick`.
#[derive(Args, Debug)]
pub struct QuickArgs {
    /// easy, medium, hard or expert, any case.
    #[arg(long, value_parser = crate::difficulty_arg, default_value = "medium")]
    difficulty: Difficulty,
    /// classic, x, windoku, jigsaw or killer, any case: each has its own pools.
    #[arg(long, value_parser = crate::variant_arg, default_value = "classic")]
    variant: Variant,
    #[command(flatten)]
    server: ServerArg,
    #[command(flatten)]
    name: NameArg,
}

/// `sudoku-race quick [--difficulty D]`: wait in the pool, then race whoever else is there.
pub fn quick(rt: &tokio::runtime::Runtime, a: QuickArgs) -> anyhow::Result<ExitCode> {
    let settings = cmd::settings(&a.server, a.name.name.as_deref())?;
    let name = cmd::checked_name(&settings.name)?;
    let to = cmd::endpoint(&settings.server, a.server.ca_file.as_deref())?;
    let intent = Intent::Quick {
        difficulty: a.difficulty,
        variant: a.variant,
        name: name.clone(),
    };
    cmd::tui(rt, to, intent, name, Lobby::default(), a.name.anonymous)
}
