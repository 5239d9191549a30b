//! `ws-echo`: the bare WebSocket echo server that `loadgen` compares the race server with
//! (same runtime, socket and buffer settings). Connections to `/ws?group=K` share frames
//! within group `K`; others get their own frames back.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Parser;
use load::echo::{self, EchoConfig};

/// A bare WebSocket echo server: the ceiling of this stack on this machine.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Address to listen on (loopback only is wise).
    #[arg(long, default_value = "127.0.0.1:7879")]
    listen: String,
    /// tungstenite read buffer per connection, bytes.
    #[arg(long, default_value_t = EchoConfig::default().read_buffer)]
    read_buffer: usize,
    /// Bytes buffered before a write reaches the socket (a flush always writes).
    #[arg(long, default_value_t = EchoConfig::default().write_buffer)]
    write_buffer: usize,
    /// Outgoing queue per connection, messages.
    #[arg(long, default_value_t = EchoConfig::default().queue)]
    queue: usize,
    /// Tokio worker threads (default: one per core, as the race server).
    #[arg(long)]
    workers: Option<usize>,
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ws-echo: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let mut rt = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = args.workers {
        rt.worker_threads(n);
    }
    let rt = rt.enable_all().build().context("start the tokio runtime")?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .with_context(|| format!("bind {}", args.listen))?;
        tracing::info!(addr = %listener.local_addr()?, "ws-echo listening");
        let config = EchoConfig {
            read_buffer: args.read_buffer,
            write_buffer: args.write_buffer,
            queue: args.queue,
            ..EchoConfig::default()
        };
        echo::serve(listener, config, shutdown_signal()).await
    })
}

/// SIGINT or SIGTERM.
async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
