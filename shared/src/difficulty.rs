//! Difficulty levels: what a race asks for, and what the grader says of a puzzle.

use std::fmt;
use std::str::FromStr;

/// A difficulty a puzzle can be generated at (and a race can ask for).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Difficulty {
    /// Naked and hidden singles suffice.
    Easy,
    /// Also needs locked candidates and/or naked/hidden pairs and triples.
    Medium,
    /// Also needs quads, fish, wings, skyscraper, kite or simple colouring.
    Hard,
    /// Needs chains, but the technique set still solves it.
    Expert,
}

impl Difficulty {
    /// Every generatable difficulty, easiest first.
    pub const ALL: [Difficulty; 4] = [
        Difficulty::Easy,
        Difficulty::Medium,
        Difficulty::Hard,
        Difficulty::Expert,
    ];

    /// The lowercase name used on the wire and on the command line.
    pub const fn as_str(self) -> &'static str {
        match self {
            Difficulty::Easy => "easy",
            Difficulty::Medium => "medium",
            Difficulty::Hard => "hard",
            Difficulty::Expert => "expert",
        }
    }
}

impl fmt::Display for Difficulty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a difficulty.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown difficulty {0:?} (expected easy, medium, hard or expert)")]
pub struct UnknownDifficulty(pub String);

impl FromStr for Difficulty {
    type Err = UnknownDifficulty;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Difficulty::ALL
            .into_iter()
            .find(|d| d.as_str() == s)
            .ok_or_else(|| UnknownDifficulty(s.to_owned()))
    }
}

/// What the grader says of a puzzle: a [`Difficulty`], or `Extreme` when the technique set
/// cannot solve it (grading only; never generated for races).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// See [`Difficulty::Easy`].
    Easy,
    /// See [`Difficulty::Medium`].
    Medium,
    /// See [`Difficulty::Hard`].
    Hard,
    /// See [`Difficulty::Expert`].
    Expert,
    /// The technique set does not solve it.
    Extreme,
}

impl Level {
    /// The lowercase name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
            Level::Expert => "expert",
            Level::Extreme => "extreme",
        }
    }

    /// The difficulty this level is, or `None` for `Extreme`.
    pub const fn difficulty(self) -> Option<Difficulty> {
        match self {
            Level::Easy => Some(Difficulty::Easy),
            Level::Medium => Some(Difficulty::Medium),
            Level::Hard => Some(Difficulty::Hard),
            Level::Expert => Some(Difficulty::Expert),
            Level::Extreme => None,
        }
    }
}

impl From<Difficulty> for Level {
    fn from(d: Difficulty) -> Level {
        match d {
            Difficulty::Easy => Level::Easy,
            Difficulty::Medium => Level::Medium,
            Difficulty::Hard => Level::Hard,
            Difficulty::Expert => Level::Expert,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
