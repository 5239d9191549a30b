//! `loadgen`: load for the race server and, for comparison, the bare echo server. Prints a
//! table, then one JSON line (the last line of its output).
//!
//! Modes: the race load (default; then the same load against `ws-echo` unless `--no-echo`),
//! `--idle N` (memory per idle connection), `--churn N` (connect/join/leave cycles), `--deal N`
//! (how long race starts wait for a puzzle, per difficulty), `--pool N` (quick_race to
//! room_joined, A7).
//! Without `--server` it starts `sudoku-race-server` from beside itself on a free loopback
//! port; without `--echo`, `ws-echo` likewise. All traffic is to loopback, bounded in time.
//!
//! A cluster: `--servers A,B,C` spreads every room's players over the nodes given;
//! `--cluster N` runs the race load on one server as usual, then starts its own
//! `redis-server` and N nodes and runs the same load spread over them (`cluster_ratio`: the
//! nodes' CPU per message ÷ the one server's). The pool mode does the same: its players spread
//! over the nodes (player `i` on node `i % N`), one pool across them all.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Parser;
use load::run::launch::Procs;
use load::run::race::RaceOpts;
use load::run::spawn::{beside_me, Cluster, Spawned};
use load::run::{boards, churn, deal, echo_load, idle, idle_spread, pool, race, report, RunReport};

/// Load generator for the sudoku-race server, with an echo-server baseline.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Race server to load (host:port on loopback). Without it, loadgen starts one.
    #[arg(long)]
    server: Option<SocketAddr>,
    /// Nodes of a cluster to load (comma-separated host:port on loopback): player `j` of room
    /// `r` connects to node `(r + j) % n`, so room `r` is created on node `r % n`.
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["server", "cluster"])]
    servers: Vec<SocketAddr>,
    /// The race server's pid, for its CPU time and memory when loadgen did not start it; with
    /// `--servers`, every node's (comma-separated; their CPU is added up).
    #[arg(long, value_delimiter = ',')]
    server_pid: Vec<u32>,
    /// With `--servers`: the cluster's `redis-server` pid, for its CPU time.
    #[arg(long)]
    redis_pid: Option<u32>,
    /// After the race (or pool) load on one server, start a `redis-server` on a free loopback
    /// port and N nodes on it (the same server flags, plus `--cluster` and `--node-id`), and
    /// run the same load spread over them.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=16))]
    cluster: Option<u16>,
    /// With `--cluster`: each node's runtime worker threads (its `--workers`). Default: this
    /// machine's cores split between the nodes, at least one each, as docs/deploy.md advises
    /// for nodes that share a host; 0 leaves each node its own default (one per core).
    #[arg(long, value_name = "K")]
    node_workers: Option<u16>,
    /// The `redis-server` binary for `--cluster`.
    #[arg(long, default_value = "redis-server")]
    redis_bin: PathBuf,
    /// The race server binary to start (default: `sudoku-race-server` beside loadgen).
    #[arg(long)]
    server_bin: Option<PathBuf>,
    /// An extra argument for a server loadgen starts (repeat it; e.g.
    /// `--server-arg=--max-connections=20000`). Unless given here, loadgen sets `--rate-limit`
    /// to twice each bot's share of `--rate` (at least 20) and `--rate-burst` to twice that.
    #[arg(long, allow_hyphen_values = true)]
    server_arg: Vec<String>,
    /// Append the standard error of the servers loadgen starts to this file.
    #[arg(long)]
    server_log: Option<PathBuf>,
    /// Echo server to compare with. Without it, loadgen starts `ws-echo` from beside itself.
    #[arg(long)]
    echo: Option<SocketAddr>,
    /// The echo server's pid, when loadgen did not start it.
    #[arg(long)]
    echo_pid: Option<u32>,
    /// Skip the echo comparison.
    #[arg(long)]
    no_echo: bool,
    /// Also run the race load over TLS (wss): a second server started with a certificate made
    /// for the run; reports its CPU per message against the plain run's (`tls_ratio`).
    #[arg(long, conflicts_with_all = ["server", "servers", "echo_only"])]
    tls: bool,
    /// Run only the echo load (no race server).
    #[arg(long, conflicts_with = "no_echo")]
    echo_only: bool,
    /// Rooms racing at once (and echo groups).
    #[arg(long, default_value_t = 25)]
    rooms: usize,
    /// Players per room.
    #[arg(long, default_value_t = 8)]
    players: usize,
    /// Target placements per second over all players (open loop).
    #[arg(long, default_value_t = 10_000.0)]
    rate: f64,
    /// Seconds of sending, per server.
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    /// Seconds to wait after the last send for answers still on their way.
    #[arg(long, default_value_t = 3.0)]
    drain: f64,
    /// Difficulty of the rooms.
    #[arg(long, default_value = "medium")]
    difficulty: String,
    /// Seed of the bots' placement orders.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Spectators (all from this machine) that try to watch the first room and chat while the
    /// race runs; the report sets that room's placement p99 against the other rooms'.
    #[arg(long, default_value_t = 0)]
    spectators: usize,
    /// Milliseconds between one spectator's chat lines.
    #[arg(long, default_value_t = 100)]
    chat_every_ms: u64,
    /// Boards mode (A8): the spectators ask for the delayed boards and stay silent; the race
    /// load runs `--rounds` times each without and with boards on the same server, and the
    /// report gives the server's median CPU per placement of each. Start the server with a
    /// short `--spectator-delay-s` (e.g. `--server-arg=--spectator-delay-s=1`), or no board
    /// changes within the run.
    #[arg(long, requires = "spectators")]
    boards: bool,
    /// Boards mode: rounds of each kind.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Idle mode: open N connections and report the server's memory per connection.
    #[arg(long, value_name = "N")]
    idle: Option<usize>,
    /// Seconds the idle connections are held before the memory is read.
    #[arg(long, default_value_t = 3.0)]
    idle_hold: f64,
    /// Idle mode, as one of several processes loading a cluster: print `idle-held N` once the
    /// memory is read, and keep the connections open until standard input closes.
    #[arg(long, hide = true, requires = "idle")]
    idle_gate: bool,
    /// Churn mode: N connect/join/leave/close cycles; server memory and fds before and after.
    #[arg(long, value_name = "N")]
    churn: Option<u64>,
    /// Deal mode: N race starts per difficulty; how long each waits for its puzzle.
    #[arg(long, value_name = "N")]
    deal: Option<usize>,
    /// Pool mode (A7): N players enter the easy pool, `--pool-rate` per second; the time from
    /// `quick_race` to `room_joined`.
    #[arg(long, value_name = "N")]
    pool: Option<usize>,
    /// Pool mode: players entering the pool per second.
    #[arg(long, default_value_t = 200.0)]
    pool_rate: f64,
    /// Work at once: idle connection handshakes [64], churn cycles [8, at most 15], deal race
    /// starts [4].
    #[arg(long)]
    concurrency: Option<usize>,
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("loadgen: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn secs(s: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(s).with_context(|| format!("{s} is not a duration in seconds"))
}

fn run() -> Result<ExitCode> {
    let args = Args::parse();
    if args.rooms == 0 || args.players == 0 || !args.rate.is_finite() || args.rate <= 0.0 {
        bail!("--rooms, --players and --rate must be positive");
    }
    // Thousands of connections need as many descriptors.
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("start the tokio runtime")?;
    rt.block_on(run_async(args))
}

/// The race server binary to start.
fn server_bin(args: &Args) -> Result<PathBuf> {
    match &args.server_bin {
        Some(b) => Ok(b.clone()),
        None => beside_me("sudoku-race-server"),
    }
}

/// The arguments of a server started here: loadgen's defaults, `--server-arg`s, then `extra`.
fn server_args(args: &Args, extra: &[String]) -> Vec<String> {
    let mut server_args: Vec<String> = ["--listen", "{addr}", "--db", "{dir}/race.db"]
        .map(String::from)
        .to_vec();
    // A bot sends its share of `--rate`; the contract's 20 messages/s would refuse most of it.
    // Unless told otherwise, the server allows each connection twice its share.
    let given = |flag: &str| args.server_arg.iter().any(|a| a.starts_with(flag));
    let per_player = args.rate / (args.rooms * args.players) as f64;
    let limit = (per_player * 2.0).ceil().max(20.0) as u64;
    if !given("--rate-limit") {
        server_args.push(format!("--rate-limit={limit}"));
    }
    if !given("--rate-burst") {
        server_args.push(format!("--rate-burst={}", limit * 2));
    }
    // Every room is created from 127.0.0.1.
    if !given("--max-rooms-per-ip") {
        let rooms = args
            .rooms
            .max(args.deal.unwrap_or(0) * 4)
            .max(args.pool.unwrap_or(0))
            + 16;
        server_args.push(format!("--max-rooms-per-ip={rooms}"));
    }
    server_args.extend(args.server_arg.iter().cloned());
    server_args.extend(extra.iter().cloned());
    server_args
}

/// The race server to load: the one given (the first of `--servers`), or one started here
/// (with `extra` arguments).
async fn race_server(
    args: &Args,
    extra: &[String],
) -> Result<(SocketAddr, Option<u32>, Option<Spawned>)> {
    if let Some(addr) = args.server.or(args.servers.first().copied()) {
        return Ok((addr, args.server_pid.first().copied(), None));
    }
    let bin = server_bin(args)?;
    let server_args = server_args(args, extra);
    let s = Spawned::start(&bin, &server_args, args.server_log.as_deref()).await?;
    eprintln!(
        "started {} (pid {}) on {} with {:?}",
        bin.display(),
        s.pid(),
        s.addr,
        server_args
    );
    Ok((s.addr, Some(s.pid()), Some(s)))
}

/// The race load's options, from the flags.
fn race_opts(args: &Args) -> Result<RaceOpts> {
    Ok(RaceOpts {
        rooms: args.rooms,
        players: args.players,
        rate: args.rate,
        duration: secs(args.duration)?,
        difficulty: args.difficulty.clone(),
        drain: secs(args.drain)?,
        seed: args.seed,
        spectators: args.spectators,
        chat_every: Duration::from_millis(args.chat_every_ms.max(1)),
        ..RaceOpts::default()
    })
}

async fn run_async(args: Args) -> Result<ExitCode> {
    let opts = race_opts(&args)?;
    if args.echo_only {
        let e = echo_run(&args, &opts).await?;
        println!("{}", report::table("echo", &opts, &e));
        let json = report::race_json(&opts, &e, Some(&e));
        let bad = json["errors"].as_u64() != Some(0) || json["lost"].as_u64() != Some(0);
        return finish(json, bad);
    }
    if let Some(n) = args
        .idle
        .filter(|_| args.cluster.is_some() || args.servers.len() > 1)
    {
        return idle_spread_run(&args, n).await;
    }
    let (addr, pid, spawned) = race_server(&args, &[]).await?;
    let (json, failed) = if let Some(n) = args.idle {
        let gate = |open: usize| async move {
            if args.idle_gate {
                println!("{} {open}", idle_spread::HELD);
                // Standard input closed (or a line): the parent lets go of every node at once.
                let mut line = String::new();
                let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
                let _ = tokio::io::AsyncBufReadExt::read_line(&mut stdin, &mut line).await;
            }
        };
        let r = idle::run_gated(
            addr,
            pid,
            n,
            args.concurrency.unwrap_or(64),
            secs(args.idle_hold)?,
            gate,
        )
        .await?;
        println!("{}", report::idle_table(&r));
        (report::idle_json(&r), r.failed > 0)
    } else if let Some(n) = args.deal {
        let r = deal::run(addr, n, args.concurrency.unwrap_or(4)).await?;
        println!("{}", report::deal_table(&r));
        let json = report::deal_json(&r);
        let failed = json["errors"].as_u64() != Some(0);
        (json, failed)
    } else if let Some(n) = args.pool {
        return pool_and_compare(&args, addr, spawned, n).await;
    } else if args.boards {
        let r = boards::compare(addr, pid, &opts, args.rounds.max(1)).await?;
        println!("{}", r.table(&opts));
        (r.json(&opts), false)
    } else if let Some(n) = args.churn {
        let r = churn::run(addr, pid, n, args.concurrency.unwrap_or(8)).await?;
        println!("{}", report::churn_table(&r));
        (report::churn_json(&r), r.errors > 0)
    } else {
        return race_and_compare(&args, &opts, addr, pid, spawned).await;
    };
    drop(spawned);
    finish(json, failed)
}

/// The race load on the server at `addr` (or spread over `--server`s), then, as asked, the same
/// load on a cluster, over TLS and on the bare echo, each compared with the first.
async fn race_and_compare(
    args: &Args,
    opts: &RaceOpts,
    addr: SocketAddr,
    pid: Option<u32>,
    spawned: Option<Spawned>,
) -> Result<ExitCode> {
    let race = if args.servers.is_empty() {
        race::run(addr, pid, opts).await?
    } else {
        let procs = Procs {
            servers: args.server_pid.clone(),
            redis: args.redis_pid,
        };
        race::run_spread(&args.servers, &procs, opts).await?
    };
    let what = match args.servers.len() {
        0 | 1 => "race server".to_owned(),
        n => format!("race cluster of {n} nodes"),
    };
    println!("{}", report::table(&what, opts, &race));
    drop(spawned);
    let cluster = match args.cluster {
        Some(n) => Some(cluster_run(args, opts, usize::from(n)).await?),
        None => None,
    };
    let tls = if args.tls {
        Some(tls_run(args, opts).await?)
    } else {
        None
    };
    let echo = if args.no_echo {
        None
    } else {
        let e = echo_run(args, opts).await?;
        println!("{}", report::table("echo", opts, &e));
        Some(e)
    };
    let mut json = report::race_json(opts, &race, echo.as_ref());
    if let Some(t) = &tls {
        report::add_tls(&mut json, &race, t);
    }
    if let Some(c) = &cluster {
        report::add_cluster(&mut json, &race, c);
        let n = usize::from(args.cluster.unwrap_or(1));
        json["cluster_node_workers"] = serde_json::json!(node_workers(args.node_workers, n));
    }
    let bad = json["errors"].as_u64() != Some(0) || json["lost"].as_u64() != Some(0);
    finish(json, bad)
}

/// The pool load on the server at `addr` (or spread over `--servers`), then, with `--cluster`,
/// the same load spread over a cluster started here (one pool across its nodes).
async fn pool_and_compare(
    args: &Args,
    addr: SocketAddr,
    spawned: Option<Spawned>,
    players: usize,
) -> Result<ExitCode> {
    let addrs = match args.servers.len() {
        0 => vec![addr],
        _ => args.servers.clone(),
    };
    let what = match addrs.len() {
        1 => "one server".to_owned(),
        n => format!("a cluster of {n} nodes"),
    };
    let r = pool::run(&addrs, players, args.pool_rate).await?;
    println!("{}", report::pool_table(&what, &r));
    drop(spawned);
    let mut json = report::pool_json(&r);
    let mut failed = r.errors > 0;
    if let Some(n) = args.cluster {
        let n = usize::from(n);
        let cluster = start_cluster(args, n).await?;
        let c = pool::run(&cluster.addrs(), players, args.pool_rate).await?;
        drop(cluster);
        println!(
            "{}",
            report::pool_table(&format!("a cluster of {n} nodes"), &c)
        );
        failed |= c.errors > 0;
        json["cluster"] = report::pool_json(&c);
        json["cluster_nodes"] = serde_json::json!(n);
        json["cluster_node_workers"] = serde_json::json!(node_workers(args.node_workers, n));
    }
    finish(json, failed)
}

/// The race load again, spread over a cluster of `n` nodes started here on a Redis of its own.
async fn cluster_run(args: &Args, opts: &RaceOpts, n: usize) -> Result<RunReport> {
    let cluster = start_cluster(args, n).await?;
    let r = race::run_spread(&cluster.addrs(), &cluster.procs(), opts).await?;
    println!(
        "{}",
        report::table(&format!("cluster of {n} nodes"), opts, &r)
    );
    drop(cluster);
    Ok(r)
}

/// Idle mode on several nodes: `--servers` (with their `--server-pid`s), or a cluster of
/// `--cluster` nodes started here; one child loadgen per node holds its `n` connections.
async fn idle_spread_run(args: &Args, n: usize) -> Result<ExitCode> {
    let cluster = match args.cluster {
        Some(k) => Some(start_cluster(args, usize::from(k)).await?),
        None => None,
    };
    let nodes: Vec<(SocketAddr, u32)> = match &cluster {
        Some(c) => c.addrs().into_iter().zip(c.procs().servers).collect(),
        None if args.server_pid.len() == args.servers.len() => args
            .servers
            .iter()
            .copied()
            .zip(args.server_pid.iter().copied())
            .collect(),
        None => bail!("idle mode over --servers needs a --server-pid for each"),
    };
    let mut child_args = vec![format!("--idle-hold={}", args.idle_hold)];
    if let Some(c) = args.concurrency {
        child_args.push(format!("--concurrency={c}"));
    }
    let r = idle_spread::run(&std::env::current_exe()?, &nodes, n, &child_args).await?;
    drop(cluster);
    println!("{}", idle_spread::table(&r));
    let failed = r.iter().any(|node| node.open < node.wanted);
    finish(idle_spread::json(&r), failed)
}

/// A `redis-server` of its own and `n` nodes on it, with loadgen's server flags.
async fn start_cluster(args: &Args, n: usize) -> Result<Cluster> {
    let bin = server_bin(args)?;
    let workers = node_workers(args.node_workers, n);
    let extra: Vec<String> = workers
        .map(|k| format!("--workers={k}"))
        .into_iter()
        .collect();
    let node_args = server_args(args, &extra);
    let log = args.server_log.as_deref();
    let cluster = Cluster::start(&bin, &args.redis_bin, n, &node_args, log).await?;
    eprintln!(
        "started {} (pid {}) on {} and {n} nodes {:?} (pids {:?}), {} worker threads each",
        args.redis_bin.display(),
        cluster.redis.pid(),
        cluster.redis.addr,
        cluster.addrs(),
        cluster.procs().servers,
        workers.map_or("the default".to_owned(), |k| k.to_string()),
    );
    Ok(cluster)
}

/// Each node's `--workers`: as asked (0: none given), or the cores split between `n` nodes.
fn node_workers(asked: Option<u16>, n: usize) -> Option<usize> {
    match asked {
        Some(0) => None,
        Some(k) => Some(usize::from(k)),
        None => {
            let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
            Some((cores / n.max(1)).max(1))
        }
    }
}

/// The race load again, over TLS: a server started with a certificate made for this run.
async fn tls_run(args: &Args, opts: &RaceOpts) -> Result<RunReport> {
    let dir = tempfile::tempdir().context("temp dir for the certificate")?;
    let cert = load::tls::self_signed(dir.path())?;
    let extra = [
        "--tls-cert".to_owned(),
        cert.cert.display().to_string(),
        "--tls-key".to_owned(),
        cert.key.display().to_string(),
    ];
    let (addr, pid, spawned) = race_server(args, &extra).await?;
    let opts = RaceOpts {
        tls: Some(cert.client),
        ..opts.clone()
    };
    let r = race::run(addr, pid, &opts).await?;
    println!("{}", report::table("race server over TLS", &opts, &r));
    drop(spawned);
    Ok(r)
}

/// The echo load against the echo server given, or one started here.
async fn echo_run(args: &Args, opts: &RaceOpts) -> Result<RunReport> {
    match args.echo {
        Some(a) => echo_load::run(a, args.echo_pid, opts).await,
        None => {
            let s = Spawned::start(
                &beside_me("ws-echo")?,
                &["--listen".to_owned(), "{addr}".to_owned()],
                args.server_log.as_deref(),
            )
            .await?;
            echo_load::run(s.addr, Some(s.pid()), opts).await
        }
    }
}

fn finish(json: serde_json::Value, failed: bool) -> Result<ExitCode> {
    println!("{json}");
    Ok(if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
