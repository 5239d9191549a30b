//! Lag compensation (A8): the round trips the server measured to a racing seat, and the
//! figure they come to. The transport measures (a WebSocket Ping of the server's own and the
//! matching Pong); the rules only keep the samples and judge with them, so the rule is the
//! same on every node and in every test.
//!
//! A seat's lag is the median of its samples in the race (a few slow round trips, a GC pause
//! or a retransmit, do not move it), capped: compensation can never give back more than the
//! cap, whatever a client does to its pongs. A seat with no samples has lag 0.

use std::time::Duration;

use protocol::PlayerId;
use tokio::time::Instant;

/// How often the room asks its racing seats' connections for a round trip (A8: at least
/// every 2 s).
pub const PROBE_EVERY: Duration = Duration::from_secs(1);

/// Samples kept per seat and race. At one probe a second a race of the longest time limit
/// stays far below it; the bound only keeps memory flat whatever happens.
const MAX_SAMPLES: usize = 4096;

/// One seat's round trips in the current race, in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Samples(Vec<u32>);

impl Samples {
    /// One more round trip (dropped once the bound is reached).
    pub(super) fn push(&mut self, rtt_ms: u32) {
        if self.0.len() < MAX_SAMPLES {
            self.0.push(rtt_ms);
        }
    }

    /// Every sample of `other` too (the countdown's, carried into the race).
    pub(super) fn extend(&mut self, other: &Samples) {
        for &s in &other.0 {
            self.push(s);
        }
    }

    /// The seat's lag: the median so far, at most `cap_ms`; 0 with no samples.
    pub(super) fn lag_ms(&self, cap_ms: u32) -> u32 {
        median(&self.0).map_or(0, |m| m.min(cap_ms))
    }
}

/// The median of `samples` (the mean of the two middle ones, rounded down, for an even
/// count); `None` when there are none.
pub fn median(samples: &[u32]) -> Option<u32> {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => {
            let (a, b) = (u64::from(sorted[n / 2 - 1]), u64::from(sorted[n / 2]));
            // The mean of two u32s fits a u32.
            Some(((a + b) / 2) as u32)
        }
    }
}

/// A time compensated by `lag_ms` (never below zero).
pub fn compensate(raw_ms: u64, lag_ms: u32) -> u64 {
    raw_ms.saturating_sub(u64::from(lag_ms))
}

/// The room's round-trip probes (A8): when the racing seats are next asked, and what was
/// measured during the countdown, carried into the race when it starts.
#[derive(Debug, Default)]
pub(super) struct Probes {
    /// Round trips measured during the countdown, by seat.
    early: Vec<(PlayerId, Samples)>,
    /// When the racing seats' connections are next asked for a round trip; `None` outside a
    /// countdown or race, so an idle room has no timer for it.
    next: Option<Instant>,
}

impl Probes {
    /// A countdown begins at `now`: nothing measured yet, and the first probe is due.
    pub(super) fn begin(&mut self, now: Instant) {
        self.early.clear();
        self.next = Some(now);
    }

    /// When the next probe is due, if one is planned.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.next
    }

    /// Whether the racing seats are asked for a round trip at `now` (once per
    /// [`PROBE_EVERY`]); `probing`: the room counts down or races (else no probe is planned).
    pub(super) fn due(&mut self, now: Instant, probing: bool) -> bool {
        if !probing {
            self.next = None;
            return false;
        }
        if self.next.is_some_and(|at| now < at) {
            return false;
        }
        self.next = Some(now + PROBE_EVERY);
        true
    }

    /// A round trip of `rtt_ms` to `player` during the countdown.
    pub(super) fn early_sample(&mut self, player: PlayerId, rtt_ms: u32) {
        match self.early.iter_mut().find(|(id, _)| *id == player) {
            Some((_, s)) => s.push(rtt_ms),
            None => {
                let mut s = Samples::default();
                s.push(rtt_ms);
                self.early.push((player, s));
            }
        }
    }

    /// The race starts: the countdown's round trips, by seat, to carry into it.
    pub(super) fn take_early(&mut self) -> Vec<(PlayerId, Samples)> {
        std::mem::take(&mut self.early)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(samples: &[u32], cap: u32, expected: u32) {
        let mut s = Samples::default();
        for &x in samples {
            s.push(x);
        }
        assert_eq!(s.lag_ms(cap), expected, "samples {samples:?}, cap {cap}");
    }

    #[test]
    fn lag_is_the_capped_median() {
        check(&[], 500, 0);
        check(&[300], 500, 300);
        check(&[310, 2000, 290], 500, 310);
        check(&[100, 300], 500, 200);
        check(&[u32::MAX, u32::MAX], u32::MAX, u32::MAX);
        check(&[900, 800, 1000], 500, 500);
        check(&[40, 5000, 5000], 500, 500);
        check(&[300, 300], 0, 0);
    }

    #[test]
    fn compensation_saturates() {
        assert_eq!(compensate(10_000, 300), 9_700);
        assert_eq!(compensate(200, 300), 0);
    }
}
