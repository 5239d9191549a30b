//! The terminal client's one integration-test binary: the real `sudoku-race` binary, for what
//! only the binary decides (settings, exit codes, refusals before any screen) and its engine
//! tools. What crosses crates (the client against a real server) lives in `tests/`.

mod cli;
mod tools;
