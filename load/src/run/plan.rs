//! What a bot places: every placement changes its `filled` or its `mistakes`, so every one is
//! answered with `placement` and broadcast as `progress`, and the race never ends by itself.
//!
//! With the solution: the correct digit of every empty cell but one, in a random order, then,
//! on the last empty cell, digits that clash with its full row (each a `conflict` mistake).
//! Without it: clashing digits on one empty cell from the start.

use engine::grid::PEERS;
use engine::Grid;
use rand::seq::SliceRandom;
use rand::Rng;

/// One bot's placements, as `(cell, digit)` by placement index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    correct: Vec<(u8, u8)>,
    tail_cell: u8,
    tail_digits: Vec<u8>,
}

impl Plan {
    /// A plan for `puzzle`; `None` when the puzzle has no empty cell with a digit among its
    /// peers (no move can be a mistake).
    pub fn new(puzzle: &Grid, solution: Option<&Grid>, rng: &mut impl Rng) -> Option<Plan> {
        let board = puzzle.as_bytes();
        let mut empties: Vec<u8> = (0u8..81).filter(|&c| board[usize::from(c)] == 0).collect();
        empties.shuffle(rng);
        match solution {
            Some(solution) => {
                let sol = solution.as_bytes();
                let tail_cell = empties.pop()?;
                let right = sol[usize::from(tail_cell)];
                Some(Plan {
                    correct: empties.iter().map(|&c| (c, sol[usize::from(c)])).collect(),
                    tail_cell,
                    tail_digits: (1..=9).filter(|&d| d != right).collect(),
                })
            }
            None => empties.iter().find_map(|&c| {
                let mut digits: Vec<u8> = PEERS[usize::from(c)]
                    .iter()
                    .map(|&p| board[usize::from(p)])
                    .filter(|&d| d != 0)
                    .collect();
                digits.sort_unstable();
                digits.dedup();
                (!digits.is_empty()).then_some(Plan {
                    correct: Vec::new(),
                    tail_cell: c,
                    tail_digits: digits,
                })
            }),
        }
    }

    /// The `k`-th placement (0-based).
    pub fn placement(&self, k: u64) -> (u8, u8) {
        match usize::try_from(k).ok().and_then(|k| self.correct.get(k)) {
            Some(&m) => m,
            None => {
                let i = (k - self.correct.len() as u64) % self.tail_digits.len() as u64;
                // `i` is below the tail's length, which is at most 8.
                (self.tail_cell, self.tail_digits[i as usize])
            }
        }
    }

    /// How many placements are correct before the mistakes start.
    pub fn n_correct(&self) -> usize {
        self.correct.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    const PUZZLE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    const SOLUTION: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    /// Plays a plan on a board and checks every move's effect: accepted, or a clash.
    #[track_caller]
    fn check(solution: Option<&str>, moves: u64, expected_correct: usize) {
        let puzzle = Grid::parse(PUZZLE).unwrap();
        let sol = solution.map(|s| Grid::parse(s).unwrap());
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let plan = Plan::new(&puzzle, sol.as_ref(), &mut rng).unwrap();
        assert_eq!(plan.n_correct(), expected_correct);
        let mut board = *puzzle.as_bytes();
        for k in 0..moves {
            let (cell, digit) = plan.placement(k);
            let c = usize::from(cell);
            assert_eq!(board[c], 0, "move {k} on a filled cell");
            let clash = PEERS[c].iter().any(|&p| board[usize::from(p)] == digit);
            if (k as usize) < expected_correct {
                assert!(!clash, "correct move {k} clashes");
                assert_eq!(Some(digit), sol.map(|s| s.as_bytes()[c]));
                board[c] = digit;
            } else {
                assert!(clash, "mistake {k} does not clash");
            }
        }
    }

    #[test]
    fn correct_digits_then_clashes() {
        let empties = PUZZLE.bytes().filter(|&b| b == b'.').count();
        check(Some(SOLUTION), 200, empties - 1);
    }

    #[test]
    fn without_a_solution_every_move_clashes() {
        check(None, 50, 0);
    }
}
