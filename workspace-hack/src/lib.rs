//! No code: this crate exists for its manifest, which turns on the same features of shared
//! dependencies in every build of the workspace's binaries (see its Cargo.toml).
