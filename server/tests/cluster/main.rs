//! Cluster mode with real engines (`cargo test -p sudoku-race-server --features cluster-tests`):
//! real `sudoku-race-server` nodes, each test's own `redis-server` on a free port (so a test can
//! kill and restart it), real WebSocket clients on 127.0.0.1. Every wait is bounded.
// A test of real processes waits on the real clock.
#![allow(clippy::disallowed_methods)]

#[path = "../real_binary/support.rs"]
#[allow(dead_code)] // the single-binary tests use the rest
mod support;

#[path = "../real_binary/own_pg.rs"]
mod own_pg;

mod boards;
mod drain;
mod engines;
mod failures;
mod pool;
mod race;
mod takeover;
