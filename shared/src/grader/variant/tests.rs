//! The variant grader: the classic geometry gives the classic grading, its house code walked
//! over classic's houses agrees with the classic grader, handmade boards use the variants'
//! houses and cages, and on dug puzzles of every variant every step is sound and the grading
//! does not depend on the digits' labels.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::super::step::Area;
use super::super::testing::check_sound;
use super::super::{grade, grade_in, grade_max, grade_max_in, hint, hint_in};
use super::*;
use crate::grid::{Cell, Digit};
use crate::solver::geometric::{count_solutions_in, solutions_in};

fn at(r: u8, c: u8) -> Cell {
    Cell::at(r, c).expect("cell")
}

fn grid(line: &str) -> Grid {
    line.parse().expect("grid")
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

fn shuffled_digits(rng: &mut impl Rng) -> [u8; 9] {
    let mut perm = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    perm.shuffle(rng);
    perm
}

/// The test's jigsaw: the boxes with three corner cells traded across box edges.
fn jigsaw() -> Geometry {
    let mut labels: Vec<u8> = Cell::all()
        .map(|c| b'0' + ((c.row() / 3) * 3 + c.col() / 3) as u8)
        .collect();
    for (a, b) in [(3, 20), (41, 33), (74, 57)] {
        labels.swap(a, b);
    }
    Geometry::jigsaw(std::str::from_utf8(&labels).expect("ascii")).expect("regions")
}

/// Cages cut from `solution`: connected, of one to four cells, distinct digits.
fn killer(solution: &Grid, sizes: std::ops::RangeInclusive<usize>, rng: &mut impl Rng) -> Geometry {
    let mut taken = [false; 81];
    let mut order: Vec<Cell> = Cell::all().collect();
    order.shuffle(rng);
    let mut cages = Vec::new();
    for start in order {
        if taken[start.idx()] {
            continue;
        }
        let size = rng.gen_range(sizes.clone());
        let mut cells = vec![start];
        taken[start.idx()] = true;
        while cells.len() < size {
            let used: Vec<Option<Digit>> = cells.iter().map(|&c| solution.get(c)).collect();
            let next = Cell::all().filter(|n| {
                !taken[n.idx()]
                    && !used.contains(&solution.get(*n))
                    && cells
                        .iter()
                        .any(|c| c.row().abs_diff(n.row()) + c.col().abs_diff(n.col()) == 1)
            });
            let Some(n) = next.collect::<Vec<_>>().choose(rng).copied() else {
                break;
            };
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

/// `solution` with clues taken away in a random order while the puzzle stays unique, down to
/// `keep` clues at least.
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

/// Grade `puzzle` under `g` and check every step against `solution`; the grading.
#[track_caller]
fn check_graded(g: &Geometry, puzzle: &Grid, solution: &Grid) -> super::super::Grading {
    let grading = grade_in(g, puzzle);
    check_sound(solution, &grading.steps);
    if grading.level < Level::Extreme {
        assert_eq!(grading.filled, Some(*solution), "{}", puzzle.to_line());
    }
    let fast = grade_max_in(g, puzzle, Level::Extreme).expect("extreme is the top");
    assert_eq!((fast.level, fast.score), (grading.level, grading.score));
    if let Some(step) = hint_in(g, puzzle) {
        check_sound(solution, &[step]);
    }
    grading
}

#[test]
fn a_classic_geometry_gives_the_classic_grading() {
    let text = include_str!("../../../tests/data/grader/qqwing_expert_500.txt");
    for line in text.lines().filter(|l| l.len() >= 81).take(20) {
        let p = grid(line);
        let classic = Geometry::classic();
        assert_eq!(grade_in(classic, &p), grade(&p));
        for max in [Level::Easy, Level::Medium, Level::Hard, Level::Expert] {
            assert_eq!(grade_max_in(classic, &p, max), grade_max(&p, max));
        }
        assert_eq!(hint_in(classic, &p), hint(&p));
    }
}

#[test]
fn the_house_code_over_classic_houses_grades_as_the_classic_grader() {
    // The variant ladder walked over classic's houses: every step sound, the same levels.
    let text = include_str!("../../../tests/data/grader/qqwing_expert_500.txt");
    let (mut same, mut n) = (0, 0);
    for line in text.lines().filter(|l| l.len() >= 81).step_by(10) {
        let p = grid(line);
        let out = run(Geometry::classic(), &p, Level::Extreme, true);
        let solution = crate::solver::solve_one(&p).expect("solvable");
        check_sound(&solution, &out.steps);
        same += usize::from(out.level == grade(&p).level);
        n += 1;
    }
    assert_eq!(same, n);
}

#[test]
fn an_x_diagonal_gives_a_hidden_single_that_classic_does_not() {
    // 1s block every cell of the main diagonal but r9c9 through rows and columns.
    let mut board = Grid::empty();
    for (r, c) in [(0, 1), (2, 3), (4, 5), (6, 0), (1, 7)] {
        board.set(at(r, c), Digit::new(1));
    }
    let step = hint_in(&Geometry::x(), &board).expect("a step");
    assert_eq!(step.technique, Technique::HiddenSingle);
    assert_eq!(step.placements, [(at(8, 8), Digit::new(1).expect("digit"))]);
    assert_eq!(step.area, Some(Area::Diagonal(0)));
    assert_ne!(hint(&board).map(|s| s.placements), Some(step.placements));
}

#[test]
fn killer_cages_give_their_sums_and_combinations() {
    // r1c1 alone makes 7; r1c2+r1c3 make 3 (1 and 2); the rest of row 1 is one cage of 35.
    let rest: Vec<Cell> = (3..9).map(|c| at(0, c)).collect();
    let cages = vec![
        (vec![at(0, 0)], 7),
        (vec![at(0, 1), at(0, 2)], 3),
        (rest, 35),
    ];
    let g = Geometry::killer(cages).expect("cages");
    let step = hint_in(&g, &Grid::empty()).expect("a step");
    assert_eq!(step.technique, Technique::CageSum);
    assert_eq!(step.to_string(), "cage sum: 7 in r1c1 (cage 1) => r1c1 = 7");
    let mut board = Grid::empty();
    board.set(at(0, 0), Digit::new(7));
    let step = hint_in(&g, &board).expect("a step");
    assert_eq!(step.technique, Technique::CageCombination);
    assert_eq!(step.area, Some(Area::Cage(1)));
    assert_eq!(step.sum, Some(3));
    // 3 to 9 but 7 leave both cells: 12 eliminations.
    assert_eq!(step.eliminations.len(), 12);
    // Once the pair is {1,2}, the big cage's cells keep 3..9 but 7, which make 35 one way.
    let grading = grade_in(&g, &board);
    assert!(grading
        .steps
        .iter()
        .all(|s| s.technique != Technique::InnieOutie || s.area.is_some()));
}

#[test]
fn the_45_rule_pins_the_innie_of_a_row() {
    // Row 1: r1c1..r1c8 are two cages of 20 and 21; r1c9 sticks out into a cage with r2c9.
    let a: Vec<Cell> = (0..4).map(|c| at(0, c)).collect();
    let b: Vec<Cell> = (4..8).map(|c| at(0, c)).collect();
    let cages = vec![(a, 20), (b, 21), (vec![at(0, 8), at(1, 8)], 9)];
    let g = Geometry::killer(cages).expect("cages");
    let rules = Rules::new(&g);
    let s = start(&rules, &Grid::empty()).expect("open board");
    let mut step = Step::empty();
    assert!(find(&rules, Technique::InnieOutie, &s, &mut step, &mut 0));
    assert_eq!(step.to_string(), "45 rule: r1c9 sum 4 (row 1) => r1c9 = 4");
}

#[test]
fn a_cage_split_by_a_row_keeps_each_part_to_its_sum() {
    // Row 1: r1c1..r1c6 make 21, so the part of the last cage in row 1 makes 24: 7, 8, 9.
    let a: Vec<Cell> = (0..6).map(|c| at(0, c)).collect();
    let c = vec![at(0, 6), at(0, 7), at(0, 8), at(1, 7), at(1, 8), at(2, 8)];
    let g = Geometry::killer(vec![(a, 21), (c, 33)]).expect("cages");
    let rules = Rules::new(&g);
    let s = start(&rules, &Grid::empty()).expect("open board");
    let mut step = Step::empty();
    assert!(!find(&rules, Technique::InnieOutie, &s, &mut step, &mut 0));
    assert!(find(&rules, Technique::CageSplit, &s, &mut step, &mut 0));
    assert_eq!(step.sum, Some(24));
    assert_eq!(step.area, Some(Area::Row(0)));
    assert_eq!(step.digits.len(), 3);
    assert_eq!(step.eliminations.len(), 3 * 6);
}

/// A dug puzzle of each non-killer variant, its solution, and the geometry.
fn dug(seed: u64, keep: usize) -> Vec<(Geometry, Grid, Grid)> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    [Geometry::x(), Geometry::windoku(), jigsaw()]
        .into_iter()
        .map(|g| {
            let first = solutions_in(&g, &Grid::empty(), 1)[0];
            let solution = relabel(&first, &shuffled_digits(&mut rng));
            let puzzle = dig(&g, &solution, keep, &mut rng);
            (g, puzzle, solution)
        })
        .collect()
}

#[test]
fn dug_variant_puzzles_grade_soundly_and_the_same_under_relabelling() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut levels = Vec::new();
    // Minimal puzzles (the x and windoku ones grade extreme after AICs and kites, the jigsaw one
    // hard with an XY-wing), puzzles of 26 and 24 clues (easy to hard).
    for (seed, keep) in [(0, 0), (1, 26), (2, 24)] {
        for (g, puzzle, solution) in dug(seed, keep) {
            let grading = check_graded(&g, &puzzle, &solution);
            check_levels(&g, &puzzle, grading.level);
            levels.push(grading.level);
            let perm = shuffled_digits(&mut rng);
            let other = check_graded(&g, &relabel(&puzzle, &perm), &relabel(&solution, &perm));
            assert_eq!(other.level, grading.level, "{}", puzzle.to_line());
            if grading.level == Level::Easy {
                assert_eq!(other.score, grading.score);
            }
        }
    }
    assert!(levels.contains(&Level::Easy) && levels.contains(&Level::Extreme));
}

/// `grade_max_in` finds the grade at its level and gives up one below.
#[track_caller]
fn check_levels(g: &Geometry, puzzle: &Grid, level: Level) {
    let below = match level {
        Level::Easy => None,
        Level::Medium => Some(Level::Easy),
        Level::Hard => Some(Level::Medium),
        Level::Expert => Some(Level::Hard),
        Level::Extreme => Some(Level::Expert),
    };
    if level < Level::Extreme {
        assert_eq!(grade_max_in(g, puzzle, level).map(|x| x.level), Some(level));
    }
    if let Some(below) = below {
        assert_eq!(grade_max_in(g, puzzle, below), None);
    }
}

#[test]
fn dug_killer_puzzles_grade_soundly() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let classic = crate::solver::solve_one(&Grid::empty()).expect("a grid");
    let (mut used, mut graded) = (Vec::new(), Vec::new());
    for sizes in [1..=4, 2..=4, 3..=5] {
        let solution = relabel(&classic, &shuffled_digits(&mut rng));
        let g = killer(&solution, sizes, &mut rng);
        let puzzle = dig(&g, &solution, 0, &mut rng);
        let grading = check_graded(&g, &puzzle, &solution);
        check_levels(&g, &puzzle, grading.level);
        used.extend(grading.steps.iter().map(|s| s.technique));
        graded.push((g, puzzle));
    }
    for (g, puzzle) in &graded {
        let with = run(g, puzzle, Level::Extreme, true);
        let without = run_with(g, puzzle, Level::Extreme, true, false);
        assert_eq!(with.steps, without.steps, "the memo only saves time");
    }
    for t in [
        Technique::CageSum,
        Technique::CageCombination,
        Technique::InnieOutie,
    ] {
        assert!(used.contains(&t), "{t} in {used:?}");
    }
}

#[test]
fn every_step_is_sound_on_a_sweep_of_dug_puzzles() {
    // Minimal puzzles, where the hard techniques run: every placement is the solution's digit
    // and no elimination removes it (checked in `check_graded`).
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(34);
    for (i, base) in [Geometry::x(), Geometry::windoku(), jigsaw()]
        .into_iter()
        .enumerate()
    {
        let first = solutions_in(&base, &Grid::empty(), 1)[0];
        for _ in 0..4 + i {
            let solution = relabel(&first, &shuffled_digits(&mut rng));
            let puzzle = dig(&base, &solution, 0, &mut rng);
            check_graded(&base, &puzzle, &solution);
        }
    }
    let classic = crate::solver::solve_one(&Grid::empty()).expect("a grid");
    let mut used = Vec::new();
    for sizes in [2..=3, 2..=4, 2..=4, 1..=5, 2..=5, 2..=3, 2..=4, 3..=4] {
        let solution = relabel(&classic, &shuffled_digits(&mut rng));
        let g = killer(&solution, sizes, &mut rng);
        let puzzle = dig(&g, &solution, 0, &mut rng);
        used.extend(
            check_graded(&g, &puzzle, &solution)
                .steps
                .iter()
                .map(|s| s.technique),
        );
    }
    assert!(used.contains(&Technique::InnieOutie), "{used:?}");
}

#[test]
fn puzzles_of_each_variant_grade_to_their_levels() {
    // Dug by `dug` (kept as text): the level each needs, checked against the contract of
    // `grade_max_in` and every step against the solution.
    let cases = [
        (
            Geometry::x(),
            Level::Easy,
            "..67.8.14..89....6.1423.7...6..7..8..2....3....38..........7.....2..5.7...7....2.",
        ),
        (
            Geometry::x(),
            Level::Medium,
            "...7.8.14...9....6.1423.7...6..7..8..2....3....38..........7.....2..5.7...7....2.",
        ),
        (
            Geometry::x(),
            Level::Hard,
            ".62......48.3....2..5.62..9..8..1.9......76.47...............38....9.5.6.9....2..",
        ),
        (
            Geometry::x(),
            Level::Expert,
            "....354....5......4....9......2.....57.....6.1....4...2.......3..7..368........7.",
        ),
        (
            Geometry::windoku(),
            Level::Easy,
            "4.....9....79.......1.8.....3....6....4.3...9.1.2.4.3.3...9..52............1...46",
        ),
        (
            Geometry::windoku(),
            Level::Medium,
            "49....5.73.856.......4.....2.3.......8..........2..91.1.....7...361.......2.3....",
        ),
        (
            Geometry::windoku(),
            Level::Hard,
            "7...34.6..34.6..........2...1..5..4.......3.96.93..81..7.........6...4........1..",
        ),
        (
            jigsaw(),
            Level::Easy,
            ".....27..3..1..4.8..........837....1...3...47..6...52.8.5......1...7...4278......",
        ),
        (
            jigsaw(),
            Level::Medium,
            ".....27..3..1....8..........8.7....1...3...47..6...52.8.5......1...7...4278......",
        ),
        (
            jigsaw(),
            Level::Hard,
            ".....7.....3.5.9...1.8...4...43.9..2..7.8.......12....6.........5.....6..36..41..",
        ),
        (
            jigsaw(),
            Level::Expert,
            "....58.....4...7...2.31..5.....87.2.........4..92.....1....6....9..4.5..8.......3",
        ),
    ];
    let mut kinds = Vec::new();
    for (g, level, line) in cases {
        let p = grid(line);
        let solutions = solutions_in(&g, &p, 2);
        assert_eq!(solutions.len(), 1, "{line}");
        let grading = check_graded(&g, &p, &solutions[0]);
        assert_eq!(grading.level, level, "{} {line}", g.variant());
        check_levels(&g, &p, level);
        kinds.extend(grading.steps.iter().filter_map(|s| s.area).map(Area::kind));
        // The same puzzle under other digit names: the same level (and the same score when
        // only singles are needed, taken by whole waves).
        let perm = [3, 1, 4, 9, 5, 2, 6, 8, 7];
        let other = check_graded(&g, &relabel(&p, &perm), &relabel(&solutions[0], &perm));
        assert_eq!(other.level, level, "{line}");
        if level == Level::Easy {
            assert_eq!(other.score, grading.score, "{line}");
        }
    }
    // The variants' own houses take part.
    for kind in ["diagonal", "window", "region"] {
        assert!(kinds.contains(&kind), "no step in a {kind}");
    }
    // A killer of one-cell cages and no clue: cage sums alone, 81 of them.
    let solution = crate::solver::solve_one(&Grid::empty()).expect("a grid");
    let cages = Cell::all()
        .map(|c| (vec![c], solution.get(c).map_or(0, |d| d.get())))
        .collect();
    let g = Geometry::killer(cages).expect("cages");
    let grading = check_graded(&g, &Grid::empty(), &solution);
    assert_eq!((grading.level, grading.score), (Level::Easy, 81 * 8));
}
