//! Variant puzzles as text (A10's shape, docs/protocol.md "Variant puzzles as text"): one JSON
//! object a line, `{"variant", "puzzle", "regions"?, "cages"?, "solution"?}`, read into the
//! engine's geometry and grid, and written from a generated puzzle. A plain 81-character line
//! is a puzzle of the variant named on the command line (classic, x, windoku: the variants
//! without a layout). The engine has no serde; the JSON lives here.

use engine::generator::variant::VariantPuzzle;
use engine::geometry::{Layout, LayoutError};
use engine::{Cell, Geometry, Grid, ParseGridError, Variant};
use serde::{Deserialize, Serialize};

/// One cage on the wire: its cells (0..=80) and sum.
#[derive(Debug, Serialize, Deserialize)]
struct CageText {
    cells: Vec<u8>,
    sum: u8,
}

/// A variant puzzle as JSON.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PuzzleText {
    variant: String,
    puzzle: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    regions: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cages: Option<Vec<CageText>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    solution: Option<String>,
}

/// Why a line is not a puzzle.
#[derive(Debug, thiserror::Error)]
pub enum TextError {
    /// Not JSON of the shape, or not JSON at all.
    #[error("not a variant puzzle: {0}")]
    Json(#[from] serde_json::Error),
    /// The grid is not 81 cells.
    #[error(transparent)]
    Grid(#[from] ParseGridError),
    /// An unknown variant name.
    #[error(transparent)]
    Variant(#[from] engine::UnknownVariant),
    /// The layout does not make the variant's rules.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// A cage names a cell past 80.
    #[error("cage cell {0} is not a cell (0-80)")]
    Cell(u8),
    /// The line names another variant than the command line.
    #[error("a {found} puzzle where --variant {expected} was asked")]
    Mismatch {
        /// The command line's.
        expected: Variant,
        /// The line's.
        found: Variant,
    },
}

/// The rules and givens of one line: JSON (its own variant, which must be `expected` when
/// one is named), or an 81-character grid of `expected` (classic when none is named).
pub fn parse(line: &str, expected: Option<Variant>) -> Result<(Geometry, Grid), TextError> {
    if !line.starts_with('{') {
        let variant = expected.unwrap_or_default();
        let geometry = Geometry::of(variant, &Layout::default())?;
        return Ok((geometry, Grid::parse(line)?));
    }
    let text: PuzzleText = serde_json::from_str(line)?;
    let found: Variant = text.variant.parse()?;
    if let Some(expected) = expected.filter(|&e| e != found) {
        return Err(TextError::Mismatch { expected, found });
    }
    let mut cages = Vec::new();
    for cage in text.cages.unwrap_or_default() {
        let cells = cage
            .cells
            .iter()
            .map(|&c| Cell::new(c).ok_or(TextError::Cell(c)))
            .collect::<Result<Vec<Cell>, TextError>>()?;
        cages.push((cells, cage.sum));
    }
    let layout = Layout {
        regions: text.regions,
        cages,
    };
    Ok((Geometry::of(found, &layout)?, Grid::parse(&text.puzzle)?))
}

/// A generated puzzle as one JSON line, with its solution.
pub fn write(p: &VariantPuzzle) -> String {
    let layout = p.geometry.layout();
    let cages = p.geometry.variant().has_layout() && layout.regions.is_none();
    let text = PuzzleText {
        variant: p.geometry.variant().as_str().to_owned(),
        puzzle: p.puzzle.to_line(),
        regions: layout.regions,
        cages: cages.then(|| {
            layout
                .cages
                .iter()
                .map(|(cells, sum)| CageText {
                    cells: cells.iter().map(|c| c.get()).collect(),
                    sum: *sum,
                })
                .collect()
        }),
        solution: Some(p.solution.to_line()),
    };
    serde_json::to_string(&text).expect("strings and numbers always serialise")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn generated_puzzles_read_back_as_themselves() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        for variant in Variant::ALL {
            let difficulty = engine::Difficulty::Easy;
            let p = engine::generator::variant::generate_in(&mut rng, variant, difficulty);
            let (geometry, puzzle) = parse(&write(&p), Some(variant)).expect("reads back");
            assert!(geometry.same_rules(&p.geometry), "{variant}");
            assert_eq!(puzzle, p.puzzle);
        }
    }

    #[test]
    fn bad_lines_are_errors_not_panics() {
        let dots = ".".repeat(81);
        assert!(parse(&dots, None).is_ok());
        assert!(parse(&dots, Some(Variant::X)).is_ok());
        assert!(matches!(
            parse(&dots, Some(Variant::Killer)),
            Err(TextError::Layout(_))
        ));
        let jigsaw_without = format!(r#"{{"variant":"jigsaw","puzzle":"{dots}"}}"#);
        assert!(matches!(
            parse(&jigsaw_without, None),
            Err(TextError::Layout(_))
        ));
        let far = format!(
            r#"{{"variant":"killer","puzzle":"{dots}","cages":[{{"cells":[81],"sum":3}}]}}"#
        );
        assert!(matches!(parse(&far, None), Err(TextError::Cell(81))));
        let other = format!(r#"{{"variant":"x","puzzle":"{dots}"}}"#);
        assert!(matches!(
            parse(&other, Some(Variant::Windoku)),
            Err(TextError::Mismatch { .. })
        ));
        for bad in [
            "{",
            r#"{"variant":"sudoku","puzzle":""}"#,
            r#"{"variant":"x","puzzle":"12"}"#,
        ] {
            assert!(parse(bad, None).is_err(), "{bad}");
        }
    }
}
