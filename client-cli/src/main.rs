//! `sudoku-race`: the terminal client and engine tools.

mod cmd;

use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

/// Multiplayer real-time Sudoku races in the terminal.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Join a friend's room and race.
    Join(cmd::JoinArgs),
    /// Watch a room's races.
    Spectate(cmd::SpectateArgs),
    /// List the public rooms waiting for players, then exit.
    Rooms(cmd::RoomsArgs),
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("sudoku-race: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    let rt = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    match cli.command {
        Command::Join(a) => cmd::join(&rt, a),
        Command::Spectate(a) => cmd::spectate(&rt, a),
        Command::Rooms(a) => cmd::rooms(&rt, a),
    }
}
