//! The variants a race can be (A10): classic Sudoku and the four others, by their wire names.

use std::fmt;
use std::str::FromStr;

/// A puzzle's rules, by name: classic, or one of A10's variants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Variant {
    /// Rows, columns and boxes.
    #[default]
    Classic,
    /// Classic, and both main diagonals.
    X,
    /// Classic, and four extra 3×3 windows.
    Windoku,
    /// Rows, columns and nine irregular regions instead of the boxes.
    Jigsaw,
    /// Classic, and cages of distinct digits with a sum each.
    Killer,
}

impl Variant {
    /// Every variant, classic first.
    pub const ALL: [Variant; 5] = [
        Variant::Classic,
        Variant::X,
        Variant::Windoku,
        Variant::Jigsaw,
        Variant::Killer,
    ];

    /// The lowercase name used on the wire and on the command line.
    pub const fn as_str(self) -> &'static str {
        match self {
            Variant::Classic => "classic",
            Variant::X => "x",
            Variant::Windoku => "windoku",
            Variant::Jigsaw => "jigsaw",
            Variant::Killer => "killer",
        }
    }

    /// Whether each puzzle brings a layout of its own (jigsaw regions, killer cages) that a
    /// client is given beside the grid.
    pub const fn has_layout(self) -> bool {
        matches!(self, Variant::Jigsaw | Variant::Killer)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a variant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant {0:?} (expected classic, x, windoku, jigsaw or killer)")]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Variant::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| UnknownVariant(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_are_refused() {
        for v in Variant::ALL {
            assert_eq!(v.as_str().parse::<Variant>(), Ok(v));
        }
        assert!("sudoku-x".parse::<Variant>().is_err());
        assert_eq!(Variant::default(), Variant::Classic);
    }
}
