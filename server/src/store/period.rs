//! Leaderboard periods in UTC: which day, week (from Monday) and month a Unix time falls in,
//! and the UTC date string of the daily challenge. Civil-date arithmetic by Howard Hinnant's
//! `days_from_civil` / `civil_from_days`, so no date crate is needed for four numbers.

/// Milliseconds in a day.
const DAY_MS: i64 = 86_400_000;

/// A leaderboard period.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Period {
    /// Since 00:00 UTC today.
    Day,
    /// Since Monday 00:00 UTC.
    Week,
    /// Since the 1st of the month, 00:00 UTC.
    Month,
    /// Every race.
    All,
}

impl Period {
    /// Every period, in the order aggregates are written.
    pub const ALL: [Period; 4] = [Period::Day, Period::Week, Period::Month, Period::All];

    /// The name used on the wire and in the store.
    pub const fn as_str(self) -> &'static str {
        match self {
            Period::Day => "day",
            Period::Week => "week",
            Period::Month => "month",
            Period::All => "all",
        }
    }

    /// The period named `s` (`day`, `week`, `month`, `all`).
    pub fn parse(s: &str) -> Option<Period> {
        Period::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// Start (Unix ms) of the period containing `unix_ms`; 0 for [`Period::All`].
    pub fn start(self, unix_ms: i64) -> i64 {
        let day = unix_ms.div_euclid(DAY_MS);
        match self {
            Period::Day => day * DAY_MS,
            // 1970-01-01 was a Thursday: Monday-based weekday is (day + 3) mod 7.
            Period::Week => (day - (day + 3).rem_euclid(7)) * DAY_MS,
            Period::Month => {
                let (y, m, _) = civil_from_days(day);
                days_from_civil(y, m, 1) * DAY_MS
            }
            Period::All => 0,
        }
    }
}

/// The UTC date of `unix_ms` as `YYYY-MM-DD` (the daily challenge's key).
pub fn utc_date(unix_ms: i64) -> String {
    let (y, m, d) = civil_from_days(unix_ms.div_euclid(DAY_MS));
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    // Both are in range by construction: d in 1..=31, m in 1..=12.
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-12-01 13:14:15.000 UTC, a Tuesday.
    const T: i64 = 1_796_130_855_000;

    #[track_caller]
    fn check(p: Period, at: i64, expected_date: &str) {
        let start = p.start(at);
        assert_eq!(utc_date(start), expected_date);
        assert_eq!(start % DAY_MS, 0);
        assert!(start <= at);
    }

    #[test]
    fn periods_start_at_utc_midnight_monday_and_the_first() {
        assert_eq!(utc_date(T), "2026-12-01");
        check(Period::Day, T, "2026-12-01");
        check(Period::Week, T, "2026-11-30");
        check(Period::Month, T, "2026-12-01");
        check(Period::Month, T - 2 * DAY_MS, "2026-11-01");
        check(Period::Week, Period::Week.start(T), "2026-11-30");
        check(
            Period::Month,
            days_from_civil(2024, 3, 1) * DAY_MS - 1,
            "2024-02-01",
        );
        assert_eq!(Period::All.start(T), 0);
        assert_eq!(utc_date(0), "1970-01-01");
        assert_eq!(Period::parse("week"), Some(Period::Week));
        assert_eq!(Period::parse("year"), None);
    }
}
