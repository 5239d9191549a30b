//! The grader's vocabulary: each [`Technique`] with its level and weight, and the [`Step`]
//! record of one deduction (pattern and effect), which feeds both hints and `grade --explain`.

use std::fmt;

use super::state;
use crate::difficulty::Level;
use crate::grid::{Cell, Digit};

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
    pub(super) fn reset(&mut self, technique: Technique) {
        self.technique = technique;
        self.cells.clear();
        self.digits.clear();
        self.placements.clear();
        self.eliminations.clear();
    }

    /// Record the pattern cells of a bitboard.
    pub(super) fn add_cells(&mut self, cells: u128) {
        self.cells.extend(state::Bits(cells).map(state::cell));
    }

    /// Record the pattern digits of a mask.
    pub(super) fn add_digits(&mut self, digits: u16) {
        self.digits.extend(state::Digits(digits).map(state::digit));
    }

    /// Record the elimination of digit index `d` from every cell of `cells`.
    pub(super) fn eliminate_all(&mut self, cells: u128, d: usize) {
        let dg = state::digit(d);
        self.eliminations
            .extend(state::Bits(cells).map(|c| (state::cell(c), dg)));
    }

    /// Whether the step changes anything.
    pub(super) fn makes_progress(&self) -> bool {
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
