//! How long to wait before trying again ([`Backoff`]): exponential, with jitter, and never
//! sooner than the server asked (A12 `retry_ms`). The connection task uses it between
//! reconnects and between resumes of a room that is moving; the app between re-sends of the
//! placements a moving room could not take; the bots likewise.
//!
//! It reads no clock and draws no random number: the caller hands in a seed for the jitter
//! (the connection task a random one, the app its clock), so the app stays pure and tests
//! stay exact.

use std::time::Duration;

/// The first wait; it doubles on each try up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::from_millis(250);

/// The longest wait of our own choosing (a server's `retry_ms` may ask for longer).
pub const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Tries so far and the next wait.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backoff {
    attempt: u32,
    step: Duration,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff {
            attempt: 0,
            step: FIRST_BACKOFF,
        }
    }
}

impl Backoff {
    /// Tries scheduled so far (1 after the first [`Backoff::next`]).
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The wait before the next try: this try's step (doubling from [`FIRST_BACKOFF`] up to
    /// [`MAX_BACKOFF`]) or the server's `retry_ms`, whichever is longer, plus up to a quarter
    /// more, chosen by `seed` (so clients told the same `retry_ms` do not all come back at once).
    pub fn next(&mut self, retry_ms: Option<u64>, seed: u64) -> Duration {
        self.attempt += 1;
        let base = self.step.max(Duration::from_millis(retry_ms.unwrap_or(0)));
        self.step = (self.step * 2).min(MAX_BACKOFF);
        base + jitter(base, seed)
    }

    /// Back to the first step: what was tried has worked.
    pub fn reset(&mut self) {
        *self = Backoff::default();
    }
}

/// Up to a quarter of `base`, chosen by `seed` (splitmix64: any seed, even a clock reading,
/// spreads evenly).
fn jitter(base: Duration, seed: u64) -> Duration {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    let quarter = u64::try_from(base.as_millis() / 4).unwrap_or(u64::MAX);
    Duration::from_millis(z % (quarter + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(waits: &[(Option<u64>, u64)], expected_bases_ms: &[u64]) {
        let mut b = Backoff::default();
        for (i, (&(retry_ms, seed), &base)) in waits.iter().zip(expected_bases_ms).enumerate() {
            let wait = b.next(retry_ms, seed).as_millis() as u64;
            assert!(
                (base..=base + base / 4).contains(&wait),
                "try {}: {wait} ms is not {base} ms plus up to a quarter",
                i + 1
            );
            assert_eq!(b.attempt(), i as u32 + 1);
        }
    }

    #[test]
    fn waits_double_to_the_cap_and_never_undercut_the_servers_retry() {
        let seeds = (0..9).map(|s| (None, s * 7919)).collect::<Vec<_>>();
        check(
            &seeds,
            &[250, 500, 1000, 2000, 4000, 5000, 5000, 5000, 5000],
        );
        // The server's retry_ms is the floor; our own step still grows behind it.
        check(
            &[(Some(1500), 1), (Some(100), 2), (None, 3), (Some(8000), 4)],
            &[1500, 500, 1000, 8000],
        );
    }

    #[test]
    fn jitter_spreads_and_a_reset_starts_over() {
        let waits: std::collections::HashSet<_> = (0..50)
            .map(|seed| Backoff::default().next(Some(1000), seed))
            .collect();
        assert!(waits.len() > 10, "{waits:?}");
        let mut b = Backoff::default();
        b.next(None, 1);
        b.next(None, 2);
        b.reset();
        assert_eq!(b, Backoff::default());
    }
}
