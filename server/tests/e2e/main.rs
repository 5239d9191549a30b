//! The server's end-to-end tests, one binary: the server through real sockets only, in
//! process ([`wire`], [`http`], [`race`], [`rated`]), as the operator runs its binary
//! ([`binary`]), and as a cluster of real nodes on real engines ([`cluster`], with the
//! `cluster-tests` feature: `cargo test -p sudoku-race-server --features cluster-tests --test
//! e2e cluster::`). What drives the terminal client lives in the cross-crate suite (`tests/`).
//! Every wait is bounded.

mod support;

mod binary;
#[cfg(feature = "cluster-tests")]
mod cluster;
mod http;
mod race;
mod rated;
mod wire;
