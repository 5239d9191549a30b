//! The load tools' library, behind the `loadgen` and `ws-echo` binaries: a lean WebSocket client
//! speaking the protocol types, a bare echo server built with the race server's own transport
//! settings, latency histograms, process readings from `/proc`, and the load runs themselves.
#![warn(missing_docs)]

pub mod echo;
pub mod hist;
pub mod procfs;
pub mod run;
pub mod tls;
pub mod wsclient;
