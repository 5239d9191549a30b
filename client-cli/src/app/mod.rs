//! The online app's state and its update function: lobby, countdown, race, results.
//!
//! [`App::update`] takes one [`Event`] (a key, a server message, a tick of the local clock)
//! and returns the [`Effect`]s for the run loop (messages to send, quit). It does no IO, so
//! tests drive it with recorded server messages. Rendering (`crate::ui`) reads `&App` only.

pub mod board;
pub mod event;

use std::collections::HashMap;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use protocol::{
    ClientMsg, ErrorCode, FinishStatus, MsgId, OverReason, Phase, PlaceReason, Player, PlayerId,
    PlayerName, PlayerStatus, Progress, RaceId, RaceView, Role, RoomCode, ServerMsg, Settings,
    Standing, MAX_CHAT_CHARS,
};
use shared::engine::{Cell, Difficulty, Digit, Grid};

pub use board::BoardState;
pub use event::{Effect, Event};

use crate::net::NetEvent;

/// How long a rejected placement or a notice stays on screen, in ms.
pub const FLASH_MS: u64 = 2500;

/// Chat lines kept.
const CHAT_KEPT: usize = 100;

/// The state of the connection, as the screen shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Conn {
    /// Opening the first connection.
    Connecting,
    /// Connected.
    Online,
    /// Dropped; retrying.
    Reconnecting {
        /// 1 for the first retry.
        attempt: u32,
    },
    /// Over, with the reason when it was not ours.
    Closed(Option<String>),
}

/// A short message in the status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// What to show.
    pub text: String,
    /// Shown as an error.
    pub bad: bool,
    /// Local clock when it disappears.
    pub until_ms: u64,
}

/// One line of chat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatLine {
    /// Speaker's name.
    pub name: PlayerName,
    /// What they said.
    pub text: String,
}

/// A rejected placement, flashed on the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flash {
    /// Where.
    pub cell: Cell,
    /// What was tried.
    pub digit: Digit,
    /// Why the server refused it.
    pub reason: PlaceReason,
    /// The clashing cells (for `conflict`).
    pub conflicts: Vec<Cell>,
    /// Local clock when it fades.
    pub until_ms: u64,
}

/// The race in progress (or just finished) in this room.
#[derive(Clone, Debug, PartialEq)]
pub struct Race {
    /// Opaque race id.
    pub race_id: RaceId,
    /// Difficulty dealt.
    pub difficulty: Difficulty,
    /// Time limit in seconds.
    pub time_limit_s: u32,
    /// Local clock at race time 0.
    pub started_at_ms: u64,
    /// Local clock when the clock stopped for us (our finish, or the race's end).
    pub stopped_at_ms: Option<u64>,
    /// The board, cursor and pencil marks (spectators see the puzzle only).
    pub board: BoardState,
    /// Our mistakes.
    pub mistakes: u32,
    /// Our total penalty.
    pub penalty_ms: u64,
    /// Every player's progress, by player id.
    pub progress: HashMap<PlayerId, Progress>,
    /// Placements sent and not yet answered: (id, cell, digit).
    pub pending: Vec<(u64, Cell, Digit)>,
    /// The last rejected placement.
    pub flash: Option<Flash>,
    /// The solution, once the server sends it (out of the race, or race over).
    pub solution: Option<Grid>,
    /// Our final status and time, once we are out of the race.
    pub finished: Option<(FinishStatus, Option<u64>)>,
}

impl Race {
    fn new(
        race_id: RaceId,
        puzzle: Grid,
        board: Grid,
        difficulty: Difficulty,
        time_limit_s: u32,
        now: u64,
    ) -> Race {
        Race {
            race_id,
            difficulty,
            time_limit_s,
            started_at_ms: now,
            stopped_at_ms: None,
            board: BoardState::new(puzzle, board),
            mistakes: 0,
            penalty_ms: 0,
            progress: HashMap::new(),
            pending: Vec::new(),
            flash: None,
            solution: None,
            finished: None,
        }
    }

    /// Race time shown on the clock at local time `now` (stops at our finish or the time limit).
    pub fn elapsed_ms(&self, now: u64) -> u64 {
        let end = self.stopped_at_ms.unwrap_or(now);
        end.saturating_sub(self.started_at_ms)
            .min(u64::from(self.time_limit_s) * 1000)
    }

    /// The digit pending in `cell`, if a placement there is unanswered.
    pub fn pending_in(&self, cell: Cell) -> Option<Digit> {
        self.pending
            .iter()
            .find(|(_, c, _)| *c == cell)
            .map(|&(_, _, d)| d)
    }
}

/// The final results of the last race.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Results {
    /// Why it ended.
    pub reason: OverReason,
    /// Final standings.
    pub standings: Vec<Standing>,
    /// The solution.
    pub solution: Grid,
}

/// The room we are in.
#[derive(Clone, Debug, PartialEq)]
pub struct Room {
    /// Room code.
    pub code: RoomCode,
    /// Our player id (None for a spectator).
    pub me: Option<PlayerId>,
    /// Player or spectator.
    pub role: Role,
    /// The host's player id.
    pub host: PlayerId,
    /// Room settings.
    pub settings: Settings,
    /// Room phase.
    pub phase: Phase,
    /// Seated players, held seats included, in arrival order.
    pub players: Vec<Player>,
    /// Local clock when the countdown ends.
    pub countdown_until_ms: Option<u64>,
    /// The current or last race.
    pub race: Option<Race>,
    /// Results of the last race.
    pub results: Option<Results>,
}

impl Room {
    /// Whether we are the host.
    pub fn am_host(&self) -> bool {
        self.me.as_deref() == Some(self.host.as_str())
    }

    /// Our player record.
    pub fn me_player(&self) -> Option<&Player> {
        let me = self.me.as_deref()?;
        self.players.iter().find(|p| p.player_id == me)
    }

    /// The name of a player id, if seated.
    pub fn name_of(&self, player_id: &str) -> Option<&str> {
        self.players
            .iter()
            .find(|p| p.player_id == player_id)
            .map(|p| p.name.as_str())
    }

    fn upsert(&mut self, player: Player) {
        match self
            .players
            .iter_mut()
            .find(|p| p.player_id == player.player_id)
        {
            Some(p) => *p = player,
            None => self.players.push(player),
        }
    }
}

/// A key press that needs a second press to take effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Confirm {
    /// Leave the room mid-race.
    Quit,
    /// Give up the race.
    Forfeit,
}

/// The online client's whole state.
#[derive(Clone, Debug, PartialEq)]
pub struct App {
    /// Our display name.
    pub name: String,
    /// What a friend types to join (shown in the lobby with the room code in place of `{code}`).
    pub join_command: Option<String>,
    /// The local clock (ms since start), from the last tick.
    pub clock_ms: u64,
    /// Connection state.
    pub conn: Conn,
    /// The room, once joined.
    pub room: Option<Room>,
    /// Chat, oldest first.
    pub chat: Vec<ChatLine>,
    /// The chat line being typed, when typing.
    pub input: Option<String>,
    /// Status line.
    pub notice: Option<Notice>,
    /// A pending confirmation.
    pub confirm: Option<Confirm>,
    /// Next placement id.
    next_id: u64,
    /// Set when the app wants to end.
    pub quit: bool,
}

/// The direction a navigation key moves the cursor.
pub fn nav_key(code: KeyCode) -> Option<(i8, i8)> {
    match code {
        KeyCode::Left | KeyCode::Char('h') => Some((0, -1)),
        KeyCode::Right | KeyCode::Char('l') => Some((0, 1)),
        KeyCode::Up | KeyCode::Char('k') => Some((-1, 0)),
        KeyCode::Down | KeyCode::Char('j') => Some((1, 0)),
        _ => None,
    }
}

/// The digit a key types, if any.
pub fn digit_key(code: KeyCode) -> Option<Digit> {
    match code {
        KeyCode::Char(c @ '1'..='9') => Digit::new(c as u8 - b'0'),
        _ => None,
    }
}

/// Whether the key erases (pencil marks, or a solo digit).
pub fn erase_key(code: KeyCode) -> bool {
    matches!(
        code,
        KeyCode::Char('0') | KeyCode::Char('x') | KeyCode::Backspace | KeyCode::Delete
    )
}

/// Whether the key is Ctrl-C.
pub fn is_ctrl_c(key: &KeyEvent) -> bool {
    key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c')
}

impl App {
    /// A new app for a player called `name`, before any connection.
    pub fn new(name: impl Into<String>) -> App {
        App {
            name: name.into(),
            join_command: None,
            clock_ms: 0,
            conn: Conn::Connecting,
            room: None,
            chat: Vec::new(),
            input: None,
            notice: None,
            confirm: None,
            next_id: 1,
            quit: false,
        }
    }

    /// Show `join_command` (with `{code}` standing for the room code) in the lobby.
    pub fn with_join_command(mut self, cmd: impl Into<String>) -> App {
        self.join_command = Some(cmd.into());
        self
    }

    fn notify(&mut self, text: impl Into<String>, bad: bool) {
        self.notice = Some(Notice {
            text: text.into(),
            bad,
            until_ms: self.clock_ms + FLASH_MS,
        });
    }

    /// Apply one event; returns what the run loop must do.
    pub fn update(&mut self, event: Event) -> Vec<Effect> {
        match event {
            Event::Tick(now) => {
                self.clock_ms = self.clock_ms.max(now);
                self.expire();
                Vec::new()
            }
            Event::Resize => Vec::new(),
            Event::Net(ev) => self.on_net(ev),
            Event::Key(key) => self.on_key(key),
        }
    }

    fn expire(&mut self) {
        let now = self.clock_ms;
        if self.notice.as_ref().is_some_and(|n| n.until_ms <= now) {
            self.notice = None;
        }
        if let Some(race) = self.room.as_mut().and_then(|r| r.race.as_mut()) {
            if race.flash.as_ref().is_some_and(|f| f.until_ms <= now) {
                race.flash = None;
            }
        }
    }

    fn on_net(&mut self, ev: NetEvent) -> Vec<Effect> {
        match ev {
            NetEvent::Connected { reconnect } => {
                self.conn = Conn::Online;
                if reconnect {
                    self.notify("reconnected", false);
                }
                Vec::new()
            }
            NetEvent::Reconnecting { attempt, .. } => {
                self.conn = Conn::Reconnecting { attempt };
                if let Some(race) = self.room.as_mut().and_then(|r| r.race.as_mut()) {
                    // Unanswered placements are re-sent by the connection task; their answers
                    // may be lost with the old socket, so stop showing them as pending.
                    race.pending.clear();
                }
                Vec::new()
            }
            NetEvent::Closed { error } => {
                match error {
                    None => {
                        self.conn = Conn::Closed(None);
                        self.quit = true;
                        return vec![Effect::Quit];
                    }
                    Some(e) => {
                        self.notice = Some(Notice {
                            text: format!("connection lost: {e}; press q to quit"),
                            bad: true,
                            until_ms: u64::MAX,
                        });
                        self.conn = Conn::Closed(Some(e));
                    }
                }
                Vec::new()
            }
            NetEvent::Message(msg) => {
                self.on_server(*msg);
                Vec::new()
            }
        }
    }

    /// Apply one server message.
    pub fn on_server(&mut self, msg: ServerMsg) {
        let now = self.clock_ms;
        match msg {
            ServerMsg::Welcome { .. } | ServerMsg::Pong { .. } | ServerMsg::RoomList { .. } => {}
            ServerMsg::RoomJoined {
                room,
                you,
                host,
                settings,
                phase,
                players,
                race,
            } => {
                let old = self.room.take();
                let race = race.and_then(|rv| self.race_from_view(rv, old.as_ref()));
                self.room = Some(Room {
                    code: room,
                    me: you.player_id,
                    role: you.role,
                    host,
                    settings,
                    phase,
                    players,
                    countdown_until_ms: None,
                    race,
                    results: old.and_then(|o| o.results),
                });
            }
            ServerMsg::PlayerJoined { player } | ServerMsg::PlayerUpdated { player } => {
                if let Some(room) = self.room.as_mut() {
                    room.upsert(player);
                }
            }
            ServerMsg::PlayerLeft { player_id } => {
                if let Some(room) = self.room.as_mut() {
                    if let Some(name) = room.name_of(&player_id) {
                        let text = format!("{name} left");
                        room.players.retain(|p| p.player_id != player_id);
                        self.notify(text, false);
                    }
                }
            }
            ServerMsg::HostChanged { player_id } => {
                if let Some(room) = self.room.as_mut() {
                    room.host = player_id;
                }
            }
            ServerMsg::Countdown { starts_in_ms } => {
                if let Some(room) = self.room.as_mut() {
                    room.phase = Phase::Countdown;
                    room.countdown_until_ms = Some(now + starts_in_ms);
                    room.race = None;
                }
                self.confirm = None;
            }
            ServerMsg::RaceStarted {
                race_id,
                puzzle,
                difficulty,
                time_limit_s,
            } => {
                let grid = puzzle;
                if let Some(room) = self.room.as_mut() {
                    room.phase = Phase::Racing;
                    room.countdown_until_ms = None;
                    room.results = None;
                    let mut race = Race::new(race_id, grid, grid, difficulty, time_limit_s, now);
                    let to_fill = grid.n_empty() as u32;
                    for p in room.players.iter_mut() {
                        p.status = PlayerStatus::Racing;
                        race.progress.insert(
                            p.player_id.clone(),
                            Progress {
                                player_id: p.player_id.clone(),
                                filled: 0,
                                to_fill,
                                mistakes: 0,
                            },
                        );
                    }
                    room.race = Some(race);
                }
            }
            ServerMsg::Placement {
                id,
                cell,
                digit,
                accepted,
                reason,
                conflicts,
                mistakes,
                penalty_ms,
            } => {
                let Some(race) = self.room.as_mut().and_then(|r| r.race.as_mut()) else {
                    return;
                };
                let (c, d) = (cell, digit);
                match id.as_ref().and_then(MsgId::as_u64) {
                    Some(n) => race.pending.retain(|(i, _, _)| *i != n),
                    None => race.pending.retain(|(_, pc, _)| *pc != c),
                }
                race.mistakes = mistakes;
                race.penalty_ms = penalty_ms;
                if accepted {
                    race.board.place(c, d);
                    if race.flash.as_ref().is_some_and(|f| f.cell == c) {
                        race.flash = None;
                    }
                } else {
                    let reason = reason.unwrap_or(PlaceReason::Wrong);
                    race.flash = Some(Flash {
                        cell: c,
                        digit: d,
                        reason,
                        conflicts,
                        until_ms: now + FLASH_MS,
                    });
                }
            }
            ServerMsg::Progress(p) => {
                if let Some(race) = self.room.as_mut().and_then(|r| r.race.as_mut()) {
                    race.progress.insert(p.player_id.clone(), p);
                }
            }
            ServerMsg::PlayerFinished {
                player_id,
                status,
                time_ms,
            } => {
                let Some(room) = self.room.as_mut() else {
                    return;
                };
                if let Some(p) = room.players.iter_mut().find(|p| p.player_id == player_id) {
                    p.status = status.into();
                }
                let mine = room.me.as_deref() == Some(player_id.as_str());
                let name = room.name_of(&player_id).unwrap_or("someone").to_owned();
                if mine {
                    if let Some(race) = room.race.as_mut() {
                        race.finished = Some((status, time_ms));
                        race.stopped_at_ms = Some(now);
                    }
                }
                let text = match (status, time_ms) {
                    (FinishStatus::Solved, Some(t)) => format!("{name} solved it in {}", clock(t)),
                    (FinishStatus::Solved, None) => format!("{name} solved it"),
                    (FinishStatus::Forfeited, _) => format!("{name} gave up"),
                    (FinishStatus::Eliminated, _) => format!("{name} is out: too many mistakes"),
                    (FinishStatus::TimedOut, _) => format!("{name} ran out of time"),
                };
                self.notify(text, false);
            }
            ServerMsg::RaceOver {
                reason,
                standings,
                solution,
                ..
            } => {
                let Some(room) = self.room.as_mut() else {
                    return;
                };
                room.phase = Phase::Finished;
                let solution = Some(solution);
                if let Some(race) = room.race.as_mut() {
                    race.stopped_at_ms.get_or_insert(now);
                    race.solution = solution.or(race.solution);
                    race.pending.clear();
                    race.flash = None;
                }
                for s in &standings {
                    if let Some(p) = room.players.iter_mut().find(|p| p.player_id == s.player_id) {
                        p.status = s.status.into();
                        p.ready = false;
                    }
                }
                if let Some(solution) = solution {
                    room.results = Some(Results {
                        reason,
                        standings,
                        solution,
                    });
                }
                self.confirm = None;
            }
            ServerMsg::Solution { solution } => {
                if let Some(race) = self.room.as_mut().and_then(|r| r.race.as_mut()) {
                    race.solution = Some(solution);
                }
            }
            ServerMsg::Chat { name, text, .. } => {
                self.chat.push(ChatLine { name, text });
                if self.chat.len() > CHAT_KEPT {
                    self.chat.remove(0);
                }
            }
            ServerMsg::RoomClosed { room } => {
                self.room = None;
                self.notice = Some(Notice {
                    text: format!("room {room} was closed; press q to quit"),
                    bad: true,
                    until_ms: u64::MAX,
                });
            }
            ServerMsg::Error { code, message } => {
                if code == ErrorCode::RateLimited {
                    if let Some(race) = self.room.as_mut().and_then(|r| r.race.as_mut()) {
                        race.pending.clear();
                    }
                    self.notify("slow down: too many messages", true);
                    return;
                }
                let sticky = self.room.is_none();
                let advice = if code == ErrorCode::RaceInProgress {
                    " (you can watch it with `sudoku-race spectate`)"
                } else {
                    ""
                };
                self.notice = Some(Notice {
                    text: if sticky {
                        format!("{}: {message}{advice}; press q to quit", code.as_str())
                    } else {
                        format!("{}: {message}", code.as_str())
                    },
                    bad: true,
                    until_ms: if sticky { u64::MAX } else { now + FLASH_MS },
                });
            }
        }
    }

    fn race_from_view(&self, rv: RaceView, old: Option<&Room>) -> Option<Race> {
        let now = self.clock_ms;
        let puzzle = rv.puzzle?;
        let board = rv.board.unwrap_or(puzzle);
        let mut race = Race::new(
            rv.race_id,
            puzzle,
            board,
            rv.difficulty,
            rv.time_limit_s,
            now.saturating_sub(rv.elapsed_ms),
        );
        race.mistakes = rv.mistakes;
        race.progress = rv
            .progress
            .into_iter()
            .map(|p| (p.player_id.clone(), p))
            .collect();
        // Coming back to the same race (a resume): keep the local pencil marks and cursor.
        if let Some(prev) = old.and_then(|o| o.race.as_ref()) {
            if prev.race_id == race.race_id {
                race.board.pencil = prev.board.pencil;
                race.board.cursor = prev.board.cursor;
                race.board.pencil_mode = prev.board.pencil_mode;
                race.penalty_ms = prev.penalty_ms;
                race.solution = prev.solution;
                race.finished = prev.finished;
                race.stopped_at_ms = prev.stopped_at_ms;
                for (cell, d) in board.as_bytes().iter().enumerate() {
                    if *d != 0 {
                        race.board.pencil[cell] = 0;
                    }
                }
            }
        }
        Some(race)
    }

    fn on_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if is_ctrl_c(&key) {
            return self.leave();
        }
        if let Some(input) = self.input.as_mut() {
            match key.code {
                KeyCode::Esc => self.input = None,
                KeyCode::Enter => {
                    let text = input.trim().to_owned();
                    self.input = None;
                    if !text.is_empty() {
                        return vec![Effect::Send(ClientMsg::Chat { text })];
                    }
                }
                KeyCode::Backspace => {
                    input.pop();
                }
                KeyCode::Char(c) if !c.is_control() && input.chars().count() < MAX_CHAT_CHARS => {
                    input.push(c);
                }
                _ => {}
            }
            return Vec::new();
        }
        if let Some(confirm) = self.confirm.take() {
            match (confirm, key.code) {
                (Confirm::Quit, KeyCode::Char('q') | KeyCode::Char('y')) => return self.leave(),
                (Confirm::Forfeit, KeyCode::Char('f') | KeyCode::Char('y')) => {
                    return vec![Effect::Send(ClientMsg::Forfeit)];
                }
                _ => {
                    self.notice = None;
                    return Vec::new();
                }
            }
        }
        let Some(room) = self.room.as_ref() else {
            return match key.code {
                KeyCode::Char('q') | KeyCode::Esc => self.leave(),
                _ => Vec::new(),
            };
        };
        let phase = room.phase;
        let is_player = room.role == Role::Player;
        let racing_me = phase == Phase::Racing
            && is_player
            && room.race.as_ref().is_some_and(|r| r.finished.is_none());
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => {
                if racing_me && !matches!(self.conn, Conn::Closed(_)) {
                    self.confirm = Some(Confirm::Quit);
                    self.notice = Some(Notice {
                        text: "leave the race? press q again (any other key cancels)".into(),
                        bad: true,
                        until_ms: u64::MAX,
                    });
                    return Vec::new();
                }
                return self.leave();
            }
            KeyCode::Enter => {
                self.input = Some(String::new());
                return Vec::new();
            }
            _ => {}
        }
        match phase {
            Phase::Lobby | Phase::Finished => match key.code {
                KeyCode::Char('r') if is_player && phase == Phase::Lobby => {
                    let ready = room.me_player().is_some_and(|p| p.ready);
                    vec![Effect::Send(ClientMsg::SetReady { ready: !ready })]
                }
                KeyCode::Char('s') if room.am_host() => vec![Effect::Send(ClientMsg::StartRace)],
                KeyCode::Char('s') if is_player => {
                    self.notify("only the host can start the race", true);
                    Vec::new()
                }
                other => {
                    if let Some((dr, dc)) = nav_key(other) {
                        if let Some(race) = self.room.as_mut().and_then(|r| r.race.as_mut()) {
                            race.board.move_cursor(dr, dc);
                        }
                    }
                    Vec::new()
                }
            },
            Phase::Countdown => Vec::new(),
            Phase::Racing => self.race_key(key.code, racing_me),
        }
    }

    fn race_key(&mut self, code: KeyCode, racing_me: bool) -> Vec<Effect> {
        let now = self.clock_ms;
        let Some(race) = self.room.as_mut().and_then(|r| r.race.as_mut()) else {
            return Vec::new();
        };
        if let Some((dr, dc)) = nav_key(code) {
            race.board.move_cursor(dr, dc);
            return Vec::new();
        }
        if !racing_me {
            return Vec::new();
        }
        let cell = race.board.cursor;
        if let Some(digit) = digit_key(code) {
            if race.board.pencil_mode {
                race.board.toggle_pencil(cell, digit);
                return Vec::new();
            }
            if race.board.is_given(cell) {
                self.notify("that cell is a given", true);
                return Vec::new();
            }
            if race.board.board.get(cell).is_some() {
                self.notify("that cell is already filled", true);
                return Vec::new();
            }
            if race.pending_in(cell).is_some() {
                return Vec::new();
            }
            let id = self.next_id;
            self.next_id += 1;
            race.pending.push((id, cell, digit));
            if race.flash.as_ref().is_some_and(|f| f.cell == cell) {
                race.flash = None;
            }
            return vec![Effect::Send(ClientMsg::Place {
                cell: i64::from(cell.get()),
                digit: i64::from(digit.get()),
                id: Some(MsgId::Number(id.into())),
            })];
        }
        if erase_key(code) {
            race.board.clear_pencil(cell);
            return Vec::new();
        }
        match code {
            KeyCode::Char('p') => {
                race.board.pencil_mode = !race.board.pencil_mode;
                let text = if race.board.pencil_mode {
                    "pencil mode: digits toggle marks"
                } else {
                    "pen mode: digits are placed"
                };
                self.notice = Some(Notice {
                    text: text.into(),
                    bad: false,
                    until_ms: now + FLASH_MS,
                });
            }
            KeyCode::Char('f') => {
                self.confirm = Some(Confirm::Forfeit);
                self.notice = Some(Notice {
                    text: "give up this race? press f again (any other key cancels)".into(),
                    bad: true,
                    until_ms: u64::MAX,
                });
            }
            _ => {}
        }
        Vec::new()
    }

    fn leave(&mut self) -> Vec<Effect> {
        self.quit = true;
        if self.room.is_some() && self.conn == Conn::Online {
            vec![Effect::Send(ClientMsg::Leave), Effect::Quit]
        } else {
            vec![Effect::Quit]
        }
    }
}

/// `m:ss` (or `h:mm:ss`) for a duration in ms.
pub fn clock(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

#[cfg(test)]
pub(crate) mod tests;
