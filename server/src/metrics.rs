//! Server counters and gauges for `GET /metrics`, kept in a `prometheus-client` registry
//! (atomics: no lock on the hot path) and rendered in the OpenMetrics text format.

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use protocol::PlaceReason;

/// Content type of [`Metrics::render`].
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Every counter the server exports.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    /// Open WebSocket connections.
    pub connections: Gauge,
    /// Open rooms.
    pub rooms: Gauge,
    /// Connections accepted since start.
    pub connections_total: Counter,
    /// Races started.
    pub races_started: Counter,
    /// Races finished (stored and announced).
    pub races_finished: Counter,
    /// Client messages received (text and binary frames).
    pub messages_in: Counter,
    /// Messages queued to clients.
    pub messages_out: Counter,
    /// Messages refused with `rate_limited`.
    pub rate_limited: Counter,
    /// Connections closed 1008 for flooding past the rate limit.
    pub rate_limit_closes: Counter,
    /// Connections closed 1008 because they did not read.
    pub slow_consumer_closes: Counter,
    /// Sockets closed before their request head to make room at the connection cap.
    pub handshakes_evicted: Counter,
    /// Connections refused, by [`Refused`] (`connections_refused_total{reason}`).
    refused: [Counter; 3],
    /// Results writes that failed.
    pub store_errors: Counter,
    /// Results waiting for the database (`room::backlog`): in the spool, or in memory when
    /// the spool could not be written.
    pub results_queued: Gauge,
    /// Results written to the spool because the database could not take them (or others
    /// waited before them).
    pub results_spooled: Counter,
    /// Results that landed from the spool (or the memory queue) once the database answered.
    pub results_retried: Counter,
    /// Results the database refused (a constraint or a value it does not take): set aside in
    /// the spool's `refused/` folder, not retried.
    pub results_refused: Counter,
    /// Results kept in memory because the spool itself could not be written (its disk full
    /// too): lost if the process stops before they land.
    pub results_unspooled: Counter,
    /// Results lost: the spool could not be written and the memory queue was full.
    pub results_dropped: Counter,
    /// Cluster mode: frames published to Redis (commands up, messages down).
    pub relay_out: Counter,
    /// Cluster mode: frames received from other nodes.
    pub relay_in: Counter,
    /// Cluster mode: relay frames that failed to send or to decode.
    pub relay_errors: Counter,
    /// Cluster mode: fresh room views asked for after a gap in a room's deliveries (or a
    /// resubscription), one per member.
    pub relay_resyncs: Counter,
    /// Cluster mode: seconds from a frame's publish to its receipt on another node.
    pub relay_latency: Histogram,
    /// Placements by outcome: accepted, wrong, conflict, given, filled (in that order).
    placements: [Counter; 5],
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

/// Why a connection was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// `cap`: a WebSocket past the connection cap, told `welcome`, `server_full` and 1013.
    Cap,
    /// `overflow`: far past the cap (its overflow full), refused at accept.
    Overflow,
    /// `descriptors`: accept ran out of file descriptors; taken out of the listen backlog with
    /// the descriptor held in reserve and refused at once.
    Descriptors,
}

/// The refused connections by reason ([`Refused`], in its order), registered.
fn refusals(registry: &mut Registry) -> [Counter; 3] {
    let family = Family::<Vec<(&'static str, &'static str)>, Counter>::default();
    registry.register(
        "connections_refused",
        "Connections refused: past the cap, far past it, or out of file descriptors",
        family.clone(),
    );
    ["cap", "overflow", "descriptors"]
        .map(|reason| family.get_or_create(&vec![("reason", reason)]).clone())
}

/// The relay's latency histogram and the placements by outcome, registered.
fn latency_and_placements(registry: &mut Registry) -> (Histogram, [Counter; 5]) {
    // 50 µs .. ~0.8 s: loopback relays sit near the bottom, a struggling Redis near the top.
    let relay_latency = Histogram::new(exponential_buckets(0.00005, 2.0, 15));
    registry.register(
        "relay_latency_seconds",
        "Cluster relay latency, publish to receipt",
        relay_latency.clone(),
    );
    let family = Family::<Vec<(&'static str, &'static str)>, Counter>::default();
    registry.register("placements", "Placements by outcome", family.clone());
    let placements = ["accepted", "wrong", "conflict", "given", "filled"]
        .map(|outcome| family.get_or_create(&vec![("outcome", outcome)]).clone());
    (relay_latency, placements)
}

impl Metrics {
    /// Fresh metrics, registered.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("sudoku_race");
        let mut gauge = |name: &str, help: &str| {
            let g = Gauge::default();
            registry.register(name, help, g.clone());
            g
        };
        let connections = gauge("connections", "Open WebSocket connections");
        let rooms = gauge("rooms", "Open rooms");
        let results_queued = gauge("results_queued", "Results waiting for the database");
        let mut counter = |name: &str, help: &str| {
            let c = Counter::default();
            registry.register(name, help, c.clone());
            c
        };
        let connections_total = counter("connections_accepted", "WebSocket connections accepted");
        let races_started = counter("races_started", "Races started");
        let races_finished = counter("races_finished", "Races finished and stored");
        let messages_in = counter("messages_in", "Client messages received");
        let messages_out = counter("messages_out", "Messages queued to clients");
        let rate_limited = counter("rate_limited", "Messages refused with rate_limited");
        let rate_limit_closes = counter("rate_limit_closes", "Connections closed for flooding");
        let slow_consumer_closes = counter(
            "slow_consumer_closes",
            "Connections closed because they did not read",
        );
        let handshakes_evicted = counter(
            "handshakes_evicted",
            "Sockets closed before their request head to make room at the connection cap",
        );
        let store_errors = counter("store_errors", "Failed results writes");
        let results_spooled = counter("results_spooled", "Results written to the spool");
        let results_retried = counter("results_retried", "Results landed from the spool");
        let results_refused = counter("results_refused", "Results the database refused");
        let results_unspooled = counter(
            "results_unspooled",
            "Results kept in memory: the spool could not be written",
        );
        let results_dropped = counter("results_dropped", "Results lost (spool and memory full)");
        let relay_out = counter("relay_out", "Cluster relay frames published");
        let relay_in = counter("relay_in", "Cluster relay frames received");
        let relay_errors = counter("relay_errors", "Cluster relay frames that failed");
        let relay_resyncs = counter(
            "relay_resyncs",
            "Fresh room views asked for after a relay gap",
        );
        let (relay_latency, placements) = latency_and_placements(&mut registry);
        let refused = refusals(&mut registry);
        Metrics {
            registry,
            connections,
            rooms,
            connections_total,
            races_started,
            races_finished,
            messages_in,
            messages_out,
            rate_limited,
            rate_limit_closes,
            slow_consumer_closes,
            handshakes_evicted,
            refused,
            store_errors,
            results_queued,
            results_spooled,
            results_retried,
            results_refused,
            results_unspooled,
            results_dropped,
            relay_out,
            relay_in,
            relay_errors,
            relay_resyncs,
            relay_latency,
            placements,
        }
    }

    /// Count one placement outcome (`None` = accepted).
    pub fn placement(&self, reason: Option<PlaceReason>) {
        let i = match reason {
            None => 0,
            Some(PlaceReason::Wrong) => 1,
            Some(PlaceReason::Conflict) => 2,
            Some(PlaceReason::Given) => 3,
            Some(PlaceReason::Filled) => 4,
        };
        self.placements[i].inc();
    }

    /// Count one refused connection.
    pub fn refused(&self, why: Refused) {
        let i = match why {
            Refused::Cap => 0,
            Refused::Overflow => 1,
            Refused::Descriptors => 2,
        };
        self.refused[i].inc();
    }

    /// The OpenMetrics text exposition ([`CONTENT_TYPE`]).
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(4096);
        if let Err(e) = encode(&mut out, &self.registry) {
            // Writing to a String cannot fail; a failure here is a bug.
            tracing::error!(error = %e, "cannot encode metrics");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_gauges_and_outcomes() {
        let m = Metrics::new();
        m.connections.inc();
        m.races_started.inc();
        m.placement(Some(PlaceReason::Conflict));
        m.refused(Refused::Descriptors);
        let text = m.render();
        for line in [
            "sudoku_race_connections 1",
            "sudoku_race_races_started_total 1",
            "sudoku_race_placements_total{outcome=\"conflict\"} 1",
            "sudoku_race_placements_total{outcome=\"accepted\"} 0",
            "sudoku_race_connections_refused_total{reason=\"descriptors\"} 1",
            "sudoku_race_connections_refused_total{reason=\"cap\"} 0",
            "# EOF",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} missing in\n{text}");
        }
    }
}
