//! The pool load (A7): `n` players enter the pool of one difficulty at `rate` per second; each
//! measures the time from its `quick_race` to its `room_joined`. With `--pool-size` players
//! arriving close together, that is the server's matching and seating, not anyone's waiting.
//! Over a cluster, player `i` connects to node `i % n`: every race's players sit on every
//! node, and one pool across them all seats them.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{Context, Result};
use engine::Difficulty;
use futures::future::join_all;
use protocol::{ClientMsg, ServerMsg};
use tokio::time::Instant;

use crate::hist::Latency;
use crate::wsclient;

/// What a pool run measured.
#[derive(Clone, Debug)]
pub struct PoolReport {
    /// `quick_race` to `room_joined`.
    pub seated: Latency,
    /// Players that were never seated, or failed.
    pub errors: u64,
    /// Players asked for.
    pub players: usize,
}

/// One player: connect, wait for its turn, enter the pool, and time its seat.
async fn one(addr: SocketAddr, i: usize, at: Instant, difficulty: Difficulty) -> Result<Duration> {
    let t = Duration::from_secs(30);
    let mut ws = wsclient::connect(addr, "/ws", 4096).await?;
    wsclient::welcomed(&mut ws, t).await?;
    tokio::time::sleep_until(at).await;
    let asked = Instant::now();
    wsclient::send(
        &mut ws,
        &ClientMsg::QuickRace {
            difficulty: difficulty.to_string(),
            name: format!("p{i}"),
            key: None,
            bot: false,
            variant: None,
            variants: None,
        },
    )
    .await?;
    wsclient::recv_until(&mut ws, t, |m| {
        matches!(m, ServerMsg::RoomJoined { .. }).then_some(())
    })
    .await
    .context("seated by the pool")?;
    let seated = asked.elapsed();
    let _ = wsclient::send(&mut ws, &ClientMsg::Leave).await;
    wsclient::close(ws, Duration::from_secs(2)).await;
    Ok(seated)
}

/// `n` players enter the easy pool, `rate` per second, from a second after the first connects;
/// player `i` through `addrs[i % addrs.len()]`.
pub async fn run(addrs: &[SocketAddr], n: usize, rate: f64) -> Result<PoolReport> {
    let Some(&first) = addrs.first() else {
        anyhow::bail!("no server to load");
    };
    let start = Instant::now() + Duration::from_secs(1);
    let gap = Duration::from_secs_f64(1.0 / rate.max(0.001));
    let results = join_all((0..n).map(|i| {
        let at = start + gap.mul_f64(i as f64);
        let addr = addrs.get(i % addrs.len()).copied().unwrap_or(first);
        one(addr, i, at, Difficulty::Easy)
    }))
    .await;
    let mut seated = Latency::new();
    let mut errors = 0;
    for r in results {
        match r {
            Ok(d) => seated.record(d),
            Err(_) => errors += 1,
        }
    }
    Ok(PoolReport {
        seated,
        errors,
        players: n,
    })
}
