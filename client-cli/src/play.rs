//! `sudoku-race play`: solo practice on the embedded engine (a puzzle generated at the asked
//! difficulty, or one given with `--puzzle`), in the full-screen solo app.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use client::solo::{self, Outcome, SoloApp};
use client::term::{self, TermError, TermGuard};
use shared::engine::{grader, solver, Difficulty, Grid};

use crate::cmd::EXIT_NOT_A_TERMINAL;

/// `sudoku-race play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// easy, medium, hard or expert.
    #[arg(long, default_value = "medium")]
    pub difficulty: Difficulty,
    /// Play this puzzle (81 characters, `.` or `0` for empty) instead of a generated one.
    #[arg(long)]
    pub puzzle: Option<String>,
}

/// `sudoku-race play`: solo practice on the embedded engine.
pub fn play(a: PlayArgs) -> anyhow::Result<ExitCode> {
    if !term::is_interactive() {
        eprintln!("sudoku-race: {}", TermError::NotATerminal);
        return Ok(ExitCode::from(EXIT_NOT_A_TERMINAL));
    }
    let (puzzle, solution, difficulty) = match &a.puzzle {
        Some(line) => {
            let puzzle = Grid::parse(line).context("--puzzle")?;
            let solution = solver::solve_unique(&puzzle).context("--puzzle")?;
            let difficulty = grader::grade(&puzzle)
                .level
                .difficulty()
                .unwrap_or(Difficulty::Expert);
            (puzzle, solution, difficulty)
        }
        None => new_puzzle(a.difficulty)?,
    };
    let mut guard = TermGuard::enter()?;
    term::log_to_file();
    tracing::info!(puzzle = %puzzle, %difficulty, "solo game");
    let mut game = SoloApp::new(puzzle, solution, difficulty, solo::grader_hint);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .context("cannot start the async runtime")?;
    let result = rt.block_on(async {
        let (_reader, keys) = client::run::spawn_key_reader();
        client::run::run(&mut guard.terminal, &mut game, keys, None, None).await
    });
    drop(guard);
    result.context("terminal error")?;
    match game.outcome {
        Some(Outcome::Solved { time_ms }) => {
            println!(
                "solved a {difficulty} puzzle in {}",
                client::app::clock(time_ms)
            );
        }
        Some(Outcome::GaveUp) => println!("gave up; the solution was {solution}"),
        None => {}
    }
    Ok(ExitCode::SUCCESS)
}

/// A fresh puzzle at `difficulty`, with its solution.
fn new_puzzle(difficulty: Difficulty) -> anyhow::Result<(Grid, Grid, Difficulty)> {
    let mut rng = rand::thread_rng();
    let g = shared::engine::generator::generate(&mut rng, difficulty, true);
    Ok((g.puzzle, g.solution, difficulty))
}
