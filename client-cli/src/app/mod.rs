//! The online app's state and its update function: lobby, countdown, race, results.
//!
//! [`App::update`] takes one [`Event`] (a key, a server message, a tick of the local clock) and
//! returns the [`Effect`]s for the run loop (messages to send, quit). It does no IO, so tests drive
//! it with recorded server messages. Rendering (`crate::ui`) reads `&App` only.
//!
//! What the server said lives in the [`Mirror`] (`mirror`); this module owns what the screen adds
//! to it: the [`Play`] beside the board (pencil marks, cursor, pending placements, the last
//! refusal), notices, chat, confirmations and the connection state. Keys go through the one table
//! in `keys`; `board` holds the board, pencil marks and cursor that solo shares; each server
//! message's effect on the screen is `on_server`; screens outside a room `outside`; the pool (A7)
//! `pool`; an arena (A7) `arena`; the room host's tools `room_host`; a server restarting (A9)
//! `restart`.

pub mod arena;
pub mod board;
pub mod event;
pub mod keys;
pub mod mirror;
mod on_server;
pub mod outside;
mod pool;
pub mod report;
mod restart;
pub mod room_host;

use crossterm::event::{KeyCode, KeyEvent};
use protocol::{ClientMsg, MsgId, Phase, PlaceReason, PlayerName, Role, MAX_CHAT_CHARS};
use shared::engine::{Cell, Digit};

pub use arena::{Arena, AUTO_REQUEUE_MS};
pub use board::{BoardState, PencilAndCursor};
pub use event::{Effect, Event};
pub use keys::{digit_key, erase_key, is_ctrl_c, nav_key, Action, Context, Mode};
pub use mirror::{Mirror, Race, Results, Room};
pub use outside::Outside;
pub use room_host::Tool;

use crate::net::{Intent, NetEvent};

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
    /// A spectator said it (the server sent no `player_id`).
    pub watching: bool,
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

/// Our side of the race on screen, beside the server's board: the pencil marks and cursor,
/// placements not yet answered, the last refusal.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Play {
    /// Pencil marks, cursor and mode.
    pub pencil_cursor: PencilAndCursor,
    /// Placements sent and not yet answered: (id, cell, digit).
    pub pending: Vec<(u64, Cell, Digit)>,
    /// The last rejected placement.
    pub flash: Option<Flash>,
}

impl Play {
    /// The digit pending in `cell`, if a placement there is unanswered.
    pub fn pending_in(&self, cell: Cell) -> Option<Digit> {
        self.pending
            .iter()
            .find(|(_, c, _)| *c == cell)
            .map(|&(_, _, d)| d)
    }
}

/// A key press that needs a second press to take effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Confirm {
    /// Leave the room mid-race.
    Quit,
    /// Give up the race.
    Forfeit,
    /// Remove this player from the room (the room host).
    Kick(protocol::PlayerId),
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
    /// What the server said: the room and its race.
    pub mirror: Mirror,
    /// Our side of the race on screen.
    pub play: Play,
    /// Chat, oldest first.
    pub chat: Vec<ChatLine>,
    /// The chat line being typed, when typing.
    pub input: Option<String>,
    /// Status line.
    pub notice: Option<Notice>,
    /// A pending confirmation.
    pub confirm: Option<Confirm>,
    /// What we asked the server for (a room to create, join or watch), to ask again.
    pub intent: Option<Intent>,
    /// What the screen shows while we are in no room.
    pub outside: Outside,
    /// The room host's tool open over the room.
    pub tool: Option<Tool>,
    /// Watching a race we were refused a seat in: take one when it ends.
    pub seat_after_race: bool,
    /// Sent `leave` to take a seat: until `room_joined`, the room on screen is no longer ours.
    switching: bool,
    /// Next placement id.
    next_id: u64,
    /// Set when the app wants to end.
    pub quit: bool,
    /// This program runs the server: quitting closes the room for everyone, so it confirms.
    pub runs_server: bool,
    /// The arena we are a member of (A7), with its standings.
    pub arena: Option<Arena>,
    /// The wall clock (UTC ms) at local clock 0 ([`App::with_wall_clock`]).
    wall0_unix_ms: i64,
}

impl App {
    /// A new app for a player called `name`, before any connection.
    pub fn new(name: impl Into<String>) -> App {
        App {
            name: name.into(),
            join_command: None,
            clock_ms: 0,
            conn: Conn::Connecting,
            mirror: Mirror::default(),
            play: Play::default(),
            chat: Vec::new(),
            input: None,
            notice: None,
            confirm: None,
            intent: None,
            outside: Outside::Entering,
            tool: None,
            seat_after_race: false,
            switching: false,
            next_id: 1,
            quit: false,
            runs_server: false,
            arena: None,
            wall0_unix_ms: 0,
        }
    }

    /// Show `join_command` (with `{code}` standing for the room code) in the lobby.
    pub fn with_join_command(mut self, cmd: impl Into<String>) -> App {
        self.join_command = Some(cmd.into());
        self
    }

    /// Remember what the connection task asks for first, so a refusal can be answered in place
    /// (another name, or watching first).
    pub fn with_intent(mut self, intent: &Intent) -> App {
        self.intent = Some(intent.clone());
        self
    }

    /// This program runs the server in-process (`sudoku-race host`): `q` confirms while others
    /// are in.
    pub fn with_server_in_process(mut self) -> App {
        self.runs_server = true;
        self
    }

    /// The room, once joined.
    pub fn room(&self) -> Option<&Room> {
        self.mirror.room.as_ref()
    }

    /// The current or last race in the room.
    pub fn race(&self) -> Option<&Race> {
        self.mirror.race()
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
                self.arena_tick()
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
        if self.play.flash.as_ref().is_some_and(|f| f.until_ms <= now) {
            self.play.flash = None;
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
                // Unanswered placements are re-sent by the connection task; their answers
                // may be lost with the old socket, so stop showing them as pending.
                self.play.pending.clear();
                Vec::new()
            }
            NetEvent::Closed { error } => {
                if self.outside.is_final() && self.room().is_none() {
                    // Removed, or the room closed: the screen says so until a key quits.
                    self.conn = Conn::Closed(None);
                    return Vec::new();
                }
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
            NetEvent::Message(msg) => self.on_server(*msg),
        }
    }

    /// Where the key table stands: phase, role, room host, still racing, the room host's tool.
    pub fn key_context(&self) -> Context {
        let online = !matches!(self.conn, Conn::Closed(_));
        let Some(room) = self.room() else {
            return Context {
                offer: online && matches!(self.outside, Outside::RaceOn { .. }),
                queued: matches!(self.outside, Outside::Queued { .. }),
                ghost: online && matches!(self.outside, Outside::Queued { ghost: Some(_), .. }),
                restart: matches!(self.outside, Outside::Restarting { .. }),
                ..Context::default()
            };
        };
        let player = room.role == Role::Player;
        Context {
            phase: Some(room.phase),
            player,
            room_host: room.am_room_host(),
            racing: room.phase == Phase::Racing
                && player
                && online
                && room.race.as_ref().is_some_and(|r| r.finished.is_none()),
            mode: match self.tool {
                None => Mode::Room,
                Some(Tool::Settings { .. }) => Mode::Settings,
                Some(Tool::Kick { .. }) => Mode::Kick,
                Some(Tool::Report { ref reason, .. }) if reason.is_some() => Mode::ReportReason,
                Some(Tool::Report { .. }) => Mode::Report,
            },
            pool: room.settings.pool,
            ..Context::default()
        }
    }

    fn on_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if is_ctrl_c(&key) {
            return self.leave();
        }
        if self.mirror.room.is_none() && matches!(self.outside, Outside::Rename { .. }) {
            return self.type_new_name(key.code);
        }
        if self.typing_reason() {
            return self.type_reason(key.code);
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
                (Confirm::Kick(player_id), KeyCode::Char('y')) => {
                    self.notice = None;
                    let player_id = player_id.to_string();
                    return vec![Effect::Send(ClientMsg::Kick { player_id })];
                }
                _ => {
                    self.notice = None;
                    return Vec::new();
                }
            }
        }
        let ctx = self.key_context();
        match keys::action(&ctx, key.code) {
            Some(action) => self.act(action, &ctx),
            None => Vec::new(),
        }
    }

    fn act(&mut self, action: Action, ctx: &Context) -> Vec<Effect> {
        let has_race = self.race().is_some();
        let cursor = self.play.pencil_cursor.cursor;
        match action {
            Action::Quit => return self.quit(ctx),
            Action::Chat => self.input = Some(String::new()),
            Action::Ready => {
                let ready = self
                    .room()
                    .and_then(Room::me_player)
                    .is_some_and(|p| p.ready);
                return vec![Effect::Send(ClientMsg::SetReady { ready: !ready })];
            }
            Action::Start if ctx.room_host => return vec![Effect::Send(ClientMsg::StartRace)],
            Action::Start => self.notify("only the host can start the race", true),
            Action::Move(dr, dc) => {
                if has_race {
                    self.play.pencil_cursor.move_cursor(dr, dc);
                }
            }
            Action::Place(digit) => return self.place(cursor, digit),
            Action::Erase => self.play.pencil_cursor.clear_pencil(cursor),
            Action::Pencil => self.toggle_pencil_mode(),
            Action::Settings => {
                if let Some(room) = self.room() {
                    self.tool = Some(Tool::Settings {
                        row: 0,
                        draft: room.settings.clone(),
                    });
                }
            }
            Action::Kick => {
                if self
                    .room()
                    .is_some_and(|r| room_host::kick_list(r).is_empty())
                {
                    self.notify("nobody else is in the room", true);
                } else {
                    self.tool = Some(Tool::Kick { row: 0 });
                }
            }
            Action::Row(dir) => self.step_tool_row(dir),
            Action::Value(dir) => {
                if let Some(tool) = self.tool.as_mut() {
                    tool.step_value(dir);
                }
            }
            Action::Apply => return self.apply_tool(),
            Action::Cancel => self.tool = None,
            Action::Watch => return self.watch_then_join(),
            Action::Requeue => return self.requeue(),
            Action::RaceGhost => return self.race_offered_ghost(),
            Action::Report => self.open_report(),
            Action::NewRoom | Action::PlayNow => return self.again(action),
            Action::Forfeit => {
                self.confirm = Some(Confirm::Forfeit);
                self.notice = Some(Notice {
                    text: "give up this race? press f again (any other key cancels)".into(),
                    bad: true,
                    until_ms: u64::MAX,
                });
            }
        }
        Vec::new()
    }

    /// `q`: leave at once, unless leaving would close the room on other players (we run the
    /// server) or drop us out of a race we are still in: then ask first.
    fn quit(&mut self, ctx: &Context) -> Vec<Effect> {
        let others = self.room().filter(|_| self.runs_server).map_or(0, |r| {
            let n = r
                .players
                .iter()
                .filter(|p| p.connected && !r.is_me(&p.player_id));
            n.count()
        });
        if others > 0 && !matches!(self.conn, Conn::Closed(_)) {
            self.confirm = Some(Confirm::Quit);
            self.notice = Some(Notice {
                text: format!("quit and close the room? {others} other player(s) will be disconnected; press q again (any other key cancels)"),
                bad: true,
                until_ms: u64::MAX,
            });
            return Vec::new();
        }
        if ctx.racing && !matches!(self.conn, Conn::Closed(_)) {
            self.confirm = Some(Confirm::Quit);
            self.notice = Some(Notice {
                text: "leave the race? press q again (any other key cancels)".into(),
                bad: true,
                until_ms: u64::MAX,
            });
            return Vec::new();
        }
        self.leave()
    }

    /// Up or down a row in the room host's tool open (the kick list's rows are the other players).
    fn step_tool_row(&mut self, dir: i8) {
        let n_rows = match (&self.tool, self.room()) {
            (Some(Tool::Kick { .. }), Some(room)) => room_host::kick_list(room).len(),
            (Some(Tool::Report { .. }), Some(room)) => report::report_list(room).len(),
            _ => room_host::ROWS.len(),
        };
        if let Some(tool) = self.tool.as_mut() {
            tool.step_row(dir, n_rows);
        }
    }

    /// `Enter` in a room host's tool: send the settings, or ask before removing the chosen player.
    fn apply_tool(&mut self) -> Vec<Effect> {
        match self.tool.take() {
            Some(Tool::Settings { draft, .. }) => vec![Effect::Send(ClientMsg::SetSettings {
                settings: room_host::request(&draft),
            })],
            Some(Tool::Kick { row }) => {
                let chosen = self
                    .room()
                    .and_then(|r| room_host::kick_list(r).into_iter().nth(row));
                if let Some((player_id, name)) = chosen {
                    self.confirm = Some(Confirm::Kick(player_id));
                    self.notice = Some(Notice {
                        text: format!(
                            "remove {name} from the room? press y (any other key cancels)"
                        ),
                        bad: true,
                        until_ms: u64::MAX,
                    });
                }
                Vec::new()
            }
            Some(Tool::Report { row, .. }) => {
                self.choose_report(row);
                Vec::new()
            }
            None => Vec::new(),
        }
    }

    /// A digit key in `cell`: a pencil mark, or a placement sent to the server.
    fn place(&mut self, cell: Cell, digit: Digit) -> Vec<Effect> {
        let Some((puzzle, board)) = self.race().map(|r| (r.puzzle, r.board)) else {
            return Vec::new();
        };
        if self.play.pencil_cursor.pencil_mode {
            self.play.pencil_cursor.toggle_pencil(&board, cell, digit);
            return Vec::new();
        }
        if puzzle.get(cell).is_some() {
            self.notify("that cell is a given", true);
            return Vec::new();
        }
        if board.get(cell).is_some() {
            self.notify("that cell is already filled", true);
            return Vec::new();
        }
        if self.play.pending_in(cell).is_some() {
            return Vec::new();
        }
        let id = self.next_id;
        self.next_id += 1;
        self.play.pending.push((id, cell, digit));
        if self.play.flash.as_ref().is_some_and(|f| f.cell == cell) {
            self.play.flash = None;
        }
        vec![Effect::Send(ClientMsg::Place {
            cell: i64::from(cell.get()),
            digit: i64::from(digit.get()),
            id: Some(MsgId::Number(id.into())),
        })]
    }

    /// Quit: leave the arena we are a member of, and the room we are in or the pool we wait
    /// in, first.
    fn leave(&mut self) -> Vec<Effect> {
        self.quit = true;
        let mut effects = Vec::new();
        if self.conn == Conn::Online {
            if self.arena.is_some() {
                effects.push(Effect::Send(ClientMsg::LeaveArena));
            }
            if self.room().is_some() {
                effects.push(Effect::Send(ClientMsg::Leave));
            } else if matches!(self.outside, Outside::Queued { .. }) {
                effects.push(Effect::Send(ClientMsg::LeaveQueue));
            }
        }
        effects.push(Effect::Quit);
        effects
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
