//! Latency histograms (hdrhistogram, microsecond resolution) and their summaries.

use std::time::Duration;

use hdrhistogram::Histogram;

/// Highest latency recorded exactly: 60 s. Longer ones are clamped to it (and still counted).
const MAX_US: u64 = 60_000_000;

/// A latency histogram in microseconds, 3 significant digits.
#[derive(Clone, Debug)]
pub struct Latency {
    hist: Histogram<u64>,
}

impl Default for Latency {
    fn default() -> Self {
        Latency::new()
    }
}

impl Latency {
    /// An empty histogram.
    pub fn new() -> Latency {
        Latency {
            hist: Histogram::new_with_bounds(1, MAX_US, 3)
                .expect("constant bounds are valid for hdrhistogram"),
        }
    }

    /// Records one latency.
    pub fn record(&mut self, d: Duration) {
        let us = u64::try_from(d.as_micros())
            .unwrap_or(MAX_US)
            .clamp(1, MAX_US);
        self.hist.saturating_record(us);
    }

    /// Adds every value of `other`.
    pub fn merge(&mut self, other: &Latency) {
        // Same bounds on both sides, so adding cannot fail.
        self.hist
            .add(&other.hist)
            .expect("histograms share their bounds");
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    /// The value at quantile `q` (0..=1), in milliseconds; 0 when empty.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        if self.hist.is_empty() {
            return 0.0;
        }
        self.hist.value_at_quantile(q) as f64 / 1000.0
    }

    /// The largest value, in milliseconds; 0 when empty.
    pub fn max_ms(&self) -> f64 {
        if self.hist.is_empty() {
            return 0.0;
        }
        self.hist.max() as f64 / 1000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(values_us: &[u64], q: f64, expected_ms: f64) {
        let mut h = Latency::new();
        for &v in values_us {
            h.record(Duration::from_micros(v));
        }
        let got = h.quantile_ms(q);
        assert!(
            (got - expected_ms).abs() <= expected_ms * 0.001 + 0.001,
            "q{q}: {got} ms, expected {expected_ms} ms"
        );
    }

    #[test]
    fn quantiles_in_milliseconds() {
        check(&[], 0.99, 0.0);
        check(&[1000], 0.5, 1.0);
        let hundred: Vec<u64> = (1..=100).map(|i| i * 1000).collect();
        check(&hundred, 0.5, 50.0);
        check(&hundred, 0.99, 99.0);
        check(&hundred, 1.0, 100.0);
    }

    #[test]
    fn merge_and_clamp() {
        let mut a = Latency::new();
        a.record(Duration::from_millis(2));
        let mut b = Latency::new();
        b.record(Duration::from_secs(3600));
        a.merge(&b);
        assert_eq!(a.count(), 2);
        // Clamped to 60 s, within the histogram's 3 significant digits.
        assert!((a.max_ms() - 60_000.0).abs() < 60.0, "{}", a.max_ms());
    }
}
