//! The churn load: connect, join a room, leave, close, many times over; the server's memory
//! and descriptors must come back to where they were.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use futures::StreamExt;
use protocol::{ClientMsg, RoomCode, ServerMsg, SettingsRequest};
use tokio::time::Instant;

use crate::procfs::{self, ProcSample};
use crate::wsclient;

/// What a churn run measured.
#[derive(Clone, Debug)]
pub struct ChurnReport {
    /// Cycles completed (connect, join, leave, close).
    pub cycles: u64,
    /// Cycles that failed at some step.
    pub errors: u64,
    /// Wall time of all cycles.
    pub elapsed: Duration,
    /// The server before any cycle (one host connection in one room).
    pub start: Option<ProcSample>,
    /// After the first `warmup` cycles.
    pub warm: Option<ProcSample>,
    /// After every cycle, and a pause.
    pub end: Option<ProcSample>,
    /// Cycles counted as warm-up.
    pub warmup: u64,
}

/// One cycle: a new connection joins `room` as `name`, leaves, and closes.
async fn cycle(addr: SocketAddr, room: &str, name: String) -> Result<()> {
    let t = Duration::from_secs(10);
    let mut ws = wsclient::connect(addr, "/ws", 1024).await?;
    wsclient::welcomed(&mut ws, t).await?;
    wsclient::send(
        &mut ws,
        &ClientMsg::JoinRoom {
            room: room.to_owned(),
            name,
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
    wsclient::send(&mut ws, &ClientMsg::Leave).await?;
    wsclient::close(ws, t).await;
    Ok(())
}

/// The room every cycle joins: a private room of 16 seats opened by a host connection, which
/// stays in it, reading everything (so its queue never fills) and pinging now and then (so the
/// idle timeout spares it). Returns the room's code and the host's two tasks.
async fn open_room(addr: SocketAddr) -> Result<(RoomCode, [tokio::task::JoinHandle<()>; 2])> {
    let t = Duration::from_secs(10);
    let mut host = wsclient::connect(addr, "/ws", 4096).await?;
    wsclient::welcomed(&mut host, t).await?;
    wsclient::send(
        &mut host,
        &ClientMsg::CreateRoom {
            name: "host".into(),
            settings: Some(SettingsRequest {
                max_players: Some(16),
                public: Some(false),
                ..Default::default()
            }),
            bot: false,
            key: None,
            variants: None,
        },
    )
    .await?;
    let room = wsclient::recv_until(&mut host, t, |m| match m {
        ServerMsg::RoomJoined { room, .. } => Some(room),
        _ => None,
    })
    .await
    .context("create the churn room")?;
    let (mut host_tx, mut host_rx) = host.split();
    let host_reader = tokio::spawn(async move { while let Some(Ok(_)) = host_rx.next().await {} });
    let pinger = tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(10)).await;
            let ping = serde_json::json!({"type": "ping"}).to_string();
            if futures::SinkExt::send(
                &mut host_tx,
                tokio_tungstenite::tungstenite::Message::text(ping),
            )
            .await
            .is_err()
            {
                break;
            }
        }
    });
    Ok((room, [host_reader, pinger]))
}

/// What the workers share: the next cycle to run, the counts, and the warm-up's reading.
#[derive(Default)]
struct Tally {
    next: AtomicU64,
    errors: AtomicU64,
    done: AtomicU64,
    warm: std::sync::Mutex<Option<ProcSample>>,
}

/// One worker: runs cycles until `cycles` have been taken, reading the server once the
/// `warmup`-th cycle is done.
async fn worker(
    addr: SocketAddr,
    room: RoomCode,
    pid: Option<u32>,
    cycles: u64,
    warmup: u64,
    tally: Arc<Tally>,
) {
    loop {
        let i = tally.next.fetch_add(1, Ordering::Relaxed);
        if i >= cycles {
            break;
        }
        if cycle(addr, &room, format!("c{i}")).await.is_err() {
            tally.errors.fetch_add(1, Ordering::Relaxed);
        }
        if tally.done.fetch_add(1, Ordering::Relaxed) + 1 == warmup {
            if let Some(pid) = pid {
                let s = procfs::sample(pid).ok();
                *tally.warm.lock().expect("sample lock poisoned") = s;
            }
        }
    }
}

/// Runs `cycles` cycles against `addr`, `concurrency` at a time (at most 15: one room), and
/// reads the server (pid `pid`) before, after a warm-up of a tenth of the cycles, and after.
pub async fn run(
    addr: SocketAddr,
    pid: Option<u32>,
    cycles: u64,
    concurrency: usize,
) -> Result<ChurnReport> {
    let (room, host_tasks) = open_room(addr).await?;
    let start = pid.map(procfs::sample).transpose()?;
    let warmup = cycles / 10;
    let tally = Arc::new(Tally::default());
    let began = Instant::now();
    let workers: Vec<_> = (0..concurrency.clamp(1, 15))
        .map(|_| {
            tokio::spawn(worker(
                addr,
                room.clone(),
                pid,
                cycles,
                warmup,
                Arc::clone(&tally),
            ))
        })
        .collect();
    for w in workers {
        w.await.context("churn worker")?;
    }
    let elapsed = began.elapsed();
    // Closed sockets and freed seats settle before the last reading.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let end = pid.map(procfs::sample).transpose()?;
    for task in host_tasks {
        task.abort();
    }
    let warm = *tally.warm.lock().expect("sample lock poisoned");
    Ok(ChurnReport {
        cycles: tally.done.load(Ordering::Relaxed),
        errors: tally.errors.load(Ordering::Relaxed),
        elapsed,
        start,
        warm,
        end,
        warmup,
    })
}
