//! Results that could not be stored yet. A database outage must not stop races from ending:
//! a race whose `save_race` failed while the database does not answer waits here, in order,
//! and one task retries the oldest until it lands. The queue is bounded ([`CAPACITY`]); past
//! it the newest result is dropped and counted, so an outage shorter than the queue loses
//! nothing and a longer one cannot eat the node's memory. A result the database answers but
//! refuses is not retried (it would block every result behind it): it is logged and counted.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::metrics::Metrics;
use crate::store::{RaceRecord, Store};

/// Results kept while the database is away (a few KB each: ~10k is tens of MB at most).
pub const CAPACITY: usize = 10_000;
/// The first wait before a retry; it doubles up to [`MAX_WAIT`].
const FIRST_WAIT: Duration = Duration::from_millis(250);
const MAX_WAIT: Duration = Duration::from_secs(5);

/// The queue of results waiting for the database.
#[derive(Debug, Default)]
pub struct Backlog {
    queue: Mutex<VecDeque<RaceRecord>>,
    wake: Notify,
}

impl Backlog {
    /// Results waiting.
    pub fn len(&self) -> usize {
        self.queue.lock().map_or(0, |q| q.len())
    }

    /// Nothing waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Queue a result behind the others; false (and counted) when the queue is full.
    pub fn push(&self, rec: RaceRecord, metrics: &Metrics) -> bool {
        let Ok(mut q) = self.queue.lock() else {
            return false;
        };
        if q.len() >= CAPACITY {
            metrics.results_dropped.inc();
            tracing::error!(
                race_id = rec.race_id,
                "the results backlog is full: a result is lost"
            );
            return false;
        }
        q.push_back(rec);
        metrics.results_queued.set(q.len() as i64);
        drop(q);
        self.wake.notify_one();
        true
    }

    fn front(&self) -> Option<RaceRecord> {
        self.queue.lock().ok()?.front().cloned()
    }

    fn pop(&self, metrics: &Metrics) {
        if let Ok(mut q) = self.queue.lock() {
            q.pop_front();
            metrics.results_queued.set(q.len() as i64);
        }
    }

    /// Store the waiting results, oldest first, until `shutdown`.
    pub async fn run(
        self: Arc<Self>,
        store: Arc<dyn Store>,
        metrics: Arc<Metrics>,
        shutdown: CancellationToken,
    ) {
        let mut wait = FIRST_WAIT;
        loop {
            let Some(rec) = self.front() else {
                tokio::select! {
                    () = self.wake.notified() => continue,
                    () = shutdown.cancelled() => return,
                }
            };
            let s = store.clone();
            let outcome = tokio::task::spawn_blocking(move || match s.save_race(&rec) {
                Ok(_) => Ok(()),
                // Down, or answering and refusing this one record?
                Err(e) => Err((e, s.ping().is_ok())),
            })
            .await;
            match outcome {
                Ok(Ok(())) => {
                    metrics.results_retried.inc();
                    metrics.races_finished.inc();
                    self.pop(&metrics);
                    wait = FIRST_WAIT;
                    continue;
                }
                Ok(Err((e, true))) => {
                    metrics.results_dropped.inc();
                    tracing::error!(error = %e, "the database refuses a queued result: dropped");
                    self.pop(&metrics);
                    continue;
                }
                Ok(Err((e, false))) => {
                    tracing::warn!(error = %e, waiting = self.len(), "the database is still away");
                }
                Err(e) => tracing::error!(error = %e, "the results retry panicked"),
            }
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = shutdown.cancelled() => return,
            }
            wait = (wait * 2).min(MAX_WAIT);
        }
    }
}
