//! One integration-test binary for everything that crosses crates.

mod load_smoke;
mod support;

mod bots;

mod server_bad_input;
mod server_http;
mod server_race;
mod server_resume;
