//! What the room task does with a finished race's results and a player's report, off the
//! async workers.

use std::sync::Arc;

use super::RoomEnv;
use crate::room::backlog::{wire_change, Kept};
use crate::store::Store;

/// Store a finished race (after its fair-play flags) on a blocking thread, or spool it
/// behind the results already waiting for the database (`super::backlog`); the rating
/// changes it made, when it was stored now.
pub(super) async fn store(
    env: &RoomEnv,
    mut record: Box<crate::store::RaceRecord>,
) -> Option<Vec<protocol::RatingChange>> {
    let metrics = env.metrics.clone();
    let (store, backlog) = (env.store.clone(), env.backlog.clone());
    let race_id = record.race_id.clone();
    let fair_play = env.opts.fair_play;
    // A result that waits does not hold the room up: race_over goes out at once.
    let res = tokio::task::spawn_blocking(move || {
        if fair_play {
            flag_seats(&mut record);
        }
        backlog.keep(&*store, *record, &metrics)
    })
    .await;
    match res {
        Ok(Kept::Stored(changes)) => {
            env.metrics.races_finished.inc();
            return Some(changes.into_iter().map(wire_change).collect());
        }
        // Its rating changes come when it lands (`ratings`); race_over carries none.
        Ok(Kept::Waiting) => tracing::warn!(race_id, "the result waits for the database"),
        Ok(Kept::Refused | Kept::Lost) => {}
        Err(e) => {
            env.metrics.store_errors.inc();
            tracing::error!(race_id, error = %e, "the results writer panicked");
        }
    }
    None
}

/// Keep a report on a blocking thread before the `reported` that follows it goes out, so
/// an answered report is one the moderators can list. Reports are rare (one per reporter,
/// target and race, and rate-limited like every message), so the room waits the one write.
/// A report the database refuses is logged; the reporter still hears `reported` (nothing
/// they could do about it, and a retry would be refused the same way).
pub(super) async fn keep_report(store: Arc<dyn Store>, report: crate::store::ReportRecord) {
    let done = tokio::task::spawn_blocking(move || {
        store
            .save_report(&report)
            .map_err(|e| (report.race_id.clone(), e))
    })
    .await;
    match done {
        Ok(Ok(())) => {}
        Ok(Err((race_id, e))) => {
            tracing::error!(race_id, error = %e, "keeping a report failed");
        }
        Err(e) => tracing::error!(error = %e, "the report writer panicked"),
    }
}

/// The fair-play flags of every identified seat (anonymous seats are never rated or listed,
/// so they are not worth the grader's time). Runs on a blocking thread: it grades boards.
pub(super) fn flag_seats(record: &mut crate::store::RaceRecord) {
    let flags: Vec<Vec<String>> = record
        .seats
        .iter()
        .map(|s| match s.handle {
            Some(_) => crate::fairplay::seat_flags(record, &s.player_id),
            None => Vec::new(),
        })
        .collect();
    for (seat, f) in record.seats.iter_mut().zip(flags) {
        seat.flags = f;
    }
}
