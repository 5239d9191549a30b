//! The pool's matcher on one tick: `form_races` over 1,000 and 10,000 waiting players
//! (`cargo bench -p sudoku-race-server --bench matcher`). Target: under 5 ms per call for
//! 10,000 on the 2-core machine (docs/benchmarks.md).
//!
//! - `mixed`: ratings uniform over 0..3,000, one player in five anonymous, one in twenty in a
//!   rematch chain (of about four), waits uniform over 0..20 s: most races form.
//! - `apart`: identified players 1,000 rating points apart and waiting 1 s: nobody can be
//!   seated, so every player is an anchor that looks at its neighbours and finds nothing.
//!
//! Inputs are seeded, so every run measures the same calls.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use server::pool::matcher::{form_races, Rules, Waiting};

const NOW_MS: u64 = 100_000;

fn mixed(n: usize, rng: &mut impl Rng) -> Vec<Waiting> {
    (0..n as u64)
        .map(|id| Waiting {
            id,
            rating: (!rng.gen_bool(0.2)).then(|| rng.gen_range(0.0..3000.0)),
            since_ms: NOW_MS - rng.gen_range(0..20_000),
            chain: rng
                .gen_bool(0.05)
                .then(|| rng.gen_range(0..n as u64 / 80 + 1)),
        })
        .collect()
}

fn apart(n: usize) -> Vec<Waiting> {
    (0..n as u64)
        .map(|id| Waiting {
            id,
            rating: Some(1000.0 * id as f64),
            since_ms: NOW_MS - 1_000,
            chain: None,
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let rules = Rules::default();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(20);
    let mut group = c.benchmark_group("form_races");
    for n in [1_000, 10_000] {
        let waiting = mixed(n, &mut rng);
        group.bench_with_input(BenchmarkId::new("mixed", n), &waiting, |b, w| {
            b.iter(|| form_races(w, NOW_MS, &rules))
        });
        let waiting = apart(n);
        group.bench_with_input(BenchmarkId::new("apart", n), &waiting, |b, w| {
            b.iter(|| form_races(w, NOW_MS, &rules))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
