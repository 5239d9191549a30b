//! `sudoku-race`: the terminal client and engine tools.

mod tools;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Multiplayer real-time Sudoku races in the terminal, and the engine tools.
#[derive(Debug, Parser)]
#[command(name = "sudoku-race", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// What to do.
#[derive(Debug, Subcommand)]
enum Command {
    /// Solve puzzles: one line per puzzle, the solution or `none` or `multiple`.
    Solve(tools::SolveArgs),
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("sudoku-race: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Solve(args) => tools::solve(&args),
    }
}
