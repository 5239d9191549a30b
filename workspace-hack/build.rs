//! Cargo resolves a package's build-dependencies only when it has a build script: this empty one
//! is what makes the host-side features in Cargo.toml count.
fn main() {}
