//! What the rooms counted, and the table.

use std::time::Duration;

use load::hist::Latency;

/// What every room counted.
#[derive(Default)]
pub struct Stats {
    pub sent: u64,
    pub answered: u64,
    pub accepted: u64,
    pub rejected: u64,
    pub applied_seen_on_resume: u64,
    pub settled_by_race_over: u64,
    pub resent: u64,
    pub lost_accepted: u64,
    pub lost_at_end: u64,
    pub lost_on_resume: u64,
    pub lost_on_reform: u64,
    pub races_over: u64,
    pub races_ended_early: u64,
    pub closes: u64,
    pub resumes: u64,
    pub resume_failed: u64,
    pub reformed: u64,
    pub refused_draining: u64,
    pub closed_drain: u64,
    pub closed_other: u64,
    pub errors: u64,
    pub round_trip: Latency,
    pub resume_time: Latency,
    /// At each close, the age of the oldest placement of that connection still unanswered.
    pub stalled: Latency,
    /// The first and last close, from the start of the load.
    pub close_span: Option<(Duration, Duration)>,
}

impl Stats {
    /// Adds `o`'s counts.
    pub fn merge(&mut self, o: &Stats) {
        self.sent += o.sent;
        self.answered += o.answered;
        self.accepted += o.accepted;
        self.rejected += o.rejected;
        self.applied_seen_on_resume += o.applied_seen_on_resume;
        self.settled_by_race_over += o.settled_by_race_over;
        self.resent += o.resent;
        self.lost_accepted += o.lost_accepted;
        self.lost_at_end += o.lost_at_end;
        self.lost_on_resume += o.lost_on_resume;
        self.lost_on_reform += o.lost_on_reform;
        self.races_over += o.races_over;
        self.races_ended_early += o.races_ended_early;
        self.closes += o.closes;
        self.resumes += o.resumes;
        self.resume_failed += o.resume_failed;
        self.reformed += o.reformed;
        self.refused_draining += o.refused_draining;
        self.closed_drain += o.closed_drain;
        self.closed_other += o.closed_other;
        self.errors += o.errors;
        self.round_trip.merge(&o.round_trip);
        self.resume_time.merge(&o.resume_time);
        self.stalled.merge(&o.stalled);
        if let Some((a, b)) = o.close_span {
            self.saw_close(a);
            self.saw_close(b);
        }
    }

    /// A close seen `at` after the start.
    pub fn saw_close(&mut self, at: Duration) {
        let (a, b) = self.close_span.get_or_insert((at, at));
        *a = (*a).min(at);
        *b = (*b).max(at);
    }

    /// The table.
    pub fn print(&self, secs: f64) {
        let row = |k: &str, v: String| println!("  {k:<44} {v}");
        row(
            "placements sent (per s)",
            format!("{} ({:.0}/s)", self.sent, self.sent as f64 / secs),
        );
        row("placements answered", self.answered.to_string());
        row(
            "  accepted / rejected",
            format!("{} / {}", self.accepted, self.rejected),
        );
        row(
            "  no answer, found applied on resume",
            self.applied_seen_on_resume.to_string(),
        );
        row(
            "  no answer, sent again after resume",
            self.resent.to_string(),
        );
        row(
            "  answer after race_over, which counts it",
            self.settled_by_race_over.to_string(),
        );
        row(
            "LOST: accepted, missing from race_over",
            self.lost_accepted.to_string(),
        );
        row(
            "LOST: no answer, not resolved by the end",
            format!(
                "{} (at the end {}, race over at resume {}, room gone {})",
                self.lost_at_end + self.lost_on_resume + self.lost_on_reform,
                self.lost_at_end,
                self.lost_on_resume,
                self.lost_on_reform
            ),
        );
        row("races over (all_done)", self.races_over.to_string());
        row(
            "RACES ENDED EARLY (room closed mid-race)",
            self.races_ended_early.to_string(),
        );
        self.print_closes();
    }

    fn print_closes(&self) {
        let row = |k: &str, v: String| println!("  {k:<44} {v}");
        row("connections closed by a server", self.closes.to_string());
        if let Some((a, b)) = self.close_span {
            row(
                "  closed from / to (s after start)",
                format!("{:.2} / {:.2}", a.as_secs_f64(), b.as_secs_f64()),
            );
        }
        row(
            "  oldest unanswered at close p50 / max (ms)",
            format!(
                "{:.1} / {:.1}",
                self.stalled.quantile_ms(0.5),
                self.stalled.max_ms()
            ),
        );
        row(
            "resumes ok / failed",
            format!("{} / {}", self.resumes, self.resume_failed),
        );
        row(
            "resume time p50 / p99 / max (ms)",
            format!(
                "{:.1} / {:.1} / {:.1}",
                self.resume_time.quantile_ms(0.5),
                self.resume_time.quantile_ms(0.99),
                self.resume_time.max_ms()
            ),
        );
        row(
            "room_closed drain / other",
            format!("{} / {}", self.closed_drain, self.closed_other),
        );
        row(
            "rematch refused server_draining",
            self.refused_draining.to_string(),
        );
        row("rooms opened again elsewhere", self.reformed.to_string());
        row("other errors", self.errors.to_string());
        row(
            "placement round trip p50 / p99 (ms)",
            format!(
                "{:.1} / {:.1}",
                self.round_trip.quantile_ms(0.5),
                self.round_trip.quantile_ms(0.99)
            ),
        );
    }
}
