//! `takeover-bench`: a room owner killed mid-race (A9) measured. It starts a `redis-server`
//! and three `sudoku-race-server` nodes on loopback (beside itself, or `--server-bin`), then
//! `--tries` times: a room on one node with a player there and one on each other node, a
//! race, `--placements` accepted digits each, `kill -9` of the owner; it times how long until
//! the room answers again on another node (the first player's fresh `room_joined`), checks
//! that every placement is on the three players' boards (the dead node's player resumes by
//! token on a live node), and starts the killed node again. It prints each try and the
//! p50/p99.
//!
//!   cargo run --release -p sudoku-race-load --bin takeover-bench -- [--tries 20]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Parser;
use load::run::spawn::{beside_me, start_redis, Spawned};
use serde_json::{json, Value};
use testkit::{solve, to_fill, JsonWs};
use tokio::net::TcpStream;

/// Measure the takeover of a room whose owner is killed.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Kills (the percentiles are over them).
    #[arg(long, default_value_t = 20)]
    tries: usize,
    /// Digits each player places before the kill.
    #[arg(long, default_value_t = 5)]
    placements: usize,
    /// The server binary (default: beside this one).
    #[arg(long)]
    server_bin: Option<PathBuf>,
    /// The `redis-server` binary.
    #[arg(long, default_value = "redis-server")]
    redis_bin: PathBuf,
    /// The nodes' `--takeover-s`.
    #[arg(long, default_value_t = 5)]
    takeover_s: u64,
}

type Ws = JsonWs<TcpStream>;

async fn connect(node: &Spawned) -> Result<Ws> {
    let stream = TcpStream::connect(node.addr).await?;
    let url = format!("ws://{}/ws", node.addr);
    let (ws, _) = tokio_tungstenite::client_async(url, stream).await?;
    let mut ws = JsonWs::new(ws, Duration::from_secs(60));
    ws.recv_until(|v| v["type"] == "welcome").await?;
    Ok(ws)
}

async fn node(bin: &PathBuf, redis: &str, id: usize, takeover_s: u64) -> Result<Spawned> {
    let args: Vec<String> = [
        "--listen",
        "{addr}",
        "--db",
        "{dir}/race.db",
        "--countdown-ms",
        "100",
        "--rate-limit",
        "10000",
        "--rate-burst",
        "10000",
        "--cluster",
        redis,
        "--node-id",
        &format!("n{id}"),
        "--takeover-s",
        &takeover_s.to_string(),
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    Spawned::start(bin, &args, None).await
}

async fn place(ws: &mut Ws, cells: &[(usize, u8)]) -> Result<()> {
    for &(cell, digit) in cells {
        ws.send(json!({"type": "place", "cell": cell, "digit": digit}))
            .await;
        let v = ws.recv_until(|v| v["type"] == "placement").await?;
        if v["accepted"] != true {
            bail!("a placement was refused: {v}");
        }
    }
    Ok(())
}

fn holds(view: &Value, cells: &[(usize, u8)]) -> bool {
    let board = view["race"]["board"]
        .as_str()
        .unwrap_or_default()
        .as_bytes();
    cells
        .iter()
        .all(|&(c, d)| board.get(c).copied() == Some(b'0' + d))
}

/// One kill: the time until the room answered again, and whether every placement was kept.
async fn one(nodes: &mut [Spawned], owner: usize, placements: usize) -> Result<(Duration, bool)> {
    let (o1, o2) = ((owner + 1) % 3, (owner + 2) % 3);
    let mut ann = connect(&nodes[owner]).await?;
    let mut bob = connect(&nodes[o1]).await?;
    let mut cat = connect(&nodes[o2]).await?;
    let settings = json!({"difficulty": "easy", "public": false});
    ann.send(json!({"type": "create_room", "name": "ann", "settings": settings}))
        .await;
    let created = ann.recv_until(|v| v["type"] == "room_joined").await?;
    let code = created["room"].as_str().context("code")?.to_owned();
    let token = created["you"]["token"].clone();
    for (ws, name) in [(&mut bob, "bob"), (&mut cat, "cat")] {
        ws.send(json!({"type": "join_room", "room": code, "name": name}))
            .await;
        ws.recv_until(|v| v["type"] == "room_joined").await?;
    }
    ann.send(json!({"type": "start_race"})).await;
    let mut puzzle = String::new();
    for ws in [&mut ann, &mut bob, &mut cat] {
        let v = ws.recv_until(|v| v["type"] == "race_started").await?;
        puzzle = v["puzzle"].as_str().context("puzzle")?.to_owned();
    }
    let fill = to_fill(&puzzle, &solve(&puzzle));
    let before = &fill[..placements.min(fill.len())];
    for ws in [&mut ann, &mut bob, &mut cat] {
        place(ws, before).await?;
    }
    nodes[owner].kill_now();
    let killed = Instant::now();
    let view = bob.recv_until(|v| v["type"] == "room_joined").await?;
    let took = killed.elapsed();
    let cat_view = cat.recv_until(|v| v["type"] == "room_joined").await?;
    let mut ann = connect(&nodes[o1]).await?;
    ann.send(json!({"type": "resume", "token": token})).await;
    let ann_view = ann.recv_until(|v| v["type"] == "room_joined").await?;
    let kept = [&view, &cat_view, &ann_view]
        .iter()
        .all(|v| holds(v, before));
    for ws in [&mut ann, &mut bob, &mut cat] {
        ws.send(json!({"type": "leave"})).await;
    }
    Ok((took, kept))
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[tokio::main]
async fn main() -> ExitCode {
    match run(Args::parse()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("takeover-bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<()> {
    let bin = match &args.server_bin {
        Some(b) => b.clone(),
        None => beside_me("sudoku-race-server")?,
    };
    let redis = start_redis(&args.redis_bin, None).await?;
    let url = format!("redis://{}", redis.addr);
    let mut nodes = Vec::new();
    for i in 0..3 {
        nodes.push(node(&bin, &url, i, args.takeover_s).await?);
    }
    let (mut times, mut kept_all) = (Vec::new(), 0);
    for t in 0..args.tries {
        let owner = t % 3;
        let (took, kept) = one(&mut nodes, owner, args.placements).await?;
        println!("try {t}: owner n{owner}, answered again after {took:?}, placements kept: {kept}");
        times.push(took);
        kept_all += usize::from(kept);
        // The killed node comes back under its id (its lease lapsed already).
        nodes[owner] = node(&bin, &url, owner, args.takeover_s).await?;
    }
    times.sort();
    println!(
        "tries {}: p50 {:?}, p99 {:?}, max {:?}; every placement kept in {kept_all} of {}",
        times.len(),
        pct(&times, 0.5),
        pct(&times, 0.99),
        times.last().copied().unwrap_or_default(),
        args.tries
    );
    drop(redis);
    Ok(())
}
