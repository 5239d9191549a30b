//! Test support: the server's end-to-end support (the server in process and registered
//! players in rated races, one copy, included by path from `server/tests/e2e/support/`), and
//! what only the cross-crate suite needs: a terminal-client bot.

use std::time::Duration;

use tokio::task::JoinHandle;

#[path = "../../../server/tests/e2e/support/in_process.rs"]
#[allow(dead_code)] // the server's own suites use the rest
mod in_process;
#[path = "../../../server/tests/e2e/support/rated.rs"]
#[allow(dead_code)]
pub mod rated;

pub use in_process::*;

/// A fast bot (`bot{n}`, 10 ms a move, seeded by `n`) that joins `room` for one race and
/// makes a mistake at `mistake_rate`.
pub fn spawn_bot(
    url: &client::net::ServerUrl,
    room: &str,
    n: u64,
    mistake_rate: f64,
) -> JoinHandle<Result<client::bot::BotReport, client::bot::BotError>> {
    let config = client::bot::BotConfig {
        name: format!("bot{n}"),
        style: client::bot::Style::flat(Duration::from_millis(10), mistake_rate),
        seed: n,
        races: Some(1),
    };
    let (url, room) = (url.clone(), room.to_owned());
    tokio::spawn(async move {
        let role = client::bot::BotRole::Join { room };
        client::bot::run(&url, config, role, std::future::pending()).await
    })
}
