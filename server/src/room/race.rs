//! The room's rules as a plain state machine: seats, spectators, phases
//! (Lobby -> Countdown -> Racing -> Finished -> Countdown for a rematch), placements, standings,
//! held seats and host hand-over.
//!
//! It does no IO: every method takes the current `tokio::time::Instant` and pushes
//! [`Effect`]s (messages to send, connections to close, results to store) that the room task
//! carries out in order. Unit tests drive it directly, without sockets.

use std::sync::Arc;
use std::time::Duration;

use protocol::{
    ErrorCode, FinishStatus, MsgId, OverReason, Phase, PlaceReason, Player, PlayerId, PlayerName,
    PlayerStatus, Progress, RaceId, RaceView, ResumeToken, Role, RoomCode, ServerMsg, Settings,
    Standing, You,
};
use rand::Rng;
use shared::engine::validator::placement_conflicts;
use shared::engine::{Cell, Digit, Grid};
use tokio::time::Instant;

use crate::metrics::Metrics;
use crate::store::{PlacementRecord, RaceRecord};

/// A connection, as the room knows it.
pub type ConnId = u64;

/// A puzzle dealt to a race, with its solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dealt {
    /// The puzzle (givens only).
    pub puzzle: Grid,
    /// Its unique solution.
    pub solution: Grid,
}

/// Something the room task must do, in order.
// `Send` is by far the most common effect; boxing its message would add an allocation to
// every broadcast to shrink the rare ones.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Effect {
    /// Send `msg` to these connections (serialized once).
    Send(Vec<ConnId>, ServerMsg),
    /// The connection is no longer in this room.
    Detach(ConnId),
    /// The connection is no longer in this room: close it with this WebSocket close code.
    Close(ConnId, u16),
    /// Ask the puzzle pool for a puzzle of the room's difficulty for this race.
    NeedPuzzle(RaceId),
    /// Store a finished race before carrying out any later effect.
    Store(Box<RaceRecord>),
    /// A seat's resume token now exists.
    TokenIssued(ResumeToken),
    /// A seat's resume token no longer works.
    TokenRevoked(ResumeToken),
}

/// Timers and names the room needs from the server config.
#[derive(Clone, Debug)]
pub struct RoomOpts {
    /// How long `start_race` counts down.
    pub countdown: Duration,
    /// How long a dropped seat is held.
    pub resume_grace: Duration,
}

#[derive(Debug)]
struct Seat {
    player_id: PlayerId,
    name: PlayerName,
    token: ResumeToken,
    conn: Option<ConnId>,
    ready: bool,
    status: PlayerStatus,
    dropped_at: Option<Instant>,
}

impl Seat {
    fn player(&self) -> Player {
        Player {
            player_id: self.player_id.clone(),
            name: self.name.clone(),
            ready: self.ready,
            connected: self.conn.is_some(),
            status: self.status,
        }
    }
}

#[derive(Debug)]
struct Spectator {
    conn: ConnId,
    name: PlayerName,
}

#[derive(Debug)]
struct Entry {
    player_id: PlayerId,
    name: PlayerName,
    board: Grid,
    filled: u32,
    mistakes: u32,
    status: PlayerStatus,
    time_ms: Option<u64>,
}

#[derive(Debug)]
struct Race {
    race_id: RaceId,
    dealt: Dealt,
    started_at: Instant,
    started_unix_ms: i64,
    ended_at: Option<Instant>,
    to_fill: u32,
    entries: Vec<Entry>,
    log: Vec<PlacementRecord>,
}

// One room has one state; its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
enum State {
    Lobby,
    Countdown {
        race_id: RaceId,
        ends_at: Instant,
        dealt: Option<Dealt>,
    },
    Racing,
    Finished,
}

/// One room's whole state.
#[derive(Debug)]
pub struct Room {
    code: RoomCode,
    settings: Settings,
    opts: RoomOpts,
    metrics: Arc<Metrics>,
    host: PlayerId,
    seats: Vec<Seat>,
    spectators: Vec<Spectator>,
    state: State,
    race: Option<Race>,
    next_player: u32,
    fx: Vec<Effect>,
}

enum Member {
    Seat(usize),
    Spectator(usize),
}

/// A fresh unguessable token: 128 random bits from the thread's CSPRNG, as 32 hex digits.
pub fn new_token() -> ResumeToken {
    ResumeToken::from(format!("{:032x}", rand::thread_rng().gen::<u128>()))
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn finish_status(s: PlayerStatus) -> FinishStatus {
    match s {
        PlayerStatus::Solved => FinishStatus::Solved,
        PlayerStatus::Eliminated => FinishStatus::Eliminated,
        PlayerStatus::TimedOut => FinishStatus::TimedOut,
        // Racing and Waiting never reach the standings; a leaver is forfeited.
        PlayerStatus::Forfeited | PlayerStatus::Racing | PlayerStatus::Waiting => {
            FinishStatus::Forfeited
        }
    }
}

fn reason_str(r: Option<PlaceReason>) -> &'static str {
    match r {
        None => "accepted",
        Some(PlaceReason::Wrong) => "wrong",
        Some(PlaceReason::Conflict) => "conflict",
        Some(PlaceReason::Given) => "given",
        Some(PlaceReason::Filled) => "filled",
    }
}

/// The cells on `board` that hold `digit` in the row, column or box of `cell`.
fn clashes(board: &Grid, cell: Cell, digit: Digit) -> Vec<Cell> {
    placement_conflicts(board, cell, digit)
}

/// Standings by the contract: solved first by time, then by filled (more first), then
/// mistakes (fewer first); equal rows share a rank and the next rank skips. The rows come in
/// unranked (their `rank` is set here) and `time_ms` is kept only for solved players.
pub fn standings(mut rows: Vec<Standing>) -> Vec<Standing> {
    type Key = (u8, u64, u32, u32);
    let key = |r: &Standing| -> Key {
        match (r.status, r.time_ms) {
            (FinishStatus::Solved, Some(t)) => (0, t, 0, 0),
            _ => (1, 0, u32::MAX - r.filled, r.mistakes),
        }
    };
    rows.sort_by_key(key);
    let mut prev: Option<(Key, u32)> = None;
    for (i, r) in rows.iter_mut().enumerate() {
        let k = key(r);
        r.rank = match prev {
            Some((p, rank)) if p == k => rank,
            _ => i as u32 + 1,
        };
        prev = Some((k, r.rank));
        if r.status != FinishStatus::Solved {
            r.time_ms = None;
        }
    }
    rows
}

impl Room {
    /// An empty room; the first player to join becomes its host.
    pub fn new(code: RoomCode, settings: Settings, opts: RoomOpts, metrics: Arc<Metrics>) -> Room {
        Room {
            code,
            settings,
            opts,
            metrics,
            host: PlayerId::from(""),
            seats: Vec::new(),
            spectators: Vec::new(),
            state: State::Lobby,
            race: None,
            next_player: 1,
            fx: Vec::new(),
        }
    }

    /// The effects pushed since the last call, in order.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.fx)
    }

    /// The room code.
    pub fn code(&self) -> &RoomCode {
        &self.code
    }

    /// The room's settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The phase on the wire.
    pub fn phase(&self) -> Phase {
        match self.state {
            State::Lobby => Phase::Lobby,
            State::Countdown { .. } => Phase::Countdown,
            State::Racing => Phase::Racing,
            State::Finished => Phase::Finished,
        }
    }

    /// Seats, held ones included.
    pub fn n_players(&self) -> usize {
        self.seats.len()
    }

    /// No seats left (held ones included): the room is to be removed.
    pub fn is_empty(&self) -> bool {
        self.seats.is_empty()
    }

    /// Whether `conn` is in this room.
    pub fn has_conn(&self, conn: ConnId) -> bool {
        self.member(conn).is_some()
    }

    /// The player id of the seat `conn` holds, if any.
    pub fn player_id_of(&self, conn: ConnId) -> Option<&str> {
        self.seats
            .iter()
            .find(|s| s.conn == Some(conn))
            .map(|s| s.player_id.as_str())
    }

    /// The next moment [`Room::tick`] has something to do.
    pub fn next_deadline(&self) -> Option<Instant> {
        let mut next: Option<Instant> = None;
        let mut consider = |t: Instant| next = Some(next.map_or(t, |n: Instant| n.min(t)));
        match &self.state {
            State::Countdown {
                ends_at,
                dealt: Some(_),
                ..
            } => consider(*ends_at),
            State::Racing => {
                if let Some(r) = &self.race {
                    consider(r.started_at + self.time_limit());
                }
            }
            _ => {}
        }
        for s in &self.seats {
            if let Some(d) = s.dropped_at {
                consider(d + self.opts.resume_grace);
            }
        }
        next
    }

    fn time_limit(&self) -> Duration {
        Duration::from_secs(u64::from(self.settings.time_limit_s))
    }

    fn member(&self, conn: ConnId) -> Option<Member> {
        if let Some(i) = self.seats.iter().position(|s| s.conn == Some(conn)) {
            return Some(Member::Seat(i));
        }
        self.spectators
            .iter()
            .position(|s| s.conn == conn)
            .map(Member::Spectator)
    }

    fn audience(&self) -> Vec<ConnId> {
        self.seats
            .iter()
            .filter_map(|s| s.conn)
            .chain(self.spectators.iter().map(|s| s.conn))
            .collect()
    }

    fn send_all(&mut self, msg: ServerMsg) {
        let to = self.audience();
        self.fx.push(Effect::Send(to, msg));
    }

    fn send_all_except(&mut self, conn: ConnId, msg: ServerMsg) {
        let mut to = self.audience();
        to.retain(|&c| c != conn);
        self.fx.push(Effect::Send(to, msg));
    }

    fn send(&mut self, conn: ConnId, msg: ServerMsg) {
        self.fx.push(Effect::Send(vec![conn], msg));
    }

    fn error(&mut self, conn: ConnId, code: ErrorCode, message: impl Into<String>) {
        self.send(
            conn,
            ServerMsg::Error {
                code,
                message: message.into(),
            },
        );
    }

    fn progress(&self, e: &Entry) -> Progress {
        Progress {
            player_id: e.player_id.clone(),
            filled: e.filled,
            to_fill: self.race.as_ref().map_or(0, |r| r.to_fill),
            mistakes: e.mistakes,
        }
    }

    fn race_view(&self, viewer: Option<&str>, now: Instant) -> Option<RaceView> {
        match &self.state {
            State::Lobby => None,
            State::Countdown { race_id, .. } => Some(RaceView {
                race_id: race_id.clone(),
                puzzle: None,
                difficulty: self.settings.difficulty,
                time_limit_s: self.settings.time_limit_s,
                elapsed_ms: 0,
                board: None,
                mistakes: 0,
                progress: Vec::new(),
            }),
            State::Racing | State::Finished => {
                let race = self.race.as_ref()?;
                let end = race.ended_at.unwrap_or(now);
                let entry = viewer.and_then(|id| race.entries.iter().find(|e| e.player_id == id));
                Some(RaceView {
                    race_id: race.race_id.clone(),
                    puzzle: Some(race.dealt.puzzle),
                    difficulty: self.settings.difficulty,
                    time_limit_s: self.settings.time_limit_s,
                    elapsed_ms: ms(end.saturating_duration_since(race.started_at)),
                    board: entry.map(|e| e.board),
                    mistakes: entry.map_or(0, |e| e.mistakes),
                    progress: race.entries.iter().map(|e| self.progress(e)).collect(),
                })
            }
        }
    }

    fn room_joined(&self, you: You, now: Instant) -> ServerMsg {
        let viewer = you.player_id.clone();
        ServerMsg::RoomJoined {
            room: self.code.clone(),
            you,
            host: self.host.clone(),
            settings: self.settings.clone(),
            phase: self.phase(),
            players: self.seats.iter().map(Seat::player).collect(),
            race: self.race_view(viewer.as_deref(), now),
        }
    }

    /// A connection joins as a player or spectator. Returns whether it is now in the room
    /// (errors are sent to it as effects).
    pub fn join(&mut self, conn: ConnId, raw_name: Option<&str>, role: Role, now: Instant) -> bool {
        if self.has_conn(conn) {
            self.error(conn, ErrorCode::AlreadyInRoom, "already in this room");
            return false;
        }
        let name = match PlayerName::try_from(raw_name.unwrap_or("spectator")) {
            Ok(n) => n,
            Err(why) => {
                self.error(conn, ErrorCode::InvalidName, why.to_string());
                return false;
            }
        };
        if role == Role::Spectator {
            self.spectators.push(Spectator { conn, name });
            let you = You {
                player_id: None,
                token: None,
                role: Role::Spectator,
            };
            let msg = self.room_joined(you, now);
            self.send(conn, msg);
            return true;
        }
        if matches!(self.state, State::Countdown { .. } | State::Racing) {
            self.error(
                conn,
                ErrorCode::RaceInProgress,
                "a race is in progress; spectate instead",
            );
            return false;
        }
        if self.seats.len() >= usize::from(self.settings.max_players) {
            self.error(conn, ErrorCode::RoomFull, "the room is full");
            return false;
        }
        if self
            .seats
            .iter()
            .any(|s| s.name.to_lowercase() == name.to_lowercase())
        {
            self.error(
                conn,
                ErrorCode::NameTaken,
                "that name is taken in this room",
            );
            return false;
        }
        let player_id = PlayerId::from(format!("p{}", self.next_player));
        self.next_player += 1;
        let token = new_token();
        if self.seats.is_empty() {
            self.host = player_id.clone();
        }
        self.seats.push(Seat {
            player_id: player_id.clone(),
            name,
            token: token.clone(),
            conn: Some(conn),
            ready: false,
            status: PlayerStatus::Waiting,
            dropped_at: None,
        });
        self.fx.push(Effect::TokenIssued(token.clone()));
        let you = You {
            player_id: Some(player_id),
            token: Some(token),
            role: Role::Player,
        };
        let msg = self.room_joined(you, now);
        self.send(conn, msg);
        let player = self.seats[self.seats.len() - 1].player();
        self.send_all_except(conn, ServerMsg::PlayerJoined { player });
        true
    }

    /// A connection takes back the seat `token` belongs to.
    pub fn resume(&mut self, conn: ConnId, token: &str, now: Instant) -> bool {
        if self.has_conn(conn) {
            self.error(conn, ErrorCode::AlreadyInRoom, "already in this room");
            return false;
        }
        let Some(i) = self.seats.iter().position(|s| s.token == token) else {
            self.error(conn, ErrorCode::InvalidToken, "unknown or expired token");
            return false;
        };
        let old = self.seats[i].conn.replace(conn);
        let was_dropped = self.seats[i].dropped_at.take().is_some();
        if let Some(old) = old {
            self.fx.push(Effect::Close(old, 1000));
        }
        let you = You {
            player_id: Some(self.seats[i].player_id.clone()),
            token: Some(self.seats[i].token.clone()),
            role: Role::Player,
        };
        let msg = self.room_joined(you, now);
        self.send(conn, msg);
        if was_dropped || old.is_none() {
            let player = self.seats[i].player();
            self.send_all_except(conn, ServerMsg::PlayerUpdated { player });
        }
        true
    }

    /// A connection's transport dropped: a player's seat is held, a spectator is gone.
    pub fn dropped(&mut self, conn: ConnId, now: Instant) {
        match self.member(conn) {
            Some(Member::Seat(i)) => {
                let seat = &mut self.seats[i];
                seat.conn = None;
                seat.dropped_at = Some(now);
                let player = seat.player();
                self.send_all(ServerMsg::PlayerUpdated { player });
            }
            Some(Member::Spectator(i)) => {
                self.spectators.remove(i);
            }
            None => {}
        }
    }

    /// A connection leaves on purpose. Returns whether it was in the room.
    pub fn leave(&mut self, conn: ConnId, now: Instant) -> bool {
        match self.member(conn) {
            Some(Member::Seat(i)) => {
                self.send(
                    conn,
                    ServerMsg::PlayerLeft {
                        player_id: self.seats[i].player_id.clone(),
                    },
                );
                self.fx.push(Effect::Detach(conn));
                self.seats[i].conn = None;
                self.remove_seat(i, now);
                true
            }
            Some(Member::Spectator(i)) => {
                self.spectators.remove(i);
                self.fx.push(Effect::Detach(conn));
                true
            }
            None => false,
        }
    }

    /// Remove seat `i` (left or expired): forfeit its race, hand over the host, end the race
    /// or close the room when that follows.
    fn remove_seat(&mut self, i: usize, now: Instant) {
        let seat = self.seats.remove(i);
        self.fx.push(Effect::TokenRevoked(seat.token.clone()));
        if matches!(self.state, State::Racing) {
            if let Some(race) = self.race.as_mut() {
                if let Some(e) = race
                    .entries
                    .iter_mut()
                    .find(|e| e.player_id == seat.player_id && e.status == PlayerStatus::Racing)
                {
                    e.status = PlayerStatus::Forfeited;
                    self.send_all(ServerMsg::PlayerFinished {
                        player_id: seat.player_id.clone(),
                        status: FinishStatus::Forfeited,
                        time_ms: None,
                    });
                }
            }
        }
        self.send_all(ServerMsg::PlayerLeft {
            player_id: seat.player_id.clone(),
        });
        if seat.player_id == self.host {
            if let Some(next) = self.seats.first() {
                self.host = next.player_id.clone();
                let player_id = self.host.clone();
                self.send_all(ServerMsg::HostChanged { player_id });
            }
        }
        self.check_race_end(now);
        if self.seats.is_empty() {
            if let State::Countdown { .. } = self.state {
                self.state = State::Lobby;
            }
            let room = self.code.clone();
            let specs: Vec<ConnId> = self.spectators.drain(..).map(|s| s.conn).collect();
            self.fx
                .push(Effect::Send(specs.clone(), ServerMsg::RoomClosed { room }));
            for c in specs {
                self.fx.push(Effect::Detach(c));
            }
        }
    }

    fn seat_of(&mut self, conn: ConnId) -> Option<usize> {
        match self.member(conn) {
            Some(Member::Seat(i)) => Some(i),
            Some(Member::Spectator(_)) => {
                self.error(conn, ErrorCode::NotPlayer, "spectators cannot do that");
                None
            }
            None => {
                self.error(conn, ErrorCode::NotInRoom, "not in a room");
                None
            }
        }
    }

    /// `set_ready` from `conn`.
    pub fn set_ready(&mut self, conn: ConnId, ready: bool) {
        let Some(i) = self.seat_of(conn) else { return };
        if !matches!(self.state, State::Lobby) {
            self.error(conn, ErrorCode::WrongPhase, "ready marks are for the lobby");
            return;
        }
        self.seats[i].ready = ready;
        let player = self.seats[i].player();
        self.send_all(ServerMsg::PlayerUpdated { player });
    }

    /// `start_race` from `conn`: the host starts the countdown.
    pub fn start_race(&mut self, conn: ConnId, now: Instant) {
        let Some(i) = self.seat_of(conn) else { return };
        if self.seats[i].player_id != self.host {
            self.error(conn, ErrorCode::NotHost, "only the host can start the race");
            return;
        }
        if !matches!(self.state, State::Lobby | State::Finished) {
            self.error(conn, ErrorCode::WrongPhase, "a race is already under way");
            return;
        }
        let race_id = RaceId::from(format!(
            "{}-{:016x}",
            self.code,
            rand::thread_rng().gen::<u64>()
        ));
        self.state = State::Countdown {
            race_id: race_id.clone(),
            ends_at: now + self.opts.countdown,
            dealt: None,
        };
        for s in &mut self.seats {
            s.status = PlayerStatus::Waiting;
        }
        self.send_all(ServerMsg::Countdown {
            starts_in_ms: ms(self.opts.countdown),
        });
        self.fx.push(Effect::NeedPuzzle(race_id));
    }

    /// The pool delivered the puzzle for `race_id`.
    pub fn puzzle_ready(&mut self, race_id: &RaceId, puzzle: Dealt, now: Instant) {
        if let State::Countdown {
            race_id: id, dealt, ..
        } = &mut self.state
        {
            if id == race_id {
                *dealt = Some(puzzle);
            }
        }
        self.tick(now);
    }

    /// Carry out whatever is due at `now`: race start, time limit, expired seats.
    pub fn tick(&mut self, now: Instant) {
        if let State::Countdown {
            race_id,
            ends_at,
            dealt: Some(dealt),
        } = &self.state
        {
            if now >= *ends_at {
                let (race_id, dealt) = (race_id.clone(), *dealt);
                self.begin_race(race_id, dealt, now);
            }
        }
        if matches!(self.state, State::Racing) {
            if let Some(r) = &self.race {
                if now >= r.started_at + self.time_limit() {
                    self.finish_race(OverReason::TimeLimit, now);
                }
            }
        }
        while let Some(i) = self.seats.iter().position(|s| {
            s.dropped_at
                .is_some_and(|d| now >= d + self.opts.resume_grace)
        }) {
            self.remove_seat(i, now);
        }
    }

    fn begin_race(&mut self, race_id: RaceId, dealt: Dealt, now: Instant) {
        let to_fill = dealt.puzzle.n_empty() as u32;
        let entries = self
            .seats
            .iter_mut()
            .map(|s| {
                s.status = PlayerStatus::Racing;
                Entry {
                    player_id: s.player_id.clone(),
                    name: s.name.clone(),
                    board: dealt.puzzle,
                    filled: 0,
                    mistakes: 0,
                    status: PlayerStatus::Racing,
                    time_ms: None,
                }
            })
            .collect();
        let started_unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        self.race = Some(Race {
            race_id: race_id.clone(),
            dealt,
            started_at: now,
            started_unix_ms,
            ended_at: None,
            to_fill,
            entries,
            log: Vec::new(),
        });
        self.state = State::Racing;
        self.metrics.races_started.inc();
        tracing::info!(room = %self.code, %race_id, "race started");
        self.send_all(ServerMsg::RaceStarted {
            race_id,
            puzzle: dealt.puzzle,
            difficulty: self.settings.difficulty,
            time_limit_s: self.settings.time_limit_s,
        });
    }

    fn racing_entry(&mut self, conn: ConnId) -> Option<(usize, usize)> {
        let i = self.seat_of(conn)?;
        if !matches!(self.state, State::Racing) {
            self.error(conn, ErrorCode::WrongPhase, "no race is running");
            return None;
        }
        let id = self.seats[i].player_id.clone();
        let e = self.race.as_ref().and_then(|r| {
            r.entries
                .iter()
                .position(|e| e.player_id == id && e.status == PlayerStatus::Racing)
        });
        if e.is_none() {
            self.error(conn, ErrorCode::WrongPhase, "you are not racing");
        }
        Some((i, e?))
    }

    /// `place` from `conn`: rule 2, then rules 3 and 4.
    pub fn place(
        &mut self,
        conn: ConnId,
        cell: Cell,
        digit: Digit,
        id: Option<MsgId>,
        now: Instant,
    ) {
        let Some((seat, ei)) = self.racing_entry(conn) else {
            return;
        };
        let penalty_ms_each = u64::from(self.settings.penalty_s) * 1000;
        let max_mistakes = u32::from(self.settings.max_mistakes);
        let Some(race) = self.race.as_mut() else {
            return;
        };
        let at_ms = ms(now.saturating_duration_since(race.started_at));
        let e = &mut race.entries[ei];
        let mut conflicts = Vec::new();
        let reason = if race.dealt.puzzle.get(cell).is_some() {
            Some(PlaceReason::Given)
        } else if e.board.get(cell).is_some() {
            Some(PlaceReason::Filled)
        } else {
            conflicts = clashes(&e.board, cell, digit);
            if !conflicts.is_empty() {
                Some(PlaceReason::Conflict)
            } else if race.dealt.solution.get(cell) != Some(digit) {
                Some(PlaceReason::Wrong)
            } else {
                None
            }
        };
        match reason {
            None => {
                e.board.set(cell, Some(digit));
                e.filled += 1;
            }
            Some(PlaceReason::Wrong | PlaceReason::Conflict) => e.mistakes += 1,
            Some(_) => {}
        }
        race.log.push(PlacementRecord {
            player_id: e.player_id.to_string(),
            at_ms,
            cell: cell.get(),
            digit: digit.get(),
            outcome: reason_str(reason),
        });
        self.metrics.placement(reason);
        let penalty_ms = u64::from(e.mistakes) * penalty_ms_each;
        let changed = !matches!(reason, Some(PlaceReason::Given | PlaceReason::Filled));
        let mut finished = None;
        if reason.is_none() && e.filled == race.to_fill {
            e.status = PlayerStatus::Solved;
            e.time_ms = Some(at_ms + penalty_ms);
            finished = Some((FinishStatus::Solved, e.time_ms));
        } else if changed && reason.is_some() && max_mistakes > 0 && e.mistakes >= max_mistakes {
            e.status = PlayerStatus::Eliminated;
            finished = Some((FinishStatus::Eliminated, None));
        }
        let mistakes = e.mistakes;
        let player_id = e.player_id.clone();
        let progress = changed.then(|| Progress {
            player_id: e.player_id.clone(),
            filled: e.filled,
            to_fill: race.to_fill,
            mistakes: e.mistakes,
        });
        let solution = race.dealt.solution;
        self.send(
            conn,
            ServerMsg::Placement {
                id,
                cell,
                digit,
                accepted: reason.is_none(),
                reason,
                conflicts,
                mistakes,
                penalty_ms,
            },
        );
        if let Some(p) = progress {
            self.send_all(ServerMsg::Progress(p));
        }
        if let Some((status, time_ms)) = finished {
            self.seats[seat].status = status.into();
            self.send_all(ServerMsg::PlayerFinished {
                player_id,
                status,
                time_ms,
            });
            if status == FinishStatus::Eliminated {
                self.send(conn, ServerMsg::Solution { solution });
            }
            self.check_race_end(now);
        }
    }

    /// `forfeit` from `conn`.
    pub fn forfeit(&mut self, conn: ConnId, now: Instant) {
        let Some((seat, ei)) = self.racing_entry(conn) else {
            return;
        };
        let Some(race) = self.race.as_mut() else {
            return;
        };
        race.entries[ei].status = PlayerStatus::Forfeited;
        let player_id = race.entries[ei].player_id.clone();
        let solution = race.dealt.solution;
        self.seats[seat].status = PlayerStatus::Forfeited;
        self.send_all(ServerMsg::PlayerFinished {
            player_id,
            status: FinishStatus::Forfeited,
            time_ms: None,
        });
        self.send(conn, ServerMsg::Solution { solution });
        self.check_race_end(now);
    }

    /// `chat` from `conn` (text already checked for length).
    pub fn chat(&mut self, conn: ConnId, text: String) {
        let (player_id, name) = match self.member(conn) {
            Some(Member::Seat(i)) => (
                Some(self.seats[i].player_id.clone()),
                self.seats[i].name.clone(),
            ),
            Some(Member::Spectator(i)) => (None, self.spectators[i].name.clone()),
            None => {
                self.error(conn, ErrorCode::NotInRoom, "not in a room");
                return;
            }
        };
        self.send_all(ServerMsg::Chat {
            player_id,
            name,
            text,
        });
    }

    fn check_race_end(&mut self, now: Instant) {
        if !matches!(self.state, State::Racing) {
            return;
        }
        let all_done = self
            .race
            .as_ref()
            .is_some_and(|r| r.entries.iter().all(|e| e.status != PlayerStatus::Racing));
        if all_done {
            self.finish_race(OverReason::AllDone, now);
        }
    }

    /// End the race: time out whoever still races, store the result, then announce it.
    fn finish_race(&mut self, reason: OverReason, now: Instant) {
        self.end_race(
            match reason {
                OverReason::AllDone => "all_done",
                OverReason::TimeLimit => "time_limit",
            },
            now,
            true,
        );
    }

    fn end_race(&mut self, reason: &'static str, now: Instant, announce: bool) {
        let Some(race) = self.race.as_mut() else {
            return;
        };
        let mut timed_out = Vec::new();
        for e in race.entries.iter_mut() {
            if e.status == PlayerStatus::Racing {
                e.status = PlayerStatus::TimedOut;
                timed_out.push(e.player_id.clone());
            }
        }
        race.ended_at = Some(now);
        let rows: Vec<_> = race
            .entries
            .iter()
            .map(|e| Standing {
                rank: 0,
                player_id: e.player_id.clone(),
                name: e.name.clone(),
                status: finish_status(e.status),
                time_ms: e.time_ms,
                filled: e.filled,
                mistakes: e.mistakes,
            })
            .collect();
        let table = standings(rows);
        let record = RaceRecord {
            race_id: race.race_id.to_string(),
            room: self.code.to_string(),
            difficulty: self.settings.difficulty.as_str(),
            puzzle: race.dealt.puzzle.to_line(),
            solution: race.dealt.solution.to_line(),
            started_unix_ms: race.started_unix_ms,
            duration_ms: ms(now.saturating_duration_since(race.started_at)),
            reason,
            standings: table.clone(),
            placements: std::mem::take(&mut race.log),
        };
        let race_id = race.race_id.clone();
        let solution = race.dealt.solution;
        for s in &mut self.seats {
            if timed_out.contains(&s.player_id) {
                s.status = PlayerStatus::TimedOut;
            }
        }
        self.state = State::Finished;
        tracing::info!(room = %self.code, %race_id, reason, "race over");
        if announce {
            for player_id in timed_out {
                self.send_all(ServerMsg::PlayerFinished {
                    player_id,
                    status: FinishStatus::TimedOut,
                    time_ms: None,
                });
            }
        }
        self.fx.push(Effect::Store(Box::new(record)));
        if announce {
            let reason = if reason == "time_limit" {
                OverReason::TimeLimit
            } else {
                OverReason::AllDone
            };
            self.send_all(ServerMsg::RaceOver {
                race_id,
                reason,
                standings: table,
                solution,
            });
        }
    }

    /// The server is stopping: a running race is stored (reason `shutdown`, still-racing
    /// players as `timed_out`) without announcement; connections are closed by their tasks.
    pub fn shutdown(&mut self, now: Instant) {
        if matches!(self.state, State::Racing) {
            self.end_race("shutdown", now, false);
        }
    }
}

#[cfg(test)]
mod tests;
