//! The sudoku-race engine: grids, the solver, the unique-puzzle generator, the human-technique
//! grader and the validator. It does no IO and knows nothing of the wire protocol (that is the
//! `sudoku-race-protocol` crate, which depends on this one, never the other way).
#![warn(missing_docs)]

pub mod engine;
