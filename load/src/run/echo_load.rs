//! The echo load: the same connections, groups and schedule as the race load, against the
//! echo server. Each frame is the size of a placement and names its sender and index; the
//! echo server sends it to the whole group, the sender included.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use futures::future::try_join_all;
use serde::Deserialize;
use tokio::time::Instant;

use super::launch::{Launched, Procs};
use super::race::RaceOpts;
use super::{Event, Group, RunReport, Schedule};
use crate::wsclient;

#[derive(Deserialize)]
struct Frame {
    id: u64,
    from: usize,
}

fn parse(text: &str, me: usize) -> Event {
    match serde_json::from_str::<Frame>(text) {
        Ok(f) if f.from == me => Event::ReplyAndCopy { id: f.id },
        Ok(f) => Event::Copy {
            from: f.from,
            seq: f.id + 1,
        },
        Err(_) => Event::Error,
    }
}

/// Runs the echo load against the echo server at `addr` (pid `pid`, if known, for its CPU).
/// Uses `opts.rooms` groups of `opts.players`; difficulty and seed do not apply.
pub async fn run(addr: SocketAddr, pid: Option<u32>, opts: &RaceOpts) -> Result<RunReport> {
    let n = opts.rooms * opts.players;
    let conns = try_join_all((0..n).map(|g| async move {
        let r = g / opts.players.max(1);
        wsclient::connect(addr, &format!("/ws?group={r}"), 16 * 1024).await
    }))
    .await?;
    let t0 = Instant::now() + Duration::from_millis(200);
    let schedule = Schedule::new(t0, opts.rate, n, opts.duration);
    let deadline = schedule.end + opts.drain;

    let mut launched = Launched::default();
    for (g, ws) in conns.into_iter().enumerate() {
        let (r, j) = (g / opts.players, g % opts.players);
        if j == 0 {
            let offsets = (0..opts.players)
                .map(|j| schedule.offset(r * opts.players + j, n))
                .collect();
            launched
                .groups
                .push(Arc::new(Group::new(schedule, offsets)));
        }
        let group = Arc::clone(launched.groups.last().context("a group per room")?);
        launched.start(
            ws,
            &group,
            j,
            deadline,
            // As long as a placement, with a `from` added.
            move |k| {
                format!(
                    r#"{{"type":"place","cell":{},"digit":{},"id":{k},"from":{j}}}"#,
                    k % 81,
                    k % 9 + 1
                )
            },
            move |text| parse(text, j),
        );
    }
    launched.measure(t0, &Procs::one(pid), false).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_frames_are_replies_and_others_are_copies() {
        let text = r#"{"type":"place","cell":3,"digit":4,"id":6,"from":2}"#;
        assert!(matches!(parse(text, 2), Event::ReplyAndCopy { id: 6 }));
        assert!(matches!(parse(text, 0), Event::Copy { from: 2, seq: 7 }));
        assert!(matches!(parse("nope", 0), Event::Error));
    }
}
