//! Waiting on the real clock for something outside the test (a child process, a log file, a
//! server's queue): the only place the suites read the clock. Every wait is bounded, and running
//! out of time fails the test naming what it waited for; nothing here asserts how long
//! anything took.
// Waiting on real processes is reading the real clock: that is this module's job.
#![allow(clippy::disallowed_methods)]

use std::future::Future;
use std::time::{Duration, Instant};

/// Run `wait` for at most `limit`; fail the test saying `what` did not happen in time.
pub async fn within<T>(what: &str, limit: Duration, wait: impl Future<Output = T>) -> T {
    match tokio::time::timeout(limit, wait).await {
        Ok(v) => v,
        Err(_) => panic!("{what}: not within {limit:?}"),
    }
}

/// The end of a wait made of several blocking steps (reading a child's log lines, connecting
/// until a port listens): how long each step may still take.
#[derive(Debug, Clone, Copy)]
pub struct Deadline(Instant);

impl Deadline {
    /// `limit` from now.
    pub fn after(limit: Duration) -> Deadline {
        Deadline(Instant::now() + limit)
    }

    /// What is left of the wait (zero once it has passed).
    pub fn left(&self) -> Duration {
        self.0.saturating_duration_since(Instant::now())
    }

    /// Fail the test saying `what` did not happen in time, if the wait has run out.
    #[track_caller]
    pub fn check(&self, what: &str) {
        assert!(!self.left().is_zero(), "{what}: the wait ran out");
    }
}
