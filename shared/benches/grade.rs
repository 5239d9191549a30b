//! Grader throughput on the shared puzzle sets: prints a table of puzzles per second (median of
//! several runs, parsing included) for `grade_max(.., Extreme)` (no step record: the generator's
//! path) and `grade` (full step record).
//!
//! Time is the thread's CPU time (`/proc/thread-self/schedstat`, Linux) so that other work on a
//! shared machine does not count; wall-clock time where that file is missing.
//!
//! With `variants` (or a variant's name) as the argument, the variants instead (issue 34): puzzles of each variant dug here (a seeded digger of its own:
//! a solution from the geometric solver, relabelled, clues taken away in a random order while
//! the puzzle stays unique; killer cages cut from the solution), graded with `grade_max_in` and
//! `grade_in`, with the levels they got.
//!
//! Run: `cargo bench -p sudoku-race-shared --bench grade` (reads `../shared/data` beside the
//! workspace; an optional argument filters the sets by name; `-- variants` or a variant's name
//! runs the variants' table).

use std::hint::black_box;
use std::time::Instant;

use engine::grader::{grade, grade_in, grade_max, grade_max_in};
use engine::solver::geometric::{count_solutions_in, solutions_in};
use engine::{Cell, Digit, Geometry, Grid, Level, Variant};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

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

/// `g` with every digit `d` written `perm[d - 1]`.
fn relabel(g: &Grid, perm: &[u8; 9]) -> Grid {
    let mut out = *g;
    for c in Cell::all() {
        out.set(
            c,
            g.get(c)
                .and_then(|d| Digit::new(perm[usize::from(d.get()) - 1])),
        );
    }
    out
}

/// A jigsaw: the boxes with three corner cells traded across box edges.
fn jigsaw() -> Geometry {
    let mut labels: Vec<u8> = Cell::all()
        .map(|c| b'0' + ((c.row() / 3) * 3 + c.col() / 3) as u8)
        .collect();
    for (a, b) in [(3, 20), (41, 33), (74, 57)] {
        labels.swap(a, b);
    }
    Geometry::jigsaw(std::str::from_utf8(&labels).expect("ascii")).expect("regions")
}

/// Cages of two to four connected cells (one where no neighbour fits) cut from `solution`.
fn killer(solution: &Grid, rng: &mut impl Rng) -> Geometry {
    let mut taken = [false; 81];
    let mut order: Vec<Cell> = Cell::all().collect();
    order.shuffle(rng);
    let mut cages = Vec::new();
    for start in order {
        if taken[start.idx()] {
            continue;
        }
        let size = rng.gen_range(2..=4);
        let mut cells = vec![start];
        taken[start.idx()] = true;
        while cells.len() < size {
            let used: Vec<Option<Digit>> = cells.iter().map(|&c| solution.get(c)).collect();
            let fits: Vec<Cell> = Cell::all()
                .filter(|n| {
                    !taken[n.idx()]
                        && !used.contains(&solution.get(*n))
                        && cells
                            .iter()
                            .any(|c| c.row().abs_diff(n.row()) + c.col().abs_diff(n.col()) == 1)
                })
                .collect();
            let Some(&n) = fits.choose(rng) else { break };
            taken[n.idx()] = true;
            cells.push(n);
        }
        let sum = cells
            .iter()
            .filter_map(|&c| solution.get(c))
            .map(|d| d.get())
            .sum();
        cages.push((cells, sum));
    }
    Geometry::killer(cages).expect("cages cut from a solution")
}

/// `solution` with clues taken away in a random order while it stays unique under `g`, down
/// to `keep` clues at least.
fn dig(g: &Geometry, solution: &Grid, keep: usize, rng: &mut impl Rng) -> Grid {
    let mut p = *solution;
    let mut cells: Vec<Cell> = Cell::all().collect();
    cells.shuffle(rng);
    for c in cells {
        if p.n_filled() <= keep {
            break;
        }
        let d = p.get(c);
        p.set(c, None);
        if count_solutions_in(g, &p, 2) != 1 {
            p.set(c, d);
        }
    }
    p
}

/// `n` puzzles of `variant` dug down to `keep` clues or as far as uniqueness lets, each with
/// its geometry (seeded).
fn dug(variant: Variant, n: usize, keep: usize) -> Vec<(Geometry, Grid)> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(34);
    let base = match variant {
        Variant::Jigsaw => jigsaw(),
        Variant::X => Geometry::x(),
        Variant::Windoku => Geometry::windoku(),
        _ => Geometry::classic().clone(),
    };
    let first = solutions_in(&base, &Grid::empty(), 1)[0];
    (0..n)
        .map(|_| {
            let mut perm = [1, 2, 3, 4, 5, 6, 7, 8, 9];
            perm.shuffle(&mut rng);
            let solution = relabel(&first, &perm);
            let g = match variant {
                Variant::Killer => killer(&solution, &mut rng),
                _ => base.clone(),
            };
            let p = dig(&g, &solution, keep, &mut rng);
            (g, p)
        })
        .collect()
}

/// Median over `RUNS` runs of puzzles per second for `f` over `puzzles`, as [`rate`].
fn rate_in(puzzles: &[(Geometry, Grid)], mut f: impl FnMut(&Geometry, &Grid) -> u32) -> f64 {
    let mut pass = |reps: usize| {
        let t = Stopwatch::start();
        let mut acc = 0u32;
        for _ in 0..reps {
            for (g, p) in puzzles {
                acc = acc.wrapping_add(f(g, p));
            }
        }
        black_box(acc);
        (t.seconds(), t.wall.elapsed().as_secs_f64())
    };
    let (_, wall) = pass(1);
    let reps = (0.2 / wall.max(1e-6)).ceil().max(1.0) as usize;
    let mut rates: Vec<f64> = (0..RUNS)
        .map(|_| (reps * puzzles.len()) as f64 / pass(reps).0)
        .collect();
    rates.sort_by(f64::total_cmp);
    rates[RUNS / 2]
}

/// The variants' table: dug puzzles of each (minimal, and stopped at 26 clues; killer only
/// minimal), their levels and grading rates.
fn variants(filter: Option<&str>) {
    const N: usize = 20;
    println!("variants: {N} dug puzzles a row (seeded), levels easy/medium/hard/expert/extreme");
    println!(
        "{:<16} {:>4} {:>6} {:>20} {:>16} {:>12}",
        "variant", "n", "clues", "levels", "grade_max_in/s", "grade_in/s"
    );
    for v in [
        Variant::X,
        Variant::Windoku,
        Variant::Jigsaw,
        Variant::Killer,
    ] {
        if filter.is_some_and(|f| f != "variants" && f != v.as_str()) {
            continue;
        }
        let keeps: &[usize] = if v == Variant::Killer { &[0] } else { &[0, 26] };
        for &keep in keeps {
            let puzzles = dug(v, N, keep);
            let mut levels = [0usize; 5];
            let mut clues = 0;
            for (g, p) in &puzzles {
                levels[grade_in(g, p).level as usize] += 1;
                clues += p.n_filled();
            }
            let fast = rate_in(&puzzles, |g, p| {
                grade_max_in(g, p, Level::Extreme).map_or(0, |gr| gr.score)
            });
            let full = rate_in(&puzzles, |g, p| grade_in(g, p).score);
            let name = format!("{v} {}", if keep == 0 { "minimal" } else { "26" });
            let levels = format!("{levels:?}");
            let clues = clues as f64 / N as f64;
            println!("{name:<16} {N:>4} {clues:>6.1} {levels:>20} {fast:>16.0} {full:>12.0}");
        }
    }
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let only_variants = filter
        .as_deref()
        .is_some_and(|f| f == "variants" || f.parse::<Variant>().is_ok());
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data");
    let clock = if cpu_time().is_some() { "cpu" } else { "wall" };
    println!("puzzles per second of {clock} time, median of {RUNS} runs");
    if only_variants {
        variants(filter.as_deref());
        return;
    }
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
