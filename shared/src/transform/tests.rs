use super::*;

const SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

fn grid(line: &str) -> Grid {
    Grid::parse(line).expect("test grid parses")
}

#[track_caller]
fn check(t: Transform, input: &str, expected: &str) {
    assert_eq!(t.apply(&grid(input)).to_line(), expected);
}

#[test]
fn identity_and_parts() {
    let id = [0, 1, 2];
    let ids = [id; 3];
    let digits = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    check(Transform::identity(), SOLUTION, SOLUTION);
    let mut one = ".".repeat(81);
    one.replace_range(1..2, "5"); // r1c2 = 5
                                  // Transposed: r2c1 = 5.
    let t = Transform::new(digits, id, ids, id, ids, true).expect("valid");
    let mut expected = ".".repeat(81);
    expected.replace_range(9..10, "5");
    check(t, &one, &expected);
    // Relabel 5 -> 9 and swap the first two stacks: r1c5 = 9.
    let relabel = [1, 2, 3, 4, 9, 6, 7, 8, 5];
    let t = Transform::new(relabel, id, ids, [1, 0, 2], ids, false).expect("valid");
    let mut expected = ".".repeat(81);
    expected.replace_range(4..5, "9");
    check(t, &one, &expected);
    // Last band first, reversed rows in it: r1 of the output is r9 of the input.
    let t = Transform::new(digits, [2, 1, 0], [[2, 1, 0], id, id], id, ids, false).expect("valid");
    let out = t.apply(&grid(SOLUTION)).to_line();
    assert_eq!(&out[..9], &SOLUTION[72..]);
}

#[test]
fn bad_parts_are_refused() {
    let id = [0, 1, 2];
    let ids = [id; 3];
    let digits = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    let twice = [1, 1, 3, 4, 5, 6, 7, 8, 9];
    assert_eq!(
        Transform::new(twice, id, ids, id, ids, false),
        Err(TransformError::Digits)
    );
    assert_eq!(
        Transform::new(digits, [0, 0, 2], ids, id, ids, false),
        Err(TransformError::Perm("bands"))
    );
    assert_eq!(
        Transform::new(digits, id, ids, id, [id, id, [0, 1, 3]], false),
        Err(TransformError::Perm("columns in a stack"))
    );
}

#[test]
fn random_transforms_keep_a_solution_valid() {
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for _ in 0..50 {
        let t = Transform::random(&mut rng);
        let out = t.apply(&grid(SOLUTION));
        assert!(crate::validator::is_complete_solution(&out));
    }
}

#[test]
fn classic_keeps_every_transform() {
    use rand::SeedableRng;
    let classic = Geometry::classic();
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for _ in 0..50 {
        let t = Transform::random(&mut rng);
        assert!(t.keeps(classic));
        assert!(t.apply_geometry(classic).same_rules(classic));
    }
    // One draw, the same draw: a seeded deal is unchanged.
    let mut a = rand::rngs::StdRng::seed_from_u64(9);
    let mut b = rand::rngs::StdRng::seed_from_u64(9);
    for _ in 0..20 {
        assert_eq!(
            Transform::random_keeping(&mut a, classic),
            Transform::random(&mut b)
        );
    }
}

#[test]
fn cell_map_follows_apply() {
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    let sol = grid(SOLUTION);
    for _ in 0..20 {
        let t = Transform::random(&mut rng);
        let out = t.apply(&sol);
        let to = t.cell_map();
        for c in Cell::all() {
            let moved = sol.get(c).map(|d| t.digits[usize::from(d.get() - 1)]);
            assert_eq!(out.get(to[c.idx()]).map(|d| d.get()), moved);
        }
    }
}

#[test]
fn variants_keep_only_some_transforms() {
    use crate::geometry::tests::x_geometry;
    use crate::geometry::Constraint;
    let id = [0, 1, 2];
    let ids = [id; 3];
    let digits = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    let relabel = [2, 1, 3, 4, 5, 6, 7, 8, 9];
    let x = x_geometry();
    // Transposing keeps both diagonals; reversing rows and columns too (a half turn).
    let transpose = Transform::new(digits, id, ids, id, ids, true).expect("valid");
    assert!(transpose.keeps(&x));
    let rev = [2, 1, 0];
    let half_turn = Transform::new(relabel, rev, [rev; 3], rev, [rev; 3], false).expect("valid");
    assert!(half_turn.keeps(&x));
    // Swapping two stacks moves the diagonals off themselves.
    let swap = Transform::new(digits, id, ids, [1, 0, 2], ids, false).expect("valid");
    assert!(!swap.keeps(&x));
    assert!(swap.keeps(Geometry::classic()));
    // A cage keeps its place under the identity only, and never under a relabelling.
    let cage = Constraint::Cage {
        cells: vec![Cell::new(0).expect("cell"), Cell::new(1).expect("cell")],
        sum: 3,
    };
    let killer =
        Geometry::new(Geometry::classic().houses().to_vec(), vec![cage]).expect("valid geometry");
    let just_relabel = Transform::new(relabel, id, ids, id, ids, false).expect("valid");
    assert!(just_relabel.keeps(&x));
    assert!(!just_relabel.keeps(&killer));
    assert!(!transpose.keeps(&killer));
    assert!(Transform::identity().keeps(&killer));
    // The transposed cage is the transposed puzzle's: r1c1 and r2c1.
    let moved = transpose.apply_geometry(&killer);
    assert_eq!(
        moved.constraints()[0].cells(),
        [Cell::new(0).expect("cell"), Cell::new(9).expect("cell")]
    );
    // A random draw for a variant keeps it, falling back to a relabelling or nothing.
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(6);
    for _ in 0..20 {
        assert!(Transform::random_keeping(&mut rng, &x).keeps(&x));
        assert_eq!(
            Transform::random_keeping(&mut rng, &killer),
            Transform::identity()
        );
    }
}

#[test]
fn a_kept_geometry_keeps_its_solutions() {
    use crate::geometry::tests::{x_geometry, X_SOLUTION};
    use crate::validator::{check_solution, is_complete_solution_in};
    use rand::SeedableRng;
    let x = x_geometry();
    let xs = grid(X_SOLUTION);
    assert_eq!(check_solution(&x, &xs), Ok(()));
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    let (mut kept, mut broken) = (0, 0);
    for _ in 0..200 {
        let t = Transform::random(&mut rng);
        let out = t.apply(&xs);
        // Whatever the transform, the moved geometry holds the moved solution.
        assert!(is_complete_solution_in(&t.apply_geometry(&x), &out));
        if t.keeps(&x) {
            kept += 1;
            assert!(is_complete_solution_in(&x, &out));
        } else if !is_complete_solution_in(&x, &out) {
            broken += 1;
        }
        let t = Transform::random_keeping(&mut rng, &x);
        assert!(is_complete_solution_in(&x, &t.apply(&xs)));
    }
    assert!(broken > 0, "random transforms mostly move the diagonals");
    assert!(kept < 200);
}

mod variants {
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::super::variants::lines_for_tests;
    use super::super::{isomorph_count, Transform, IDENTITY9};
    use crate::generator::variant::{generate_in, VariantPuzzle};
    use crate::geometry::{Constraint, Geometry};
    use crate::solver::geometric::count_solutions_in;
    use crate::validator::check_solution;
    use crate::{Difficulty, Variant};

    fn with_lines(rows: [u8; 9], cols: [u8; 9], transpose: bool) -> Transform {
        Transform {
            rows,
            cols,
            transpose,
            ..Transform::identity()
        }
    }

    #[test]
    fn the_groups_are_exactly_the_line_orders_that_keep_the_houses() {
        let (all, x_lines, windoku_lines) = lines_for_tests();
        assert_eq!(all.len(), 1296);
        let (x, windoku) = (Geometry::x(), Geometry::windoku());
        for p in &all {
            let keeps_x = with_lines(*p, *p, false).keeps(&x);
            assert_eq!(keeps_x, x_lines.contains(p), "{p:?}");
            let keeps_windoku = with_lines(*p, IDENTITY9, false).keeps(&windoku);
            assert_eq!(keeps_windoku, windoku_lines.contains(p), "{p:?}");
        }
        assert_eq!(x_lines.len(), 24);
        assert_eq!(isomorph_count(Variant::Classic), 1_218_998_108_160);
        assert_eq!(isomorph_count(Variant::X), 96 * 362_880);
        let w = windoku_lines.len() as u64;
        assert_eq!(isomorph_count(Variant::Windoku), w * w * 2 * 362_880);
        assert_eq!(isomorph_count(Variant::Jigsaw), 8 * 362_880);
        assert_eq!(isomorph_count(Variant::Killer), 16);
    }

    /// One generated puzzle of every variant but classic (easy: quick in debug builds).
    fn puzzles() -> Vec<VariantPuzzle> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(34);
        [
            Variant::X,
            Variant::Windoku,
            Variant::Jigsaw,
            Variant::Killer,
        ]
        .into_iter()
        .map(|v| generate_in(&mut rng, v, Difficulty::Easy))
        .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

        #[test]
        fn every_isomorph_keeps_the_variant_and_its_one_solution(seed: u64) {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            for p in puzzles() {
                let variant = p.geometry.variant();
                let t = Transform::for_geometry(&mut rng, &p.geometry);
                let moved = t.apply_geometry(&p.geometry);
                prop_assert_eq!(moved.variant(), variant);
                prop_assert_eq!(check_solution(&moved, &t.apply(&p.solution)), Ok(()));
                prop_assert_eq!(count_solutions_in(&moved, &t.apply(&p.puzzle), 2), 1);
                if matches!(variant, Variant::X | Variant::Windoku) {
                    prop_assert!(t.keeps(&p.geometry));
                    prop_assert!(moved.same_rules(&p.geometry));
                }
                let back = Geometry::of(variant, &moved.layout());
                prop_assert!(back.is_ok_and(|g| g.same_rules(&moved)));
            }
        }
    }

    #[test]
    fn a_complemented_killer_cage_sums_to_ten_per_cell_less_its_sum() {
        let p = puzzles().pop().expect("the killer");
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let complemented = (0..64)
            .map(|_| Transform::for_geometry(&mut rng, &p.geometry))
            .find(|t| t.digits == super::super::COMPLEMENT)
            .expect("half the draws complement");
        let moved = complemented.apply_geometry(&p.geometry);
        let sums = |g: &Geometry| {
            let mut s: Vec<(usize, u8)> = g
                .constraints()
                .iter()
                .map(|k| {
                    let Constraint::Cage { cells, sum } = k;
                    (cells.len(), *sum)
                })
                .collect();
            s.sort_unstable();
            s
        };
        let mut expected: Vec<(usize, u8)> = sums(&p.geometry)
            .into_iter()
            .map(|(n, s)| (n, 10 * n as u8 - s))
            .collect();
        expected.sort_unstable();
        assert_eq!(sums(&moved), expected);
    }
}
