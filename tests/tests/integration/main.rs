//! One integration-test binary for everything that crosses crates: the terminal client, its
//! bots and its driver against the real server, and the workspace's layer and layout rules.
//! The server's own end-to-end tests live in `server/tests/e2e`.

mod support;

mod arena_client;
mod bots;
mod client_links;
mod daily_client;
mod driver;
mod ghost_client;
mod identity_client;
mod layers;
mod layout;
mod moderation_client;
mod pool_client;
mod replay;
mod tls_client;
