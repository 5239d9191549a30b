//! The engine's integration tests: the solver on the data sets, and property tests of the
//! solver, transforms, validator and generator.

use std::path::PathBuf;

use engine::generator::{self, Generated};
use engine::grid::{Cell, Digit, Grid};
use engine::transform::Transform;
use engine::{grader, solver, validator, Difficulty, Level};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn data_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The puzzle lines of a test data file.
fn puzzles(name: &str) -> Vec<Grid> {
    let path = data_path(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| Grid::parse(l).unwrap_or_else(|e| panic!("{name}: {e}: {l}")))
        .collect()
}

#[track_caller]
fn check_known_solutions(set: &str) {
    let set_puzzles = puzzles(&format!("{set}.txt"));
    let solutions = puzzles(&format!("{set}_solutions.txt"));
    assert_eq!(set_puzzles.len(), solutions.len());
    for (p, s) in set_puzzles.iter().zip(&solutions) {
        assert_eq!(solver::solve_unique(p), Ok(*s), "{set}: {p}");
        assert!(validator::is_solution_of(p, s));
    }
}

#[test]
fn solver_agrees_with_known_solutions() {
    check_known_solutions("emerentius_easy");
    check_known_solutions("emerentius_medium");
    check_known_solutions("emerentius_hard");
}

#[track_caller]
fn check_counts(name: &str, expected: usize) {
    let set = puzzles(name);
    assert!(!set.is_empty());
    for p in &set {
        assert_eq!(solver::count_solutions(p, 2), expected, "{name}: {p}");
        let one = solver::solve_one(p).expect("has a solution");
        assert!(validator::is_solution_of(p, &one), "{name}: {p}");
        if expected == 1 {
            assert_eq!(solver::solve_unique(p), Ok(one));
        } else {
            assert_eq!(solver::solve_unique(p), Err(solver::SolveError::Multiple));
        }
    }
}

#[test]
fn solver_is_right_on_the_sampled_sets() {
    check_counts("17_clue_sample.txt", 1);
    check_counts("top1465_sample.txt", 1);
    check_counts("forum_hardest_sample.txt", 1);
    check_counts("forum_hardest_1905_sample.txt", 1);
    check_counts("serg_sample.txt", 2);
}

#[test]
fn solver_counts_small_solution_sets_exactly() {
    // Random holes in a full grid: often several solutions; compare with a brute-force count.
    let solution = solver::random_solution(&mut Xoshiro256PlusPlus::seed_from_u64(5));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(6);
    for _ in 0..200 {
        let mut bytes = *solution.as_bytes();
        for _ in 0..rng.gen_range(40..60) {
            bytes[rng.gen_range(0..81)] = 0;
        }
        let puzzle = Grid::from_bytes(bytes).expect("digits");
        let all = solver::count_solutions(&puzzle, 1_000);
        assert!(all >= 1);
        for limit in [1, 2, 3] {
            assert_eq!(solver::count_solutions(&puzzle, limit), all.min(limit));
        }
        assert_eq!(brute_count(&mut bytes.clone(), 1_000), all, "{puzzle}");
    }
}

/// A plain backtracking count, for cross-checking.
fn brute_count(bytes: &mut [u8; 81], limit: usize) -> usize {
    let Some(cell) = bytes.iter().position(|&d| d == 0) else {
        return 1;
    };
    let mut count = 0;
    for d in 1..=9u8 {
        let grid = Grid::from_bytes(*bytes).expect("digits");
        let c = Cell::new(cell as u8).expect("cell");
        let digit = Digit::new(d).expect("digit");
        if validator::placement_conflicts(&grid, c, digit).is_empty() {
            bytes[cell] = d;
            count += brute_count(bytes, limit - count);
            bytes[cell] = 0;
            if count >= limit {
                break;
            }
        }
    }
    count
}

/// A random board: a random complete grid with some cells emptied and some overwritten.
fn random_board(seed: u64, n_empty: usize, n_changed: usize) -> Grid {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let solution = solver::random_solution(&mut rng);
    let mut bytes = *solution.as_bytes();
    for _ in 0..n_empty {
        bytes[rng.gen_range(0..81)] = 0;
    }
    for _ in 0..n_changed {
        bytes[rng.gen_range(0..81)] = rng.gen_range(1..=9);
    }
    Grid::from_bytes(bytes).expect("digits")
}

/// The puzzles (first column) of a QQWing stats sample.
fn qqwing_puzzles(name: &str) -> Vec<Grid> {
    let path = data_path(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .skip(1)
        .filter_map(|l| l.split(',').next())
        .map(|p| Grid::parse(p).unwrap_or_else(|e| panic!("{name}: {e}: {p}")))
        .collect()
}

/// The rows of a QQWing stats sample: puzzle, and the columns after it.
fn qqwing_rows(name: &str) -> Vec<(Grid, Vec<String>)> {
    let path = data_path(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .skip(1)
        .map(|l| {
            let mut cols = l.split(',').map(str::to_owned);
            let p = cols.next().unwrap_or_default();
            let grid = Grid::parse(&p).unwrap_or_else(|e| panic!("{name}: {e}: {p}"));
            (grid, cols.collect())
        })
        .collect()
}

#[test]
fn propagation_levels_nest_and_match_qqwing() {
    for level in ["simple", "easy", "intermediate", "expert"] {
        for (p, cols) in qqwing_rows(&format!("qqwing_{level}_sample_stats.csv")) {
            let singles = solver::solves_by_singles(&p);
            let locked = solver::solves_by_locked_candidates(&p);
            assert!(!singles || locked, "{p}");
            let grade = grader::grade(&p).level;
            assert_eq!(singles, grade == Level::Easy, "{p}");
            assert!(!locked || grade <= Level::Medium, "{p}");
            // QQWing: columns Naked Pairs, Hidden Pairs (indices 3, 4 after the puzzle), rating.
            let no_pairs = cols[3] == "0" && cols[4] == "0";
            match cols[9].as_str() {
                "Simple" | "Easy" => assert!(singles, "{p}"),
                "Intermediate" if no_pairs => assert!(locked && !singles, "{p}"),
                _ => {}
            }
        }
    }
}

#[track_caller]
fn check_generated(g: &Generated, difficulty: Difficulty, symmetric: bool) {
    let p = &g.puzzle;
    assert_eq!(solver::solve_unique(p), Ok(g.solution), "{p}");
    assert!(validator::is_solution_of(p, &g.solution));
    assert_eq!(g.grading.level, Level::from(difficulty), "{p}");
    // The full grading (with its step record) agrees with the generator's fast path.
    let full = grader::grade(p);
    assert_eq!(full.level, Level::from(difficulty), "{p}");
    assert_eq!(full.score, g.grading.score, "{p}");
    if symmetric {
        let b = p.as_bytes();
        assert!((0..81).all(|c| (b[c] == 0) == (b[80 - c] == 0)), "{p}");
    }
}

#[test]
fn generator_is_reproducible_and_fresh() {
    for difficulty in Difficulty::ALL {
        let mut a = Xoshiro256PlusPlus::seed_from_u64(42);
        let mut b = Xoshiro256PlusPlus::seed_from_u64(42);
        let first = generator::generate(&mut a, difficulty, false);
        assert_eq!(first, generator::generate(&mut b, difficulty, false));
        let second = generator::generate(&mut a, difficulty, false);
        assert_ne!(first.puzzle, second.puzzle);
        assert_ne!(first.solution, second.solution);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn generated_puzzles_are_unique_at_the_level_asked(seed in any::<u64>(), symmetric in any::<bool>()) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        for difficulty in Difficulty::ALL {
            let g = generator::generate(&mut rng, difficulty, symmetric);
            check_generated(&g, difficulty, symmetric);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn transforms_keep_the_grade(idx in 0usize..400, seed in any::<u64>()) {
        let sets = ["qqwing_simple_sample_stats.csv", "qqwing_easy_sample_stats.csv",
            "qqwing_intermediate_sample_stats.csv", "qqwing_expert_sample_stats.csv"];
        let set = qqwing_puzzles(sets[idx % 4]);
        let p = &set[(idx / 4) % set.len()];
        let t = Transform::random(&mut Xoshiro256PlusPlus::seed_from_u64(seed));
        let q = t.apply(p);
        prop_assert_eq!(solver::count_solutions(&q, 2), 1);
        prop_assert_eq!(grader::grade(&q).level, grader::grade(p).level, "{} -> {}", p, q);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn transforms_keep_the_solution_count(idx in 0usize..200, seed in any::<u64>()) {
        let serg = puzzles("serg_sample.txt");
        let hard = puzzles("top1465_sample.txt");
        let t = Transform::random(&mut Xoshiro256PlusPlus::seed_from_u64(seed));
        for p in [&serg[idx % serg.len()], &hard[idx % hard.len()]] {
            let q = t.apply(p);
            prop_assert_eq!(q.n_filled(), p.n_filled());
            prop_assert_eq!(solver::count_solutions(&q, 10), solver::count_solutions(p, 10));
        }
        let p = &hard[idx % hard.len()];
        let s = solver::solve_unique(p).expect("unique");
        prop_assert_eq!(solver::solve_unique(&t.apply(p)), Ok(t.apply(&s)));
    }

    #[test]
    fn validator_agrees_with_the_solver(seed in any::<u64>(), n_empty in 0usize..50, n_changed in 0usize..3) {
        let board = random_board(seed, n_empty, n_changed);
        let conflicts = validator::conflicts(&board);
        if !conflicts.is_empty() {
            prop_assert_eq!(solver::count_solutions(&board, 1), 0);
        }
        if board.is_full() {
            let valid = validator::is_complete_solution(&board);
            prop_assert_eq!(valid, conflicts.is_empty());
            prop_assert_eq!(valid, solver::count_solutions(&board, 2) == 1);
        } else {
            prop_assert!(!validator::is_complete_solution(&board));
        }
        // A cell clashes exactly when removing it and placing it back reports a clash.
        for cell in Cell::all() {
            let Some(digit) = board.get(cell) else { continue };
            let mut without = board;
            without.set(cell, None);
            let clashes = validator::placement_conflicts(&without, cell, digit);
            prop_assert_eq!(!clashes.is_empty(), conflicts.contains(&cell));
            for other in clashes {
                prop_assert!(conflicts.contains(&other));
            }
        }
    }
}
