//! Per-connection rate limit: a token bucket (`rate` per second, `burst` deep; the crate's
//! [`TokenBucket`]), and a count of messages over the limit within a sliding window that closes
//! a flooding connection (1008).

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

use crate::token_bucket::TokenBucket;

/// What to do with one incoming message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Process it.
    Allow,
    /// Refuse it with `rate_limited`.
    Limited,
    /// Refuse it and close the connection with 1008.
    Abuse,
}

/// One connection's bucket.
#[derive(Debug)]
pub struct RateLimiter {
    bucket: TokenBucket,
    threshold: u32,
    window: Duration,
    /// When the latest over-limit messages arrived (at most `threshold` kept; empty, and
    /// unallocated, for a connection that never went over).
    over: VecDeque<Instant>,
}

impl RateLimiter {
    /// A full bucket.
    pub fn new(rate: u32, burst: u32, threshold: u32, window: Duration, now: Instant) -> Self {
        RateLimiter {
            bucket: TokenBucket::new(rate, burst, now),
            threshold,
            window,
            over: VecDeque::new(),
        }
    }

    /// Account for one message arriving at `now`.
    pub fn check(&mut self, now: Instant) -> Verdict {
        if self.bucket.take(now) {
            return Verdict::Allow;
        }
        // "More than `threshold` over the limit within `window`", at any moment: this one plus
        // the over-limit messages still inside the window ending now.
        while self
            .over
            .front()
            .is_some_and(|&t| now.saturating_duration_since(t) >= self.window)
        {
            self.over.pop_front();
        }
        if self.over.len() >= self.threshold as usize {
            return Verdict::Abuse;
        }
        self.over.push_back(now);
        Verdict::Limited
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests pick their own instants
mod tests {
    use super::*;

    #[track_caller]
    fn check(verdicts: &[Verdict], expected: (usize, usize, usize)) {
        let count = |v: Verdict| verdicts.iter().filter(|&&x| x == v).count();
        assert_eq!(
            (
                count(Verdict::Allow),
                count(Verdict::Limited),
                count(Verdict::Abuse)
            ),
            expected
        );
    }

    #[test]
    fn burst_then_limited_then_abuse() {
        let t0 = Instant::now();
        let mut r = RateLimiter::new(20, 40, 50, Duration::from_secs(10), t0);
        let v: Vec<_> = (0..100).map(|_| r.check(t0)).collect();
        check(&v, (40, 50, 10));
    }

    #[test]
    fn refills_at_the_rate() {
        let t0 = Instant::now();
        let mut r = RateLimiter::new(20, 40, 50, Duration::from_secs(10), t0);
        let v: Vec<_> = (0..41).map(|_| r.check(t0)).collect();
        check(&v, (40, 1, 0));
        // Half a second later: 10 more tokens.
        let t1 = t0 + Duration::from_millis(500);
        let v: Vec<_> = (0..11).map(|_| r.check(t1)).collect();
        check(&v, (10, 1, 0));
        // The over-limit count restarts after the window.
        let t2 = t1 + Duration::from_secs(11);
        let mut r2 = RateLimiter::new(1, 1, 2, Duration::from_secs(10), t0);
        let v: Vec<_> = (0..4).map(|_| r2.check(t0)).collect();
        check(&v, (1, 2, 1));
        let v: Vec<_> = (0..3).map(|_| r2.check(t2)).collect();
        check(&v, (1, 2, 0));
    }

    #[test]
    fn the_abuse_window_slides() {
        // 50 over the limit at the end of one 10 s stretch and 1 at the start of the next are
        // 51 within 10 s: closed, wherever a fixed window would have cut.
        let t0 = Instant::now();
        let mut r = RateLimiter::new(0, 1, 50, Duration::from_secs(10), t0);
        assert_eq!(r.check(t0), Verdict::Allow);
        let t1 = t0 + Duration::from_millis(9_900);
        let v: Vec<_> = (0..50).map(|_| r.check(t1)).collect();
        check(&v, (0, 50, 0));
        let t2 = t0 + Duration::from_millis(10_100);
        assert_eq!(r.check(t2), Verdict::Abuse);
        // 10 s after that burst it has slid out of the window.
        let mut r = RateLimiter::new(0, 1, 50, Duration::from_secs(10), t0);
        r.check(t0);
        let v: Vec<_> = (0..50).map(|_| r.check(t1)).collect();
        check(&v, (0, 50, 0));
        let t3 = t1 + Duration::from_secs(10);
        let v: Vec<_> = (0..50).map(|_| r.check(t3)).collect();
        check(&v, (0, 50, 0));
    }
}
