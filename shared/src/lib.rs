//! The sudoku-race shared crate: the Sudoku engine and the wire-protocol types.
//!
//! - [`engine`] owns the game itself: grids, the solver, the unique-puzzle generator, the
//!   human-technique grader and the validator. It does no IO and knows nothing of the protocol.
//! - [`protocol`] owns the JSON messages exchanged between the server and its clients
//!   (`../shared/spec/protocol.md`), and is the one place where wire values become engine values.
#![warn(missing_docs)]

pub mod engine;
pub mod protocol;
