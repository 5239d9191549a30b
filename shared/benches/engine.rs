//! Engine benchmarks: a bench binary that prints a table (run with
//! `cargo bench -p sudoku-race-shared --bench engine`).
//!
//! Reads the puzzle sets from `../shared/data` (the handbook folder beside the repository),
//! resolved from `CARGO_MANIFEST_DIR`, or from `$SUDOKU_DATA` when set. Each figure is the median
//! of several runs; every run parses the lines and checks uniqueness, like a whole process would.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use shared::engine::grid::Grid;
use shared::engine::solver;

/// Where the puzzle sets live.
fn data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("SUDOKU_DATA") {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data")
}

/// The non-comment lines of a data file, or `None` when it is missing.
fn read_lines(name: &str) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(data_dir().join(name)).ok()?;
    Some(
        text.lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(str::to_owned)
            .collect(),
    )
}

/// Median of `runs` timings of `f`.
fn median_time(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn bench_solve(name: &str, expect: usize, runs: usize) {
    let Some(lines) = read_lines(name) else {
        println!("{name:<28} missing (looked in {})", data_dir().display());
        return;
    };
    let mut wrong = 0;
    let t = median_time(runs, || {
        wrong = 0;
        for line in &lines {
            let grid = Grid::parse(line).expect("data files hold valid lines");
            let n = solver::count_solutions(&grid, 2);
            if n != expect {
                wrong += 1;
            }
        }
    });
    let rate = lines.len() as f64 / t.as_secs_f64();
    println!(
        "solve {name:<28} {:>7} puzzles {:>10.0} /s  {:>8.2} us/puzzle  wrong={wrong}",
        lines.len(),
        rate,
        1e6 / rate
    );
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let want = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    println!("data: {}", data_dir().display());
    for (set, expect, runs) in [
        ("17_clue_49158.txt", 1, 5),
        ("magictour_top1465.txt", 1, 7),
        ("forum_hardest_1106.txt", 1, 7),
        ("serg_benchmark_10000.txt", 2, 5),
        ("qqwing_expert_500.txt", 1, 9),
    ] {
        if want(set) {
            bench_solve(set, expect, runs);
        }
    }
}
