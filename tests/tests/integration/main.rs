//! One integration-test binary for everything that crosses crates.
