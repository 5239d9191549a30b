//! The network subcommands of the binary: `join`, `spectate`, `rooms` and `bot`, the flags they
//! share with `host` (`--name`, `--server`, the room settings) and the full-screen client they
//! all open ([`tui`]). Flags are parsed here; the work is done by the `client` library. (`host`
//! and `play` have their own modules.)

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;
use client::app::App;
use client::bot::{self, BotConfig, BotRole};
use client::net::{self, Endpoint, Intent, NetEvent, ServerUrl, Trust};
use client::term::{self, TermError, TermGuard};
use client::DEFAULT_SERVER;
use protocol::{ClientMsg, ServerMsg, SettingsRequest};
use shared::engine::Difficulty;

/// Exit code when the command needs a terminal and has none.
pub const EXIT_NOT_A_TERMINAL: u8 = 2;

/// `--name`, shared by the commands that enter a room.
#[derive(Args, Debug, Clone)]
pub struct NameArg {
    /// Your display name (1 to 24 characters; default: your login name).
    #[arg(long)]
    pub name: Option<String>,
}

impl NameArg {
    /// The name given, else the login name.
    pub fn get(&self) -> String {
        self.name.clone().unwrap_or_else(client::default_name)
    }
}

/// `--server` and `--ca-file`.
#[derive(Args, Debug, Clone)]
pub struct ServerArg {
    /// The server's WebSocket URL: ws://HOST:7878/ws, or wss://HOST/ws for TLS (no path means /ws).
    #[arg(long, env = "SUDOKU_RACE_SERVER", default_value = DEFAULT_SERVER)]
    pub server: String,
    /// Also trust the certificate(s) in this PEM file for wss:// (a self-signed server).
    #[arg(long, env = "SUDOKU_RACE_CA_FILE", value_name = "PEM")]
    pub ca_file: Option<PathBuf>,
}

impl ServerArg {
    /// The URL and trust given. Parsed when the command starts rather than by the flag parser,
    /// so a bad URL ends the command with our message (what to type instead) and exit code 1,
    /// not clap's usage error.
    pub fn endpoint(&self) -> anyhow::Result<Endpoint> {
        let url: ServerUrl = self.server.parse()?;
        let trust = Trust::from_flag(self.ca_file.as_deref())?;
        Ok(Endpoint::new(url, trust))
    }
}

/// `sudoku-race join`.
#[derive(Args, Debug)]
pub struct JoinArgs {
    /// The room code (4 to 8 characters; case does not matter).
    pub code: String,
    #[command(flatten)]
    server: ServerArg,
    #[command(flatten)]
    name: NameArg,
}

/// `sudoku-race spectate`.
#[derive(Args, Debug)]
pub struct SpectateArgs {
    /// The room code.
    pub code: String,
    #[command(flatten)]
    server: ServerArg,
    #[command(flatten)]
    name: NameArg,
}

/// `sudoku-race rooms`.
#[derive(Args, Debug)]
pub struct RoomsArgs {
    #[command(flatten)]
    server: ServerArg,
}

/// The room settings a host can choose (server defaults where absent).
#[derive(Args, Debug, Clone, Default)]
pub struct RoomSettings {
    /// easy, medium, hard or expert, any case [default: medium].
    #[arg(long, value_parser = crate::difficulty_arg)]
    pub difficulty: Option<Difficulty>,
    /// Most players, 1 to 16 [default: 8].
    #[arg(long)]
    pub max_players: Option<i64>,
    /// Race time limit in seconds, 60 to 7200 [default: 1800].
    #[arg(long)]
    pub time_limit: Option<i64>,
    /// Mistakes that knock a player out, 0 to 10, 0 = unlimited [default: 3].
    #[arg(long)]
    pub max_mistakes: Option<i64>,
    /// Seconds added per mistake, 0 to 120 [default: 10].
    #[arg(long)]
    pub penalty: Option<i64>,
    /// Keep the room out of `sudoku-race rooms`.
    #[arg(long)]
    pub private: bool,
}

impl RoomSettings {
    /// The settings as the wire sends them, checked here first for a clear error.
    pub fn request(&self) -> anyhow::Result<SettingsRequest> {
        let req = SettingsRequest {
            difficulty: self.difficulty.map(|d| d.as_str().to_owned()),
            max_players: self.max_players,
            time_limit_s: self.time_limit,
            max_mistakes: self.max_mistakes,
            penalty_s: self.penalty,
            public: self.private.then_some(false),
        };
        req.resolve().context("invalid room settings")?;
        Ok(req)
    }
}

/// `sudoku-race bot`.
#[derive(Args, Debug)]
pub struct BotArgs {
    /// The room code to join.
    pub code: String,
    #[command(flatten)]
    server: ServerArg,
    /// The bot's display name [default: bot-NNNN].
    #[arg(long)]
    pub name: Option<String>,
    /// Mean milliseconds between placements (each pause is 50 % to 150 % of it).
    #[arg(long, default_value_t = 800)]
    pub pace_ms: u64,
    /// Probability that a placement is a deliberate mistake (0 to 1).
    #[arg(long, default_value_t = 0.0)]
    pub mistake_rate: f64,
    /// Races to play before leaving [default: every race until the room closes].
    #[arg(long)]
    pub races: Option<u32>,
    /// RNG seed [default: random].
    #[arg(long)]
    pub seed: Option<u64>,
}

/// `sudoku-race bot CODE`: no screen; logs to stderr, prints a summary.
pub fn bot(rt: &tokio::runtime::Runtime, a: BotArgs) -> anyhow::Result<ExitCode> {
    term::log_to_stderr();
    if !(0.0..=1.0).contains(&a.mistake_rate) {
        bail!(
            "--mistake-rate must be between 0 and 1, not {}",
            a.mistake_rate
        );
    }
    let seed = a.seed.unwrap_or_else(rand::random);
    let config = BotConfig {
        name: a
            .name
            .unwrap_or_else(|| format!("bot-{:04}", seed % 10_000)),
        pace: Duration::from_millis(a.pace_ms),
        mistake_rate: a.mistake_rate,
        seed,
        races: a.races,
    };
    let name = config.name.clone();
    let role = BotRole::Join {
        room: a.code.trim().to_uppercase(),
    };
    let to = a.server.endpoint()?;
    let report = rt
        .block_on(bot::run(to, config, role, async {
            let _ = tokio::signal::ctrl_c().await;
        }))
        .with_context(|| format!("bot {name}"))?;
    for r in &report.races {
        let status = r
            .status
            .map_or("-".to_owned(), |s| format!("{s:?}").to_lowercase());
        let time = r.time_ms.map_or_else(|| "-".to_owned(), client::app::clock);
        println!("race {}: {status} {time}", r.race_id);
    }
    println!(
        "{name}: {} races, {} placements, {} mistakes, {} rate-limited",
        report.races.len(),
        report.placements,
        report.mistakes,
        report.rate_limited
    );
    Ok(ExitCode::SUCCESS)
}

/// Run the full-screen online client until the user quits.
pub fn tui(
    rt: &tokio::runtime::Runtime,
    to: Endpoint,
    intent: Intent,
    name: String,
    join_command: Option<String>,
) -> anyhow::Result<ExitCode> {
    let mut guard = match TermGuard::enter() {
        Ok(g) => g,
        Err(TermError::NotATerminal) => {
            eprintln!("sudoku-race: {}", TermError::NotATerminal);
            return Ok(ExitCode::from(EXIT_NOT_A_TERMINAL));
        }
        Err(e) => return Err(e.into()),
    };
    let log = term::log_to_file();
    tracing::info!(url = %to.url, ?intent, "starting the online client");
    let mut app = App::new(name).with_intent(&intent);
    if let Some(cmd) = join_command {
        app = app.with_join_command(cmd);
    }
    let result = rt.block_on(async {
        let (session, events) = net::connect(to, intent);
        let (_reader, keys) = client::run::spawn_key_reader();
        let r = client::run::run(
            &mut guard.terminal,
            &mut app,
            keys,
            Some(events),
            Some(&session),
        )
        .await;
        // Let the `leave` reach the server before the runtime goes away.
        drop(session);
        tokio::time::sleep(Duration::from_millis(100)).await;
        r
    });
    drop(guard);
    result.context("terminal error")?;
    if let client::app::Conn::Closed(Some(e)) = &app.conn {
        eprintln!("sudoku-race: {e}");
        if let Some(p) = log {
            eprintln!("(log: {})", p.display());
        }
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// `sudoku-race join CODE`.
pub fn join(rt: &tokio::runtime::Runtime, a: JoinArgs) -> anyhow::Result<ExitCode> {
    let code = a.code.trim().to_uppercase();
    let name = a.name.get();
    let to = a.server.endpoint()?;
    let join = join_command(&code, &to.url, a.server.ca_file.is_some());
    tui(
        rt,
        to,
        Intent::Join {
            room: code,
            name: name.clone(),
        },
        name,
        Some(join),
    )
}

/// `sudoku-race spectate CODE`.
pub fn spectate(rt: &tokio::runtime::Runtime, a: SpectateArgs) -> anyhow::Result<ExitCode> {
    let code = a.code.trim().to_uppercase();
    let name = a.name.get();
    tui(
        rt,
        a.server.endpoint()?,
        Intent::Spectate {
            room: code,
            name: name.clone(),
        },
        name,
        None,
    )
}

/// The command a friend types to join `code` on `server` (with `--ca-file` when we needed one:
/// the friend needs the same certificate).
pub fn join_command(code: &str, server: &ServerUrl, ca_file: bool) -> String {
    let mut cmd = if server.as_str() == DEFAULT_SERVER {
        format!("sudoku-race join {code}")
    } else {
        format!("sudoku-race join {code} --server {server}")
    };
    if ca_file {
        cmd.push_str(" --ca-file PEM");
    }
    cmd
}

/// `sudoku-race rooms`: print the public rooms as a table.
pub fn rooms(rt: &tokio::runtime::Runtime, a: RoomsArgs) -> anyhow::Result<ExitCode> {
    term::log_to_stderr();
    let to = a.server.endpoint()?;
    let url = to.url.clone();
    let rooms = rt.block_on(async {
        let (session, mut events) = net::connect(to, Intent::Nothing);
        session.send(ClientMsg::ListRooms);
        let wait = async {
            while let Some(ev) = events.recv().await {
                match ev {
                    NetEvent::Message(m) => match *m {
                        ServerMsg::RoomList { rooms } => return Ok(rooms),
                        ServerMsg::Error { code, message } => {
                            bail!("{}: {message}", code.as_str())
                        }
                        _ => {}
                    },
                    NetEvent::Closed { error } => {
                        bail!("{}", error.unwrap_or_else(|| "connection closed".into()))
                    }
                    _ => {}
                }
            }
            bail!("connection closed")
        };
        tokio::time::timeout(Duration::from_secs(10), wait)
            .await
            .with_context(|| format!("no answer from {url} in 10 s"))?
    })?;
    print!("{}", rooms_table(&rooms));
    Ok(ExitCode::SUCCESS)
}

/// The `rooms` table.
pub fn rooms_table(rooms: &[protocol::RoomSummary]) -> String {
    if rooms.is_empty() {
        return "no public rooms are waiting for players\n".to_owned();
    }
    let mut out = format!("{:<10} {:>7}  {}\n", "ROOM", "PLAYERS", "DIFFICULTY");
    for r in rooms {
        out.push_str(&format!(
            "{:<10} {:>7}  {}\n",
            r.room,
            format!("{}/{}", r.players, r.max_players),
            r.difficulty
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::RoomSummary;
    use shared::engine::Difficulty;

    #[test]
    fn rooms_print_as_a_table() {
        let rooms = [RoomSummary {
            room: "K7QX".try_into().unwrap(),
            players: 2,
            max_players: 8,
            phase: protocol::Phase::Lobby,
            difficulty: Difficulty::Hard,
        }];
        assert_eq!(
            rooms_table(&rooms),
            "ROOM       PLAYERS  DIFFICULTY\nK7QX           2/8  hard\n"
        );
        assert_eq!(
            rooms_table(&[]),
            "no public rooms are waiting for players\n"
        );
    }

    #[test]
    fn join_command_names_the_server_unless_default() {
        assert_eq!(
            join_command("AB23", &ServerUrl::default(), false),
            "sudoku-race join AB23"
        );
        assert_eq!(
            join_command(
                "AB23",
                &"ws://10.0.0.5:7878/ws".parse().expect("url"),
                false
            ),
            "sudoku-race join AB23 --server ws://10.0.0.5:7878/ws"
        );
        assert_eq!(
            join_command(
                "AB23",
                &"wss://race.example.org/ws".parse().expect("url"),
                true
            ),
            "sudoku-race join AB23 --server wss://race.example.org/ws --ca-file PEM"
        );
    }

    #[test]
    fn room_settings_are_checked_before_connecting() {
        let ok = RoomSettings {
            difficulty: Some(Difficulty::Hard),
            private: true,
            ..Default::default()
        };
        let req = ok.request().expect("valid");
        assert_eq!(req.public, Some(false));
        let bad = RoomSettings {
            max_players: Some(40),
            ..Default::default()
        };
        assert!(bad.request().is_err());
    }
}
