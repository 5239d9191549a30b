//! The DPLL counter against the bitboard solver (an independent oracle), and its AVX2 path
//! against its portable path: counts, first solutions and guess counts must agree.

use rand::{Rng, SeedableRng};

use super::super::state::State as BitboardState;
use super::super::{random_solution, Search};
use super::{count, count_with, has, portable_search, Kind, Outcome};
use crate::grid::Grid;

/// The bitboard solver's count, up to `limit`.
fn bitboard_count(grid: &Grid, limit: usize) -> usize {
    let Some(mut state) = BitboardState::from_grid(grid) else {
        return 0;
    };
    let mut search = Search {
        limit,
        count: 0,
        first: None,
        rng: None,
    };
    search.run(&mut state);
    search.count
}

/// The puzzles of a file in `tests/data`.
fn sample(name: &str) -> Vec<Grid> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| Grid::parse(l).unwrap_or_else(|e| panic!("{name}: {e}")))
        .collect()
}

/// The same puzzle through every path this CPU has.
#[track_caller]
fn check_paths(grid: &Grid, limit: usize) -> Outcome {
    let portable = portable_search::solve(grid.as_bytes(), limit, true);
    for kind in [Kind::Avx512, Kind::Avx2].into_iter().filter(|&k| has(k)) {
        let fast = count_with(kind, grid.as_bytes(), limit, true);
        assert_eq!(
            fast, portable,
            "{kind:?} vs portable, limit {limit}: {grid:?}"
        );
    }
    portable
}

/// Both paths agree with each other and with the bitboard solver; a first solution solves.
#[track_caller]
fn check(grid: &Grid, limit: usize) {
    let outcome = check_paths(grid, limit);
    assert_eq!(outcome, count(grid.as_bytes(), limit, true), "{grid:?}");
    assert_eq!(
        outcome.count,
        bitboard_count(grid, limit),
        "limit {limit}: {grid:?}"
    );
    match outcome.first {
        Some(first) => {
            let solved = Grid::from_bytes(first).expect("digits");
            assert!(solved.is_full(), "{grid:?}");
            assert_eq!(bitboard_count(&solved, 2), 1, "a valid grid: {grid:?}");
            let keeps_givens = grid
                .as_bytes()
                .iter()
                .zip(&first)
                .all(|(&g, &s)| g == 0 || g == s);
            assert!(keeps_givens, "{grid:?}");
        }
        None => assert_eq!(outcome.count, 0, "{grid:?}"),
    }
}

#[test]
fn agrees_on_the_sampled_sets() {
    for name in [
        "17_clue_sample.txt",
        "top1465_sample.txt",
        "forum_hardest_sample.txt",
        "forum_hardest_1905_sample.txt",
        "serg_sample.txt",
        "emerentius_hard.txt",
    ] {
        for grid in sample(name) {
            for limit in [1, 2, 3] {
                check(&grid, limit);
            }
        }
    }
}

#[test]
fn counts_empty_unsat_and_clashing_grids() {
    let empty = Grid::empty();
    for limit in [1, 2, 17, 100] {
        check(&empty, limit);
        assert_eq!(count(empty.as_bytes(), limit, false).count, limit);
    }
    assert_eq!(count(empty.as_bytes(), 0, false).count, 0);
    for line in [
        // r1c9 can hold nothing.
        "12345678.........9...............................................................",
        // Two 5s in a row, in a column, in a box (same mini-row and not).
        "55...............................................................................",
        "5........5.......................................................................",
        ".5........5......................................................................",
        "5.........5......................................................................",
    ] {
        let grid = Grid::parse(line).expect("test grid");
        check(&grid, 2);
        assert_eq!(count(grid.as_bytes(), 2, false).count, 0, "{line}");
    }
}

/// A random puzzle: `givens` cells of a random solution, sometimes one of them changed (often
/// unsatisfiable, sometimes clashing).
fn random_puzzle(rng: &mut impl Rng, givens: usize) -> Grid {
    let solution = random_solution(rng);
    let mut bytes = [0u8; 81];
    let mut cells: Vec<usize> = (0..81).collect();
    for k in 0..givens {
        let pick = rng.gen_range(k..81);
        cells.swap(k, pick);
        bytes[cells[k]] = solution.as_bytes()[cells[k]];
    }
    if rng.gen_bool(0.3) {
        bytes[cells[0]] = rng.gen_range(1..=9);
    }
    Grid::from_bytes(bytes).expect("digits")
}

#[test]
fn agrees_on_random_puzzles() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(24);
    for round in 0..3000 {
        let givens = 17 + round % 40;
        let grid = random_puzzle(&mut rng, givens);
        check(&grid, 1 + round % 4);
    }
}
