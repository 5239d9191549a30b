//! Bots: players that race at a human-like pace, with no screen. A fill-in opponent
//! (`sudoku-race bot CODE`), a demo, and the load generator's building block.
//!
//! [`Brain`] is the decision logic and does no IO: it reads server messages and says what to
//! send next. [`run`] drives a brain over a [`crate::net`] session (so a bot reconnects and
//! resumes like any client), pausing `pace` (±50 %) between placements and re-sending a
//! placement after `rate_limited`.

use std::future::Future;
use std::time::Duration;

use protocol::{
    ClientMsg, ErrorCode, FinishStatus, MsgId, Phase, PlaceReason, PlayerId, RaceId, Role,
    RoomCode, ServerMsg, SettingsRequest, Standing,
};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use shared::engine::solver;
use shared::engine::{Cell, Digit, Grid};
use tokio::time::Instant;
use tracing::{debug, info, warn};

use crate::net::{self, Intent, NetEvent};

/// Pause before re-sending a placement refused with `rate_limited`.
pub const RATE_LIMIT_PAUSE: Duration = Duration::from_millis(1000);

/// Pause before a host bot starts the next race (a rematch).
pub const REMATCH_PAUSE: Duration = Duration::from_millis(1500);

/// How a bot plays.
#[derive(Clone, Debug)]
pub struct BotConfig {
    /// Display name.
    pub name: String,
    /// Mean time between placements (each pause is drawn from 50 % to 150 % of it).
    pub pace: Duration,
    /// Probability that a placement is a deliberate mistake, `0.0..=1.0`.
    pub mistake_rate: f64,
    /// RNG seed (cell order, pauses, mistakes).
    pub seed: u64,
    /// Races to play before leaving; `None` plays until the room closes.
    pub races: Option<u32>,
}

impl Default for BotConfig {
    fn default() -> Self {
        BotConfig {
            name: "bot".into(),
            pace: Duration::from_millis(800),
            mistake_rate: 0.0,
            seed: 0,
            races: Some(1),
        }
    }
}

/// Which room the bot enters, and how.
#[derive(Clone, Debug)]
pub enum BotRole {
    /// Join an existing room as a player.
    Join {
        /// Room code.
        room: String,
    },
    /// Create a room, wait for `start_at` players (itself included), then start each race.
    Host {
        /// Room settings.
        settings: Option<SettingsRequest>,
        /// Players seated before the first race starts.
        start_at: usize,
    },
}

/// How one race went for the bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceResult {
    /// The race's id.
    pub race_id: RaceId,
    /// The bot's status at the end.
    pub status: Option<FinishStatus>,
    /// The bot's time (solved only).
    pub time_ms: Option<u64>,
    /// Final standings.
    pub standings: Vec<Standing>,
}

/// What a bot did, returned when it stops.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BotReport {
    /// Room code.
    pub room: Option<RoomCode>,
    /// The bot's player id.
    pub player_id: Option<PlayerId>,
    /// One entry per finished race.
    pub races: Vec<RaceResult>,
    /// Placements sent (re-sends after `rate_limited` excluded).
    pub placements: u32,
    /// Placements the server refused as mistakes.
    pub mistakes: u32,
    /// `rate_limited` errors received.
    pub rate_limited: u32,
}

/// Why a bot stopped early.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// The connection ended (or could not be made).
    #[error("connection ended: {0}")]
    Connection(String),
    /// The server refused the bot's entry.
    #[error("refused by the server: {code}: {message}")]
    Refused {
        /// The error code's wire name.
        code: &'static str,
        /// The server's message.
        message: String,
    },
    /// The room was closed.
    #[error("room closed")]
    RoomClosed,
}

/// The race the brain is solving.
#[derive(Clone, Debug)]
struct Solving {
    race_id: RaceId,
    board: Grid,
    solution: Option<Grid>,
    /// Cells still to fill, in the order the bot will try them (last first).
    todo: Vec<Cell>,
    /// Out of the race (solved, forfeited, eliminated, timed out).
    out: Option<(FinishStatus, Option<u64>)>,
}

/// The bot's decision logic: no IO, no clock. Feed it every server message with
/// [`Brain::on_msg`]; when its wake-up time comes, ask [`Brain::next_move`].
#[derive(Debug)]
pub struct Brain {
    config: BotConfig,
    rng: StdRng,
    host_start_at: Option<usize>,
    phase: Phase,
    me: Option<PlayerId>,
    host: Option<PlayerId>,
    players: Vec<PlayerId>,
    race: Option<Solving>,
    in_flight: Option<(u64, Cell, Digit)>,
    resend: bool,
    next_id: u64,
    start_wanted: bool,
    wake: Option<Duration>,
    error: Option<BotError>,
    /// What happened so far.
    pub report: BotReport,
}

impl Brain {
    /// A brain for `config`; `host_start_at` is `Some(n)` for a host bot that starts races
    /// once `n` players are seated.
    pub fn new(config: BotConfig, host_start_at: Option<usize>) -> Brain {
        let rng = StdRng::seed_from_u64(config.seed);
        Brain {
            config,
            rng,
            host_start_at,
            phase: Phase::Lobby,
            me: None,
            host: None,
            players: Vec::new(),
            race: None,
            in_flight: None,
            resend: false,
            next_id: 1,
            start_wanted: false,
            wake: None,
            error: None,
            report: BotReport::default(),
        }
    }

    /// Whether the bot has played all its races.
    pub fn done(&self) -> bool {
        self.config
            .races
            .is_some_and(|n| self.report.races.len() as u32 >= n)
    }

    /// A fatal error, if one happened.
    pub fn take_error(&mut self) -> Option<BotError> {
        self.error.take()
    }

    /// When the brain wants [`Brain::next_move`] to be called (from now), if at all.
    pub fn take_wake(&mut self) -> Option<Duration> {
        self.wake.take()
    }

    fn think_time(&mut self) -> Duration {
        let ms = self.config.pace.as_millis() as u64;
        Duration::from_millis(self.rng.gen_range(ms / 2..=ms + ms / 2))
    }

    fn am_host(&self) -> bool {
        self.me.is_some() && self.me == self.host
    }

    fn maybe_start(&mut self) {
        let Some(n) = self.host_start_at else { return };
        let idle = matches!(self.phase, Phase::Lobby | Phase::Finished);
        if self.am_host() && idle && !self.done() && self.players.len() >= n && !self.start_wanted {
            self.start_wanted = true;
            self.wake = Some(if self.report.races.is_empty() {
                Duration::ZERO
            } else {
                REMATCH_PAUSE
            });
        }
    }

    fn begin(&mut self, race_id: RaceId, puzzle: Grid, board: Grid) {
        let solution = match solver::solve_unique(&puzzle) {
            Ok(s) => Some(s),
            Err(e) => {
                warn!(error = %e, "the puzzle has no unique solution; the bot will forfeit");
                None
            }
        };
        let mut todo: Vec<Cell> = Cell::all().filter(|&c| board.get(c).is_none()).collect();
        todo.shuffle(&mut self.rng);
        self.race = Some(Solving {
            race_id,
            board,
            solution,
            todo,
            out: None,
        });
        self.in_flight = None;
        self.resend = false;
        self.start_wanted = false;
        self.wake = Some(self.think_time());
    }

    /// Take in one server message; returns messages to send at once.
    pub fn on_msg(&mut self, msg: &ServerMsg) -> Vec<ClientMsg> {
        match msg {
            ServerMsg::RoomJoined {
                room,
                you,
                host,
                players,
                race,
                phase,
                ..
            } => {
                if you.role != Role::Player {
                    return Vec::new();
                }
                self.phase = *phase;
                self.report.room = Some(room.clone());
                self.report.player_id.clone_from(&you.player_id);
                self.me.clone_from(&you.player_id);
                self.host = Some(host.clone());
                self.players = players.iter().map(|p| p.player_id.clone()).collect();
                if let Some(rv) = race {
                    let same = self.race.as_ref().is_some_and(|r| r.race_id == rv.race_id);
                    if let (Some(puzzle), Some(board)) = (rv.puzzle, rv.board) {
                        if !same || self.race.as_ref().is_some_and(|r| r.out.is_none()) {
                            // A resume: continue from the server's board.
                            let out = self.race.as_ref().and_then(|r| r.out);
                            self.begin(rv.race_id.clone(), puzzle, board);
                            if let Some(r) = self.race.as_mut() {
                                r.out = out;
                            }
                        }
                    }
                }
                self.maybe_start();
            }
            ServerMsg::PlayerJoined { player } => {
                if !self.players.contains(&player.player_id) {
                    self.players.push(player.player_id.clone());
                }
                self.maybe_start();
            }
            ServerMsg::PlayerLeft { player_id } => {
                self.players.retain(|p| p != player_id);
            }
            ServerMsg::HostChanged { player_id } => {
                self.host = Some(player_id.clone());
                self.maybe_start();
            }
            ServerMsg::Countdown { .. } => self.phase = Phase::Countdown,
            ServerMsg::RaceStarted {
                race_id, puzzle, ..
            } => {
                self.phase = Phase::Racing;
                self.begin(race_id.clone(), *puzzle, *puzzle);
            }
            ServerMsg::Placement {
                id,
                cell,
                digit,
                accepted,
                reason,
                ..
            } => {
                let answered = id.as_ref().and_then(MsgId::as_u64);
                if self.in_flight.map(|(i, _, _)| i) == answered {
                    self.in_flight = None;
                    self.resend = false;
                }
                let (c, d) = (*cell, *digit);
                if let Some(r) = self.race.as_mut() {
                    if *accepted {
                        r.board.set(c, Some(d));
                        r.todo.retain(|&t| t != c);
                    } else {
                        match reason {
                            Some(PlaceReason::Given) | Some(PlaceReason::Filled) => {
                                r.todo.retain(|&t| t != c);
                            }
                            _ => {
                                self.report.mistakes += 1;
                                // Try that cell again later, somewhere in the remaining order.
                                r.todo.retain(|&t| t != c);
                                let at = self.rng.gen_range(0..=r.todo.len());
                                r.todo.insert(at, c);
                            }
                        }
                    }
                    if r.out.is_none() {
                        self.wake = Some(self.think_time());
                    }
                }
            }
            ServerMsg::PlayerFinished {
                player_id,
                status,
                time_ms,
            } if self.me.as_deref() == Some(player_id.as_str()) => {
                if let Some(r) = self.race.as_mut() {
                    r.out = Some((*status, *time_ms));
                }
                self.in_flight = None;
            }
            ServerMsg::RaceOver {
                race_id, standings, ..
            } => {
                let mine = self
                    .me
                    .as_deref()
                    .and_then(|me| standings.iter().find(|s| s.player_id == me));
                self.report.races.push(RaceResult {
                    race_id: race_id.clone(),
                    status: mine.map(|s| s.status),
                    time_ms: mine.and_then(|s| s.time_ms),
                    standings: standings.clone(),
                });
                if let Some(r) = self.race.as_mut() {
                    r.out.get_or_insert((
                        mine.map_or(FinishStatus::TimedOut, |s| s.status),
                        mine.and_then(|s| s.time_ms),
                    ));
                }
                self.in_flight = None;
                self.phase = Phase::Finished;
                info!(race = %race_id, status = ?mine.map(|s| s.status), "race over");
                self.maybe_start();
            }
            ServerMsg::Error { code, message } => match code {
                ErrorCode::RateLimited => {
                    self.report.rate_limited += 1;
                    if self.in_flight.is_some() {
                        self.resend = true;
                    }
                    self.wake = Some(RATE_LIMIT_PAUSE);
                }
                ErrorCode::UnknownRoom
                | ErrorCode::RoomFull
                | ErrorCode::RaceInProgress
                | ErrorCode::InvalidName
                | ErrorCode::NameTaken
                | ErrorCode::InvalidSettings
                | ErrorCode::InvalidToken
                | ErrorCode::ServerFull
                    if self.me.is_none() || *code == ErrorCode::InvalidToken =>
                {
                    self.error = Some(BotError::Refused {
                        code: code.as_str(),
                        message: message.clone(),
                    });
                }
                _ => {
                    debug!(code = code.as_str(), %message, "error");
                    if self.in_flight.take().is_some() {
                        self.wake = Some(self.think_time());
                    }
                }
            },
            ServerMsg::RoomClosed { .. } => self.error = Some(BotError::RoomClosed),
            _ => {}
        }
        Vec::new()
    }

    /// The next message to send when the wake-up time has come, if any.
    pub fn next_move(&mut self) -> Option<ClientMsg> {
        if self.start_wanted {
            self.start_wanted = false;
            if self.am_host() {
                return Some(ClientMsg::StartRace);
            }
        }
        if self.resend {
            self.resend = false;
            if let Some((id, c, d)) = self.in_flight {
                return Some(place(id, c, d));
            }
        }
        if self.in_flight.is_some() {
            return None;
        }
        let r = self.race.as_mut()?;
        if r.out.is_some() {
            return None;
        }
        let Some(solution) = r.solution else {
            r.out = Some((FinishStatus::Forfeited, None));
            return Some(ClientMsg::Forfeit);
        };
        let cell = *r.todo.last()?;
        let right = solution.get(cell)?;
        let digit = if self.rng.gen_bool(self.config.mistake_rate.clamp(0.0, 1.0)) {
            let wrong: Vec<Digit> = Digit::all().filter(|&d| d != right).collect();
            *wrong.choose(&mut self.rng)?
        } else {
            right
        };
        let id = self.next_id;
        self.next_id += 1;
        self.in_flight = Some((id, cell, digit));
        self.report.placements += 1;
        Some(place(id, cell, digit))
    }
}

fn place(id: u64, cell: Cell, digit: Digit) -> ClientMsg {
    ClientMsg::Place {
        cell: i64::from(cell.get()),
        digit: i64::from(digit.get()),
        id: Some(MsgId::Number(id.into())),
    }
}

/// Run one bot against the server at `url` until it has played `config.races` races, or
/// `shutdown` completes (then it sends `leave`), or the room closes, or the connection is lost
/// for good.
pub async fn run(
    url: &str,
    config: BotConfig,
    role: BotRole,
    shutdown: impl Future<Output = ()>,
) -> Result<BotReport, BotError> {
    let name = config.name.clone();
    let (intent, start_at) = match role {
        BotRole::Join { room } => (Intent::Join { room, name }, None),
        BotRole::Host { settings, start_at } => (Intent::Create { name, settings }, Some(start_at)),
    };
    let (session, mut events) = net::connect(url.to_owned(), intent);
    let mut brain = Brain::new(config, start_at);
    let mut wake_at: Option<Instant> = None;
    tokio::pin!(shutdown);
    let mut stopping = false;
    loop {
        let sleep = async {
            match wake_at {
                Some(t) => tokio::time::sleep_until(t).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            ev = events.recv() => match ev {
                None => return Err(BotError::Connection("connection task ended".into())),
                Some(NetEvent::Message(m)) => {
                    for out in brain.on_msg(&m) {
                        session.send(out);
                    }
                }
                Some(NetEvent::Closed { error }) => {
                    if brain.done() {
                        return Ok(brain.report);
                    }
                    return Err(BotError::Connection(error.unwrap_or_else(|| "closed".into())));
                }
                Some(NetEvent::Connected { .. }) | Some(NetEvent::Reconnecting { .. }) => {}
            },
            _ = sleep => {
                wake_at = None;
                if let Some(m) = brain.next_move() {
                    session.send(m);
                }
            }
            _ = &mut shutdown, if !stopping => stopping = true,
        }
        if let Some(e) = brain.take_error() {
            session.send(ClientMsg::Leave);
            return Err(e);
        }
        if brain.done() || stopping {
            session.send(ClientMsg::Leave);
            // Wait for the socket to close after the leave, so the server sees a clean quit.
            let _ = tokio::time::timeout(Duration::from_secs(2), async {
                while let Some(ev) = events.recv().await {
                    if matches!(ev, NetEvent::Closed { .. }) {
                        break;
                    }
                }
            })
            .await;
            return Ok(brain.report);
        }
        if let Some(d) = brain.take_wake() {
            wake_at = Some(Instant::now() + d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::tests::{PUZZLE, SOLUTION};
    use protocol::{Phase, Player, PlayerStatus, Settings, You};

    fn joined(host: &str) -> ServerMsg {
        ServerMsg::RoomJoined {
            room: "K7QX".try_into().unwrap(),
            you: You {
                player_id: Some("b1".into()),
                token: Some("t".into()),
                role: Role::Player,
            },
            host: host.into(),
            settings: Settings::default(),
            phase: Phase::Lobby,
            players: vec![Player {
                player_id: "b1".into(),
                name: "bot".try_into().unwrap(),
                ready: false,
                connected: true,
                status: PlayerStatus::Waiting,
            }],
            race: None,
        }
    }

    fn started() -> ServerMsg {
        ServerMsg::RaceStarted {
            race_id: "r1".into(),
            puzzle: PUZZLE.parse().unwrap(),
            difficulty: shared::engine::Difficulty::Easy,
            time_limit_s: 1800,
        }
    }

    /// Answer `msg` as the server would for a board with `SOLUTION` as its solution.
    fn answer(board: &mut Grid, msg: &ClientMsg) -> ServerMsg {
        let ClientMsg::Place { cell, digit, id } = msg else {
            panic!("expected a place, got {msg:?}");
        };
        let solution = Grid::parse(SOLUTION).expect("grid");
        let c = Cell::try_from(*cell).expect("cell");
        let d = Digit::try_from(*digit).expect("digit");
        let ok = solution.get(c) == Some(d);
        if ok {
            board.set(c, Some(d));
        }
        ServerMsg::Placement {
            id: id.clone(),
            cell: c,
            digit: d,
            accepted: ok,
            reason: (!ok).then_some(PlaceReason::Wrong),
            conflicts: vec![],
            mistakes: 0,
            penalty_ms: 0,
        }
    }

    #[track_caller]
    fn check_solves(mistake_rate: f64, seed: u64) -> BotReport {
        let config = BotConfig {
            mistake_rate,
            seed,
            ..BotConfig::default()
        };
        let mut brain = Brain::new(config, None);
        brain.on_msg(&joined("h"));
        brain.on_msg(&started());
        assert!(brain.take_wake().is_some());
        let mut board = Grid::parse(PUZZLE).expect("grid");
        let mut steps = 0;
        while let Some(m) = brain.next_move() {
            assert_eq!(brain.next_move(), None, "one placement in flight at a time");
            let reply = answer(&mut board, &m);
            brain.on_msg(&reply);
            steps += 1;
            assert!(steps < 1000, "the bot does not converge");
        }
        assert_eq!(board.to_line(), SOLUTION);
        brain.report
    }

    #[test]
    fn a_careful_bot_fills_every_cell_once() {
        let r = check_solves(0.0, 7);
        assert_eq!((r.placements, r.mistakes), (51, 0));
    }

    #[test]
    fn a_sloppy_bot_makes_mistakes_and_still_solves() {
        let r = check_solves(0.3, 9);
        assert!(r.mistakes > 0);
        assert_eq!(r.placements, 51 + r.mistakes);
    }

    #[test]
    fn rate_limited_placements_are_resent() {
        let mut brain = Brain::new(BotConfig::default(), None);
        brain.on_msg(&joined("h"));
        brain.on_msg(&started());
        let first = brain.next_move().expect("a placement");
        brain.on_msg(&ServerMsg::Error {
            code: ErrorCode::RateLimited,
            message: "slow down".into(),
        });
        assert_eq!(brain.take_wake(), Some(RATE_LIMIT_PAUSE));
        assert_eq!(brain.next_move(), Some(first));
        assert_eq!(brain.report.rate_limited, 1);
        assert_eq!(brain.report.placements, 1);
    }

    #[test]
    fn a_host_bot_starts_when_enough_players_are_seated() {
        let mut brain = Brain::new(BotConfig::default(), Some(2));
        brain.on_msg(&joined("b1"));
        assert_eq!(brain.next_move(), None);
        brain.on_msg(&ServerMsg::PlayerJoined {
            player: Player {
                player_id: "b2".into(),
                name: "other".try_into().unwrap(),
                ready: false,
                connected: true,
                status: PlayerStatus::Waiting,
            },
        });
        assert_eq!(brain.take_wake(), Some(Duration::ZERO));
        assert_eq!(brain.next_move(), Some(ClientMsg::StartRace));
        assert_eq!(brain.next_move(), None);
        brain.on_msg(&ServerMsg::Countdown { starts_in_ms: 100 });
        brain.on_msg(&started());
        // Out of the race early, the host does not start another while others still race.
        brain.on_msg(&ServerMsg::PlayerFinished {
            player_id: "b1".into(),
            status: FinishStatus::Forfeited,
            time_ms: None,
        });
        brain.on_msg(&ServerMsg::PlayerJoined {
            player: Player {
                player_id: "b3".into(),
                name: "late".try_into().unwrap(),
                ready: false,
                connected: true,
                status: PlayerStatus::Waiting,
            },
        });
        assert_eq!(brain.next_move(), None);
    }

    #[tokio::test]
    async fn run_races_against_a_scripted_server_then_leaves() {
        use crate::net::tests::{accept, fake_server, recv_client};
        use futures::SinkExt;
        use tokio_tungstenite::tungstenite::Message;

        let (url, listener) = fake_server().await;
        let config = BotConfig {
            pace: Duration::from_millis(1),
            mistake_rate: 0.2,
            seed: 3,
            ..BotConfig::default()
        };
        let bot = tokio::spawn(async move {
            run(
                &url,
                config,
                BotRole::Join {
                    room: "K7QX".into(),
                },
                std::future::pending(),
            )
            .await
        });
        let mut ws = accept(&listener).await;
        async fn say(
            ws: &mut tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>,
            m: &ServerMsg,
        ) {
            ws.send(Message::text(serde_json::to_string(m).expect("json")))
                .await
                .expect("send");
        }
        assert!(matches!(
            recv_client(&mut ws).await,
            ClientMsg::JoinRoom { .. }
        ));
        say(&mut ws, &joined("h")).await;
        say(&mut ws, &started()).await;
        let mut board = Grid::parse(PUZZLE).expect("grid");
        let mut limited_once = false;
        while board.to_line() != SOLUTION {
            let m = recv_client(&mut ws).await;
            if !limited_once {
                // The first placement is refused for the rate: the bot must send it again.
                limited_once = true;
                say(
                    &mut ws,
                    &ServerMsg::Error {
                        code: ErrorCode::RateLimited,
                        message: "slow down".into(),
                    },
                )
                .await;
                assert_eq!(recv_client(&mut ws).await, m);
            }
            let reply = answer(&mut board, &m);
            say(&mut ws, &reply).await;
        }
        say(
            &mut ws,
            &ServerMsg::PlayerFinished {
                player_id: "b1".into(),
                status: FinishStatus::Solved,
                time_ms: Some(1234),
            },
        )
        .await;
        let standing = Standing {
            rank: 1,
            player_id: "b1".into(),
            name: "bot".try_into().unwrap(),
            status: FinishStatus::Solved,
            time_ms: Some(1234),
            filled: 51,
            mistakes: 0,
        };
        say(
            &mut ws,
            &ServerMsg::RaceOver {
                race_id: "r1".into(),
                reason: protocol::OverReason::AllDone,
                standings: vec![standing],
                solution: SOLUTION.parse().unwrap(),
            },
        )
        .await;
        assert_eq!(recv_client(&mut ws).await, ClientMsg::Leave);
        drop(ws);
        let report = tokio::time::timeout(Duration::from_secs(5), bot)
            .await
            .expect("bot ends")
            .expect("task")
            .expect("ok");
        assert_eq!(report.rate_limited, 1);
        assert_eq!(report.races.len(), 1);
        assert_eq!(report.races[0].status, Some(FinishStatus::Solved));
        assert_eq!(report.races[0].time_ms, Some(1234));
        assert_eq!(report.placements, 51 + report.mistakes);
    }

    #[test]
    fn entry_refusals_are_fatal() {
        let mut brain = Brain::new(BotConfig::default(), None);
        brain.on_msg(&ServerMsg::Error {
            code: ErrorCode::UnknownRoom,
            message: "no such room".into(),
        });
        assert!(matches!(
            brain.take_error(),
            Some(BotError::Refused {
                code: "unknown_room",
                ..
            })
        ));
    }
}
