//! The tries' figures: each try's line, and the markdown tables of `docs/benchmarks.md`.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::time::Instant;

use crate::attempt::Outcome;

/// The times of one try, in seconds after the kill (and its counts).
#[derive(Debug, Default)]
pub struct Times {
    /// Each surviving racer's first placement sent after the kill and answered `accepted`.
    pub answer_again: Vec<f64>,
    /// Each surviving racer's first `room_joined` from the new owner.
    pub member_view: Vec<f64>,
    /// The dead node's racer's `room_joined` on resume.
    pub resume: Option<f64>,
    /// The owner's node key lapsed (its PTTL at the kill).
    pub lapse: Option<f64>,
    /// The new owner logged "room taken over".
    pub taken: Option<f64>,
    /// The gap it logged, in seconds.
    pub gap: Option<f64>,
}

impl Times {
    /// What `o` measured.
    pub fn of(o: &Outcome) -> Times {
        let since = |t: tokio::time::Instant| t.saturating_duration_since(o.kill).as_secs_f64();
        let members = &o.rides[1..];
        Times {
            answer_again: members
                .iter()
                .filter_map(|r| {
                    r.acked
                        .iter()
                        .find(|a| a.sent >= o.kill)
                        .map(|a| since(a.at))
                })
                .collect(),
            member_view: members
                .iter()
                .filter_map(|r| r.view_at.map(since))
                .collect(),
            resume: o.rides[0].view_at.map(since),
            lapse: o.lease_left.map(|d| d.as_secs_f64()),
            taken: o.taken.map(|(_, at, _)| at),
            gap: o.taken.map(|(_, _, gap_ms)| gap_ms as f64 / 1000.0),
        }
    }
}

/// One line for a try.
pub fn line(t: usize, o: &Outcome, x: &Times) -> String {
    let ms = |v: f64| format!("{:.0}", v * 1000.0);
    let list = |v: &[f64]| v.iter().map(|&s| ms(s)).collect::<Vec<_>>().join("/");
    let opt = |v: Option<f64>| v.map_or("-".to_owned(), ms);
    let sum = |f: fn(&crate::player::Ride) -> usize| o.rides.iter().map(f).sum::<usize>();
    format!(
        "try {t}: room {} on n{} killed {} ms into the race (lease left {} ms); \
         answered again {} ms, views {} ms, resumed {} ms; taken over by {} at {} ms, gap_ms {}; \
         lost at the views {} of {}, missing from the stored race {} of {} (stored by n{}); \
         room_moving {}, unanswered by the dead owner {}, dropped after the kill {}, silent {}",
        o.code,
        o.owner,
        o.kill_after.as_millis(),
        opt(x.lapse),
        list(&x.answer_again),
        list(&x.member_view),
        opt(x.resume),
        o.taken.map_or("-".to_owned(), |(i, _, _)| format!("n{i}")),
        opt(x.taken),
        opt(x.gap),
        sum(|r| r.missing_at_view),
        sum(|r| r.acked_at_view),
        o.stored.1,
        sum(|r| r.acked.len()),
        o.stored.0,
        sum(|r| r.moving),
        sent_at(o.kill, o.rides.iter().flat_map(|r| &r.unanswered)),
        sent_at(o.kill, o.rides.iter().flat_map(|r| &r.dropped)),
        sent_at(o.kill, o.rides.iter().flat_map(|r| &r.silent)),
    )
}

/// How many placements, and when each was sent relative to `kill` (ms; negative: before).
fn sent_at<'a>(kill: Instant, sent: impl Iterator<Item = &'a Instant>) -> String {
    let at: Vec<String> = sent
        .map(|&s| format!("{:+.0}", signed_ms(kill, s)))
        .collect();
    match at.len() {
        0 => "0".to_owned(),
        n => format!("{n} (sent {} ms)", at.join(", ")),
    }
}

/// `at` − `kill` in ms, negative when `at` came first.
fn signed_ms(kill: Instant, at: Instant) -> f64 {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    ms(at.saturating_duration_since(kill)) - ms(kill.saturating_duration_since(at))
}

/// The nearest-rank percentile `p` of `v` (sorted here); `None` when empty.
fn pct(v: &[f64], p: f64) -> Option<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = ((p * s.len() as f64).ceil() as usize).clamp(1, s.len().max(1));
    s.get(rank - 1).copied()
}

fn row(what: &str, v: &[f64]) -> String {
    let ms = |p: f64| pct(v, p).map_or("-".to_owned(), |s| format!("{:.0}", s * 1000.0));
    format!(
        "| {what} | {} | {} | {} | {} |",
        v.len(),
        ms(0.5),
        ms(0.99),
        ms(1.0)
    )
}

/// Everything the tries measured, as markdown.
pub struct Summary<'a> {
    /// The tries that ran to the end.
    pub outcomes: &'a [(Outcome, Times)],
    /// The tries that failed, with why.
    pub failed: &'a [(usize, String)],
    /// Redis commands per second per node, idle, by command.
    pub idle: &'a BTreeMap<String, f64>,
    /// The idle window.
    pub idle_window: Duration,
}

impl Summary<'_> {
    /// Prints the tables.
    pub fn print(&self) {
        let all = |f: fn(&Times) -> Vec<f64>| -> Vec<f64> {
            self.outcomes.iter().flat_map(|(_, x)| f(x)).collect()
        };
        let diff = |a: fn(&Times) -> Option<f64>, b: fn(&Times) -> Option<f64>| -> Vec<f64> {
            let pairs = self.outcomes.iter().map(|(_, x)| (a(x), b(x)));
            pairs.filter_map(|(a, b)| Some(a? - b?)).collect()
        };
        println!("| from the kill (ms) | n | p50 | p99 | max |");
        println!("|---|---:|---:|---:|---:|");
        let lines = [
            row(
                "**(a) to the first accepted placement**, each racer on a live node",
                &all(|x| x.answer_again.clone()),
            ),
            row(
                "**(b) to `room_joined` on resume**, the dead node's racer",
                &all(|x| x.resume.into_iter().collect()),
            ),
            row(
                "to `room_joined` from the new owner, racers on live nodes",
                &all(|x| x.member_view.clone()),
            ),
            row(
                "to the owner's node key lapsing (its PTTL at the kill)",
                &all(|x| x.lapse.into_iter().collect()),
            ),
            row(
                "to \"room taken over\" in the new owner's log",
                &all(|x| x.taken.into_iter().collect()),
            ),
            row(
                "lapse → \"room taken over\" (poll, claim, log read, replay)",
                &diff(|x| x.taken, |x| x.lapse),
            ),
            row(
                "`gap_ms` the new owner logged (last log entry → rebuilt)",
                &all(|x| x.gap.into_iter().collect()),
            ),
        ];
        for l in lines {
            println!("{l}");
        }
        println!();
        self.print_counts();
    }

    fn print_counts(&self) {
        let sum = |f: fn(&crate::player::Ride) -> usize| -> usize {
            let rides = self.outcomes.iter().flat_map(|(o, _)| o.rides.iter());
            rides.map(f).sum()
        };
        let stored_missing: usize = self.outcomes.iter().map(|(o, _)| o.stored.1).sum();
        let total: f64 = self.idle.values().sum();
        let by: Vec<String> = self
            .idle
            .iter()
            .map(|(name, rate)| format!("{name} {rate:.1}"))
            .collect();
        println!("| figure | value |");
        println!("|---|---:|");
        println!(
            "| tries run / failed | {} / {} |",
            self.outcomes.len(),
            self.failed.len()
        );
        println!(
            "| acknowledged before the views after the takeover / **lost** (not on the board) | {} / **{}** |",
            sum(|r| r.acked_at_view),
            sum(|r| r.missing_at_view)
        );
        println!(
            "| acknowledged in all / **missing from the stored race** | {} / **{}** |",
            sum(|r| r.acked.len()),
            stored_missing
        );
        println!(
            "| placements answered `room_moving` (not taken; sent again after `retry_ms` or on the view) | {} |",
            sum(|r| r.moving)
        );
        let all = || self.outcomes.iter().map(|(o, _)| o);
        let spread = |f: fn(&crate::player::Ride) -> &Vec<Instant>| -> String {
            let rel: Vec<f64> = all()
                .flat_map(|o| {
                    o.rides
                        .iter()
                        .flat_map(f)
                        .map(move |&s| signed_ms(o.kill, s))
                })
                .collect();
            match (pct(&rel, 0.0), pct(&rel, 1.0)) {
                (Some(lo), Some(hi)) => {
                    format!("{} (sent {lo:+.0} to {hi:+.0} ms from the kill)", rel.len())
                }
                _ => "0".to_owned(),
            }
        };
        println!(
            "| placements sent to the owner before the kill, never answered nor applied (sent again on the view) | {} |",
            spread(|r| &r.unanswered)
        );
        println!(
            "| placements sent after the kill, neither answered nor refused 250 ms after the view (sent again then) | {} |",
            spread(|r| &r.dropped)
        );
        println!(
            "| placements unanswered for 2 s (sent again then) | {} |",
            spread(|r| &r.silent)
        );
        println!(
            "| applied by the dead owner, answer lost with it (found on the board) | {} |",
            sum(|r| r.applied_unanswered)
        );
        println!(
            "| Redis commands per node per s, idle {} s with 3 nodes | {total:.1} ({}) |",
            self.idle_window.as_secs(),
            by.join(", ")
        );
        for (t, why) in self.failed {
            println!("\ntry {t} failed: {why}");
        }
    }
}
