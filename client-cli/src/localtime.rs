//! Wall-clock times in the user's local time zone, for the tables the commands print (an arena's
//! start and end), without a time-zone crate: the offset comes from the system's TZif file
//! (`$TZ` naming a zone under `/usr/share/zoneinfo`, else `/etc/localtime`), read by
//! [`offset_at`]; no file, or one this reader does not follow, is UTC.
//!
//! The reader takes the last transition at or before the time asked (64-bit data of a version
//! 2+ file, else the version 1 data). A time past the last transition takes the footer's
//! standard offset when the footer has no daylight-saving rule, else the last transition's: the
//! "fat" files most systems ship list transitions decades ahead.

use std::path::PathBuf;

/// The local offset from UTC in seconds at `unix_s`, from the system's zone file (0 without one).
pub fn local_offset_s(unix_s: i64) -> i32 {
    zone_file()
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|bytes| offset_at(&bytes, unix_s))
        .unwrap_or(0)
}

/// The zone file in force: `$TZ` (`Area/City` or `:Area/City`, or a path), else `/etc/localtime`.
fn zone_file() -> Option<PathBuf> {
    match std::env::var("TZ") {
        Ok(tz) => {
            let tz = tz.trim_start_matches(':');
            if tz.is_empty() || tz.eq_ignore_ascii_case("UTC") {
                return None;
            }
            if tz.starts_with('/') {
                return Some(PathBuf::from(tz));
            }
            if tz.contains("..") {
                return None;
            }
            Some(PathBuf::from("/usr/share/zoneinfo").join(tz))
        }
        Err(_) => Some(PathBuf::from("/etc/localtime")),
    }
}

/// A TZif file's counts: `isutcnt isstdcnt leapcnt timecnt typecnt charcnt`.
fn counts(bytes: &[u8]) -> Option<[usize; 6]> {
    if bytes.get(..4)? != b"TZif" {
        return None;
    }
    let mut out = [0; 6];
    for (i, c) in out.iter_mut().enumerate() {
        let at = 20 + 4 * i;
        let raw: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
        *c = usize::try_from(u32::from_be_bytes(raw)).ok()?;
    }
    Some(out)
}

/// The offset from UTC in seconds at `unix_s` by the TZif file `bytes`; `None` if it is not one.
pub fn offset_at(bytes: &[u8], unix_s: i64) -> Option<i32> {
    let [isut, isstd, leap, time, types, chars] = counts(bytes)?;
    let v1_len = time * 5 + types * 6 + chars + leap * 8 + isstd + isut;
    let version = *bytes.get(4)?;
    // Version 2+: a second header and block with 64-bit times, then the footer.
    let (data, width, footer) = if version >= b'2' {
        let second = bytes.get(44 + v1_len..)?;
        let [isut, isstd, leap, time, types, chars] = counts(second)?;
        let len = time * 9 + types * 6 + chars + leap * 12 + isstd + isut;
        let block = second.get(44..44 + len)?;
        (
            (block, [time, types]),
            8,
            second.get(44 + len..).unwrap_or_default(),
        )
    } else {
        ((bytes.get(44..44 + v1_len)?, [time, types]), 4, &[][..])
    };
    let (block, [time, types]) = data;
    if types == 0 {
        return None;
    }
    let transition = |i: usize| -> Option<i64> {
        let raw = block.get(i * width..(i + 1) * width)?;
        Some(if width == 8 {
            i64::from_be_bytes(raw.try_into().ok()?)
        } else {
            i64::from(i32::from_be_bytes(raw.try_into().ok()?))
        })
    };
    let utoff = |ty: usize| -> Option<i32> {
        let at = time * width + time + ty * 6;
        let raw: [u8; 4] = block.get(at..at + 4)?.try_into().ok()?;
        Some(i32::from_be_bytes(raw))
    };
    let type_of =
        |i: usize| -> Option<usize> { block.get(time * width + i).map(|&t| usize::from(t)) };
    let mut last = None;
    for i in 0..time {
        if transition(i)? > unix_s {
            break;
        }
        last = Some(i);
    }
    match last {
        None => utoff(0),
        Some(i) if i + 1 == time => {
            footer_std_offset(footer).or_else(|| type_of(i).and_then(utoff))
        }
        Some(i) => type_of(i).and_then(utoff),
    }
}

/// The standard offset of a footer's POSIX TZ string without a daylight-saving rule
/// (`\n<+0530>-5:30\n`, `\nCST-8\n`); `None` for one with a rule, or none.
fn footer_std_offset(footer: &[u8]) -> Option<i32> {
    let text = std::str::from_utf8(footer).ok()?.trim();
    if text.is_empty() || text.contains(',') {
        return None;
    }
    // Skip the zone's name: letters, or anything inside <…>.
    let rest = match text.strip_prefix('<') {
        Some(r) => &r[r.find('>')? + 1..],
        None => text.trim_start_matches(|c: char| c.is_ascii_alphabetic()),
    };
    // A name after the offset would be a daylight-saving zone.
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '+' | '-' | ':')))
        .unwrap_or(rest.len());
    if end != rest.len() {
        return None;
    }
    let (sign, hms) = match rest.strip_prefix('-') {
        Some(r) => (1, r),
        None => (-1, rest.trim_start_matches('+')),
    };
    let mut secs = 0;
    for (part, unit) in hms.split(':').zip([3600, 60, 1]) {
        secs += part.parse::<i32>().ok()? * unit;
    }
    // POSIX offsets are west-positive: `CST-8` is UTC+8.
    Some(sign * secs)
}

/// `YYYY-MM-DD HH:MM` for UTC ms `unix_ms` shifted by `offset_s`.
pub fn format(unix_ms: i64, offset_s: i32) -> String {
    let secs = unix_ms.div_euclid(1000) + i64::from(offset_s);
    let (days, of_day) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        of_day / 3600,
        of_day / 60 % 60
    )
}

/// `UTC+02:00`, `UTC-03:30`, `UTC`.
pub fn offset_label(offset_s: i32) -> String {
    if offset_s == 0 {
        return "UTC".to_owned();
    }
    let sign = if offset_s < 0 { '-' } else { '+' };
    let a = offset_s.unsigned_abs();
    format!("UTC{sign}{:02}:{:02}", a / 3600, a / 60 % 60)
}

/// Year, month, day of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version-2 TZif file: transitions at `times` to types `idx` of `offsets`, and a footer.
    fn tzif(times: &[i64], idx: &[u8], offsets: &[i32], footer: &str) -> Vec<u8> {
        let header = |time: usize| {
            let mut h = b"TZif2".to_vec();
            h.extend([0; 15]);
            for c in [0, 0, 0, time, offsets.len(), 4] {
                h.extend((c as u32).to_be_bytes());
            }
            h
        };
        let body = |wide: bool| {
            let mut b = Vec::new();
            for &t in times {
                if wide {
                    b.extend(t.to_be_bytes());
                } else {
                    b.extend((t as i32).to_be_bytes());
                }
            }
            b.extend(idx);
            for &o in offsets {
                b.extend(o.to_be_bytes());
                b.extend([0, 0]);
            }
            b.extend(b"ABC\0");
            b
        };
        let mut out = header(times.len());
        out.extend(body(false));
        out.extend(header(times.len()));
        out.extend(body(true));
        out.extend(footer.as_bytes());
        out
    }

    #[test]
    fn the_offset_follows_the_transitions_and_the_footer() {
        // Standard +1 h, summer +2 h from 1000 to 2000, standard again after.
        let f = tzif(
            &[1000, 2000],
            &[1, 0],
            &[3600, 7200],
            "\nCET-1CEST,M3.5.0,M10.5.0/3\n",
        );
        assert_eq!(offset_at(&f, 500), Some(3600));
        assert_eq!(offset_at(&f, 1000), Some(7200));
        assert_eq!(offset_at(&f, 1999), Some(7200));
        // Past the last transition with a daylight-saving footer: the last transition's type.
        assert_eq!(offset_at(&f, 5000), Some(3600));
        // A footer without a rule says the offset from then on.
        let f = tzif(&[1000], &[0], &[19_800], "\n<+0530>-5:30\n");
        assert_eq!(offset_at(&f, 9_999_999), Some(19_800));
        let f = tzif(&[], &[], &[-18_000], "\nEST5\n");
        assert_eq!(offset_at(&f, 0), Some(-18_000));
        assert_eq!(offset_at(b"not a zone file", 0), None);
        assert_eq!(offset_at(b"TZif2", 0), None);
    }

    #[test]
    fn times_print_as_local_dates_and_minutes() {
        assert_eq!(format(0, 0), "1970-01-01 00:00");
        // 2024-02-29 23:30 UTC is 2024-03-01 01:30 at UTC+2.
        assert_eq!(format(1_709_249_400_000, 0), "2024-02-29 23:30");
        assert_eq!(format(1_709_249_400_000, 7200), "2024-03-01 01:30");
        assert_eq!(format(-60_000, 0), "1969-12-31 23:59");
        assert_eq!(offset_label(0), "UTC");
        assert_eq!(offset_label(7200), "UTC+02:00");
        assert_eq!(offset_label(-12_600), "UTC-03:30");
    }
}
