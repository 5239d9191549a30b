//! `lag-bench`: lag compensation (A8) measured. A race server runs in this process on a
//! loopback port; each race has two players placing the same solution at the same pace, one
//! straight to the server ("near") and one through a TCP proxy that holds every byte
//! `--delay-ms` each way ("far"). Per race it records the lag the server measured for each,
//! and the two players' raw and compensated times; then it prints every race and the medians:
//! the far player's `lag_ms` against her true round trip (twice the delay plus loopback's,
//! which the near player's lag measures), and how far apart the two compensated times are.
//!
//!   cargo run --release -p sudoku-race-load --bin lag-bench -- [--races 9] [--delay-ms 150]

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Parser;
use serde_json::{json, Value};
use testkit::lag::{race_at_pace, DelayProxy};
use testkit::JsonWs;
use tokio::net::{TcpListener, TcpStream};

/// Measure lag compensation with one of two equal players far from the server.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Races to run (the medians are over them).
    #[arg(long, default_value_t = 9)]
    races: usize,
    /// Delay the far player's proxy adds each way, in milliseconds.
    #[arg(long, default_value_t = 150)]
    delay_ms: u64,
    /// Both players place one digit every this many milliseconds.
    #[arg(long, default_value_t = 120)]
    pace_ms: u64,
}

type Ws = JsonWs<TcpStream>;

/// One race's figures, in milliseconds.
#[derive(Clone, Copy, Debug)]
struct Race {
    far_lag: u64,
    near_lag: u64,
    far_raw: u64,
    near_raw: u64,
    far_time: u64,
    near_time: u64,
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lag-bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}

#[tokio::main]
async fn run() -> Result<()> {
    let args = Args::parse();
    if args.races == 0 {
        bail!("--races must be positive");
    }
    let dir = tempfile::tempdir().context("a temp dir")?;
    let config = server::Config {
        db_path: dir.path().join("lag.db"),
        countdown: Duration::from_millis(200),
        puzzle_prewarm: false,
        puzzle_stock: 2,
        ..server::Config::default()
    };
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let srv = tokio::spawn(server::run(listener, config, async move {
        let _ = stopped.await;
    }));
    let delay = Duration::from_millis(args.delay_ms);
    let proxy = DelayProxy::start(addr, delay).await?;
    let pace = Duration::from_millis(args.pace_ms);
    println!("race  far lag  near lag  far raw  near raw  raw Δ  far time  near time  time Δ");
    let mut races = Vec::new();
    for n in 1..=args.races {
        let r = race(addr, proxy.addr, pace).await?;
        println!(
            "{n:>4}  {:>7}  {:>8}  {:>7}  {:>8}  {:>5}  {:>8}  {:>9}  {:>6}",
            r.far_lag,
            r.near_lag,
            r.far_raw,
            r.near_raw,
            signed(r.far_raw, r.near_raw),
            r.far_time,
            r.near_time,
            signed(r.far_time, r.near_time)
        );
        races.push(r);
    }
    let med = |f: &dyn Fn(&Race) -> i64| median(races.iter().map(f).collect());
    let far_lag = med(&|r| r.far_lag as i64);
    let near_lag = med(&|r| r.near_lag as i64);
    let true_rtt = 2 * args.delay_ms as i64 + near_lag;
    let error = 100.0 * (far_lag - true_rtt) as f64 / true_rtt as f64;
    println!();
    println!(
        "medians over {} races (delay {} ms each way, a digit every {} ms):",
        args.races, args.delay_ms, args.pace_ms
    );
    println!("  far lag_ms {far_lag} vs true round trip {true_rtt} (2 × {} + loopback {near_lag}): {error:+.1} %", args.delay_ms);
    println!(
        "  raw time, far − near:         {:+} ms",
        med(&|r| r.far_raw as i64 - r.near_raw as i64)
    );
    println!(
        "  compensated time, far − near: {:+} ms",
        med(&|r| r.far_time as i64 - r.near_time as i64)
    );
    let _ = stop.send(());
    let _ = srv.await;
    Ok(())
}

fn signed(a: u64, b: u64) -> String {
    format!("{:+}", a as i64 - b as i64)
}

fn median(mut xs: Vec<i64>) -> i64 {
    xs.sort_unstable();
    let m = xs.len() / 2;
    if xs.len() % 2 == 1 {
        xs[m]
    } else {
        (xs[m - 1] + xs[m]) / 2
    }
}

async fn connect(to: std::net::SocketAddr, server: std::net::SocketAddr) -> Result<Ws> {
    let stream = TcpStream::connect(to).await?;
    stream.set_nodelay(true)?;
    let (ws, _) = tokio_tungstenite::client_async(format!("ws://{server}/ws"), stream).await?;
    let mut ws = JsonWs::new(ws, Duration::from_secs(30));
    ws.recv_until(|v| v["type"] == "welcome").await?;
    Ok(ws)
}

/// One race in a room of its own: the far player hosts, the near one joins.
async fn race(
    server: std::net::SocketAddr,
    proxy: std::net::SocketAddr,
    pace: Duration,
) -> Result<Race> {
    let mut far = connect(proxy, server).await?;
    let mut near = connect(server, server).await?;
    far.send(json!({"type": "create_room", "name": "far", "settings": {"difficulty": "easy"}}))
        .await;
    let joined = far.recv_until(|v| v["type"] == "room_joined").await?;
    let room = joined["room"].as_str().context("a room code")?.to_owned();
    near.send(json!({"type": "join_room", "room": room, "name": "near"}))
        .await;
    near.recv_until(|v| v["type"] == "room_joined").await?;
    far.recv_until(|v| v["type"] == "player_joined").await?;
    far.send(json!({"type": "start_race"})).await;
    let (f, n) = tokio::join!(race_at_pace(&mut far, pace), race_at_pace(&mut near, pace));
    let (_, over) = (f?, n?);
    let standings = over["standings"].as_array().context("standings")?;
    let get = |name: &str, key: &str| -> Result<u64> {
        let row: &Value = standings
            .iter()
            .find(|s| s["name"] == name)
            .with_context(|| format!("{name}'s row"))?;
        row[key].as_u64().with_context(|| format!("{name}'s {key}"))
    };
    Ok(Race {
        far_lag: get("far", "lag_ms")?,
        near_lag: get("near", "lag_ms")?,
        far_raw: get("far", "time_ms_raw")?,
        near_raw: get("near", "time_ms_raw")?,
        far_time: get("far", "time_ms")?,
        near_time: get("near", "time_ms")?,
    })
}
