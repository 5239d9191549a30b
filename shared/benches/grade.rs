//! Grader throughput on the shared puzzle sets: prints a table of puzzles per second (median of
//! several runs, parsing included) for `grade_max(.., Extreme)` (no step record: the generator's
//! path) and `grade` (full step record).
//!
//! Time is the thread's CPU time (`/proc/thread-self/schedstat`, Linux) so that other work on a
//! shared machine does not count; wall-clock time where that file is missing.
//!
//! Run: `cargo bench -p sudoku-race-shared --bench grade` (reads `../shared/data` beside the
//! workspace; an optional argument filters the sets by name).

use std::hint::black_box;
use std::time::Instant;

use engine::grader::{grade, grade_max};
use engine::{Grid, Level};

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

/// This thread's CPU time in seconds, if the OS tells.
fn cpu_time() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// A stopwatch on CPU time, or wall time without it.
struct Stopwatch {
    wall: Instant,
    cpu: Option<f64>,
}

impl Stopwatch {
    fn start() -> Stopwatch {
        Stopwatch {
            wall: Instant::now(),
            cpu: cpu_time(),
        }
    }

    fn seconds(&self) -> f64 {
        match (self.cpu, cpu_time()) {
            (Some(a), Some(b)) => b - a,
            _ => self.wall.elapsed().as_secs_f64(),
        }
    }
}

/// Median over `RUNS` runs of puzzles per second for `f` over all `lines`. A run grades the
/// set as many times as fills about 0.2 s (the CPU clock ticks coarsely).
fn rate(lines: &[&str], mut f: impl FnMut(&Grid) -> u32) -> f64 {
    let mut pass = |reps: usize| {
        let t = Stopwatch::start();
        let mut acc = 0u32;
        for _ in 0..reps {
            for l in lines {
                if let Ok(g) = Grid::parse(l) {
                    acc = acc.wrapping_add(f(&g));
                }
            }
        }
        black_box(acc);
        (t.seconds(), t.wall.elapsed().as_secs_f64())
    };
    let (_, wall) = pass(1);
    let reps = (0.2 / wall.max(1e-6)).ceil().max(1.0) as usize;
    let mut rates: Vec<f64> = (0..RUNS)
        .map(|_| (reps * lines.len()) as f64 / pass(reps).0)
        .collect();
    rates.sort_by(f64::total_cmp);
    rates[RUNS / 2]
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data");
    let clock = if cpu_time().is_some() { "cpu" } else { "wall" };
    println!("puzzles per second of {clock} time, median of {RUNS} runs");
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
