//! The wire contract rule by rule, over real sockets: the rules the race, resume and
//! bad-input suites do not already pin down (countdown, spectators' view, settings types and
//! ranges, names at their limits, leaving mid-race, penalties in `time_ms`, idle pings).

use serde_json::{json, Value};

use crate::support::Client;

mod entry;
mod leaving;
mod racing;

/// Start from the host; every client in `all` (the host included) gets `countdown` then
/// `race_started`. Returns the `race_started` message.
pub(super) async fn start(host: &mut Client, others: &mut [&mut Client]) -> Value {
    host.send(json!({"type": "start_race"})).await;
    host.until("countdown").await;
    let rs = host.until("race_started").await;
    for o in others.iter_mut() {
        o.until("countdown").await;
        assert_eq!(o.until("race_started").await, rs);
    }
    rs
}

/// The cells a digit at `cell` would clash with on `board` (row, column, box).
pub(super) fn peers_with(board: &str, cell: usize, digit: u8) -> Vec<u64> {
    let b = board.as_bytes();
    let (r, c) = (cell / 9, cell % 9);
    (0..81)
        .filter(|&o| {
            let (or, oc) = (o / 9, o % 9);
            o != cell
                && (or == r || oc == c || (or / 3 == r / 3 && oc / 3 == c / 3))
                && b[o] == b'0' + digit
        })
        .map(|o| o as u64)
        .collect()
}
