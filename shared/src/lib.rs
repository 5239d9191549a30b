//! The sudoku-race engine: grids, the solver, the unique-puzzle generator, the human-technique
//! grader and the validator. It does no IO and knows nothing of the wire protocol (that is the
//! `sudoku-race-protocol` crate, which depends on this one, never the other way).
//!
//! - [`grid`]: `Cell`, `Digit`, `Grid`, the 81-character line format and the unit tables.
//! - [`solver`]: counts solutions up to a limit; returns the solution when it is unique
//!   (`solver::geometric` for any geometry).
//! - [`generator`]: random complete grids and unique puzzles at a requested difficulty, for
//!   classic and (`generator::variant`) every variant, with fresh jigsaw regions and killer cages.
//! - [`geometry`]: a puzzle's houses and other constraints, and each cell's peers, that the
//!   validator, the isomorphs and the clients read (classic Sudoku is one shared value).
//! - [`transform`]: validity-preserving transforms (relabel, permute, transpose), whether one
//!   keeps a geometry, and the isomorphs each variant allows.
//! - [`grader`]: human-technique solver with a step record, difficulty level and score.
//! - [`variant`]: the variants' names (A10).
//! - [`validator`]: conflicts on a board, placement checks, complete-solution checks, by a
//!   geometry's rules.
#![warn(missing_docs)]

pub mod difficulty;
pub mod generator;
pub mod geometry;
pub mod grader;
pub mod grid;
pub mod solver;
pub mod transform;
pub mod validator;
pub mod variant;

pub use difficulty::{Difficulty, Level};
pub use geometry::{Constraint, Geometry};
pub use grid::{Cell, Digit, Grid, ParseGridError};
pub use variant::{UnknownVariant, Variant};
