//! The network subcommands of the binary: `join`, `spectate`, `rooms` and `bot`, the flags they
//! share with `host` and `quick` (`--name`, `--server`, the room settings) and the full-screen
//! client they all open ([`tui`]). Flags are parsed here; the work is done by the `client`
//! library. (`host`, `quick` and `play` have their own modules.)

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;
use client::app::{App, Event};
use client::bot::{self, BotConfig, BotRole, Level, Style};
use client::config::{Flags, Settings, Sourced};
use client::net::{self, Endpoint, Intent, NetEvent, RoomTarget, ServerUrl, Trust};
use client::term::{self, TermError, TermGuard};
use engine::{Difficulty, Variant};
use protocol::{ClientMsg, ErrorCode, PlayerName, RoomCode, ServerMsg, SettingsRequest};
use tokio::sync::mpsc;

/// Exit code when the command needs a terminal and has none.
pub const EXIT_NOT_A_TERMINAL: u8 = 2;

/// `--name`, shared by the commands that enter a room.
#[derive(Args, Debug, Clone)]
pub struct NameArg {
    /// Your display name, 1 to 24 characters [env: SUDOKU_RACE_NAME; else the config file's
    /// `name`; else your login name].
    #[arg(long)]
    pub name: Option<String>,
    /// Play without an identity: no key is registered or sent, and no race of yours is rated
    /// [default: a key per server, registered on first use and kept in keys.toml beside the
    /// config file].
    #[arg(long)]
    pub anonymous: bool,
}

/// `--server` and `--ca-file`.
#[derive(Args, Debug, Clone)]
pub struct ServerArg {
    /// The server's WebSocket URL: ws://HOST:7878/ws, or wss://HOST/ws for TLS (no path means /ws)
    /// [env: SUDOKU_RACE_SERVER; else the config file's `server`; else ws://127.0.0.1:7878/ws].
    #[arg(long)]
    pub server: Option<String>,
    /// Also trust the certificate(s) in this PEM file for wss:// (a self-signed server).
    #[arg(long, env = "SUDOKU_RACE_CA_FILE", value_name = "PEM")]
    pub ca_file: Option<PathBuf>,
}

/// The settings in force (flag > environment > config file > default).
pub fn settings(server: &ServerArg, name: Option<&str>) -> anyhow::Result<Settings> {
    Ok(Settings::load(Flags {
        server: server.server.clone(),
        name: name.map(str::to_owned),
    })?)
}

/// The display name in force, checked by the wire's rules before anything connects.
pub fn checked_name(name: &Sourced) -> anyhow::Result<String> {
    match PlayerName::try_from(name.value.as_str()) {
        Ok(n) => Ok(n.to_string()),
        Err(e) => bail!("invalid name `{}` (from {}): {e}", name.value, name.source),
    }
}

/// The server and trust in force. The URL is parsed when the command starts rather than by the
/// flag parser, so a bad URL ends the command with our message (what to type instead, and which
/// setting gave it) and exit code 1, not clap's usage error.
pub fn endpoint(server: &Sourced, ca_file: Option<&Path>) -> anyhow::Result<Endpoint> {
    let url: ServerUrl = server
        .value
        .parse()
        .with_context(|| format!("the server from {}", server.source))?;
    let trust = Trust::from_flag(ca_file)?;
    Ok(Endpoint::new(url, trust))
}

/// The room and server a `join`, `spectate` or `bot` argument names: a link gives both, a bare
/// code takes the server in force. A link with `--server` too is refused (which one was meant?).
pub fn target(
    room: &str,
    server: &ServerArg,
    settings: &Settings,
) -> anyhow::Result<(RoomCode, Endpoint)> {
    let ca = server.ca_file.as_deref();
    match room.parse::<RoomTarget>()? {
        RoomTarget::Code(code) => Ok((code, endpoint(&settings.server, ca)?)),
        RoomTarget::Link { server: url, code } => {
            if server.server.is_some() {
                bail!("give an invite link or --server, not both (the link names its server)");
            }
            Ok((code, Endpoint::new(url, Trust::from_flag(ca)?)))
        }
    }
}

/// `sudoku-race join`.
#[derive(Args, Debug)]
pub struct JoinArgs {
    /// An invite link (ws://HOST:PORT/r/CODE) or a room code (4 to 8 characters; case does not
    /// matter) on the server in force.
    pub room: String,
    #[command(flatten)]
    server: ServerArg,
    #[command(flatten)]
    name: NameArg,
}

/// `sudoku-race spectate`.
#[derive(Args, Debug)]
pub struct SpectateArgs {
    /// An invite link or a room code.
    pub room: String,
    /// Show the leader's board (the most filled) beside the panel, as the server shows it to
    /// spectators: `--spectator-delay-s` (30 s) behind the race.
    #[arg(long)]
    pub boards: bool,
    #[command(flatten)]
    server: ServerArg,
    #[command(flatten)]
    name: NameArg,
}

/// `sudoku-race daily`.
#[derive(Args, Debug)]
pub struct DailyArgs {
    /// easy, medium, hard or expert [default: medium].
    #[arg(long, value_parser = crate::difficulty_arg)]
    difficulty: Option<Difficulty>,
    /// classic, x, windoku, jigsaw or killer, any case: each has its own dailies.
    #[arg(long, value_parser = crate::variant_arg, default_value = "classic")]
    variant: Variant,
    #[command(flatten)]
    server: ServerArg,
    #[command(flatten)]
    name: NameArg,
}

/// `sudoku-race daily`: today's puzzle, alone, once per difficulty, under your identity.
pub fn daily(rt: &tokio::runtime::Runtime, a: DailyArgs) -> anyhow::Result<ExitCode> {
    if a.name.anonymous {
        bail!("the daily challenge is one attempt per identity: it cannot be played --anonymous");
    }
    let settings = settings(&a.server, a.name.name.as_deref())?;
    let name = checked_name(&settings.name)?;
    let to = endpoint(&settings.server, a.server.ca_file.as_deref())?;
    let intent = Intent::Daily {
        difficulty: a.difficulty.unwrap_or(Difficulty::Medium),
        variant: a.variant,
        name: name.clone(),
    };
    tui(rt, to, intent, name, Lobby::default(), false)
}

/// The room settings a room host can choose (server defaults where absent).
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
    /// Rate the room's races (Weng-Lin per difficulty) when at least two identified humans start.
    #[arg(long)]
    pub rated: bool,
    /// classic, x, windoku, jigsaw or killer, any case [default: classic].
    #[arg(long, value_parser = crate::variant_arg)]
    pub variant: Option<Variant>,
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
            rated: self.rated.then_some(true),
            isomorphs: None,
            variant: self.variant.map(|v| v.as_str().to_owned()),
        };
        req.resolve().context("invalid room settings")?;
        Ok(req)
    }
}

/// `sudoku-race bot`.
#[derive(Args, Debug)]
pub struct BotArgs {
    /// An invite link or a room code.
    pub room: String,
    #[command(flatten)]
    server: ServerArg,
    /// The bot's display name [default: bot-NNNN].
    #[arg(long)]
    pub name: Option<String>,
    /// How well it plays: beginner (~13 min on medium), casual (~5 min, pauses, a slip now
    /// and then), strong (~45 s), expert (~25 s, no slips).
    #[arg(long, value_enum, default_value_t = Level::Casual)]
    pub level: Level,
    /// Instead of the level's pace: mean milliseconds per placement (each wait is 50 % to
    /// 150 % of it), no pauses.
    #[arg(long)]
    pub pace_ms: Option<u64>,
    /// Instead of the level's: probability that a placement is a wrong digit (0 to 1).
    #[arg(long)]
    pub mistake_rate: Option<f64>,
    /// Races to play before leaving [default: every race until the room closes].
    #[arg(long)]
    pub races: Option<u32>,
    /// RNG seed [default: random].
    #[arg(long)]
    pub seed: Option<u64>,
}

/// The bot's style: its level's, with `--pace-ms` and `--mistake-rate` in place of the level's.
fn style(a: &BotArgs) -> anyhow::Result<Style> {
    let mut style = a.level.style();
    if let Some(ms) = a.pace_ms {
        style = Style::flat(Duration::from_millis(ms), style.mistake_rate);
    }
    if let Some(rate) = a.mistake_rate {
        if !(0.0..=1.0).contains(&rate) {
            bail!("--mistake-rate must be between 0 and 1, not {rate}");
        }
        style.mistake_rate = rate;
    }
    Ok(style)
}

/// `sudoku-race bot CODE`: no screen; logs to stderr, prints a summary.
pub fn bot(rt: &tokio::runtime::Runtime, a: BotArgs) -> anyhow::Result<ExitCode> {
    term::log_to_stderr();
    let style = style(&a)?;
    let seed = a.seed.unwrap_or_else(rand::random);
    let config = BotConfig {
        name: a
            .name
            .unwrap_or_else(|| format!("bot-{:04}", seed % 10_000)),
        style,
        seed,
        races: a.races,
    };
    PlayerName::try_from(config.name.as_str())
        .with_context(|| format!("invalid bot name `{}`", config.name))?;
    let name = config.name.clone();
    let settings = settings(&a.server, None)?;
    let (room, to) = target(&a.room, &a.server, &settings)?;
    let role = BotRole::Join {
        room: room.to_string(),
    };
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

/// How the full-screen client shows the room.
#[derive(Clone, Debug, Default)]
pub struct Lobby {
    /// The line a friend types to join (`{code}` stands for the room code).
    pub join_command: Option<String>,
    /// This program runs the server: quitting confirms while others are in the room.
    pub runs_server: bool,
}

/// Longest wait for the server's answer to the intent before any screen opens.
const FIRST_ANSWER: Duration = Duration::from_secs(15);

/// Connect and wait for the room (`room_joined`), or the pool (`queued`, A7), before any screen
/// opens: a refused connection, an unknown room or a taken name ends the command with its reason
/// and exit code 1 instead of a screen that can only be quit. Returns what arrived, for the app.
async fn first_answer(
    url: &ServerUrl,
    intent: &Intent,
    events: &mut mpsc::UnboundedReceiver<NetEvent>,
) -> anyhow::Result<Vec<NetEvent>> {
    let mut seen = Vec::new();
    let wait = async {
        while let Some(ev) = events.recv().await {
            match &ev {
                NetEvent::Message(m) => match &**m {
                    ServerMsg::RoomJoined { .. }
                    | ServerMsg::Queued { .. }
                    | ServerMsg::ArenaJoined { .. } => {
                        seen.push(ev);
                        return Ok(());
                    }
                    // Answered in place on the screen: another name, or watching first.
                    ServerMsg::Error {
                        code:
                            ErrorCode::NameTaken | ErrorCode::InvalidName | ErrorCode::RaceInProgress,
                        ..
                    } => {
                        seen.push(ev);
                        return Ok(());
                    }
                    ServerMsg::Error { code, message, .. } => {
                        let advice = match (code, intent) {
                            (ErrorCode::RaceInProgress, Intent::Join { room, .. }) => {
                                format!(" (watch it with `sudoku-race spectate {room}`)")
                            }
                            (
                                ErrorCode::UnknownArena | ErrorCode::ArenaNotRunning,
                                Intent::Arena { .. },
                            ) => " (see `sudoku-race arena list`)".to_owned(),
                            (ErrorCode::ServerDraining, _) => {
                                " (the server is restarting for an update: try again in a moment)"
                                    .to_owned()
                            }
                            (ErrorCode::UnknownRace, Intent::Ghost { .. }) => {
                                " (nothing stored to race: see `sudoku-race history`)".to_owned()
                            }
                            (ErrorCode::UnsupportedVariant, _) => format!(
                                " (this sudoku-race draws {}; a room of any of them: \
                                 `sudoku-race host --variant NAME`)",
                                protocol::variant::all_names().join(", ")
                            ),
                            _ => String::new(),
                        };
                        bail!("{}: {message}{advice}", code.as_str())
                    }
                    _ => {}
                },
                NetEvent::Closed { error } => {
                    bail!("{}", error.as_deref().unwrap_or("connection closed"))
                }
                NetEvent::Connected { .. }
                | NetEvent::Reconnecting { .. }
                | NetEvent::Moving { .. } => {}
            }
            seen.push(ev);
        }
        bail!("connection closed")
    };
    tokio::time::timeout(FIRST_ANSWER, wait)
        .await
        .with_context(|| format!("no answer from {url} in {} s", FIRST_ANSWER.as_secs()))??;
    Ok(seen)
}

/// The identity `intent` goes with: none when `anonymous`, else the one kept for this server
/// (registered on first use). The daily, `ghost best` and arenas cannot do without one.
fn identity(
    rt: &tokio::runtime::Runtime,
    to: &Endpoint,
    name: &str,
    anonymous: bool,
    intent: &Intent,
) -> anyhow::Result<net::Identity> {
    let url = &to.url;
    let who = if anonymous {
        net::Identity::default()
    } else {
        let file = client::identity::file_path();
        rt.block_on(client::identity::identity_for(to, name, file.as_deref()))
    };
    if matches!(intent, Intent::Daily { .. }) && who.key.is_none() {
        bail!(
            "the daily challenge needs an identity, and {url} did not register one (see the log)"
        );
    }
    let needs_key = match intent {
        Intent::Ghost { ghost, .. } => ghost == "best",
        Intent::Arena { .. } => true,
        _ => false,
    };
    if needs_key && who.key.is_none() {
        bail!("this needs an identity, and {url} did not register one (see the log)");
    }
    Ok(who)
}

/// Leave the room, pool or arena `intent` just entered rather than hold a seat for a minute.
fn abandon(session: &net::Session, intent: &Intent) {
    if let Intent::Arena { .. } = intent {
        session.send(ClientMsg::LeaveArena);
    }
    session.send(match intent {
        Intent::Quick { .. } => ClientMsg::LeaveQueue,
        _ => ClientMsg::Leave,
    });
}

/// Run the full-screen online client until the user quits: exit code 0 for the user's quit, 1
/// when the session ended otherwise (refused, room closed, connection lost).
pub fn tui(
    rt: &tokio::runtime::Runtime,
    to: Endpoint,
    intent: Intent,
    name: String,
    lobby: Lobby,
    anonymous: bool,
) -> anyhow::Result<ExitCode> {
    let url = to.url.clone();
    tracing::info!(%url, ?intent, anonymous, "starting the online client");
    let who = identity(rt, &to, &name, anonymous, &intent)?;
    let (session, mut events) = {
        let _rt = rt.enter();
        net::connect_as(to, intent.clone(), who)
    };
    let early = rt.block_on(first_answer(&url, &intent, &mut events))?;
    let mut guard = match TermGuard::enter() {
        Ok(g) => g,
        Err(e) => {
            abandon(&session, &intent);
            rt.block_on(async { tokio::time::sleep(Duration::from_millis(100)).await });
            if let TermError::NotATerminal = e {
                eprintln!("sudoku-race: {e}");
                return Ok(ExitCode::from(EXIT_NOT_A_TERMINAL));
            }
            return Err(e.into());
        }
    };
    let log = term::log_to_file();
    let wall = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let mut app = App::new(name).with_intent(&intent).with_wall_clock(wall);
    if let Some(cmd) = lobby.join_command {
        app = app.with_join_command(cmd);
    }
    if lobby.runs_server {
        app = app.with_server_in_process();
    }
    for ev in early {
        app.update(Event::Net(ev));
    }
    let result = rt.block_on(async {
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
    if let client::app::Conn::Closed(Some(e)) = app.conn() {
        eprintln!("sudoku-race: {e}");
        if let Some(p) = log {
            eprintln!("(log: {})", p.display());
        }
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// `sudoku-race join LINK|CODE`.
pub fn join(rt: &tokio::runtime::Runtime, a: JoinArgs) -> anyhow::Result<ExitCode> {
    let settings = settings(&a.server, a.name.name.as_deref())?;
    let name = checked_name(&settings.name)?;
    let (code, to) = target(&a.room, &a.server, &settings)?;
    let join = join_command(&to.url.invite(&code), a.server.ca_file.is_some());
    let intent = Intent::Join {
        room: code.to_string(),
        name: name.clone(),
    };
    let lobby = Lobby {
        join_command: Some(join),
        runs_server: false,
    };
    tui(rt, to, intent, name, lobby, a.name.anonymous)
}

/// `sudoku-race spectate LINK|CODE`.
pub fn spectate(rt: &tokio::runtime::Runtime, a: SpectateArgs) -> anyhow::Result<ExitCode> {
    let settings = settings(&a.server, a.name.name.as_deref())?;
    let name = checked_name(&settings.name)?;
    let (code, to) = target(&a.room, &a.server, &settings)?;
    let intent = Intent::Spectate {
        room: code.to_string(),
        name: name.clone(),
        boards: a.boards,
    };
    tui(rt, to, intent, name, Lobby::default(), a.name.anonymous)
}

/// The command a friend types to join by `link` (with `--ca-file` when we needed one: the
/// friend needs the same certificate).
pub fn join_command(link: &str, ca_file: bool) -> String {
    let mut cmd = format!("sudoku-race join {link}");
    if ca_file {
        cmd.push_str(" --ca-file PEM");
    }
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Difficulty;

    #[test]
    fn the_join_line_is_the_invite_link() {
        let url: ServerUrl = "ws://10.0.0.5:7878/ws".parse().expect("url");
        assert_eq!(
            join_command(&url.invite("{code}"), false),
            "sudoku-race join ws://10.0.0.5:7878/r/{code}"
        );
        let url: ServerUrl = "wss://race.example.org/ws".parse().expect("url");
        assert_eq!(
            join_command(&url.invite("AB23"), true),
            "sudoku-race join wss://race.example.org/r/AB23 --ca-file PEM"
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
