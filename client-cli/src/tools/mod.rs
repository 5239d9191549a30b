//! The engine tools: `solve`, `generate` and `grade`, for every variant (A10).
//!
//! Puzzles are read one per line from a file, stdin or `--puzzle`; blank lines and lines
//! starting with `#` are skipped. A line is an 81-character grid of the `--variant` named
//! (classic by default), or a variant puzzle as JSON (`text`; jigsaw and killer need it, for
//! their layout). Output is one line per puzzle on stdout. A malformed line gets a message on
//! stderr naming its line number and the line `error` in its place on stdout (so output lines
//! still match input lines); the other lines are still processed, and the exit status is 1.

use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use engine::generator::variant::generate_in;
use engine::solver::geometric::count_solutions_in;
use engine::solver::geometric::Solver;
use engine::{generator, grader, solver, validator, Difficulty, Geometry, Grid, Level, Variant};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

mod text;

/// Arguments of `sudoku-race solve`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// File with one puzzle per line (stdin when absent).
    pub file: Option<PathBuf>,
    /// One puzzle given here instead of a file (a grid line or a variant puzzle's JSON).
    #[arg(long, short, conflicts_with = "file")]
    pub puzzle: Option<String>,
    /// The variant of plain grid lines (classic, x, windoku; jigsaw and killer come as JSON,
    /// which names its own variant and must then agree).
    #[arg(long, value_parser = crate::variant_arg)]
    pub variant: Option<Variant>,
}

/// Arguments of `sudoku-race generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// easy, medium, hard or expert (any case).
    #[arg(long, short, value_parser = crate::difficulty_arg)]
    pub difficulty: Difficulty,
    /// How many puzzles to print.
    #[arg(long, short = 'n', default_value_t = 1)]
    pub count: u64,
    /// Seed for a reproducible run (random when absent).
    #[arg(long, short)]
    pub seed: Option<u64>,
    /// Lay the clues out symmetrically (180-degree rotation; classic only, whose variant
    /// generator always does).
    #[arg(long)]
    pub symmetric: bool,
    /// classic, x, windoku, jigsaw or killer: the others print one JSON line a puzzle, with
    /// its layout and solution.
    #[arg(long, value_parser = crate::variant_arg, default_value = "classic")]
    pub variant: Variant,
}

/// Arguments of `sudoku-race grade`.
#[derive(Debug, Args)]
pub struct GradeArgs {
    /// File with one puzzle per line (stdin when absent).
    pub file: Option<PathBuf>,
    /// One puzzle given here instead of a file (a grid line or a variant puzzle's JSON).
    #[arg(long, short, conflicts_with = "file")]
    pub puzzle: Option<String>,
    /// The variant of plain grid lines (see `solve --variant`); each is graded by its own
    /// houses and, for killer, its cage techniques.
    #[arg(long, value_parser = crate::variant_arg)]
    pub variant: Option<Variant>,
    /// Print the steps of the human solution after each grade.
    #[arg(long)]
    pub explain: bool,
}

/// The whole input: the puzzle given, the file, or stdin.
fn read_input(puzzle: Option<&String>, file: Option<&PathBuf>) -> anyhow::Result<String> {
    if let Some(puzzle) = puzzle {
        return Ok(puzzle.clone());
    }
    match file {
        Some(path) => {
            std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
        }
        None => {
            let mut text = String::new();
            io::stdin()
                .read_to_string(&mut text)
                .context("cannot read stdin")?;
            Ok(text)
        }
    }
}

/// Call `f` with `out` on each puzzle line of `text`; a bad line is reported on stderr and
/// stands as `error` in `out`. Returns the exit code.
fn for_each_puzzle<W: Write>(
    text: &str,
    variant: Option<Variant>,
    out: &mut W,
    mut f: impl FnMut(&mut W, &Geometry, &Grid) -> io::Result<()>,
) -> anyhow::Result<ExitCode> {
    let mut bad = 0usize;
    for (idx, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        match text::parse(trimmed, variant) {
            Ok((geometry, grid)) => f(out, &geometry, &grid).context("cannot write output")?,
            Err(err) => {
                bad += 1;
                eprintln!("line {}: {err}", idx + 1);
                writeln!(out, "error").context("cannot write output")?;
            }
        }
    }
    Ok(if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `sudoku-race solve`.
pub fn solve(args: &SolveArgs) -> anyhow::Result<ExitCode> {
    let text = read_input(args.puzzle.as_ref(), args.file.as_ref())?;
    let mut out = BufWriter::new(io::stdout().lock());
    let code = for_each_puzzle(&text, args.variant, &mut out, |out, geometry, grid| {
        if !geometry.is_classic() {
            return match Solver::new(geometry).solutions(grid, 2).as_slice() {
                [] => writeln!(out, "none"),
                [one] => writeln!(out, "{one}"),
                _ => writeln!(out, "multiple"),
            };
        }
        match solver::solve_unique(grid) {
            Ok(solution) => {
                let mut line = [b'\n'; 82];
                line[..81].copy_from_slice(&solution.to_line_bytes());
                out.write_all(&line)
            }
            Err(solver::SolveError::NoSolution) => writeln!(out, "none"),
            Err(solver::SolveError::Multiple) => writeln!(out, "multiple"),
        }
    })?;
    out.flush().context("cannot write output")?;
    Ok(code)
}

/// `sudoku-race generate`.
pub fn generate(args: &GenerateArgs) -> anyhow::Result<ExitCode> {
    let seed = args.seed.unwrap_or_else(|| rand::thread_rng().gen());
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut out = BufWriter::new(io::stdout().lock());
    for _ in 0..args.count {
        if args.variant == Variant::Classic {
            let generated = generator::generate(&mut rng, args.difficulty, args.symmetric);
            writeln!(out, "{}", generated.puzzle).context("cannot write output")?;
        } else {
            let generated = generate_in(&mut rng, args.variant, args.difficulty);
            writeln!(out, "{}", text::write(&generated)).context("cannot write output")?;
        }
    }
    out.flush().context("cannot write output")?;
    Ok(ExitCode::SUCCESS)
}

/// `sudoku-race grade`.
pub fn grade(args: &GradeArgs) -> anyhow::Result<ExitCode> {
    let text = read_input(args.puzzle.as_ref(), args.file.as_ref())?;
    let mut out = BufWriter::new(io::stdout().lock());
    let code = for_each_puzzle(&text, args.variant, &mut out, |out, geometry, grid| {
        // Without --explain no step record is needed: the fast path gives the same level and score.
        let grading = if args.explain {
            grader::grade_in(geometry, grid)
        } else {
            grader::grade_max_in(geometry, grid, Level::Extreme).expect("no level is above extreme")
        };
        // When the techniques filled the grid validly it is the only solution (they are sound
        // and assume no uniqueness); otherwise the solver decides.
        let unique = match grading.filled {
            Some(filled) if validator::is_solution_of_in(geometry, grid, &filled) => true,
            _ => count_solutions_in(geometry, grid, 2) == 1,
        };
        if !unique {
            return writeln!(out, "invalid");
        }
        writeln!(out, "{} {}", grading.level, grading.score)?;
        if args.explain {
            for (n, step) in grading.steps.iter().enumerate() {
                writeln!(out, "  {:>3}. {step}", n + 1)?;
            }
        }
        Ok(())
    })?;
    out.flush().context("cannot write output")?;
    Ok(code)
}
