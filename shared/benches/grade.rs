//! Grader throughput on the shared puzzle sets: prints a table of puzzles per second (median of
//! several runs, parsing included) for `grade_max(.., Extreme)` (no step record: the generator's
//! path) and `grade` (full step record).
//!
//! Run: `cargo bench -p sudoku-race-shared --bench grade` (reads `../shared/data` beside the
//! workspace; an optional argument filters the sets by name).

use std::hint::black_box;
use std::time::Instant;

use shared::engine::grader::{grade, grade_max};
use shared::engine::{Grid, Level};

const SETS: [&str; 7] = [
    "qqwing_simple_500.txt",
    "qqwing_easy_500.txt",
    "qqwing_intermediate_500.txt",
    "qqwing_expert_500.txt",
    "emerentius_hard.txt",
    "magictour_top1465.txt",
    "forum_hardest_1106.txt",
];

const RUNS: usize = 7;

/// Median over `RUNS` runs of puzzles per second for `f` over all `lines`.
fn rate(lines: &[&str], mut f: impl FnMut(&Grid) -> u32) -> f64 {
    let mut rates: Vec<f64> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            let mut acc = 0u32;
            for l in lines {
                if let Ok(g) = Grid::parse(l) {
                    acc = acc.wrapping_add(f(&g));
                }
            }
            black_box(acc);
            lines.len() as f64 / t.elapsed().as_secs_f64()
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    rates[RUNS / 2]
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data");
    println!(
        "{:<28} {:>6} {:>16} {:>14}",
        "set", "n", "grade_max/s", "grade/s"
    );
    for set in SETS {
        if filter.as_deref().is_some_and(|f| !set.contains(f)) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(format!("{dir}/{set}")) else {
            println!("{set:<28} (missing in {dir})");
            continue;
        };
        let lines: Vec<&str> = text.lines().filter(|l| l.len() >= 81).collect();
        let fast = rate(&lines, |g| {
            grade_max(g, Level::Extreme).map_or(0, |gr| gr.score)
        });
        let full = rate(&lines, |g| grade(g).score);
        println!("{set:<28} {:>6} {fast:>16.0} {full:>14.0}", lines.len());
    }
}
