//! A token bucket (`rate` per second, `burst` deep) on instants it is given: the one credit
//! counter behind the per-connection rate limit (`net::rate`) and a room's chat budget
//! (`room::rules`). It reads no clock, so the rules may hold one.

use tokio::time::Instant;

/// Credits that refill at a steady rate up to a cap.
#[derive(Debug)]
pub struct TokenBucket {
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl TokenBucket {
    /// A full bucket at `now` (a `burst` of 0 counts as 1: a bucket that never allows
    /// anything is a configuration mistake, not a limit).
    pub fn new(rate: u32, burst: u32, now: Instant) -> TokenBucket {
        let burst = f64::from(burst.max(1));
        TokenBucket {
            rate: f64::from(rate),
            burst,
            tokens: burst,
            last: now,
        }
    }

    /// Take one credit at `now`, if there is one.
    pub fn take(&mut self, now: Instant) -> bool {
        let dt = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + dt * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            return true;
        }
        false
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests pick their own instants
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn burst_then_the_rate() {
        let t0 = Instant::now();
        let mut b = TokenBucket::new(5, 10, t0);
        let n = (0..20).filter(|_| b.take(t0)).count();
        assert_eq!(n, 10);
        let t1 = t0 + Duration::from_millis(1000);
        let n = (0..20).filter(|_| b.take(t1)).count();
        assert_eq!(n, 5);
        // Refills stop at the cap.
        let t2 = t1 + Duration::from_secs(60);
        let n = (0..20).filter(|_| b.take(t2)).count();
        assert_eq!(n, 10);
    }
}
