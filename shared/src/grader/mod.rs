//! The human-technique grader: solves a puzzle the way a person would, always applying the
//! cheapest [`Technique`] that makes progress, records every [`Step`], and grades the puzzle
//! with a [`Level`] (the hardest technique needed) and a score (the sum of the technique weights,
//! in the spirit of HoDoKu's scores). When the techniques get stuck the grade is `Extreme` and
//! its score starts at [`EXTREME_FLOOR`], so every extreme grade scores above every expert one.
//!
//! - [`grade`] grades a puzzle and keeps the step record (the `grade --explain` tool).
//! - [`grade_max`] stops as soon as a technique above a level would be needed; it keeps no step
//!   record and is what the generator calls in its inner loop.
//! - [`hint`] finds the next step from a partly filled board (the client's hints).
//!
//! - [`grade_in`], [`grade_max_in`] and [`hint_in`] do the same under a puzzle's
//!   [`Geometry`] (A10's variants). A classic geometry takes the classic path above (the same
//!   result, the same speed); any other goes to the `variant` module, which walks the
//!   geometry's own houses, peers and killer cages with the same ladder and levels.
//!
//! Levels and weights (the weight is what one step adds to the score):
//!
//! | level | techniques (weight) |
//! |---|---|
//! | easy | naked single (4), cage sum (8, killer: a cage's last open cell), hidden single (14) |
//! | medium | cage combination (40, killer), pointing and claiming (50), naked pair (60), hidden pair (70), naked triple (80), hidden triple (100) |
//! | hard | 45 rule (110, killer: innies and outies), cage split (120, killer), naked quad (120), skyscraper (130), x-wing (140), 2-string kite, w-wing, swordfish, simple colouring, hidden quad (150), xy-wing, jellyfish (160), xyz-wing (180) |
//! | expert | x-chain, xy-chain (260), aic (280) |
//!
//! [`Technique::ORDER`] is the classic ladder, [`Technique::VARIANT_ORDER`] the same with the
//! killer techniques in their places; [`Technique::as_str`] names each one for the wire
//! (`naked_single`, …, `cage_sum`, `cage_combination`, `innie_outie`, `cage_split`), and a
//! variant's [`Step`] names the [`Area`] it lies in (a row, a jigsaw region, a cage, a band of
//! rows for the 45 rule) and, for killer steps, the sum.
//!
//! One private module per technique family: `singles`, `intersections`, `subsets`, `fish`,
//! `wings`, `single_digit` (skyscraper, 2-string kite, simple colouring) and `chains` (X-chains,
//! XY-chains, alternating inference chains). The candidate state lives in `state`, what a run
//! gives in `outcome`, and the variants' grader (its house techniques, killer's cage techniques
//! and the geometry's tables) in `variant`.
//!
//! Invariants:
//! - Every technique only makes sound deductions, so on a puzzle with one solution every
//!   placement is the solution's digit and no elimination removes it (the tests check this).
//! - [`Technique::ORDER`] goes by weight and by level, so the level is the lowest at which the
//!   ladder solves the puzzle; the tests find it unchanged under the validity-preserving transforms
//!   (and a variant's level unchanged under relabelled digits, killer aside).
//! - Singles go by whole waves (every naked single at once, else every hidden single), so an
//!   easy puzzle's score does not change under transforms either. Above singles one step is
//!   taken at a time, the first found in cell and digit order, so a transformed puzzle of medium
//!   or above can score a little differently.
//! - Speed: candidates are bitboards (a `u128` per digit) kept in step with per-cell masks; a
//!   memo skips the units and digits a technique found nothing in and that have not changed
//!   since (candidates only ever go, so they still give nothing).

use crate::difficulty::Level;
use crate::grid::Grid;

mod chains;
mod combos;
mod fish;
mod intersections;
mod outcome;
mod single_digit;
mod singles;
mod state;
mod step;
mod subsets;
mod variant;
mod wings;

use crate::geometry::Geometry;
use outcome::{next_level, stuck_at, Outcome};
pub use outcome::{EXTREME_FLOOR, STUCK_CELL_WEIGHT};
use state::{Classic, State};
pub use step::{Area, Step, Technique};

/// A puzzle's grade.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grading {
    /// The level of the hardest technique used, or `Extreme` when the technique set got stuck.
    pub level: Level,
    /// Sum of the weights of the steps taken.
    pub score: u32,
    /// Every step, in order (empty from [`grade_max`], which keeps no record).
    pub steps: Vec<Step>,
    /// The full grid the techniques reached, when they filled every cell. Every technique is
    /// sound and none assumes uniqueness, so when this grid is a complete valid solution of
    /// the puzzle it is its only one: a caller can skip the solver's uniqueness check.
    pub filled: Option<Grid>,
}

/// Grade a puzzle (assumed to have exactly one solution), keeping every step.
///
/// A puzzle without exactly one solution gets some grade and never a panic; its steps may then
/// be wrong (the solver is the judge of validity).
pub fn grade(puzzle: &Grid) -> Grading {
    let out = run(puzzle, Level::Expert, true);
    Grading {
        level: out.level,
        score: out.score,
        steps: out.steps,
        filled: out.filled,
    }
}

/// Grade a puzzle, giving up (`None`) as soon as a technique above `max` would be needed.
/// With `max = Expert` a puzzle the technique set cannot solve is `None`; with `max = Extreme`
/// this is [`grade`]. The grading has no step record (`steps` is empty): this is the fast path.
pub fn grade_max(puzzle: &Grid, max: Level) -> Option<Grading> {
    let out = run(puzzle, max, false);
    if out.level > max {
        return None;
    }
    Some(Grading {
        level: out.level,
        score: out.score,
        steps: Vec::new(),
        filled: out.filled,
    })
}

/// The next step from a partly filled board, candidates derived from its digits: the cheapest
/// technique that makes progress. `None` when the board is full, shows a contradiction, or no
/// technique applies. The hint assumes the digits on the board are right.
pub fn hint(board: &Grid) -> Option<Step> {
    let s = State::new(board);
    if s.is_solved() || s.is_broken() {
        return None;
    }
    let mut step = Step::empty();
    let mut memo = Memo::default();
    Technique::ORDER
        .into_iter()
        .any(|t| find(t, &s, &mut step, &mut memo, &mut None))
        .then_some(step)
}

/// [`grade`] under a puzzle's `geometry` (A10's variants): the same contract, with the
/// techniques walking the geometry's houses and cages (see the `variant` module). A classic
/// geometry gives exactly what [`grade`] gives.
pub fn grade_in(geometry: &Geometry, puzzle: &Grid) -> Grading {
    if geometry.is_classic() {
        return grade(puzzle);
    }
    let out = variant::run(geometry, puzzle, Level::Expert, true);
    Grading {
        level: out.level,
        score: out.score,
        steps: out.steps,
        filled: out.filled,
    }
}

/// [`grade_max`] under a puzzle's `geometry`: `None` as soon as a technique above `max` would
/// be needed; no step record. A classic geometry gives exactly what [`grade_max`] gives.
pub fn grade_max_in(geometry: &Geometry, puzzle: &Grid, max: Level) -> Option<Grading> {
    if geometry.is_classic() {
        return grade_max(puzzle, max);
    }
    let out = variant::run(geometry, puzzle, max, false);
    (out.level <= max).then_some(Grading {
        level: out.level,
        score: out.score,
        steps: Vec::new(),
        filled: out.filled,
    })
}

/// [`hint`] under a board's `geometry`. A classic geometry gives exactly what [`hint`] gives.
pub fn hint_in(geometry: &Geometry, board: &Grid) -> Option<Step> {
    if geometry.is_classic() {
        return hint(board);
    }
    variant::hint(geometry, board)
}

/// What the ladder knows gives nothing: per technique, a bit per unit (techniques that work
/// unit by unit) or per digit (single-digit techniques) that gave nothing and has not changed
/// since. Candidates only ever go, so such a unit or digit still gives nothing: skipping it
/// changes no result, only the time taken.
#[derive(Default)]
struct Memo {
    clean: [u32; Technique::ORDER.len()],
    /// Forget everything at every pass (tests compare the two).
    disabled: bool,
}

impl Memo {
    /// Forget what was known of the units and digits whose candidates changed.
    fn invalidate(&mut self, s: &mut State) {
        let (units, digits) = s.take_dirty();
        for t in Technique::ORDER {
            let by_unit = matches!(
                t,
                Technique::Pointing
                    | Technique::Claiming
                    | Technique::NakedPair
                    | Technique::HiddenPair
                    | Technique::NakedTriple
                    | Technique::HiddenTriple
                    | Technique::NakedQuad
                    | Technique::HiddenQuad
            );
            let changed = if self.disabled {
                u32::MAX
            } else if by_unit {
                units
            } else {
                u32::from(digits)
            };
            self.clean[t as usize] &= !changed;
        }
    }
}

/// Try technique `t` on `s`; on success `step` holds the deduction. `places` caches
/// [`State::unit_places`] for this state (cleared by the caller when the state changes).
fn find(
    t: Technique,
    s: &State,
    step: &mut Step,
    memo: &mut Memo,
    places: &mut Option<[[u16; 9]; 27]>,
) -> bool {
    step.reset(t);
    let clean = &mut memo.clean[t as usize];
    let uses_places = matches!(
        t,
        Technique::Pointing
            | Technique::Claiming
            | Technique::HiddenPair
            | Technique::HiddenTriple
            | Technique::HiddenQuad
            | Technique::XWing
            | Technique::Swordfish
            | Technique::Jellyfish
    );
    if uses_places && places.is_none() {
        *places = Some(s.unit_places());
    }
    let places = places.as_ref().map_or(&[[0u16; 9]; 27], |p| p);
    let found = match t {
        Technique::NakedSingle => singles::naked_single(s, step),
        Technique::HiddenSingle => singles::hidden_single(s, step),
        Technique::Pointing => intersections::pointing(s, places, step, clean),
        Technique::Claiming => intersections::claiming(s, places, step, clean),
        Technique::NakedPair => subsets::naked(s, 2, step, clean),
        Technique::HiddenPair => subsets::hidden(s, places, 2, step, clean),
        Technique::NakedTriple => subsets::naked(s, 3, step, clean),
        Technique::HiddenTriple => subsets::hidden(s, places, 3, step, clean),
        Technique::NakedQuad => subsets::naked(s, 4, step, clean),
        Technique::HiddenQuad => subsets::hidden(s, places, 4, step, clean),
        Technique::XWing => fish::fish(s, places, 2, step, clean),
        Technique::Swordfish => fish::fish(s, places, 3, step, clean),
        Technique::Jellyfish => fish::fish(s, places, 4, step, clean),
        Technique::XYWing => wings::xy_wing(&Classic, s, step),
        Technique::XYZWing => wings::xyz_wing(&Classic, s, step),
        Technique::WWing => wings::w_wing(&Classic, s, step),
        Technique::Skyscraper => single_digit::skyscraper(&Classic, s, step, clean),
        Technique::TwoStringKite => single_digit::two_string_kite(&Classic, s, step, clean),
        Technique::SimpleColouring => single_digit::simple_colouring(&Classic, s, step, clean),
        Technique::XChain => chains::x_chain(&Classic, s, step, clean),
        Technique::XYChain => chains::xy_chain(&Classic, s, step),
        Technique::Aic => chains::aic(&Classic, s, step),
        // Killer's own techniques: only in the variant grader's ladder.
        Technique::CageSum
        | Technique::CageCombination
        | Technique::InnieOutie
        | Technique::CageSplit => false,
    };
    found && step.makes_progress()
}

/// Apply a found step to the state.
fn apply(s: &mut State, step: &Step) {
    for &(c, d) in &step.placements {
        let (c, d) = (c.idx(), d.get() as usize - 1);
        if s.cand[c] & (1 << d) != 0 {
            s.place(c, d);
        }
    }
    for &(c, d) in &step.eliminations {
        s.eliminate(c.idx(), d.get() as usize - 1);
    }
}

/// Solve with the ladder up to `max`. The level is above `max` when the ladder up to `max` got
/// stuck (`Extreme` when every technique was allowed).
fn run(puzzle: &Grid, max: Level, record: bool) -> Outcome {
    run_with(puzzle, max, record, Memo::default())
}

/// [`run`] with a given memo (tests run without one to check it changes nothing).
fn run_with(puzzle: &Grid, max: Level, record: bool, mut memo: Memo) -> Outcome {
    let mut s = State::new(puzzle);
    let mut out = Outcome {
        level: Level::Easy,
        score: 0,
        // One step per empty cell at least, and some eliminations.
        steps: Vec::with_capacity(if record { puzzle.n_empty() + 16 } else { 0 }),
        filled: None,
    };
    let mut step = Step::empty();
    if s.is_broken() {
        stuck(&mut out, &s);
        return out;
    }
    'solve: while !s.is_solved() {
        // Singles by whole waves, outside the ladder: the common case.
        let steps = if record { Some(&mut out.steps) } else { None };
        if let Some((t, n)) = singles::wave(&mut s, steps) {
            out.score += t.weight() * n;
            continue;
        }
        memo.invalidate(&mut s);
        let mut places = None;
        for t in Technique::ORDER {
            if t.level() > max {
                out.level = next_level(max);
                return out;
            }
            if t.level() == Level::Easy {
                continue;
            }
            if find(t, &s, &mut step, &mut memo, &mut places) {
                apply(&mut s, &step);
                out.level = out.level.max(t.level());
                out.score += t.weight();
                if record {
                    out.steps.push(std::mem::replace(&mut step, Step::empty()));
                }
                if s.has_dead_cell() {
                    // Only a puzzle without a solution gets here.
                    stuck(&mut out, &s);
                    return out;
                }
                continue 'solve;
            }
        }
        stuck(&mut out, &s);
        return out;
    }
    out.filled = Grid::from_bytes(s.value);
    out
}

/// The ladder is stuck: the grade is extreme, and its score sits above every expert score
/// (the floor), then grows with the steps taken and the cells left unsolved.
fn stuck(out: &mut Outcome, s: &State) {
    stuck_at(out, s.value.iter().filter(|&&v| v == 0).count());
}

#[cfg(test)]
pub(crate) mod testing;

#[cfg(test)]
mod tests {
    use super::*;

    /// The memo only saves time: with and without it, the same steps.
    #[track_caller]
    fn check_memo_changes_nothing(lines: &str) {
        for line in lines.lines().filter(|l| l.len() >= 81) {
            let g = Grid::parse(line).expect("test puzzle parses");
            let with = run(&g, Level::Extreme, true);
            let memo = Memo {
                disabled: true,
                ..Memo::default()
            };
            let without = run_with(&g, Level::Extreme, true, memo);
            assert_eq!(with.steps, without.steps, "{line}");
            assert_eq!((with.level, with.score), (without.level, without.score));
        }
    }

    #[test]
    fn ladder_goes_by_weight_and_level() {
        for order in [&Technique::ORDER[..], &Technique::VARIANT_ORDER[..]] {
            for w in order.windows(2) {
                assert!(w[0].weight() <= w[1].weight(), "{} before {}", w[0], w[1]);
                assert!(w[0].level() <= w[1].level(), "{} before {}", w[0], w[1]);
            }
            let mut seen: Vec<Technique> = order.to_vec();
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), order.len());
        }
        // The variants' ladder is the classic one with killer's four in their places.
        let classic: Vec<Technique> = Technique::VARIANT_ORDER
            .into_iter()
            .filter(|t| Technique::ORDER.contains(t))
            .collect();
        assert_eq!(classic, Technique::ORDER);
        assert_eq!(Technique::VARIANT_ORDER.len(), Technique::ORDER.len() + 4);
    }

    #[test]
    fn technique_names_are_snake_case_and_distinct() {
        let mut names: Vec<&str> = Technique::VARIANT_ORDER.map(Technique::as_str).to_vec();
        assert!(names
            .iter()
            .all(|n| n.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')));
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Technique::VARIANT_ORDER.len());
        assert_eq!(Technique::TwoStringKite.as_str(), "two_string_kite");
        assert_eq!(Technique::InnieOutie.as_str(), "innie_outie");
        let families = [
            "single",
            "locked_candidates",
            "subset",
            "fish",
            "wing",
            "single_digit_pattern",
            "chain",
            "cage",
        ];
        for t in Technique::VARIANT_ORDER {
            assert!(families.contains(&t.family()), "{t}");
        }
    }

    #[test]
    fn memo_changes_nothing() {
        check_memo_changes_nothing(include_str!(
            "../../tests/data/grader/qqwing_expert_500.txt"
        ));
        check_memo_changes_nothing(include_str!(
            "../../tests/data/grader/magictour_top1465_every15th.txt"
        ));
    }
}
