//! `sudoku-race bank`: the browser's solo practice bank, printed as one compact JSON document
//! (`client-web/public/assets/solo/bank.json`, loaded on demand by the solo screen).
//!
//! Per difficulty, `--per` fresh puzzles, each with its solution, its grade and the hints the
//! grader's step record gives: one per empty cell, in the grader's order. The format:
//!
//! ```text
//! {"version":1,
//!  "techniques":["naked single","hidden single",…],          // Technique::ORDER's names
//!  "easy":[{"p":PUZZLE,"s":SOLUTION,"level":"easy","score":S,"h":HINTS,"via":[VIA…]}, …],
//!  "medium":[…],"hard":[…],"expert":[…]}
//! ```
//!
//! `HINTS` is a string of 4-character placements in the grader's order: the cell as two
//! decimal digits (`00`..`80`, row-major), the digit, and the technique that placed it as a
//! letter (`a` + its index in `techniques`). A `VIA` is `[HINT, TECHNIQUE, CELLS, DIGITS]`: before
//! the placement numbered `HINT` the grader needed eliminations, and the hardest of them
//! (highest in the ladder) used `TECHNIQUE` (an index) on the pattern `CELLS` (two decimal
//! digits each, in the step's order) and `DIGITS`, so the page can say "x-wing on 4, then a
//! hidden single at r4c3" and highlight the pattern.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use engine::grader::{self, Step, Technique};
use engine::{generator, Difficulty, Grid};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

/// Arguments of `sudoku-race bank`.
#[derive(Debug, Args)]
pub struct BankArgs {
    /// How many puzzles per difficulty.
    #[arg(long, default_value_t = 25)]
    pub per: usize,
    /// Seed for a reproducible bank (random when absent).
    #[arg(long, short)]
    pub seed: Option<u64>,
}

/// The whole bank, as the page reads it.
#[derive(Debug, Serialize)]
pub struct Bank {
    version: u32,
    techniques: Vec<&'static str>,
    easy: Vec<Entry>,
    medium: Vec<Entry>,
    hard: Vec<Entry>,
    expert: Vec<Entry>,
}

/// One puzzle of the bank.
#[derive(Debug, Serialize)]
pub struct Entry {
    p: String,
    s: String,
    level: &'static str,
    score: u32,
    h: String,
    via: Vec<(usize, usize, String, String)>,
}

/// The technique's index in [`Technique::ORDER`] (the ladder: higher is harder).
fn rank(t: Technique) -> usize {
    Technique::ORDER
        .iter()
        .position(|&o| o == t)
        .expect("every technique is in the ladder")
}

/// The hints of a puzzle from its grader steps: the `h` string and the `via` list.
fn hints(puzzle: &Grid, steps: &[Step]) -> (String, Vec<(usize, usize, String, String)>) {
    let mut h = String::with_capacity(puzzle.n_empty() * 4);
    let mut via = Vec::new();
    let mut done = [false; 81];
    let mut n = 0usize;
    let mut hardest: Option<&Step> = None;
    for step in steps {
        if step.placements.is_empty() {
            if hardest.is_none_or(|was| rank(step.technique) > rank(was.technique)) {
                hardest = Some(step);
            }
            continue;
        }
        for &(cell, digit) in &step.placements {
            if std::mem::replace(&mut done[cell.idx()], true) {
                continue;
            }
            if let Some(v) = hardest.take() {
                let cells = v.cells.iter().map(|c| format!("{:02}", c.idx())).collect();
                let digits = v.digits.iter().map(|d| d.get().to_string()).collect();
                via.push((n, rank(v.technique), cells, digits));
            }
            let letter = char::from(b'a' + rank(step.technique) as u8);
            h.push_str(&format!("{:02}{}{letter}", cell.idx(), digit.get()));
            n += 1;
        }
    }
    (h, via)
}

/// `per` puzzles at `difficulty`, graded, with their hints.
fn entries(rng: &mut impl Rng, difficulty: Difficulty, per: usize) -> Vec<Entry> {
    (0..per)
        .map(|_| {
            let g = generator::generate(rng, difficulty, false);
            let grading = grader::grade(&g.puzzle);
            let (h, via) = hints(&g.puzzle, &grading.steps);
            Entry {
                p: g.puzzle.to_line(),
                s: g.solution.to_line(),
                level: grading.level.as_str(),
                score: grading.score,
                h,
                via,
            }
        })
        .collect()
}

/// The bank for a seed.
pub fn build(per: usize, seed: u64) -> Bank {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    Bank {
        version: 1,
        techniques: Technique::ORDER.iter().map(|t| t.name()).collect(),
        easy: entries(&mut rng, Difficulty::Easy, per),
        medium: entries(&mut rng, Difficulty::Medium, per),
        hard: entries(&mut rng, Difficulty::Hard, per),
        expert: entries(&mut rng, Difficulty::Expert, per),
    }
}

/// `sudoku-race bank`.
pub fn bank(args: &BankArgs) -> anyhow::Result<ExitCode> {
    let seed = args.seed.unwrap_or_else(|| rand::thread_rng().gen());
    let json = serde_json::to_string(&build(args.per, seed)).context("cannot encode the bank")?;
    let mut out = io::stdout().lock();
    writeln!(out, "{json}").context("cannot write output")?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn a_tiny_seeded_bank() {
        let json = serde_json::to_string(&build(1, 7)).expect("encodes");
        assert_eq!(json, serde_json::to_string(&build(1, 7)).expect("encodes"));
        let v: Value = serde_json::from_str(&json).expect("valid json");
        assert_eq!(v["version"], 1);
        assert_eq!(v["techniques"][1], "hidden single");
        assert_eq!(v["techniques"].as_array().map(Vec::len), Some(22));
        for level in ["easy", "medium", "hard", "expert"] {
            let list = v[level].as_array().expect("a list per difficulty");
            assert_eq!(list.len(), 1, "{level}");
            let e = &list[0];
            assert_eq!(e["level"], level);
            let p = e["p"].as_str().expect("puzzle");
            let s = e["s"].as_str().expect("solution");
            assert_eq!((p.len(), s.len()), (81, 81));
            let h = e["h"].as_str().expect("hints");
            assert_eq!(
                h.len(),
                4 * p.bytes().filter(|&b| b == b'.').count(),
                "{level}"
            );
            // The first hint: a cell, its solution digit, a technique letter.
            let cell: usize = h[..2].parse().expect("two digits");
            assert_eq!(p.as_bytes()[cell], b'.');
            assert_eq!(h.as_bytes()[2], s.as_bytes()[cell]);
            assert!(h.as_bytes()[3].is_ascii_lowercase());
            let via = e["via"].as_array().expect("via list");
            assert_eq!(via.is_empty(), level == "easy", "{level}: {via:?}");
        }
    }

    #[test]
    fn hints_name_the_hardest_elimination_before_a_placement() {
        // An x-wing puzzle from the grader's tests would do; any medium puzzle has a via.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let e = &entries(&mut rng, Difficulty::Hard, 1)[0];
        let first = &e.via[0];
        assert!(first.1 >= rank(Technique::Pointing), "{first:?}");
        assert_eq!(first.2.len() % 2, 0);
        assert!(!first.2.is_empty());
        // Every via points at a hint that exists.
        assert!(e.via.iter().all(|v| v.0 < e.h.len() / 4));
    }
}
