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
    /// Killer: a cage with one open cell holds its sum less the digits placed in it.
    CageSum,
    /// Killer: a cage's cells keep the digits of the sets that complete its sum (given what is
    /// placed and the other cells' candidates); a digit every such set holds leaves the cells
    /// outside the cage that see all its places in the cage.
    CageCombination,
    /// Killer, the 45 rule: a row, column, box or a union of adjacent ones, almost covered by
    /// whole cages; the cells inside it but not in those cages (innies), or the cells of its
    /// cages outside it (outies), add up to a known total, which pins one cell or a pair's sum.
    InnieOutie,
    /// Killer: a cage partly inside a house (or a union of houses) whose other cells are whole
    /// cages splits into two parts of known sums, each kept to the digits that make its sum.
    CageSplit,
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

    /// The ladder of a variant's grader (`grade_in`): [`Technique::ORDER`] with the killer
    /// techniques in their places by weight and level.
    pub const VARIANT_ORDER: [Technique; 26] = [
        Technique::NakedSingle,
        Technique::CageSum,
        Technique::HiddenSingle,
        Technique::CageCombination,
        Technique::Pointing,
        Technique::Claiming,
        Technique::NakedPair,
        Technique::HiddenPair,
        Technique::NakedTriple,
        Technique::HiddenTriple,
        Technique::InnieOutie,
        Technique::CageSplit,
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

    /// The stable snake_case name for the wire and stored records (A11): never renamed.
    pub const fn as_str(self) -> &'static str {
        match self {
            Technique::NakedSingle => "naked_single",
            Technique::HiddenSingle => "hidden_single",
            Technique::Pointing => "pointing",
            Technique::Claiming => "claiming",
            Technique::NakedPair => "naked_pair",
            Technique::HiddenPair => "hidden_pair",
            Technique::NakedTriple => "naked_triple",
            Technique::HiddenTriple => "hidden_triple",
            Technique::NakedQuad => "naked_quad",
            Technique::HiddenQuad => "hidden_quad",
            Technique::XWing => "x_wing",
            Technique::Swordfish => "swordfish",
            Technique::Jellyfish => "jellyfish",
            Technique::XYWing => "xy_wing",
            Technique::XYZWing => "xyz_wing",
            Technique::WWing => "w_wing",
            Technique::Skyscraper => "skyscraper",
            Technique::TwoStringKite => "two_string_kite",
            Technique::SimpleColouring => "simple_colouring",
            Technique::XChain => "x_chain",
            Technique::XYChain => "xy_chain",
            Technique::Aic => "aic",
            Technique::CageSum => "cage_sum",
            Technique::CageCombination => "cage_combination",
            Technique::InnieOutie => "innie_outie",
            Technique::CageSplit => "cage_split",
        }
    }

    /// The technique's family (A11's `family`, snake_case): `single`, `locked_candidates`,
    /// `subset`, `fish`, `wing`, `single_digit_pattern`, `chain` or `cage` (killer's own).
    pub const fn family(self) -> &'static str {
        match self {
            Technique::NakedSingle | Technique::HiddenSingle => "single",
            Technique::Pointing | Technique::Claiming => "locked_candidates",
            Technique::NakedPair
            | Technique::HiddenPair
            | Technique::NakedTriple
            | Technique::HiddenTriple
            | Technique::NakedQuad
            | Technique::HiddenQuad => "subset",
            Technique::XWing | Technique::Swordfish | Technique::Jellyfish => "fish",
            Technique::XYWing | Technique::XYZWing | Technique::WWing => "wing",
            Technique::Skyscraper | Technique::TwoStringKite | Technique::SimpleColouring => {
                "single_digit_pattern"
            }
            Technique::XChain | Technique::XYChain | Technique::Aic => "chain",
            Technique::CageSum
            | Technique::CageCombination
            | Technique::InnieOutie
            | Technique::CageSplit => "cage",
        }
    }

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
            Technique::CageSum => "cage sum",
            Technique::CageCombination => "cage combination",
            Technique::InnieOutie => "45 rule",
            Technique::CageSplit => "cage split",
        }
    }

    /// The level a puzzle needing this technique has at least.
    pub const fn level(self) -> Level {
        match self {
            Technique::NakedSingle | Technique::HiddenSingle | Technique::CageSum => Level::Easy,
            Technique::CageCombination
            | Technique::Pointing
            | Technique::Claiming
            | Technique::NakedPair
            | Technique::HiddenPair
            | Technique::NakedTriple
            | Technique::HiddenTriple => Level::Medium,
            Technique::InnieOutie
            | Technique::CageSplit
            | Technique::NakedQuad
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
            Technique::CageSum => 8,
            Technique::HiddenSingle => 14,
            Technique::CageCombination => 40,
            Technique::Pointing | Technique::Claiming => 50,
            Technique::NakedPair => 60,
            Technique::HiddenPair => 70,
            Technique::NakedTriple => 80,
            Technique::HiddenTriple => 100,
            Technique::InnieOutie => 110,
            Technique::NakedQuad | Technique::CageSplit => 120,
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

/// Where a step's pattern lies: a house of the puzzle's geometry, a killer cage, or a union of
/// adjacent houses (the 45 rule). Indices count from 0 (rows and columns top and left first,
/// boxes row by row; `Region` is the jigsaw label `0`..`8` of A10's `regions`; `Cage` is the
/// cage's index in the geometry's constraints, as A10's `cages` lists them); the display counts
/// from 1 for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Area {
    /// A row.
    Row(u8),
    /// A column.
    Column(u8),
    /// A 3×3 box.
    Box(u8),
    /// A jigsaw region.
    Region(u8),
    /// An x diagonal: 0 from r1c1 to r9c9, 1 from r1c9 to r9c1.
    Diagonal(u8),
    /// A windoku window: 0..4 for the windows at r2c2, r2c6, r6c2, r6c6.
    Window(u8),
    /// Any other house, by its index in the geometry's houses.
    House(u8),
    /// A killer cage.
    Cage(u8),
    /// The rows `first..=last`.
    Rows(u8, u8),
    /// The columns `first..=last`.
    Columns(u8, u8),
    /// Two adjacent boxes.
    Boxes(u8, u8),
}

impl Area {
    /// Whether it is a row or a column (or a band of them).
    pub const fn is_line(self) -> bool {
        matches!(
            self,
            Area::Row(_) | Area::Column(_) | Area::Rows(..) | Area::Columns(..)
        )
    }

    /// The stable snake_case name of the area's kind (`row`, `cage`, `rows`, …).
    pub const fn kind(self) -> &'static str {
        match self {
            Area::Row(_) => "row",
            Area::Column(_) => "column",
            Area::Box(_) => "box",
            Area::Region(_) => "region",
            Area::Diagonal(_) => "diagonal",
            Area::Window(_) => "window",
            Area::House(_) => "house",
            Area::Cage(_) => "cage",
            Area::Rows(..) => "rows",
            Area::Columns(..) => "columns",
            Area::Boxes(..) => "boxes",
        }
    }
}

impl fmt::Display for Area {
    /// `row 3`, `cage 12`, `rows 1-3`, `boxes 1+2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = self.kind();
        match *self {
            Area::Row(i)
            | Area::Column(i)
            | Area::Box(i)
            | Area::Region(i)
            | Area::Diagonal(i)
            | Area::Window(i)
            | Area::House(i)
            | Area::Cage(i) => write!(f, "{kind} {}", u32::from(i) + 1),
            Area::Rows(a, b) | Area::Columns(a, b) => {
                write!(f, "{kind} {}-{}", u32::from(a) + 1, u32::from(b) + 1)
            }
            Area::Boxes(a, b) => write!(f, "{kind} {}+{}", u32::from(a) + 1, u32::from(b) + 1),
        }
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
    /// The house, cage or union of houses the pattern lies in, when the technique has one
    /// (the variant grader's steps; the classic grader leaves it out).
    pub area: Option<Area>,
    /// Killer steps: what the pattern's cells add up to.
    pub sum: Option<u8>,
}

impl Step {
    pub(crate) fn empty() -> Step {
        Step {
            technique: Technique::NakedSingle,
            cells: Vec::new(),
            digits: Vec::new(),
            placements: Vec::new(),
            eliminations: Vec::new(),
            area: None,
            sum: None,
        }
    }

    /// Reset for reuse, keeping the allocations.
    pub(super) fn reset(&mut self, technique: Technique) {
        self.technique = technique;
        self.cells.clear();
        self.digits.clear();
        self.placements.clear();
        self.eliminations.clear();
        self.area = None;
        self.sum = None;
    }

    /// Record a single: digit index `d` placed in cell `c` (its cell and digit the pattern),
    /// found in `area`.
    pub(crate) fn record_single(&mut self, c: usize, d: usize, area: Option<Area>) {
        let (c, d) = (state::cell(c), state::digit(d));
        self.cells.push(c);
        self.digits.push(d);
        self.placements.push((c, d));
        self.area = area;
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
                if !self.digits.is_empty() {
                    write_list(f, &self.digits)?;
                    f.write_str(" in ")?;
                }
                write_list(f, &self.cells)?;
                if let Some(sum) = self.sum {
                    write!(f, " sum {sum}")?;
                }
                if let Some(area) = self.area {
                    write!(f, " ({area})")?;
                }
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
