//! The bot's decision logic: what to send next, given what the server said. No IO, no clock.
//!
//! The room itself (me, room host, players, phase, the race's board) is the app's
//! [`Mirror`]; the brain keeps only its own plan: the cells left to try, the placement in
//! flight, when to wake up, and what to report.

use std::time::Duration;

use engine::solver;
use engine::{Cell, Digit, Geometry, Grid};
use protocol::{
    ClientMsg, ErrorCode, FinishStatus, MsgId, Phase, PlaceReason, RaceId, Role, ServerMsg,
    Standing,
};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use tracing::{debug, info, warn};

use super::pace::{self, Planned, Tier};
use super::{BotConfig, BotError, BotReport, RaceResult, RATE_LIMIT_PAUSE, REMATCH_PAUSE};
use crate::app::Mirror;
use crate::net::Backoff;

/// The race the brain is solving.
#[derive(Clone, Debug)]
struct Solving {
    race_id: RaceId,
    solution: Option<Grid>,
    /// Cells still to fill, in the order the bot will try them (last first).
    todo: Vec<Planned>,
    /// Out of the race (solved, forfeited, eliminated, timed out).
    out: Option<(FinishStatus, Option<u64>)>,
}

/// The bot's decision logic: no IO, no clock. Feed it every server message with
/// [`Brain::on_msg`]; when its wake-up time comes, ask [`Brain::next_move`].
#[derive(Debug)]
pub struct Brain {
    config: BotConfig,
    rng: StdRng,
    room_host_start_at: Option<usize>,
    mirror: Mirror,
    race: Option<Solving>,
    in_flight: Option<(u64, Cell, Digit)>,
    resend: bool,
    /// Re-sends while the room moves to another server (A12), until it answers again.
    moving: Backoff,
    next_id: u64,
    start_wanted: bool,
    wake: Option<Duration>,
    error: Option<BotError>,
    /// What happened so far.
    pub report: BotReport,
}

impl Brain {
    /// A brain for `config`; `room_host_start_at` is `Some(n)` for a room-host bot that starts
    /// races once `n` players are seated.
    pub fn new(config: BotConfig, room_host_start_at: Option<usize>) -> Brain {
        let rng = StdRng::seed_from_u64(config.seed);
        Brain {
            config,
            rng,
            room_host_start_at,
            mirror: Mirror::default(),
            race: None,
            in_flight: None,
            resend: false,
            moving: Backoff::default(),
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

    /// The wait before the next planned placement (none left: a short look, then nothing).
    fn think_time(&mut self) -> Duration {
        let looks = self
            .race
            .as_ref()
            .and_then(|r| r.todo.last())
            .map_or(pace::look(Tier::NakedSingle), |p| p.looks);
        self.config.style.wait(&looks, &mut self.rng)
    }

    /// Whether the bot may slip now: never on a correction, nor when one more refused digit
    /// would knock it out of the race (a fill-in opponent should finish).
    fn may_slip(&self, next: &Planned) -> bool {
        let limit = self
            .mirror
            .room
            .as_ref()
            .map_or(0, |r| u32::from(r.settings.max_mistakes));
        // The server's count, which the mirror keeps across a resume.
        let made = self.mirror.race().map_or(0, |r| r.mistakes);
        !next.fix && (limit == 0 || made + 1 < limit)
    }

    fn am_room_host(&self) -> bool {
        self.mirror.room.as_ref().is_some_and(|r| r.am_room_host())
    }

    fn maybe_start(&mut self) {
        let Some(n) = self.room_host_start_at else {
            return;
        };
        let Some(room) = self.mirror.room.as_ref() else {
            return;
        };
        let idle = matches!(room.phase, Phase::Lobby | Phase::Finished);
        let seated = room.players.len();
        if room.am_room_host() && idle && !self.done() && seated >= n && !self.start_wanted {
            self.start_wanted = true;
            self.wake = Some(if self.report.races.is_empty() {
                Duration::ZERO
            } else {
                REMATCH_PAUSE
            });
        }
    }

    /// Solve the race's `puzzle` by the rules of `geometry` (the seat's own puzzle and
    /// layout: A10) and plan the cells `board` leaves empty.
    fn begin(&mut self, race_id: RaceId, puzzle: Grid, board: Grid, geometry: &Geometry) {
        let solution = solve(geometry, &puzzle);
        let mut todo = match &solution {
            Some(_) => pace::plan_in(geometry, &board, &mut self.rng),
            None => Vec::new(),
        };
        todo.reverse();
        self.race = Some(Solving {
            race_id,
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
        if let ServerMsg::RoomJoined { you, .. } = msg {
            if you.role != Role::Player {
                return Vec::new();
            }
        }
        // The brain keeps no clock: the mirror's race-time anchors go unread here.
        self.mirror.apply(msg, 0);
        if let ServerMsg::RoomJoined { .. } | ServerMsg::Placement { .. } = msg {
            // The room answers: it is not (or no longer) moving.
            self.moving.reset();
        }
        match msg {
            ServerMsg::RoomJoined { room, you, .. } => {
                self.report.room = Some(room.clone());
                self.report.player_id.clone_from(&you.player_id);
                self.resume_race();
                self.maybe_start();
            }
            ServerMsg::PlayerJoined { .. } | ServerMsg::HostChanged { .. } => self.maybe_start(),
            ServerMsg::RaceStarted {
                race_id, puzzle, ..
            } => {
                // The mirror has read the race's variant and layout.
                let geometry = self.mirror.race().map(|r| r.geometry.clone());
                let geometry = geometry.unwrap_or_else(|| Geometry::classic().clone());
                self.begin(race_id.clone(), *puzzle, *puzzle, &geometry);
            }
            ServerMsg::Placement {
                id,
                cell,
                accepted,
                reason,
                ..
            } => self.placement_answered(id.as_ref(), *cell, *accepted, *reason),
            ServerMsg::PlayerFinished {
                player_id,
                status,
                time_ms,
            } if self.mirror.me().is_some_and(|me| me == player_id) => {
                if let Some(r) = self.race.as_mut() {
                    r.out = Some((*status, *time_ms));
                }
                self.in_flight = None;
            }
            ServerMsg::RaceOver {
                race_id, standings, ..
            } => self.race_over(race_id, standings),
            ServerMsg::Error {
                code: ErrorCode::RoomMoving,
                retry_ms,
                ..
            } => self.room_moving(*retry_ms),
            ServerMsg::Error { code, message, .. } => self.on_error(*code, message),
            ServerMsg::RoomClosed { .. } => self.error = Some(BotError::RoomClosed),
            _ => {}
        }
        Vec::new()
    }

    /// Joined a room with a race on: play it from the server's board, unless it is the race we
    /// were already in and out of.
    fn resume_race(&mut self) {
        let Some(rv) = self.mirror.race() else {
            return;
        };
        let (race_id, puzzle, board) = (rv.race_id.clone(), rv.puzzle, rv.board);
        let geometry = rv.geometry.clone();
        let same = self.race.as_ref().is_some_and(|r| r.race_id == race_id);
        if !same || self.race.as_ref().is_some_and(|r| r.out.is_none()) {
            // A resume: continue from the server's board.
            let out = self.race.as_ref().and_then(|r| r.out);
            self.begin(race_id, puzzle, board, &geometry);
            if let Some(r) = self.race.as_mut() {
                r.out = out;
            }
        }
    }

    /// The answer to a placement: the cell is done, or (a wrong digit) corrected next.
    fn placement_answered(
        &mut self,
        id: Option<&MsgId>,
        cell: Cell,
        accepted: bool,
        reason: Option<PlaceReason>,
    ) {
        let answered = id.and_then(MsgId::as_u64);
        if self.in_flight.map(|(i, _, _)| i) == answered {
            self.in_flight = None;
            self.resend = false;
        }
        if let Some(r) = self.race.as_mut() {
            r.todo.retain(|t| t.cell != cell);
            // `given` and `filled` judge nothing of ours: a copy of a placement the room took.
            let judged =
                accepted || !matches!(reason, Some(PlaceReason::Given) | Some(PlaceReason::Filled));
            if judged {
                self.report.placements += 1;
            }
            if judged && !accepted {
                self.report.mistakes += 1;
                // A person told "wrong" looks again at that cell, and now gets it right.
                r.todo.push(Planned {
                    cell,
                    looks: pace::look(Tier::NakedSingle),
                    fix: true,
                });
            }
            if r.out.is_none() {
                self.wake = Some(self.think_time());
            }
        }
    }

    /// `race_over`: the race goes into the report, and a room-host bot may start the next one.
    fn race_over(&mut self, race_id: &RaceId, standings: &[Standing]) {
        let mine = self
            .mirror
            .me()
            .and_then(|me| standings.iter().find(|s| s.player_id == *me));
        self.report.races.push(RaceResult {
            race_id: race_id.clone(),
            status: mine.map(|s| s.status),
            time_ms: mine.and_then(|s| s.time_ms),
            standings: standings.to_vec(),
        });
        if let Some(r) = self.race.as_mut() {
            r.out.get_or_insert((
                mine.map_or(FinishStatus::TimedOut, |s| s.status),
                mine.and_then(|s| s.time_ms),
            ));
        }
        self.in_flight = None;
        info!(race = %race_id, status = ?mine.map(|s| s.status), "race over");
        self.maybe_start();
    }

    /// `room_moving` (A12): the room's server was lost and another is taking it over; the
    /// placement was not taken. It goes again after `retry_ms` at the soonest, backing off while
    /// the room keeps moving (a `room_joined` from the new server replans from its board).
    fn room_moving(&mut self, retry_ms: Option<u64>) {
        self.report.room_moving += 1;
        if self.in_flight.is_some() {
            self.resend = true;
        }
        self.wake = Some(self.moving.next(retry_ms, self.rng.gen()));
    }

    fn on_error(&mut self, code: ErrorCode, message: &str) {
        match code {
            ErrorCode::RateLimited => {
                self.report.rate_limited += 1;
                if self.in_flight.is_some() {
                    self.resend = true;
                }
                self.wake = Some(RATE_LIMIT_PAUSE);
            }
            // A9: the server is restarting; the connection task has let the socket go.
            ErrorCode::ServerDraining => {
                self.error = Some(BotError::Refused {
                    code: code.as_str(),
                    message: message.to_owned(),
                });
            }
            ErrorCode::UnknownRoom
            | ErrorCode::RoomFull
            | ErrorCode::RaceInProgress
            | ErrorCode::InvalidName
            | ErrorCode::NameTaken
            | ErrorCode::InvalidSettings
            | ErrorCode::InvalidToken
            | ErrorCode::ServerFull
                if self.mirror.me().is_none() || code == ErrorCode::InvalidToken =>
            {
                self.error = Some(BotError::Refused {
                    code: code.as_str(),
                    message: message.to_owned(),
                });
            }
            _ => {
                debug!(code = code.as_str(), %message, "error");
                if self.in_flight.take().is_some() {
                    self.wake = Some(self.think_time());
                }
            }
        }
    }

    /// The next message to send when the wake-up time has come, if any.
    pub fn next_move(&mut self) -> Option<ClientMsg> {
        if self.start_wanted {
            self.start_wanted = false;
            if self.am_room_host() {
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
        let next = *r.todo.last()?;
        let cell = next.cell;
        let right = solution.get(cell)?;
        let digit = if self.may_slip(&next) && self.config.style.slips(&mut self.rng) {
            let wrong: Vec<Digit> = Digit::all().filter(|&d| d != right).collect();
            *wrong.choose(&mut self.rng)?
        } else {
            right
        };
        let id = self.next_id;
        self.next_id += 1;
        self.in_flight = Some((id, cell, digit));
        Some(place(id, cell, digit))
    }
}

/// The one solution of `puzzle` by the rules of `geometry`, if it has exactly one.
fn solve(geometry: &Geometry, puzzle: &Grid) -> Option<Grid> {
    if geometry.is_classic() {
        return solver::solve_unique(puzzle)
            .map_err(
                |e| warn!(error = %e, "the puzzle has no unique solution; the bot will forfeit"),
            )
            .ok();
    }
    let mut found = solver::geometric::solutions_in(geometry, puzzle, 2);
    if found.len() != 1 {
        warn!(solutions = found.len(), variant = %geometry.variant(), "the puzzle has no unique solution; the bot will forfeit");
        return None;
    }
    found.pop()
}

fn place(id: u64, cell: Cell, digit: Digit) -> ClientMsg {
    ClientMsg::Place {
        cell: i64::from(cell.get()),
        digit: i64::from(digit.get()),
        id: Some(MsgId::Number(id.into())),
    }
}
