//! What the server's end-to-end suites share: the server in process ([`in_process`], whose
//! items every in-process suite imports from here), the real binary as a child process
//! ([`process`]), a PostgreSQL of the test's own ([`own_pg`]) and registered players in rated
//! races ([`rated`]). The cross-crate suite (`tests/`) includes `in_process` and `rated` by
//! path, so both binaries share one copy.

pub mod in_process;
#[cfg(feature = "pg-tests")]
pub mod own_pg;
pub mod process;
pub mod rated;

pub use in_process::*;
