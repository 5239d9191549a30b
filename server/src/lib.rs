//! The sudoku-race server as a library: `run` serves rooms and races until shutdown.
//! (Built out by the race-server issue.)
#![warn(missing_docs)]
