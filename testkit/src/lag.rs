//! Lag on loopback, for lag compensation (A8) in tests and benchmarks: [`DelayProxy`], a TCP
//! proxy that holds every byte for a fixed time each way (a player far from the server), and
//! [`race_at_pace`], a racer that places a solution's digits at a fixed pace while it keeps
//! reading, so its WebSocket answers the server's pings at once, as a browser's does.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::solving::{solve, to_fill};
use crate::ws::JsonWs;

/// A TCP proxy on 127.0.0.1 in front of `target` that delivers every byte `delay` after it
/// arrived, in each direction, in order: a round trip through it is `2 × delay` longer.
/// Stops (and drops its connections) when dropped.
pub struct DelayProxy {
    /// Where clients connect.
    pub addr: SocketAddr,
    task: JoinHandle<()>,
}

impl DelayProxy {
    /// Listen on an ephemeral loopback port.
    pub async fn start(target: SocketAddr, delay: Duration) -> io::Result<DelayProxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let task = tokio::spawn(async move {
            let mut conns = tokio::task::JoinSet::new();
            while let Ok((client, _)) = listener.accept().await {
                conns.spawn(relay(client, target, delay));
            }
        });
        Ok(DelayProxy { addr, task })
    }
}

impl Drop for DelayProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn relay(client: TcpStream, target: SocketAddr, delay: Duration) {
    let Ok(server) = TcpStream::connect(target).await else {
        return;
    };
    // Without NODELAY, Nagle's algorithm would add its own delay to small frames.
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (cr, cw) = client.into_split();
    let (sr, sw) = server.into_split();
    tokio::join!(pipe(cr, sw, delay), pipe(sr, cw, delay));
}

/// Copy `from` to `to`, each chunk written `delay` after it was read (a queue, so the delay
/// adds to latency only, never to throughput).
async fn pipe(mut from: impl AsyncRead + Unpin, mut to: impl AsyncWrite + Unpin, delay: Duration) {
    let (tx, mut rx) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let read = async move {
        let mut buf = vec![0u8; 16 * 1024];
        while let Ok(n) = from.read(&mut buf).await {
            if n == 0
                || tx
                    .send((Instant::now() + delay, buf[..n].to_vec()))
                    .is_err()
            {
                break;
            }
        }
    };
    let write = async move {
        while let Some((at, bytes)) = rx.recv().await {
            tokio::time::sleep_until(at).await;
            if to.write_all(&bytes).await.is_err() {
                return;
            }
        }
        let _ = to.shutdown().await;
    };
    tokio::join!(read, write);
}

/// Race on `ws` (a player in a room whose race is about to start): wait for `race_started`,
/// then place the solution's digits one every `pace` from the moment it arrived, reading all
/// the while; the `race_over` it ends with.
pub async fn race_at_pace<S>(ws: &mut JsonWs<S>, pace: Duration) -> Result<Value>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let started = ws
        .recv_until(|v| v["type"] == "race_started")
        .await
        .context("race_started")?;
    let t0 = Instant::now();
    let puzzle = started["puzzle"].as_str().context("a puzzle")?.to_owned();
    let cells = to_fill(&puzzle, &solve(&puzzle));
    let mut next = 0;
    loop {
        let due = t0 + pace * (next as u32 + 1);
        tokio::select! {
            () = tokio::time::sleep_until(due), if next < cells.len() => {
                let (cell, digit) = cells[next];
                ws.send(json!({"type": "place", "cell": cell, "digit": digit})).await;
                next += 1;
            }
            m = ws.recv() => {
                let v = m?;
                if v["type"] == "race_over" {
                    return Ok(v);
                }
            }
        }
    }
}
