//! Test support for the technique modules: a small backtracking solver (so the tests can judge
//! every step against the solution) and `check` helpers.

use super::{grade, hint, Step, Technique};
use crate::engine::grid::{Grid, N_CELLS, PEERS};

/// The unique solution of `g` by plain backtracking, or `None` without exactly one.
pub(crate) fn solve(g: &Grid) -> Option<Grid> {
    fn go(b: &mut [u8; N_CELLS], found: &mut Vec<[u8; N_CELLS]>) {
        if found.len() > 1 {
            return;
        }
        // Most constrained empty cell.
        let mut best: Option<(usize, u16)> = None;
        for c in 0..N_CELLS {
            if b[c] != 0 {
                continue;
            }
            let mut used = 0u16;
            for &p in &PEERS[c] {
                let v = b[p as usize];
                if v != 0 {
                    used |= 1 << (v - 1);
                }
            }
            let free = 0x1ff & !used;
            if best.is_none_or(|(_, m)| free.count_ones() < m.count_ones()) {
                best = Some((c, free));
            }
        }
        let Some((c, free)) = best else {
            found.push(*b);
            return;
        };
        for d in 0..9 {
            if free & (1 << d) != 0 {
                b[c] = d + 1;
                go(b, found);
                b[c] = 0;
            }
        }
    }
    let mut b = *g.as_bytes();
    let mut found = Vec::new();
    go(&mut b, &mut found);
    (found.len() == 1).then(|| Grid::from_bytes(found[0]).expect("digits are 1-9"))
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
