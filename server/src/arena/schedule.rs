//! When arenas run (A7): an [`ArenaSpec`] (`--arena NAME,DIFFICULTY,EVERY,LENGTH`) names one
//! arena every EVERY on the UTC epoch's multiples of EVERY, lasting LENGTH. Pure: the time is
//! an argument.

use crate::config::ArenaSpec;

impl ArenaSpec {
    fn every_ms(&self) -> i64 {
        i64::try_from(self.every.as_millis()).unwrap_or(i64::MAX)
    }

    fn length_ms(&self) -> i64 {
        i64::try_from(self.length.as_millis()).unwrap_or(i64::MAX)
    }

    /// The arena running at `now_ms`, else the next to start: its start and end.
    pub fn window_at(&self, now_ms: i64) -> (i64, i64) {
        let every = self.every_ms();
        let start = now_ms.div_euclid(every) * every;
        if now_ms < start.saturating_add(self.length_ms()) {
            (start, start.saturating_add(self.length_ms()))
        } else {
            let next = start.saturating_add(every);
            (next, next.saturating_add(self.length_ms()))
        }
    }

    /// The id of this series' arena starting at `start_ms`: its name in lower case with
    /// dashes, then the start (safe in a URL path).
    pub fn arena_id(&self, start_ms: i64) -> String {
        let mut slug = String::new();
        for c in self.name.chars() {
            if c.is_ascii_alphanumeric() {
                slug.push(c.to_ascii_lowercase());
            } else if !slug.ends_with('-') && !slug.is_empty() {
                slug.push('-');
            }
        }
        let slug = slug.trim_end_matches('-');
        let slug = if slug.is_empty() { "arena" } else { slug };
        format!("{slug}-{start_ms}")
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use engine::Difficulty;

    use super::*;
    use crate::config::parse_duration;

    const H: i64 = 3_600_000;

    #[test]
    fn a_spec_parses_and_bad_ones_say_why() {
        let s: ArenaSpec = "Hourly easy,easy,1h,20m".parse().unwrap();
        assert_eq!(s.name, "Hourly easy");
        assert_eq!(s.difficulty, Difficulty::Easy);
        assert_eq!(s.every, Duration::from_secs(3600));
        assert_eq!(s.length, Duration::from_secs(1200));
        assert_eq!(parse_duration("30s"), Some(Duration::from_secs(30)));
        assert_eq!(parse_duration("2d"), Some(Duration::from_secs(172_800)));
        for bad in [
            "x,easy,1h",
            ",easy,1h,20m",
            "x,easiest,1h,20m",
            "x,easy,1h,2h",
            "x,easy,0s,0s",
            "x,easy,1y,20m",
            "x,easy,h,20m",
        ] {
            let e = bad.parse::<ArenaSpec>().unwrap_err();
            assert!(e.to_string().contains("NAME,DIFFICULTY"), "{bad}: {e}");
        }
    }

    #[test]
    fn arenas_run_on_the_epochs_multiples() {
        let s: ArenaSpec = "Hourly easy,easy,1h,20m".parse().unwrap();
        let base = 491_000 * H; // on the hour
        assert_eq!(s.window_at(base), (base, base + H / 3));
        assert_eq!(s.window_at(base + H / 3 - 1), (base, base + H / 3));
        // Between two arenas: the next one.
        assert_eq!(s.window_at(base + H / 3), (base + H, base + H + H / 3));
        assert_eq!(s.window_at(base + H - 1), (base + H, base + H + H / 3));
        assert_eq!(s.arena_id(base), format!("hourly-easy-{base}"));
        let odd = ArenaSpec::new("  ¡Sprint!  ", "hard", "30s", "30s").unwrap();
        assert_eq!(odd.arena_id(0), "sprint-0");
        // An arena as long as its period is always running.
        assert_eq!(odd.window_at(29_999), (0, 30_000));
        assert_eq!(odd.window_at(30_000), (30_000, 60_000));
    }
}
