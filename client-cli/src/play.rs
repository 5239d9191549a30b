//! `sudoku-race play`: solo practice on the embedded engine (a puzzle generated at the asked
//! difficulty, or one given with `--puzzle`), in the full-screen solo app.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use client::solo::{self, Outcome, SoloApp};
use client::term::{self, TermError, TermGuard};
use engine::{grader, solver, Difficulty, Geometry, Grid, Level, Variant};

use crate::cmd::EXIT_NOT_A_TERMINAL;

/// `sudoku-race play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// easy, medium, hard or expert (any case).
    #[arg(long, default_value = "medium", value_parser = crate::difficulty_arg)]
    pub difficulty: Difficulty,
    /// Play this puzzle (81 characters, `.` or `0` for empty) instead of a generated one
    /// (classic only).
    #[arg(long, conflicts_with = "variant")]
    pub puzzle: Option<String>,
    /// classic, x, windoku, jigsaw or killer.
    #[arg(long, default_value = "classic", value_parser = crate::variant_arg)]
    pub variant: Variant,
}

/// `sudoku-race play`: solo practice on the embedded engine.
pub fn play(a: PlayArgs) -> anyhow::Result<ExitCode> {
    if !term::is_interactive() {
        eprintln!("sudoku-race: {}", TermError::NotATerminal);
        return Ok(ExitCode::from(EXIT_NOT_A_TERMINAL));
    }
    let (geometry, puzzle, solution, level) = match &a.puzzle {
        Some(line) => {
            let puzzle = Grid::parse(line).context("--puzzle")?;
            let solution = solver::solve_unique(&puzzle).context("--puzzle")?;
            let level = grader::grade(&puzzle).level;
            (Geometry::classic().clone(), puzzle, solution, level)
        }
        None => {
            let (geometry, puzzle, solution) = deal(a.variant, a.difficulty);
            (geometry, puzzle, solution, Level::from(a.difficulty))
        }
    };
    let mut guard = TermGuard::enter()?;
    term::log_to_file();
    tracing::info!(puzzle = %puzzle, %level, variant = %a.variant, "solo game");
    let mut game = SoloApp::new(puzzle, solution, level, solo::grader_hint).in_geometry(geometry);
    if a.puzzle.is_none() {
        game = game.with_dealer(deal);
    }
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
            let level = game.level;
            println!(
                "solved {} {level} puzzle in {}",
                article(level),
                client::app::clock(time_ms)
            );
        }
        Some(Outcome::GaveUp) => println!("gave up; the solution was {}", game.solution),
        None => {}
    }
    Ok(ExitCode::SUCCESS)
}

/// A fresh `variant` puzzle at `difficulty`: its rules, the puzzle and its solution (the solo
/// game's dealer).
fn deal(variant: Variant, difficulty: Difficulty) -> (Geometry, Grid, Grid) {
    let mut rng = rand::thread_rng();
    let g = engine::generator::variant::generate_in(&mut rng, variant, difficulty);
    (g.geometry, g.puzzle, g.solution)
}

/// "an easy", "a medium", "an expert", "an extreme".
fn article(level: Level) -> &'static str {
    match level {
        Level::Easy | Level::Expert | Level::Extreme => "an",
        Level::Medium | Level::Hard => "a",
    }
}
