//! The sudoku-race terminal client as a library, so the end-to-end tests and the load tools can
//! reuse its pieces:
//!
//! - [`net`]: the connection task (WebSocket, reconnect with backoff, `resume`). No terminal.
//! - [`app`]: the online app's state; `App::update(Event) -> Vec<Effect>` does no IO.
//! - [`ui`]: rendering, a pure function of the app state.
//! - [`run`]: the event loop over terminal keys, server messages and ticks, generic over the
//!   ratatui backend.
//! - [`term`]: terminal setup and restore (panic hook included), logging to a file.
#![warn(missing_docs)]

pub mod app;
pub mod bot;
pub mod net;
pub mod run;
pub mod solo;
pub mod term;
pub mod ui;

/// The server URL used when `--server` is not given.
pub const DEFAULT_SERVER: &str = "ws://127.0.0.1:7878/ws";

/// The default display name: the login name, else `player`.
pub fn default_name() -> String {
    ["USER", "LOGNAME", "USERNAME"]
        .iter()
        .filter_map(|k| std::env::var(k).ok())
        .map(|n| {
            n.trim()
                .chars()
                .take(protocol::MAX_NAME_CHARS)
                .collect::<String>()
        })
        .find(|n| !n.is_empty())
        .unwrap_or_else(|| "player".to_owned())
}
