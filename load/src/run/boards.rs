//! The cost of delayed boards (A8, `loadgen --spectators N --boards`): the same race load on
//! the same server, round after round, alternately with a silent crowd of plain spectators
//! and with one that asks for boards; the server's CPU per placement of each, as medians over
//! the rounds, and how much more the boards cost.

use std::net::SocketAddr;

use anyhow::{bail, Result};
use serde_json::{json, Value};

use super::race::{self, RaceOpts};
use super::RunReport;

/// What the rounds measured.
#[derive(Clone, Debug)]
pub struct BoardsReport {
    /// Server CPU µs per placement of each round without boards.
    pub plain_us: Vec<f64>,
    /// The same with boards.
    pub boards_us: Vec<f64>,
    /// `board` messages the crowd heard, per round with boards.
    pub boards_heard: Vec<u64>,
    /// Spectators admitted, per round with boards.
    pub admitted: Vec<usize>,
}

fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

impl BoardsReport {
    /// Median server CPU µs per placement: (without boards, with boards).
    pub fn medians(&self) -> (f64, f64) {
        (median(&self.plain_us), median(&self.boards_us))
    }

    /// How much more CPU per placement the boards cost, in percent of the plain median.
    pub fn added_percent(&self) -> f64 {
        let (plain, boards) = self.medians();
        (boards / plain - 1.0) * 100.0
    }

    /// The report's table.
    pub fn table(&self, opts: &RaceOpts) -> String {
        let (plain, boards) = self.medians();
        format!(
            "delayed boards: {rooms} room(s) of {players} players, {n} spectators, {rounds} rounds each\n\
             \x20 server CPU per placement, median: without boards {plain:.1} µs, with boards {boards:.1} µs \
             ({added:+.1} %)\n\
             \x20 rounds without {pl:?}\n\
             \x20 rounds with    {bo:?}\n\
             \x20 boards heard per round {heard:?}, spectators admitted {adm:?}",
            rooms = opts.rooms,
            players = opts.players,
            n = opts.spectators,
            rounds = self.plain_us.len(),
            added = self.added_percent(),
            pl = self.plain_us.iter().map(|x| (x * 10.0).round() / 10.0).collect::<Vec<_>>(),
            bo = self.boards_us.iter().map(|x| (x * 10.0).round() / 10.0).collect::<Vec<_>>(),
            heard = self.boards_heard,
            adm = self.admitted,
        )
    }

    /// The report as JSON.
    pub fn json(&self, opts: &RaceOpts) -> Value {
        let (plain, boards) = self.medians();
        json!({
            "mode": "boards",
            "rooms": opts.rooms,
            "players": opts.players,
            "spectators": opts.spectators,
            "rounds": self.plain_us.len(),
            "server_cpu_us_per_placement_plain": self.plain_us,
            "server_cpu_us_per_placement_boards": self.boards_us,
            "median_plain_us": plain,
            "median_boards_us": boards,
            "added_percent": self.added_percent(),
            "boards_heard": self.boards_heard,
            "admitted": self.admitted,
        })
    }
}

/// Server CPU µs per answered placement of one run.
fn per_placement(r: &RunReport) -> Result<f64> {
    let Some(cpu) = r.server_cpu else {
        bail!("the server's CPU is not known (give --server-pid, or let loadgen start it)")
    };
    if r.tally.replies == 0 {
        bail!("no placement was answered");
    }
    Ok(cpu.as_secs_f64() * 1e6 / r.tally.replies as f64)
}

/// `rounds` rounds of the race load at `addr` (pid `pid`), each once without and once with
/// boards (which goes first alternates, so that a server warming up favours neither).
pub async fn compare(
    addr: SocketAddr,
    pid: Option<u32>,
    opts: &RaceOpts,
    rounds: usize,
) -> Result<BoardsReport> {
    let mut report = BoardsReport {
        plain_us: Vec::new(),
        boards_us: Vec::new(),
        boards_heard: Vec::new(),
        admitted: Vec::new(),
    };
    for round in 0..rounds {
        let order = if round % 2 == 0 {
            [false, true]
        } else {
            [true, false]
        };
        for boards in order {
            let o = RaceOpts {
                boards,
                crowd_chats: false,
                seed: opts.seed + round as u64,
                ..opts.clone()
            };
            let r = race::run(addr, pid, &o).await?;
            let us = per_placement(&r)?;
            eprintln!("round {round}, boards {boards}: {us:.1} µs per placement");
            if boards {
                report.boards_us.push(us);
                let crowd = r.crowd.unwrap_or_default();
                report.boards_heard.push(crowd.boards_heard);
                report.admitted.push(crowd.admitted);
            } else {
                report.plain_us.push(us);
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_the_added_share() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        let r = BoardsReport {
            plain_us: vec![10.0, 12.0, 11.0],
            boards_us: vec![11.0, 30.0, 11.5],
            boards_heard: vec![1, 2, 3],
            admitted: vec![32, 32, 32],
        };
        assert_eq!(r.medians(), (11.0, 11.5));
        assert!((r.added_percent() - 100.0 / 22.0).abs() < 1e-9);
    }
}
