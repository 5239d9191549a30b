//! Server counters and gauges, kept as atomics (no lock on the hot path) and rendered in the
//! Prometheus text exposition format for `GET /metrics`.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use shared::protocol::PlaceReason;

/// Every counter the server exports.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Open WebSocket connections (gauge).
    pub connections: AtomicU64,
    /// Open rooms (gauge).
    pub rooms: AtomicU64,
    /// Connections accepted since start.
    pub connections_total: AtomicU64,
    /// Races started.
    pub races_started: AtomicU64,
    /// Races finished (stored and announced).
    pub races_finished: AtomicU64,
    /// Client messages received (text and binary frames).
    pub messages_in: AtomicU64,
    /// Messages queued to clients.
    pub messages_out: AtomicU64,
    /// Placements accepted.
    pub placements_accepted: AtomicU64,
    /// Placements refused: wrong digit.
    pub placements_wrong: AtomicU64,
    /// Placements refused: conflict.
    pub placements_conflict: AtomicU64,
    /// Placements refused: given cell.
    pub placements_given: AtomicU64,
    /// Placements refused: already filled.
    pub placements_filled: AtomicU64,
    /// Messages refused with `rate_limited`.
    pub rate_limited: AtomicU64,
    /// Connections closed 1008 for flooding past the rate limit.
    pub rate_limit_closes: AtomicU64,
    /// Connections closed 1008 because their outgoing queue was full.
    pub slow_consumer_closes: AtomicU64,
    /// Results writes that failed.
    pub store_errors: AtomicU64,
}

impl Metrics {
    /// Count one placement outcome (`None` = accepted).
    pub fn placement(&self, reason: Option<PlaceReason>) {
        let c = match reason {
            None => &self.placements_accepted,
            Some(PlaceReason::Wrong) => &self.placements_wrong,
            Some(PlaceReason::Conflict) => &self.placements_conflict,
            Some(PlaceReason::Given) => &self.placements_given,
            Some(PlaceReason::Filled) => &self.placements_filled,
        };
        c.fetch_add(1, Relaxed);
    }

    /// The Prometheus text exposition (version 0.0.4).
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(2048);
        let mut one = |name: &str, kind: &str, help: &str, v: &AtomicU64| {
            // Writing to a String cannot fail.
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {}",
                v.load(Relaxed)
            );
        };
        one(
            "sudoku_race_connections",
            "gauge",
            "Open WebSocket connections.",
            &self.connections,
        );
        one("sudoku_race_rooms", "gauge", "Open rooms.", &self.rooms);
        one(
            "sudoku_race_connections_total",
            "counter",
            "WebSocket connections accepted.",
            &self.connections_total,
        );
        one(
            "sudoku_race_races_started_total",
            "counter",
            "Races started.",
            &self.races_started,
        );
        one(
            "sudoku_race_races_finished_total",
            "counter",
            "Races finished.",
            &self.races_finished,
        );
        one(
            "sudoku_race_messages_in_total",
            "counter",
            "Client messages received.",
            &self.messages_in,
        );
        one(
            "sudoku_race_messages_out_total",
            "counter",
            "Messages queued to clients.",
            &self.messages_out,
        );
        one(
            "sudoku_race_rate_limited_total",
            "counter",
            "Messages refused with rate_limited.",
            &self.rate_limited,
        );
        one(
            "sudoku_race_rate_limit_closes_total",
            "counter",
            "Connections closed for flooding.",
            &self.rate_limit_closes,
        );
        one(
            "sudoku_race_slow_consumer_closes_total",
            "counter",
            "Connections closed because they did not read.",
            &self.slow_consumer_closes,
        );
        one(
            "sudoku_race_store_errors_total",
            "counter",
            "Failed results writes.",
            &self.store_errors,
        );
        let _ = writeln!(
            out,
            "# HELP sudoku_race_placements_total Placements by outcome.\n# TYPE sudoku_race_placements_total counter"
        );
        for (outcome, v) in [
            ("accepted", &self.placements_accepted),
            ("wrong", &self.placements_wrong),
            ("conflict", &self.placements_conflict),
            ("given", &self.placements_given),
            ("filled", &self.placements_filled),
        ] {
            let _ = writeln!(
                out,
                "sudoku_race_placements_total{{outcome=\"{outcome}\"}} {}",
                v.load(Relaxed)
            );
        }
        out
    }
}
