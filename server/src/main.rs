//! `sudoku-race-server`: flags, tracing, then the server library.

use clap::Parser;

/// The sudoku-race server: rooms that deal one puzzle to racing players and verify every placement.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Address to listen on (WebSocket at /ws, plus /healthz and /metrics).
    #[arg(long, env = "SUDOKU_RACE_LISTEN", default_value = "127.0.0.1:7878")]
    listen: String,
}

fn main() {
    let args = Args::parse();
    eprintln!("listen on {} (server not built yet)", args.listen);
}
