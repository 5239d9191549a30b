//! A room's deadline timer, kept across its task's loop.

use std::pin::Pin;

use tokio::time::Instant;

/// A timer kept across the loop: its sleep is moved only when the deadline changes.
#[derive(Default)]
pub(super) struct Timer {
    at: Option<Instant>,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Timer {
    pub(super) fn set(&mut self, at: Option<Instant>) {
        if at == self.at {
            return;
        }
        self.at = at;
        match (at, self.sleep.as_mut()) {
            (Some(d), Some(sleep)) => sleep.as_mut().reset(d),
            (Some(d), None) => self.sleep = Some(Box::pin(tokio::time::sleep_until(d))),
            (None, _) => {}
        }
    }

    /// Completes at the deadline (at once if it has passed); never without one.
    pub(super) async fn wait(&mut self) {
        match (self.at, self.sleep.as_mut()) {
            (Some(_), Some(sleep)) => sleep.as_mut().await,
            _ => std::future::pending().await,
        }
    }
}
