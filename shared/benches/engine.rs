//! Engine benchmarks: a bench binary that prints a table (run with
//! `cargo bench -p sudoku-race-shared --bench engine [FILTER]`; the filter picks rows by name,
//! e.g. `top1465` or `generate`).
//!
//! - `solve`: every puzzle of a set parsed and counted up to 2 solutions (uniqueness checked),
//!   one core; the sets are read from `../shared/data` (the handbook folder beside the
//!   repository), resolved from `CARGO_MANIFEST_DIR`, or from `$SUDOKU_DATA` when set.
//! - `generate`: fresh graded puzzles per second per level, plain and symmetric.
//! - `check`: the rules checks a race runs per move or per finish (`conflicts`, a
//!   placement's conflicts, a complete-solution check) and a transform's `apply`, over
//!   top1465's puzzles and solved grids.
//!
//! Each figure is the median of several runs. (The grader has its own bench: `--bench grade`.)

use std::path::PathBuf;
use std::time::{Duration, Instant};

use engine::grid::Grid;
use engine::transform::Transform;
use engine::{generator, solver, validator, Cell, Difficulty, Digit};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

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

/// CPU time of this process so far, in seconds (Linux `/proc/self/stat`, 100 ticks a second);
/// `None` elsewhere.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = stat.rsplit_once(") ")?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Timings of `runs` calls of `f`: the median wall time, and the CPU time per run (all runs
/// together, so the 10 ms ticks average out). The machine is shared: wall time includes waiting
/// for a core, CPU time does not.
struct Timing {
    wall: Duration,
    cpu: Option<f64>,
}

fn median_time(runs: usize, mut f: impl FnMut()) -> Timing {
    let cpu_start = cpu_seconds();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    let cpu = match (cpu_start, cpu_seconds()) {
        (Some(a), Some(b)) => Some((b - a) / runs as f64),
        _ => None,
    };
    times.sort();
    Timing {
        wall: times[times.len() / 2],
        cpu,
    }
}

/// `N /s (wall median), N /s (cpu)`.
fn rates(n: usize, t: &Timing) -> String {
    let wall = n as f64 / t.wall.as_secs_f64();
    match t.cpu {
        Some(cpu) if cpu > 0.0 => format!("{wall:>9.0} /s wall  {:>9.0} /s cpu", n as f64 / cpu),
        _ => format!("{wall:>9.0} /s wall"),
    }
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
    println!(
        "solve {name:<28} {:>7} puzzles {}  wrong={wrong}",
        lines.len(),
        rates(lines.len(), &t)
    );
}

fn bench_generate(difficulty: Difficulty, symmetric: bool, count: usize, runs: usize) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2026);
    let mut clues = 0;
    let t = median_time(runs, || {
        clues = 0;
        for _ in 0..count {
            clues += generator::generate(&mut rng, difficulty, symmetric)
                .puzzle
                .n_filled();
        }
    });
    let name = format!("{difficulty}{}", if symmetric { " symmetric" } else { "" });
    println!(
        "generate {name:<25} {count:>7} puzzles {}  clues={:.1}",
        rates(count, &t),
        clues as f64 / count as f64
    );
}

/// Times `op` over `items` (`reps` passes a run) and prints its rate per item.
fn bench_check<T>(name: &str, items: &[T], reps: usize, mut op: impl FnMut(&T) -> usize) {
    let mut hits = 0;
    let t = median_time(15, || {
        hits = 0;
        for _ in 0..reps {
            for item in items {
                hits += std::hint::black_box(op(std::hint::black_box(item)));
            }
        }
    });
    println!(
        "check {name:<28} {:>7} calls   {}  hits={hits}",
        items.len() * reps,
        rates(items.len() * reps, &t)
    );
}

fn bench_checks() {
    let Some(lines) = read_lines("magictour_top1465.txt") else {
        println!(
            "check: magictour_top1465.txt missing (looked in {})",
            data_dir().display()
        );
        return;
    };
    let puzzles: Vec<Grid> = lines
        .iter()
        .map(|l| Grid::parse(l).expect("data files hold valid lines"))
        .collect();
    let solutions: Vec<Grid> = puzzles.iter().filter_map(solver::solve_one).collect();
    // A placement per puzzle: its first empty cell, each digit.
    let moves: Vec<(Grid, Cell, Digit)> = puzzles
        .iter()
        .filter_map(|p| Cell::all().find(|&c| p.get(c).is_none()).map(|c| (*p, c)))
        .flat_map(|(p, c)| Digit::all().map(move |d| (p, c, d)))
        .collect();
    let t = Transform::random(&mut Xoshiro256PlusPlus::seed_from_u64(7));
    bench_check("conflicts", &puzzles, 20, |g| validator::conflicts(g).len());
    bench_check("placement_conflicts", &moves, 60, |(g, c, d)| {
        validator::placement_conflicts(g, *c, *d).len()
    });
    bench_check("is_complete_solution", &solutions, 150, |g| {
        usize::from(validator::is_complete_solution(g))
    });
    bench_check("transform apply", &solutions, 100, |g| {
        usize::from(t.apply(g).as_bytes()[0])
    });
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
    if want("check") {
        bench_checks();
    }
    for (difficulty, count) in [
        (Difficulty::Easy, 4000),
        (Difficulty::Medium, 2000),
        (Difficulty::Hard, 1000),
        (Difficulty::Expert, 500),
    ] {
        for symmetric in [false, true] {
            if want(&format!("generate {difficulty}")) {
                bench_generate(difficulty, symmetric, count, 5);
            }
        }
    }
}
