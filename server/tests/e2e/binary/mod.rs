//! The real `sudoku-race-server` binary, as an operator runs it: signals, `--help`, a
//! file-descriptor limit below the connection cap, its log in a file, results that wait in
//! the spool for a full disk, a race that survives a `kill -9` through the room journal, and
//! (with the `pg-tests` feature) its results in PostgreSQL and a restart while PostgreSQL is
//! away.

mod drain;
mod fd_limit;
mod journal;
mod log_file;
#[cfg(feature = "pg-tests")]
mod postgres;
mod self_signed;
mod sigterm;
mod spool;
