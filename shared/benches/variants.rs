//! Variant benchmarks (issue 34): a bench binary that prints a table (run with
//! `cargo bench -p sudoku-race-shared --bench variants [FILTER]`; the filter picks rows by
//! variant or difficulty name, e.g. `killer` or `medium`).
//!
//! For every variant and difficulty: fresh puzzles generated (seeded, one core), puzzles per
//! second of wall time as the median of `RUNS` runs; then, on the puzzles generated, solving
//! (the first solution) and counting to two solutions with the geometric solver, its tables
//! compiled per puzzle (every jigsaw and killer puzzle has its own geometry), median of
//! several passes. Mean givens and mean cage count (killer) describe the set.

use std::time::Instant;

use engine::generator::variant::{generate_in, VariantPuzzle};
use engine::solver::geometric::Solver;
use engine::{Difficulty, Variant};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Runs per row (the median is shown).
const RUNS: usize = 3;

/// The median of `xs`.
fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// How many puzzles a generation run makes: enough for about a second at the expected rate.
fn count_for(variant: Variant, difficulty: Difficulty) -> usize {
    match (variant, difficulty) {
        (Variant::Classic, _) => 400,
        (_, Difficulty::Easy) => 200,
        // The slowest rows (a few puzzles a second with the grader deciding the level).
        (_, Difficulty::Expert) | (Variant::Jigsaw, Difficulty::Hard) => 12,
        (Variant::Killer, _) => 30,
        _ => 60,
    }
}

fn bench(variant: Variant, difficulty: Difficulty) {
    let n = count_for(variant, difficulty);
    let mut set: Vec<VariantPuzzle> = Vec::new();
    let gen_rates: Vec<f64> = (0..RUNS)
        .map(|run| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(2026 + run as u64);
            let start = Instant::now();
            let made: Vec<VariantPuzzle> = (0..n)
                .map(|_| generate_in(&mut rng, variant, difficulty))
                .collect();
            let rate = n as f64 / start.elapsed().as_secs_f64();
            set = made;
            rate
        })
        .collect();
    let rate_of = |f: &dyn Fn(&VariantPuzzle) -> usize| {
        median(
            (0..5)
                .map(|_| {
                    let start = Instant::now();
                    let mut total = 0;
                    for p in &set {
                        total += std::hint::black_box(f(std::hint::black_box(p)));
                    }
                    assert_eq!(total, set.len(), "every generated puzzle is unique");
                    set.len() as f64 / start.elapsed().as_secs_f64()
                })
                .collect(),
        )
    };
    let solve = rate_of(&|p| Solver::new(&p.geometry).solutions(&p.puzzle, 1).len());
    let count = rate_of(&|p| Solver::new(&p.geometry).count(&p.puzzle, 2));
    let givens = set.iter().map(|p| p.puzzle.n_filled()).sum::<usize>() as f64 / n as f64;
    let cages = set
        .iter()
        .map(|p| p.geometry.constraints().len())
        .sum::<usize>() as f64
        / n as f64;
    println!(
        "| {variant} | {difficulty} | {n} | {:.0} | {solve:.0} | {count:.0} | {givens:.1} | {cages:.1} |",
        median(gen_rates),
    );
}

fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    println!("| variant | difficulty | puzzles a run | generated/s | solved/s | counted to 2/s | mean givens | mean cages |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for variant in Variant::ALL {
        for difficulty in Difficulty::ALL {
            let names = [variant.as_str(), difficulty.as_str()];
            if filter.iter().all(|f| names.contains(&f.as_str())) {
                bench(variant, difficulty);
            }
        }
    }
}
