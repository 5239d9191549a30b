//! `failover-bench`: how long a room stops answering when its owner node is killed (A12's fast
//! takeover), and that nothing acknowledged is lost. It starts a `redis-server` of its own and
//! three race-server nodes on loopback (the release binary beside itself, or `--server-bin`;
//! SQLite each; the lease and poll are the defaults), measures Redis's commands per node over
//! an idle window, then `--tries` times: a room on node `t % 3` created by a racer there, a
//! racer on each other node joins, the race starts and each places its right digits one every
//! 50–100 ms; at a random moment `kill -9` of the owner. The racers on live nodes go on,
//! sending again after `retry_ms` what is answered `room_moving`; the dead node's racer
//! reconnects to a live node and `resume`s with its token. Per try: the kill to each live
//! racer's first accepted placement (a), the kill to the resumed racer's `room_joined` (b),
//! every placement acknowledged before the views after the takeover on those boards, every
//! acknowledged placement `accepted` in the stored race (`GET /api/races/ID` on the node that
//! stored it), and the new owner's "room taken over" log line (its time and `gap_ms`). The
//! killed node is started again under its id after each try.
//!
//! Tables (markdown) on stdout; each try's line on stderr; the nodes' JSON logs in `--log-dir`.
//!
//!   cargo build --release -p sudoku-race-server -p sudoku-race-load
//!   target/release/failover-bench [--tries 20]

mod attempt;
mod nodes;
mod player;
mod probe;
mod report;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use clap::Parser;
use load::run::spawn::beside_me;

use attempt::Plan;
use nodes::Nodes;
use report::{Summary, Times};

/// Measure a room's failover when its owner node is killed mid-race.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Kills (each try's room on node `t % 3`).
    #[arg(long, default_value_t = 20)]
    tries: usize,
    /// The rooms' difficulty (an easy race of three lasts about 5 s at this pace).
    #[arg(long, default_value = "easy")]
    difficulty: String,
    /// The kill comes between this many ms after `race_started` ...
    #[arg(long, default_value_t = 500)]
    kill_from_ms: u64,
    /// ... and this many (uniformly).
    #[arg(long, default_value_t = 2000)]
    kill_to_ms: u64,
    /// Seed of the kill moments and the paces.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seconds of the idle window in which Redis's commands are counted.
    #[arg(long, default_value_t = 10)]
    idle_s: u64,
    /// Each node's `--workers` (three nodes share the machine's cores).
    #[arg(long, default_value_t = 1)]
    workers: u16,
    /// The race server binary [default: sudoku-race-server beside this one].
    #[arg(long)]
    server_bin: Option<PathBuf>,
    /// The `redis-server` binary.
    #[arg(long, default_value = "redis-server")]
    redis_bin: PathBuf,
    /// Where the nodes' logs go [default: a new folder under the temporary directory, kept].
    #[arg(long)]
    log_dir: Option<PathBuf>,
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("failover-bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the tries; answers whether every try ran and lost nothing.
#[tokio::main]
async fn run(args: Args) -> Result<bool> {
    let bin = match &args.server_bin {
        Some(b) => b.clone(),
        None => beside_me("sudoku-race-server")?,
    };
    let log_dir = args.log_dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("failover-bench.{}", std::process::id()))
    });
    eprintln!(
        "failover-bench: {} tries; node logs in {}",
        args.tries,
        log_dir.display()
    );
    let mut nodes = Nodes::start(&bin, &args.redis_bin, 3, args.workers, &log_dir).await?;
    // Every node has joined and renewed its keys many times before the window opens.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let idle_window = Duration::from_secs(args.idle_s);
    let idle = nodes.idle_traffic(idle_window).await?;
    eprintln!("redis commands per node per s, idle: {idle:?}");
    let plan = Plan {
        difficulty: args.difficulty.clone(),
        kill_after: (
            Duration::from_millis(args.kill_from_ms),
            Duration::from_millis(args.kill_to_ms.max(args.kill_from_ms)),
        ),
        seed: args.seed,
    };
    let (mut outcomes, mut failed) = (Vec::new(), Vec::new());
    for t in 0..args.tries {
        let owner = t % 3;
        match attempt::attempt(&mut nodes, owner, t, &plan).await {
            Ok(o) => {
                let x = Times::of(&o);
                eprintln!("{}", report::line(t, &o, &x));
                outcomes.push((o, x));
            }
            Err(e) => {
                eprintln!("try {t} failed: {e:#}");
                failed.push((t, format!("{e:#}")));
            }
        }
        nodes.restart(owner).await?;
    }
    let summary = Summary {
        outcomes: &outcomes,
        failed: &failed,
        idle: &idle,
        idle_window,
    };
    summary.print();
    let lost = outcomes
        .iter()
        .any(|(o, _)| o.stored.1 > 0 || o.rides.iter().any(|r| r.missing_at_view > 0));
    Ok(failed.is_empty() && !lost)
}
