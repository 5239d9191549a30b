//! `sudoku-race`: the terminal client and engine tools.

mod arena;
mod bank;
mod cmd;
mod ghost;
mod host;
mod play;
mod quick;
mod race_replay;
mod rooms;
mod stats;
mod tools;

use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use engine::Difficulty;

/// A `--difficulty` value in any case (`Hard`, `EXPERT`).
fn difficulty_arg(s: &str) -> Result<Difficulty, String> {
    s.trim()
        .to_ascii_lowercase()
        .parse()
        .map_err(|e: engine::difficulty::UnknownDifficulty| e.to_string())
}

/// A `--variant` name in any case (`Killer`, `X`).
fn variant_arg(s: &str) -> Result<engine::Variant, String> {
    s.trim()
        .to_ascii_lowercase()
        .parse()
        .map_err(|e: engine::UnknownVariant| e.to_string())
}

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
    /// Host a room: on the server in force (--server, SUDOKU_RACE_SERVER, the config file), else
    /// on a server started in-process; then open the lobby as its host.
    Host(host::HostArgs),
    /// Join a friend's room by its invite link (or its code) and race.
    Join(cmd::JoinArgs),
    /// Race strangers now: wait in the pool of a difficulty until a race forms, and race again.
    Quick(quick::QuickArgs),
    /// Race a ghost: your best at a difficulty, today's daily winner, or any stored race.
    Ghost(ghost::GhostArgs),
    /// Arenas: timed tournaments of back-to-back races with standings (`list`, `join ID`).
    Arena(arena::ArenaArgs),
    /// Watch a room's races.
    Spectate(cmd::SpectateArgs),
    /// List the public rooms waiting for players, then exit.
    Rooms(rooms::RoomsArgs),
    /// Today's daily challenge: one puzzle per UTC day and difficulty, one attempt each.
    Daily(cmd::DailyArgs),
    /// The server's leaderboard: conservative Weng-Lin ratings per difficulty and period.
    Leaderboard(stats::LeaderboardArgs),
    /// A player's races, newest first (yours by default), with rating changes and fair-play flags.
    History(stats::HistoryArgs),
    /// Play a finished race back: every player's progress over time, then each one's board.
    Replay(race_replay::ReplayArgs),
    /// Solo practice offline: timer, undo, pencil marks, conflict check, hints, give-up.
    Play(play::PlayArgs),
    /// Join a room as a computer player that solves at a human-like pace (no screen).
    Bot(cmd::BotArgs),
    /// Solve puzzles: one line per puzzle, the solution or `none` or `multiple`.
    Solve(tools::SolveArgs),
    /// Generate fresh puzzles with exactly one solution at a difficulty.
    Generate(tools::GenerateArgs),
    /// Grade puzzles by the techniques a human needs: `LEVEL SCORE` per puzzle.
    Grade(tools::GradeArgs),
    /// Print the browser's solo practice bank: graded puzzles per difficulty with their hints (JSON).
    Bank(bank::BankArgs),
    /// Print the config file's path and the server and name in force, with where each came from.
    Config,
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

/// The async runtime for the network commands.
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Runtime::new().context("cannot start the async runtime")
}

fn run() -> anyhow::Result<ExitCode> {
    // A usage error exits 1 like every other failure (clap's own convention is 2, which here
    // means "no terminal"); `--help` and `--version` exit 0.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return Ok(if e.use_stderr() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            });
        }
    };
    // One rustls crypto provider for the whole process, before anything dials or listens.
    client::net::tls::install_crypto_provider();
    match cli.command {
        Command::Host(a) => host::host(&runtime()?, a),
        Command::Join(a) => cmd::join(&runtime()?, a),
        Command::Quick(a) => quick::quick(&runtime()?, a),
        Command::Ghost(a) => ghost::ghost(&runtime()?, a),
        Command::Arena(a) => arena::arena(&runtime()?, a),
        Command::Spectate(a) => cmd::spectate(&runtime()?, a),
        Command::Rooms(a) => rooms::rooms(&runtime()?, a),
        Command::Daily(a) => cmd::daily(&runtime()?, a),
        Command::Leaderboard(a) => stats::leaderboard(&runtime()?, a),
        Command::History(a) => stats::history(&runtime()?, a),
        Command::Replay(a) => race_replay::replay(&runtime()?, a),
        Command::Play(a) => play::play(a),
        Command::Bot(a) => cmd::bot(&runtime()?, a),
        Command::Solve(args) => tools::solve(&args),
        Command::Generate(args) => tools::generate(&args),
        Command::Grade(args) => tools::grade(&args),
        Command::Bank(args) => bank::bank(&args),
        Command::Config => {
            let settings = client::config::Settings::load(client::config::Flags::default())?;
            print!("{}", settings.report());
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The command line `args` parses, and its `Debug` shows `shows`.
    #[track_caller]
    fn check_parses(args: &[&str], shows: &str) {
        let cli = Cli::try_parse_from(args).expect("parses");
        let debug = format!("{cli:?}");
        assert!(debug.contains(shows), "{shows:?} not in {debug}");
    }

    #[test]
    fn every_command_that_deals_a_puzzle_takes_a_variant_in_any_case() {
        check_parses(
            &["sudoku-race", "play", "--variant", "Killer"],
            "variant: Killer",
        );
        check_parses(&["sudoku-race", "play"], "variant: Classic");
        check_parses(
            &["sudoku-race", "host", "--variant", "jigsaw"],
            "variant: Some(Jigsaw)",
        );
        check_parses(&["sudoku-race", "quick", "--variant", "X"], "variant: X");
        check_parses(
            &["sudoku-race", "daily", "--variant", "windoku"],
            "variant: Windoku",
        );
        check_parses(
            &["sudoku-race", "ghost", "best", "--variant", "killer"],
            "variant: Some(Killer)",
        );
        for bad in [
            &["sudoku-race", "play", "--variant", "samurai"][..],
            &["sudoku-race", "host", "--variant", ""],
            &[
                "sudoku-race",
                "play",
                "--variant",
                "killer",
                "--puzzle",
                "1",
            ],
        ] {
            assert!(Cli::try_parse_from(bad).is_err(), "{bad:?}");
        }
    }
}
