//! Support for the end-to-end tests and the load tools: a lean WebSocket client speaking the
//! shared protocol types, a bare echo server on the same stack, latency histograms, process
//! readings from `/proc`, and the load runs behind the `loadgen` binary.
#![warn(missing_docs)]

pub mod echo;
pub mod hist;
pub mod load;
pub mod procfs;
pub mod wsclient;
