//! The sudoku-race terminal client as a library, so the binary and the end-to-end tests share
//! its pieces:
//!
//! - [`net`]: the connection task (WebSocket, reconnect with backoff, `resume`) and the
//!   [`ServerUrl`](net::ServerUrl) it dials. No terminal.
//! - [`app`]: the online app's state; `App::update(Event) -> Vec<Effect>` does no IO. Its
//!   [`Mirror`](app::Mirror) folds in what the server said; [`app::keys`] is the key table.
//! - [`ui`]: rendering, a pure function of the app state, one module per screen.
//! - [`run`]: the event loop over terminal keys, server messages and ticks, generic over the
//!   ratatui backend.
//! - [`config`]: the server and name in force (flag, environment, config file, default).
//! - [`bot`]: computer players: a no-IO `Brain` on the app's mirror, driven over a session.
//! - [`solo`]: offline practice (its own app state; drawn by `ui::solo`).
//! - [`replay`]: a finished race played back from the HTTP API's record (drawn by `ui::replay`).
//! - [`term`]: terminal setup and restore (panic hook included), logging to a file.
//! - [`localtime`]: wall-clock times in the local time zone for printed tables.
#![warn(missing_docs)]

pub mod api;
pub mod app;
pub mod bot;
pub mod config;
pub mod identity;
pub mod localtime;
pub mod net;
pub mod replay;
pub mod run;
pub mod solo;
pub mod term;
pub mod ui;

pub use config::default_name;
pub use net::DEFAULT_SERVER;
