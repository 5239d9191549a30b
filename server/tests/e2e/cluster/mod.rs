//! Cluster mode with real engines: real `sudoku-race-server` nodes, each test's own
//! `redis-server` on a free port (so a test can kill and restart it), real WebSocket clients on
//! 127.0.0.1. Every wait is bounded.

mod boards;
mod drain;
mod engines;
mod failures;
mod netns;
mod partition;
mod pool;
mod race;
mod takeover;
