//! `rolling-bench`: a rolling restart of one node of a cluster under a placement load (issue
//! 22's first benchmark). It starts its own `redis-server` and `--nodes` race servers (each with
//! `--drain-s`), opens `--rooms` rooms of `--players` players spread over the nodes, and drives
//! `--rate` placements per second in total for `--duration-s`. At `--restart-at-s` it takes the
//! last node out of the balancer (as its `/healthz` 503 would), sends it SIGTERM, waits for it
//! to drain and exit, and starts it again on the same port.
//!
//! Each room races again and again: its players place the solution's digits in a random order
//! until all have solved (`all_done`), then the host starts a rematch. A player whose
//! connection closes reconnects through the balancer (any node up) and `resume`s with its
//! token; placements it sent that got no answer are looked up on the board `room_joined`
//! brings back: found there, they were applied; missing, they are sent again. A room that
//! closes (`room_closed` `drain`), or whose rematch is refused (`server_draining`), is opened
//! again on a node up, its players with it.
//!
//! Lost placements: a placement answered `accepted` that is missing from its player's final
//! `filled` in `race_over`, plus a placement sent that got no answer and was neither found on
//! a resumed board nor sent again by the end of the run. Races ended early: a room closed while
//! its race ran (no `race_over`).
//!
//!   cargo run --release -p sudoku-race-load --bin rolling-bench -- [--rate 10000] [--db URL]

mod room;
mod stats;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Parser;
use load::run::spawn::{beside_me, start_redis, Spawned};
use tokio::time::Instant;

use room::Timing;
use stats::Stats;

/// A rolling restart of one of the cluster's nodes during a placement load.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Nodes in the cluster; the last one is restarted.
    #[arg(long, default_value_t = 3)]
    nodes: usize,
    /// Rooms racing at once.
    #[arg(long, default_value_t = 60)]
    rooms: usize,
    /// Players per room (room `r`'s player `j` connects to node `(r + j) % nodes`).
    #[arg(long, default_value_t = 4)]
    players: usize,
    /// Target placements per second over every room (a room's share is sent while it races).
    #[arg(long, default_value_t = 10_000.0)]
    rate: f64,
    /// How long placements are sent, in seconds.
    #[arg(long, default_value_t = 20.0)]
    duration_s: f64,
    /// When the last node gets SIGTERM, in seconds from the start of the load.
    #[arg(long, default_value_t = 5.0)]
    restart_at_s: f64,
    /// Every node's `--drain-s`.
    #[arg(long, default_value_t = 60)]
    drain_s: u64,
    /// Every node's `--countdown-ms` (rematches follow each other).
    #[arg(long, default_value_t = 200)]
    countdown_ms: u64,
    /// Every node's `--workers`.
    #[arg(long, default_value_t = 1)]
    workers: u16,
    /// The nodes' `--db` (a `postgres://` URL shared by all); default: SQLite per node.
    #[arg(long)]
    db: Option<String>,
    /// Difficulty of the rooms.
    #[arg(long, default_value = "easy")]
    difficulty: String,
    /// The race server binary [default: sudoku-race-server beside this one].
    #[arg(long)]
    server_bin: Option<PathBuf>,
    /// The `redis-server` binary.
    #[arg(long, default_value = "redis-server")]
    redis_bin: PathBuf,
    /// Append the servers' logs to this file.
    #[arg(long)]
    server_log: Option<PathBuf>,
    /// Seed of the placement orders.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The nodes as a load balancer sees them: where each listens and whether it takes new
/// connections (a draining node's `/healthz` is 503; a stopped one refuses).
pub struct Balancer {
    addrs: Vec<SocketAddr>,
    up: Vec<AtomicBool>,
}

impl Balancer {
    /// The first node up from `pref` on (every node down: `pref`'s).
    pub fn pick(&self, pref: usize) -> (usize, SocketAddr) {
        let n = self.addrs.len();
        (0..n)
            .map(|k| (pref + k) % n)
            .find(|&i| self.up[i].load(Ordering::Relaxed))
            .map_or((pref % n, self.addrs[pref % n]), |i| (i, self.addrs[i]))
    }

    /// Nodes.
    pub fn nodes(&self) -> usize {
        self.addrs.len()
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rolling-bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn node_args(args: &Args, redis: SocketAddr, i: usize) -> Vec<String> {
    let per_player = args.rate / (args.rooms * args.players) as f64;
    let limit = (per_player * 8.0).ceil().max(100.0) as u64;
    let db = args
        .db
        .clone()
        .unwrap_or_else(|| "{dir}/race.db".to_owned());
    let mut v: Vec<String> = ["--listen", "{addr}", "--db", &db, "--drain-s"]
        .into_iter()
        .map(String::from)
        .collect();
    v.push(args.drain_s.to_string());
    v.push(format!("--countdown-ms={}", args.countdown_ms));
    v.push(format!("--rate-limit={limit}"));
    v.push(format!("--rate-burst={}", limit * 2));
    v.push(format!("--max-rooms-per-ip={}", args.rooms * 8));
    v.push(format!("--workers={}", args.workers));
    v.extend(["--cluster".to_owned(), format!("redis://{redis}")]);
    v.extend(["--node-id".to_owned(), format!("n{i}")]);
    v
}

/// What the restart took.
#[derive(Debug, Default)]
struct Restart {
    sigterm_at: Duration,
    drained_in: Duration,
    exited_by_itself: bool,
    back_in: Duration,
}

#[tokio::main]
async fn run() -> Result<()> {
    let args = Args::parse();
    if args.nodes < 2 || args.rooms == 0 || args.players == 0 || args.rate <= 0.0 {
        bail!("--nodes ≥ 2, --rooms, --players and --rate must be positive");
    }
    let bin = match &args.server_bin {
        Some(b) => b.clone(),
        None => beside_me("sudoku-race-server")?,
    };
    let log = args.server_log.as_deref();
    let redis = start_redis(&args.redis_bin, log).await?;
    let mut nodes = Vec::with_capacity(args.nodes);
    for i in 0..args.nodes {
        nodes.push(Spawned::start(&bin, &node_args(&args, redis.addr, i), log).await?);
    }
    let balancer = Arc::new(Balancer {
        addrs: nodes.iter().map(|s| s.addr).collect(),
        up: nodes.iter().map(|_| AtomicBool::new(true)).collect(),
    });
    let duration = Duration::from_secs_f64(args.duration_s);
    let t0 = Instant::now() + Duration::from_secs(2);
    let timing = Timing {
        t0,
        end: t0 + duration,
        settle: Duration::from_secs(5),
        per_room: args.rate / args.rooms as f64,
    };
    let mut tasks = Vec::with_capacity(args.rooms);
    for r in 0..args.rooms {
        let cfg = room::RoomCfg {
            index: r,
            players: args.players,
            difficulty: args.difficulty.clone(),
            seed: args.seed.wrapping_add(r as u64),
        };
        tasks.push(tokio::spawn(room::run(cfg, Arc::clone(&balancer), timing)));
    }
    let last = args.nodes - 1;
    let restart = {
        let at = t0 + Duration::from_secs_f64(args.restart_at_s);
        tokio::time::sleep_until(at).await;
        balancer.up[last].store(false, Ordering::Relaxed);
        let sigterm = Instant::now();
        let limit = Duration::from_secs(args.drain_s + 20);
        let exited_by_itself = nodes[last].stop(limit).await?;
        let drained_in = sigterm.elapsed();
        let addr = nodes[last].addr;
        let fresh = Spawned::start_at(&bin, &node_args(&args, redis.addr, last), log, addr)
            .await
            .context("restart the node on its port")?;
        nodes[last] = fresh;
        balancer.up[last].store(true, Ordering::Relaxed);
        Restart {
            sigterm_at: sigterm - t0,
            drained_in,
            exited_by_itself,
            back_in: sigterm.elapsed(),
        }
    };
    let mut stats = Stats::default();
    for t in tasks {
        stats.merge(&t.await.context("a room's task")?);
    }
    report(&args, &stats, &restart, duration);
    drop(nodes);
    drop(redis);
    Ok(())
}

fn report(args: &Args, s: &Stats, r: &Restart, duration: Duration) {
    let secs = duration.as_secs_f64();
    println!(
        "rolling restart of node n{} of {} ({} rooms × {} players, target {} placements/s, {:.0} s)",
        args.nodes - 1,
        args.nodes,
        args.rooms,
        args.players,
        args.rate,
        secs
    );
    println!(
        "  SIGTERM at {:.1} s; drained and exited in {:.2} s ({}); back up {:.2} s after SIGTERM",
        r.sigterm_at.as_secs_f64(),
        r.drained_in.as_secs_f64(),
        if r.exited_by_itself {
            "by itself"
        } else {
            "killed at the limit"
        },
        r.back_in.as_secs_f64()
    );
    s.print(secs);
}
