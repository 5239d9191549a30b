use super::*;
use crate::grid::PEERS;
use rand::SeedableRng;

/// A plain cell-by-cell singles solver: the oracle for [`solver::solves_by_singles`].
fn simple_singles(grid: &Grid) -> bool {
    let mut bytes = *grid.as_bytes();
    let mut cand = [0x1ffu16; N_CELLS];
    let mut empty = bytes.iter().filter(|&&d| d == 0).count();
    for cell in 0..N_CELLS {
        let d = bytes[cell];
        if d != 0 {
            let bit = 1u16 << (d - 1);
            for &p in &PEERS[cell] {
                let p = usize::from(p);
                if bytes[p] == d {
                    return false;
                }
                cand[p] &= !bit;
            }
        }
    }
    let place = |bytes: &mut [u8; N_CELLS], cand: &mut [u16; N_CELLS], cell: usize, bit: u16| {
        bytes[cell] = bit.trailing_zeros() as u8 + 1;
        for &p in &PEERS[cell] {
            cand[usize::from(p)] &= !bit;
        }
    };
    while empty > 0 {
        let mut progress = false;
        for cell in 0..N_CELLS {
            if bytes[cell] != 0 {
                continue;
            }
            let c = cand[cell];
            if c == 0 {
                return false;
            }
            if c & (c - 1) == 0 {
                place(&mut bytes, &mut cand, cell, c);
                empty -= 1;
                progress = true;
            }
        }
        for unit in &UNITS {
            let (mut once, mut twice, mut placed) = (0u16, 0u16, 0u16);
            for &c in unit {
                let c = usize::from(c);
                if bytes[c] == 0 {
                    twice |= once & cand[c];
                    once |= cand[c];
                } else {
                    placed |= 1 << (bytes[c] - 1);
                }
            }
            if (once | placed) != 0x1ff {
                return false;
            }
            let mut singles = once & !twice & !placed;
            while singles != 0 {
                let bit = singles & singles.wrapping_neg();
                singles ^= bit;
                let Some(&cell) = unit
                    .iter()
                    .find(|&&c| bytes[usize::from(c)] == 0 && cand[usize::from(c)] & bit != 0)
                else {
                    // An earlier single of this unit took the only cell: a contradiction.
                    return false;
                };
                place(&mut bytes, &mut cand, usize::from(cell), bit);
                empty -= 1;
                progress = true;
            }
        }
        if !progress {
            return false;
        }
    }
    true
}

#[track_caller]
fn check_singles(puzzle: &str, expected: bool) {
    let grid = Grid::parse(puzzle).expect("test puzzle parses");
    assert_eq!(simple_singles(&grid), expected, "{puzzle}");
    assert_eq!(solver::solves_by_singles(&grid), expected, "{puzzle}");
}

#[test]
fn singles_solver_tells_easy_from_hard() {
    check_singles(
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79",
        true,
    );
    check_singles(
        "........8..3...4...9..2..6.....79.......612...6.5.2.7...8...5...1.....2.4.5.....3",
        false,
    );
    check_singles(&".".repeat(81), false);
}

#[test]
fn dug_puzzles_keep_their_property() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
    for (keep, symmetric) in [
        (Keep::Singles, false),
        (Keep::LockedCandidates, true),
        (Keep::Unique, false),
        (Keep::Unique, true),
    ] {
        let solution = solver::random_solution(&mut rng);
        let puzzle = dig(&mut rng, &solution, symmetric, keep);
        assert_eq!(solver::solve_unique(&puzzle), Ok(solution));
        let b = puzzle.as_bytes();
        if symmetric {
            assert!((0..N_CELLS).all(|c| (b[c] == 0) == (b[N_CELLS - 1 - c] == 0)));
        }
        match keep {
            Keep::Singles => assert!(solver::solves_by_singles(&puzzle)),
            Keep::LockedCandidates => assert!(solver::solves_by_locked_candidates(&puzzle)),
            Keep::Unique => {}
        }
    }
}
