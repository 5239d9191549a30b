//! One integration-test binary for everything that crosses crates.
mod load_smoke;
