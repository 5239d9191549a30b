//! Test support for the technique modules: `check` helpers that judge every step against the
//! solution (from the engine's solver).

use super::{grade, hint, Step, Technique};
use crate::grid::Grid;

/// The unique solution of `g`, or `None` without exactly one.
pub(crate) fn solve(g: &Grid) -> Option<Grid> {
    crate::solver::solve_unique(g).ok()
}

/// Every placement is the solution's digit and no elimination removes the solution's digit.
#[track_caller]
pub(crate) fn check_sound(solution: &Grid, steps: &[Step]) {
    for step in steps {
        for &(c, d) in &step.placements {
            assert_eq!(solution.get(c), Some(d), "unsound placement in {step}");
        }
        for &(c, d) in &step.eliminations {
            assert_ne!(solution.get(c), Some(d), "unsound elimination in {step}");
        }
    }
}

/// The hint for `line` uses `technique` and reads `expected`; and grading `line` (when it has
/// one solution) is sound.
#[track_caller]
pub(crate) fn check_first_step(line: &str, technique: Technique, expected: &str) {
    let g = Grid::parse(line).expect("test grid parses");
    let step = hint(&g).expect("a step");
    assert_eq!(step.technique, technique, "got {step}");
    assert_eq!(step.to_string(), expected);
    if let Some(sol) = solve(&g) {
        check_sound(&sol, &[step]);
        check_sound(&sol, &grade(&g).steps);
    }
}

/// Grading `puzzle` uses `technique`, its first step with it reads `expected`, and every step
/// is sound.
#[track_caller]
pub(crate) fn check_step(puzzle: &str, technique: Technique, expected: &str) {
    let g = Grid::parse(puzzle).expect("test grid parses");
    let solution = solve(&g).expect("test puzzle has one solution");
    let grading = grade(&g);
    check_sound(&solution, &grading.steps);
    let step = grading
        .steps
        .iter()
        .find(|s| s.technique == technique)
        .unwrap_or_else(|| panic!("{puzzle}: no {technique} step"));
    assert_eq!(step.to_string(), expected);
}
