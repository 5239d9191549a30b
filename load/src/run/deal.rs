//! The deal load: how long a race start waits for its puzzle, per difficulty, as a client sees
//! it. A one-player room starts a race; the wait is the time from `start_race` to
//! `race_started`, less the countdown the server announced (`starts_in_ms`). With a pooled
//! deal it is close to zero; a start that waits for generation shows here.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use engine::Difficulty;
use futures::future::join_all;
use protocol::{ClientMsg, ServerMsg, SettingsRequest};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::hist::Latency;
use crate::wsclient;

/// Deal waits of one difficulty.
#[derive(Clone, Debug)]
pub struct DealReport {
    /// The difficulty.
    pub difficulty: Difficulty,
    /// Start to `race_started`, less the announced countdown.
    pub wait: Latency,
    /// Starts that failed.
    pub errors: u64,
}

/// One race start: its wait beyond the countdown.
async fn one(addr: SocketAddr, difficulty: Difficulty, i: usize) -> Result<Duration> {
    let t = Duration::from_secs(60);
    let mut ws = wsclient::connect(addr, "/ws", 4096).await?;
    wsclient::welcomed(&mut ws, t).await?;
    wsclient::send(
        &mut ws,
        &ClientMsg::CreateRoom {
            name: format!("dealer{i}"),
            settings: Some(SettingsRequest {
                difficulty: Some(difficulty.to_string()),
                max_players: Some(1),
                public: Some(false),
                ..Default::default()
            }),
            bot: false,
            key: None,
            variants: None,
        },
    )
    .await?;
    wsclient::recv_until(&mut ws, t, |m| {
        matches!(m, ServerMsg::RoomJoined { .. }).then_some(())
    })
    .await?;
    let asked = Instant::now();
    wsclient::send(&mut ws, &ClientMsg::StartRace).await?;
    let countdown = wsclient::recv_until(&mut ws, t, |m| match m {
        ServerMsg::Countdown { starts_in_ms } => Some(Duration::from_millis(starts_in_ms)),
        _ => None,
    })
    .await?;
    wsclient::recv_until(&mut ws, t, |m| {
        matches!(m, ServerMsg::RaceStarted { .. }).then_some(())
    })
    .await?;
    let wait = asked.elapsed().saturating_sub(countdown);
    let _ = wsclient::send(&mut ws, &ClientMsg::Leave).await;
    wsclient::close(ws, Duration::from_secs(2)).await;
    Ok(wait)
}

/// Starts `n` races per difficulty, `concurrency` at a time, and collects the waits.
pub async fn run(addr: SocketAddr, n: usize, concurrency: usize) -> Result<Vec<DealReport>> {
    let mut reports = Vec::new();
    for difficulty in Difficulty::ALL {
        let permits = Arc::new(Semaphore::new(concurrency.max(1)));
        let waits = join_all((0..n).map(|i| {
            let permits = Arc::clone(&permits);
            async move {
                let _permit = permits.acquire().await.context("semaphore closed")?;
                one(addr, difficulty, i).await
            }
        }))
        .await;
        let mut wait = Latency::new();
        let mut errors = 0;
        for w in waits {
            match w {
                Ok(w) => wait.record(w),
                Err(_) => errors += 1,
            }
        }
        reports.push(DealReport {
            difficulty,
            wait,
            errors,
        });
    }
    Ok(reports)
}
