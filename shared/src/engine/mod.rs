//! The Sudoku engine: pure computation, no IO, no protocol.
//!
//! - [`grid`]: `Cell`, `Digit`, `Grid`, the 81-character line format and the unit tables.
//! - [`solver`]: counts solutions up to a limit; returns the solution when it is unique.
//! - [`generator`]: random complete grids and unique puzzles at a requested difficulty.
//! - [`transform`]: validity-preserving transforms (relabel, permute, transpose).
//! - [`grader`]: human-technique solver with a step record, difficulty level and score.
//! - [`validator`]: conflicts on a board, placement checks, complete-solution checks.

pub mod difficulty;
pub mod generator;
pub mod grader;
pub mod grid;
pub mod solver;
pub mod transform;
pub mod validator;

pub use difficulty::{Difficulty, Level};
pub use grid::{Cell, Digit, Grid, ParseGridError};
