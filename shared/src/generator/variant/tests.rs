use proptest::prelude::*;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::*;
use crate::solver::geometric::count_solutions_in;
use crate::validator::{check_solution, is_solution_of_in};

const VARIANTS: [Variant; 4] = [
    Variant::X,
    Variant::Windoku,
    Variant::Jigsaw,
    Variant::Killer,
];

/// Everything a generated puzzle promises.
#[track_caller]
fn check(p: &VariantPuzzle, variant: Variant, difficulty: Difficulty) {
    assert_eq!(p.geometry.variant(), variant);
    assert_eq!(check_solution(&p.geometry, &p.solution), Ok(()));
    assert!(is_solution_of_in(&p.geometry, &p.puzzle, &p.solution));
    assert_eq!(
        count_solutions_in(&p.geometry, &p.puzzle, 2),
        1,
        "{variant}"
    );
    assert_eq!(p.grading.level, Level::from(difficulty));
    let again = graded(&p.geometry, &p.puzzle, Level::Expert).map(|g| g.level);
    assert_eq!(again, Some(p.grading.level));
    // The wire layout gives the same rules back.
    let back = Geometry::of(variant, &p.geometry.layout()).expect("its own layout");
    assert!(back.same_rules(&p.geometry));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn easy_puzzles_of_every_variant_are_unique_and_keep_their_rules(seed: u64) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        for variant in VARIANTS {
            let p = generate_in(&mut rng, variant, Difficulty::Easy);
            check(&p, variant, Difficulty::Easy);
        }
    }

    #[test]
    fn killer_cages_are_connected_small_and_distinct(seed: u64) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let solution = random_solution(&mut rng);
        let cages = layout::random_cages(&mut rng, &solution);
        let g = Geometry::of(Variant::Killer, &crate::geometry::Layout {
            regions: None,
            cages: cages.clone(),
        });
        prop_assert!(g.is_ok(), "every cell in one cage");
        prop_assert_eq!(check_solution(&g.expect("checked"), &solution), Ok(()));
        for (cells, _) in &cages {
            prop_assert!((1..=5).contains(&cells.len()));
        }
        let sized = |n: usize| cages.iter().filter(|(c, _)| c.len() == n).count();
        prop_assert!(sized(2) + sized(3) + sized(4) > cages.len() / 2, "mostly 2 to 4");
    }
}

#[test]
fn every_difficulty_is_reached_for_every_variant() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(34);
    for variant in VARIANTS {
        for difficulty in [Difficulty::Medium, Difficulty::Hard, Difficulty::Expert] {
            let p = generate_in(&mut rng, variant, difficulty);
            check(&p, variant, difficulty);
        }
    }
}

#[test]
fn jigsaw_layouts_are_fresh_and_hard_killers_have_few_givens() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let layouts: Vec<String> = (0..5).map(|_| layout::random_regions(&mut rng)).collect();
    for (i, a) in layouts.iter().enumerate() {
        assert!(Geometry::jigsaw(a).is_ok());
        assert!(
            layouts[i + 1..].iter().all(|b| a != b),
            "five draws, five layouts"
        );
        let boxes =
            (0..81).filter(|&c| a.as_bytes()[c] - b'0' == ((c / 27) * 3 + (c % 9) / 3) as u8);
        assert!(boxes.count() < 70, "traded well away from the boxes");
    }
    let p = generate_in(&mut rng, Variant::Killer, Difficulty::Hard);
    assert!(p.puzzle.n_filled() <= 6, "{} givens", p.puzzle.n_filled());
}

#[test]
fn classic_goes_to_the_classic_generator() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let p = generate_in(&mut rng, Variant::Classic, Difficulty::Medium);
    assert!(p.geometry.is_classic());
    assert_eq!(crate::solver::count_solutions(&p.puzzle, 2), 1);
    assert_eq!(p.grading.level, Level::Medium);
    assert_eq!(
        crate::grader::grade_max_in(&p.geometry, &p.puzzle, Level::Extreme).map(|g| g.level),
        Some(Level::Medium)
    );
}

#[test]
fn the_validator_finds_a_clash_in_every_house_and_cage() {
    use crate::validator::conflicts_in;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    for variant in VARIANTS {
        let p = generate_in(&mut rng, variant, Difficulty::Easy);
        let groups = p.geometry.houses().iter().map(|h| h.to_vec());
        let cages = p.geometry.constraints().iter().map(|k| k.cells().to_vec());
        for cells in groups.chain(cages) {
            let mut board = p.solution;
            let (a, b) = (cells[0], cells[cells.len() - 1]);
            if a == b {
                // A one-cell cage: any other digit breaks its sum.
                let other = p.solution.get(a).map(|d| d.get() % 9 + 1);
                board.set(a, other.and_then(crate::Digit::new));
                assert!(check_solution(&p.geometry, &board).is_err());
                continue;
            }
            board.set(b, p.solution.get(a));
            let clash = conflicts_in(&p.geometry, &board);
            assert!(
                clash.contains(&a) && clash.contains(&b),
                "{variant} {cells:?}"
            );
            assert!(check_solution(&p.geometry, &board).is_err());
        }
    }
}
