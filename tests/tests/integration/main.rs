//! One integration-test binary for everything that crosses crates.

mod support;

mod api;
mod api_schema;
mod arena;
mod arena_client;
mod boards;
mod bots;
mod client_links;
mod close_handshake;
mod conformance;
mod daily;
mod driver;
mod fanout;
mod ghost;
mod ghost_client;
mod host_controls;
mod identity;
mod isomorphs;
mod lag;
mod layers;
mod layout;
mod moderation;
mod pool;
mod pool_client;
mod proxy;
mod replay;

mod server_bad_input;
mod server_contract;
mod server_http;
mod server_race;
mod server_resume;
mod tls;
mod web_assets;
