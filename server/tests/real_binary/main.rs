//! The real `sudoku-race-server` binary, as an operator runs it: signals, `--help`, and a
//! file-descriptor limit below the connection cap.
// A test of a real process waits on the real clock.
#![allow(clippy::disallowed_methods)]

mod support;

mod fd_limit;
mod sigterm;
