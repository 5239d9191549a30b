//! The human-technique grader: solves a puzzle the way a person would, always applying the
//! cheapest [`Technique`] that makes progress, records every [`Step`], and grades the puzzle
//! with a [`Level`] (the hardest technique needed) and a score (the sum of the technique weights,
//! in the spirit of HoDoKu's scores).
//!
//! - [`grade`] grades a puzzle and keeps the step record (the `grade --explain` tool).
//! - [`grade_max`] stops as soon as a technique above a level would be needed; it keeps no step
//!   record and is what the generator calls in its inner loop.
//! - [`hint`] finds the next step from a partly filled board (the client's hints).
//!
//! One private module per technique family: `singles`, `intersections`, `subsets`, `fish`,
//! `wings`, `single_digit` (skyscraper, 2-string kite, simple colouring) and `chains` (X-chains,
//! XY-chains, alternating inference chains). The candidate state lives in `state`.
//!
//! Invariants:
//! - Every technique only makes sound deductions, so on a puzzle with one solution every
//!   placement is the solution's digit and no elimination removes it (the tests check this).
//! - [`Technique::ORDER`] goes by weight and by level, so the level is the lowest at which the
//!   ladder solves the puzzle; the tests find it unchanged under the validity-preserving transforms.
//! - Singles go by whole waves (every naked single at once, else every hidden single), so an
//!   easy puzzle's score does not change under transforms either. Above singles one step is
//!   taken at a time, the first found in cell and digit order, so a transformed puzzle of medium
//!   or above can score a little differently.
//! - Speed: candidates are bitboards (a `u128` per digit) kept in step with per-cell masks; a
//!   memo skips the units and digits a technique found nothing in and that have not changed
//!   since (candidates only ever go, so they still give nothing).

use std::fmt;

use crate::engine::difficulty::Level;
use crate::engine::grid::{Cell, Digit, Grid};

mod chains;
mod combos;
mod fish;
mod intersections;
mod single_digit;
mod singles;
mod state;
mod subsets;
mod wings;

use state::State;

/// A solving technique, from naked singles to alternating inference chains.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Technique {
    /// The only candidate left in a cell.
    NakedSingle,
    /// The only place left for a digit in a row, column or box.
    HiddenSingle,
    /// Locked candidates type 1: a digit confined to one line inside a box leaves the rest of the line.
    Pointing,
    /// Locked candidates type 2: a digit confined to one box inside a line leaves the rest of the box.
    Claiming,
    /// Two cells of a unit holding only the same two candidates.
    NakedPair,
    /// Two digits confined to the same two cells of a unit.
    HiddenPair,
    /// Three cells of a unit holding only three candidates between them.
    NakedTriple,
    /// Three digits confined to the same three cells of a unit.
    HiddenTriple,
    /// Four cells of a unit holding only four candidates between them.
    NakedQuad,
    /// Four digits confined to the same four cells of a unit.
    HiddenQuad,
    /// A digit confined to the same two columns in two rows (or rows in two columns).
    XWing,
    /// The three-line fish.
    Swordfish,
    /// The four-line fish.
    Jellyfish,
    /// A bivalue pivot with two bivalue pincers.
    XYWing,
    /// A trivalue pivot with two bivalue pincers.
    XYZWing,
    /// Two equal bivalue cells joined by a strong link on one of their digits.
    WWing,
    /// Two parallel strong links on a digit joined at one end.
    Skyscraper,
    /// A row strong link and a column strong link on a digit joined in a box.
    TwoStringKite,
    /// Two-colouring the strong links of one digit (colour trap or colour wrap).
    SimpleColouring,
    /// A single-digit alternating chain of strong and weak links.
    XChain,
    /// A chain of bivalue cells.
    XYChain,
    /// An alternating inference chain over any digits and cells.
    Aic,
}

impl Technique {
    /// Every technique, in the order the grader tries them (cheapest weight first).
    pub const ORDER: [Technique; 22] = [
        Technique::NakedSingle,
        Technique::HiddenSingle,
        Technique::Pointing,
        Technique::Claiming,
        Technique::NakedPair,
        Technique::HiddenPair,
        Technique::NakedTriple,
        Technique::HiddenTriple,
        Technique::NakedQuad,
        Technique::Skyscraper,
        Technique::XWing,
        Technique::TwoStringKite,
        Technique::WWing,
        Technique::Swordfish,
        Technique::SimpleColouring,
        Technique::HiddenQuad,
        Technique::XYWing,
        Technique::Jellyfish,
        Technique::XYZWing,
        Technique::XChain,
        Technique::XYChain,
        Technique::Aic,
    ];

    /// The lowercase name used in step descriptions.
    pub const fn name(self) -> &'static str {
        match self {
            Technique::NakedSingle => "naked single",
            Technique::HiddenSingle => "hidden single",
            Technique::Pointing => "pointing",
            Technique::Claiming => "claiming",
            Technique::NakedPair => "naked pair",
            Technique::HiddenPair => "hidden pair",
            Technique::NakedTriple => "naked triple",
            Technique::HiddenTriple => "hidden triple",
            Technique::NakedQuad => "naked quad",
            Technique::HiddenQuad => "hidden quad",
            Technique::XWing => "x-wing",
            Technique::Swordfish => "swordfish",
            Technique::Jellyfish => "jellyfish",
            Technique::XYWing => "xy-wing",
            Technique::XYZWing => "xyz-wing",
            Technique::WWing => "w-wing",
            Technique::Skyscraper => "skyscraper",
            Technique::TwoStringKite => "2-string kite",
            Technique::SimpleColouring => "simple colouring",
            Technique::XChain => "x-chain",
            Technique::XYChain => "xy-chain",
            Technique::Aic => "aic",
        }
    }

    /// The level a puzzle needing this technique has at least.
    pub const fn level(self) -> Level {
        match self {
            Technique::NakedSingle | Technique::HiddenSingle => Level::Easy,
            Technique::Pointing
            | Technique::Claiming
            | Technique::NakedPair
            | Technique::HiddenPair
            | Technique::NakedTriple
            | Technique::HiddenTriple => Level::Medium,
            Technique::NakedQuad
            | Technique::HiddenQuad
            | Technique::XWing
            | Technique::Swordfish
            | Technique::Jellyfish
            | Technique::XYWing
            | Technique::XYZWing
            | Technique::WWing
            | Technique::Skyscraper
            | Technique::TwoStringKite
            | Technique::SimpleColouring => Level::Hard,
            Technique::XChain | Technique::XYChain | Technique::Aic => Level::Expert,
        }
    }

    /// The score one step with this technique adds (HoDoKu's default step weights).
    pub const fn weight(self) -> u32 {
        match self {
            Technique::NakedSingle => 4,
            Technique::HiddenSingle => 14,
            Technique::Pointing | Technique::Claiming => 50,
            Technique::NakedPair => 60,
            Technique::HiddenPair => 70,
            Technique::NakedTriple => 80,
            Technique::HiddenTriple => 100,
            Technique::NakedQuad => 120,
            Technique::Skyscraper => 130,
            Technique::XWing => 140,
            Technique::TwoStringKite
            | Technique::WWing
            | Technique::Swordfish
            | Technique::SimpleColouring
            | Technique::HiddenQuad => 150,
            Technique::XYWing | Technique::Jellyfish => 160,
            Technique::XYZWing => 180,
            Technique::XChain | Technique::XYChain => 260,
            Technique::Aic => 280,
        }
    }
}

impl fmt::Display for Technique {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One deduction: the technique, the pattern it found (cells and digits) and its effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The technique used.
    pub technique: Technique,
    /// The cells forming the pattern (for chains: the chain's cells in order).
    pub cells: Vec<Cell>,
    /// The digits of the pattern (for an AIC: each chain node's digit, parallel to `cells`).
    pub digits: Vec<Digit>,
    /// Digits this step places.
    pub placements: Vec<(Cell, Digit)>,
    /// Candidates this step removes.
    pub eliminations: Vec<(Cell, Digit)>,
}

impl Step {
    pub(crate) fn empty() -> Step {
        Step {
            technique: Technique::NakedSingle,
            cells: Vec::new(),
            digits: Vec::new(),
            placements: Vec::new(),
            eliminations: Vec::new(),
        }
    }

    /// Reset for reuse, keeping the allocations.
    fn reset(&mut self, technique: Technique) {
        self.technique = technique;
        self.cells.clear();
        self.digits.clear();
        self.placements.clear();
        self.eliminations.clear();
    }

    /// Record the pattern cells of a bitboard.
    fn add_cells(&mut self, cells: u128) {
        self.cells.extend(state::Bits(cells).map(state::cell));
    }

    /// Record the pattern digits of a mask.
    fn add_digits(&mut self, digits: u16) {
        self.digits.extend(state::Digits(digits).map(state::digit));
    }

    /// Record the elimination of digit index `d` from every cell of `cells`.
    fn eliminate_all(&mut self, cells: u128, d: usize) {
        let dg = state::digit(d);
        self.eliminations
            .extend(state::Bits(cells).map(|c| (state::cell(c), dg)));
    }

    /// Whether the step changes anything.
    fn makes_progress(&self) -> bool {
        !self.placements.is_empty() || !self.eliminations.is_empty()
    }
}

fn write_list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{x}")?;
    }
    Ok(())
}

impl fmt::Display for Step {
    /// `hidden single: r3c4 = 7`; `x-wing: 4 in r2c3,r2c7,r5c3,r5c7 => r7c3 <> 4, r8c7 <> 4`;
    /// chains with their links (`=` strong, `-` weak): `x-chain: 1 in r3c2=r3c4-r1c6=r1c9 =>
    /// ...`, `aic: r1c3(5)=r2c3(5)-r2c3(4)=r6c3(4) => ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.technique.name())?;
        match self.technique {
            Technique::NakedSingle | Technique::HiddenSingle => {}
            Technique::XChain | Technique::Aic => {
                if self.technique == Technique::XChain {
                    write_list(f, &self.digits)?;
                    f.write_str(" in ")?;
                }
                for (i, c) in self.cells.iter().enumerate() {
                    if i > 0 {
                        f.write_str(if i % 2 == 1 { "=" } else { "-" })?;
                    }
                    write!(f, "{c}")?;
                    if let (Technique::Aic, Some(d)) = (self.technique, self.digits.get(i)) {
                        write!(f, "({d})")?;
                    }
                }
                f.write_str(" => ")?;
            }
            _ => {
                write_list(f, &self.digits)?;
                f.write_str(" in ")?;
                write_list(f, &self.cells)?;
                f.write_str(" => ")?;
            }
        }
        let mut first = true;
        for (c, d) in &self.placements {
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            write!(f, "{c} = {d}")?;
        }
        for (c, d) in &self.eliminations {
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            write!(f, "{c} <> {d}")?;
        }
        Ok(())
    }
}

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

/// Outcome of a run of the technique ladder.
struct Outcome {
    level: Level,
    score: u32,
    steps: Vec<Step>,
    filled: Option<Grid>,
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
        Technique::XYWing => wings::xy_wing(s, step),
        Technique::XYZWing => wings::xyz_wing(s, step),
        Technique::WWing => wings::w_wing(s, step),
        Technique::Skyscraper => single_digit::skyscraper(s, step, clean),
        Technique::TwoStringKite => single_digit::two_string_kite(s, step, clean),
        Technique::SimpleColouring => single_digit::simple_colouring(s, step, clean),
        Technique::XChain => chains::x_chain(s, step, clean),
        Technique::XYChain => chains::xy_chain(s, step),
        Technique::Aic => chains::aic(s, step),
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
        out.level = Level::Extreme;
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
                    out.level = Level::Extreme;
                    return out;
                }
                continue 'solve;
            }
        }
        out.level = Level::Extreme;
        return out;
    }
    out.filled = Grid::from_bytes(s.value);
    out
}

/// The level just above `l`.
fn next_level(l: Level) -> Level {
    match l {
        Level::Easy => Level::Medium,
        Level::Medium => Level::Hard,
        Level::Hard => Level::Expert,
        Level::Expert | Level::Extreme => Level::Extreme,
    }
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
        let order = Technique::ORDER;
        for w in order.windows(2) {
            assert!(w[0].weight() <= w[1].weight(), "{} before {}", w[0], w[1]);
            assert!(w[0].level() <= w[1].level(), "{} before {}", w[0], w[1]);
        }
        let mut seen: Vec<Technique> = order.to_vec();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), order.len());
    }

    #[test]
    fn memo_changes_nothing() {
        check_memo_changes_nothing(include_str!(
            "../../../tests/data/grader/qqwing_expert_500.txt"
        ));
        check_memo_changes_nothing(include_str!(
            "../../../tests/data/grader/magictour_top1465_every15th.txt"
        ));
    }
}
