//! The end-to-end test crate: its one test binary (`tests/integration/`) starts the real server
//! on loopback and drives it with real WebSocket clients. It holds no library code; the load
//! tools live in `load/` (crate `sudoku-race-load`).
