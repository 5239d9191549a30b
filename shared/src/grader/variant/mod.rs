//! The grader for a variant's geometry (A10): the same ladder and the same levels as the
//! classic grader, over the geometry's own houses, peers and cages.
//!
//! - Singles, locked candidates and subsets walk every house of the geometry (diagonals,
//!   windows, jigsaw regions); naked subsets also walk killer cages (`houses`).
//! - Fish work on rows and columns, which every variant keeps: the classic code, sound as is
//!   (a geometry without them, which no variant is, gets no fish, wings or chains).
//! - Wings, single-digit patterns and chains are the classic code, generic over the house
//!   tables it reads ([`Tables`](super::state::Tables)): here the geometry's houses (strong
//!   links in diagonals, windows and jigsaw regions) and peers (a killer cage's cells see each
//!   other: weak links). Skyscrapers keep to rows and columns; a 2-string kite's joint is any
//!   house that is not a line.
//! - Killer's own techniques are in `cages`: cage sum (easy), cage combination (medium), the 45
//!   rule and the cage split (hard).

use super::outcome::{next_level, stuck_at, Outcome};
use super::state::State;
use super::step::{Step, Technique};
use super::{chains, fish, single_digit, wings};
use crate::difficulty::Level;
use crate::geometry::Geometry;
use crate::grid::Grid;

mod cages;
mod houses;
mod rules;

use rules::Rules;

/// Try technique `t`; on success `step` holds the deduction. `clean`: bit `i` for each cage
/// known to give no cage combination until its cells' candidates change (candidates only
/// go, so such a cage still gives nothing); the search skips those and marks the ones it clears.
fn find(rules: &Rules, t: Technique, s: &State, step: &mut Step, clean_cages: &mut u128) -> bool {
    step.reset(t);
    let clean = &mut 0;
    // Rows and columns are houses (fish and skyscrapers read them) and the tables fit.
    let classic = rules.tables_fit;
    let found = match t {
        Technique::NakedSingle => super::singles::naked_single(s, step),
        Technique::HiddenSingle => houses::hidden_single(rules, s, step),
        Technique::CageSum => cages::cage_sum(rules, s, step),
        Technique::CageCombination => cages::combination(rules, s, step, clean_cages),
        Technique::InnieOutie => cages::innie_outie(rules, s, step),
        Technique::CageSplit => cages::split(rules, s, step),
        Technique::Pointing => houses::locked(rules, s, false, step),
        Technique::Claiming => houses::locked(rules, s, true, step),
        Technique::NakedPair => houses::naked(rules, s, 2, step),
        Technique::NakedTriple => houses::naked(rules, s, 3, step),
        Technique::NakedQuad => houses::naked(rules, s, 4, step),
        Technique::HiddenPair => houses::hidden(rules, s, 2, step),
        Technique::HiddenTriple => houses::hidden(rules, s, 3, step),
        Technique::HiddenQuad => houses::hidden(rules, s, 4, step),
        Technique::XWing | Technique::Swordfish | Technique::Jellyfish if classic => {
            let n = match t {
                Technique::XWing => 2,
                Technique::Swordfish => 3,
                _ => 4,
            };
            fish::fish(s, &s.unit_places(), n, step, clean)
        }
        Technique::XYWing if classic => wings::xy_wing(rules, s, step),
        Technique::XYZWing if classic => wings::xyz_wing(rules, s, step),
        Technique::WWing if classic => wings::w_wing(rules, s, step),
        Technique::Skyscraper if classic => single_digit::skyscraper(rules, s, step, clean),
        Technique::TwoStringKite if classic => single_digit::two_string_kite(rules, s, step, clean),
        Technique::SimpleColouring if classic => {
            single_digit::simple_colouring(rules, s, step, clean)
        }
        Technique::XChain if classic => chains::x_chain(rules, s, step, clean),
        Technique::XYChain if classic => chains::xy_chain(rules, s, step),
        Technique::Aic if classic => chains::aic(rules, s, step),
        _ => false,
    };
    found && step.makes_progress()
}

/// Apply a found step under the geometry's peers.
fn apply(rules: &Rules, s: &mut State, step: &Step) {
    for &(c, d) in &step.placements {
        let (c, d) = (c.idx(), usize::from(d.get()) - 1);
        if s.cand[c] & (1 << d) != 0 {
            s.place_among(c, d, rules.peers[c]);
        }
    }
    for &(c, d) in &step.eliminations {
        s.eliminate(c.idx(), usize::from(d.get()) - 1);
    }
}

/// The candidate state of `grid` under `rules`; `None` when it shows a contradiction.
fn start(rules: &Rules, grid: &Grid) -> Option<State> {
    let s = State::with_peers(grid, &rules.peers)?;
    (!rules.is_broken(&s)).then_some(s)
}

/// Solve with the ladder up to `max` (see the classic `run`).
pub(super) fn run(geometry: &Geometry, puzzle: &Grid, max: Level, record: bool) -> Outcome {
    run_with(geometry, puzzle, max, record, true)
}

/// [`run`], with or without the memo of clean cages (tests compare the two).
fn run_with(geometry: &Geometry, puzzle: &Grid, max: Level, record: bool, memo: bool) -> Outcome {
    let rules = Rules::new(geometry);
    let mut out = Outcome {
        level: Level::Easy,
        score: 0,
        steps: Vec::new(),
        filled: None,
    };
    let Some(mut s) = start(&rules, puzzle) else {
        stuck_at(&mut out, puzzle.n_empty());
        return out;
    };
    let mut step = Step::empty();
    let mut clean_cages = 0u128;
    'solve: while !s.is_solved() {
        let steps = if record { Some(&mut out.steps) } else { None };
        if let Some((t, n)) = houses::wave(&rules, &mut s, steps) {
            out.score += t.weight() * n;
            continue;
        }
        clean_cages &= if memo {
            !rules.cages_touching(s.take_dirty_cells())
        } else {
            0
        };
        for t in Technique::VARIANT_ORDER {
            if t.level() > max {
                out.level = next_level(max);
                return out;
            }
            if t.level() == Level::Easy || !find(&rules, t, &s, &mut step, &mut clean_cages) {
                continue;
            }
            apply(&rules, &mut s, &step);
            out.level = out.level.max(t.level());
            out.score += t.weight();
            if record {
                out.steps.push(std::mem::replace(&mut step, Step::empty()));
            }
            if s.has_dead_cell() {
                // Only a puzzle without a solution gets here.
                stuck_at(&mut out, unsolved(&s));
                return out;
            }
            continue 'solve;
        }
        stuck_at(&mut out, unsolved(&s));
        return out;
    }
    out.filled = Grid::from_bytes(s.value);
    out
}

/// How many cells are still empty.
fn unsolved(s: &State) -> usize {
    s.unsolved.count_ones() as usize
}

/// The next step from a partly filled board under `geometry` (see the classic `hint`).
pub(super) fn hint(geometry: &Geometry, board: &Grid) -> Option<Step> {
    let rules = Rules::new(geometry);
    let s = start(&rules, board)?;
    if s.is_solved() {
        return None;
    }
    let mut step = Step::empty();
    Technique::VARIANT_ORDER
        .into_iter()
        .any(|t| find(&rules, t, &s, &mut step, &mut 0))
        .then_some(step)
}

#[cfg(test)]
mod tests;
