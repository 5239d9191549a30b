//! The online app's state and its update function: lobby, countdown, race, results.
//!
//! [`App::update`] takes one [`Event`] (a key, a server message, a tick of the local clock) and
//! returns the [`Effect`]s for the run loop (messages to send, quit). It does no IO, so tests drive
//! it with recorded server messages. Rendering (`crate::ui`) reads `&App` only.
//!
//! [`App`] composes parts that each own their fields and decide their own state: what the server
//! said is the [`Mirror`] (`mirror`; the room, its race, the spectators' delayed boards); our side
//! of the race beside the board is the [`Play`] (`play`: pencil marks, cursor, pending
//! placements, the last refusal); the [`Chat`] (`chat`); the notice and a confirmation waiting
//! for its second press, the [`Status`] (`status`); what we asked for and the seat we are taking,
//! the [`Seating`] (`seating`); the screen outside a room, [`Outside`] (`outside`, with the
//! pool's decisions in `pool` and a server restarting's (A9) in `restart`); the arena we are a
//! member of (A7), [`Arena`] (`arena`); the room host's tool open over the room, [`Tool`]
//! (`room_host`, and `report` for the report list); our room moving to another server (A12:
//! held placements, the next try, giving up), `moving`. App's own code is the glue between them:
//! this module (update, the connection, the key context, leaving), `on_key` (each key's effect)
//! and `on_server` (each server message's effect on the screen). Keys go through the one table
//! in `keys`; `board` holds the board, pencil marks and cursor that solo shares.

pub mod arena;
pub mod board;
mod chat;
pub mod event;
pub mod keys;
pub mod mirror;
mod moving;
mod on_key;
mod on_server;
pub mod outside;
mod play;
mod pool;
pub mod report;
mod restart;
pub mod room_host;
mod seating;
mod status;

use protocol::{ClientMsg, Phase, Role};

pub use arena::{Arena, AUTO_REQUEUE_MS};
pub use board::{BoardState, PencilAndCursor};
pub use chat::{Chat, ChatLine};
pub use event::{Effect, Event};
pub use keys::{digit_key, erase_key, is_ctrl_c, nav_key, Action, Context, Mode};
pub use mirror::{Mirror, Race, Results, Room};
pub use outside::Outside;
pub use play::{Flash, Play};
pub use room_host::Tool;
pub use seating::Seating;
pub use status::{Confirm, Notice, Status};

use crate::net::{Intent, NetEvent};

/// How long a rejected placement or a notice stays on screen, in ms.
pub const FLASH_MS: u64 = 2500;

/// The state of the connection, as the screen shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Conn {
    /// Opening the first connection.
    Connecting,
    /// Connected.
    Online,
    /// Dropped; retrying (the race goes on).
    Reconnecting {
        /// 1 for the first retry.
        attempt: u32,
        /// Local clock of the next try.
        retry_at_ms: u64,
    },
    /// The room is moving to another server (A12); the race goes on. Our commands wait.
    Moving {
        /// 1 for the first try again.
        attempt: u32,
        /// Local clock of the next try.
        retry_at_ms: u64,
    },
    /// Over, with the reason when it was not ours.
    Closed(Option<String>),
}

/// The online client's whole state: its parts, and what this program was started with.
///
/// Four fields stay public because the end-to-end tests (`tests/`) read them: `name`,
/// `outside`, `quit` and `arena`.
#[derive(Clone, Debug, PartialEq)]
pub struct App {
    /// Our display name.
    pub name: String,
    /// What a friend types to join (shown in the lobby with the room code in place of `{code}`).
    join_command: Option<String>,
    /// This program runs the server: quitting closes the room for everyone, so it confirms.
    runs_server: bool,
    /// The local clock (ms since start), from the last tick.
    clock_ms: u64,
    /// The wall clock (UTC ms) at local clock 0 ([`App::with_wall_clock`]).
    wall0_unix_ms: i64,
    /// Connection state.
    conn: Conn,
    /// What the server said: the room and its race.
    mirror: Mirror,
    /// Our side of the race on screen.
    play: Play,
    /// The room's chat.
    chat: Chat,
    /// The notice and the confirmation pending.
    status: Status,
    /// What we asked for, and the seat we are taking.
    seating: Seating,
    /// What the screen shows while we are in no room.
    pub outside: Outside,
    /// The room host's tool open over the room (its state is the command's own).
    tool: Option<Tool>,
    /// Our room moving to another server while our socket stays (A12).
    moving: Option<moving::Moving>,
    /// An ask answered `server_draining`, asked again by itself (A9).
    redo: Option<restart::Redo>,
    /// Set when the app wants to end.
    pub quit: bool,
    /// The arena we are a member of (A7), with its standings.
    pub arena: Option<Arena>,
}

impl App {
    /// A new app for a player called `name`, before any connection.
    pub fn new(name: impl Into<String>) -> App {
        App {
            name: name.into(),
            join_command: None,
            runs_server: false,
            clock_ms: 0,
            wall0_unix_ms: 0,
            conn: Conn::Connecting,
            mirror: Mirror::default(),
            play: Play::default(),
            chat: Chat::default(),
            status: Status::default(),
            seating: Seating::default(),
            outside: Outside::Entering,
            tool: None,
            moving: None,
            redo: None,
            quit: false,
            arena: None,
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
        self.seating.remember(intent.clone());
        self
    }

    /// This program runs the server in-process (`sudoku-race host`): `q` confirms while others
    /// are in.
    pub fn with_server_in_process(mut self) -> App {
        self.runs_server = true;
        self
    }

    /// The wall clock (UTC ms) the run loop's local clock 0 stood at: arenas start and end by it.
    pub fn with_wall_clock(mut self, unix_ms_at_zero: i64) -> App {
        self.wall0_unix_ms = unix_ms_at_zero;
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

    /// What a friend types to join, with `{code}` for the room code.
    pub fn join_command(&self) -> Option<&str> {
        self.join_command.as_deref()
    }

    /// The local clock (ms since start), from the last tick.
    pub fn clock_ms(&self) -> u64 {
        self.clock_ms
    }

    /// The wall clock now (UTC ms), from the last tick.
    pub fn unix_ms(&self) -> i64 {
        self.wall0_unix_ms
            .saturating_add(i64::try_from(self.clock_ms).unwrap_or(i64::MAX))
    }

    /// The state of the connection.
    pub fn conn(&self) -> &Conn {
        &self.conn
    }

    /// Our side of the race on screen.
    pub fn play(&self) -> &Play {
        &self.play
    }

    /// The room's chat.
    pub fn chat(&self) -> &Chat {
        &self.chat
    }

    /// The notice and the confirmation pending.
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// What we asked for, and the seat we are taking.
    pub fn seating(&self) -> &Seating {
        &self.seating
    }

    /// The room host's tool open over the room.
    pub fn tool(&self) -> Option<&Tool> {
        self.tool.as_ref()
    }

    /// Whether the room we are in is one of our arena's races.
    pub fn in_arena_room(&self) -> bool {
        match (self.room(), &self.arena) {
            (Some(room), Some(arena)) => room.settings.arena.as_ref() == Some(&arena.info.arena_id),
            _ => false,
        }
    }

    fn notify(&mut self, text: impl Into<String>, bad: bool) {
        self.status.notify(text, bad, self.clock_ms);
    }

    /// Apply one event; returns what the run loop must do.
    pub fn update(&mut self, event: Event) -> Vec<Effect> {
        match event {
            Event::Tick(now) => {
                self.clock_ms = self.clock_ms.max(now);
                self.status.expire(self.clock_ms);
                self.play.expire(self.clock_ms);
                let mut effects = self.moving_tick();
                if self.play.recheck_due(self.clock_ms) {
                    effects.extend(self.room_back());
                }
                effects.extend(self.redo_tick());
                effects.extend(self.arena_tick());
                effects
            }
            Event::Resize => Vec::new(),
            Event::Net(ev) => self.on_net(ev),
            Event::Key(key) => self.on_key(key),
        }
    }

    /// A tick: the arena's next race is asked for when its time has come, if we are still on
    /// the results of one of its races and it still runs.
    fn arena_tick(&mut self) -> Vec<Effect> {
        let (now, unix_ms) = (self.clock_ms, self.unix_ms());
        let finished = self.room().is_some_and(|r| r.phase == Phase::Finished);
        let in_arena_room = self.in_arena_room();
        let due = self
            .arena
            .as_mut()
            .is_some_and(|a| a.requeue_due(now, unix_ms));
        if due && finished && in_arena_room {
            return self.requeue();
        }
        Vec::new()
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
            NetEvent::Reconnecting { attempt, delay } => {
                let retry_at_ms = self.clock_ms + u64::try_from(delay.as_millis()).unwrap_or(0);
                self.away(Conn::Reconnecting {
                    attempt,
                    retry_at_ms,
                });
                Vec::new()
            }
            NetEvent::Moving { attempt, delay } => {
                let retry_at_ms = self.clock_ms + u64::try_from(delay.as_millis()).unwrap_or(0);
                self.away(Conn::Moving {
                    attempt,
                    retry_at_ms,
                });
                Vec::new()
            }
            NetEvent::Closed { error } => {
                self.moving = None;
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
                        self.status.alert(format!("{e}; press q to quit"));
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

    /// Out of the room on screen (into the pool's queue or an arena's screen): nothing of the
    /// last room stays open, and the next room is another one, with other people.
    fn left_the_room(&mut self, outside: Outside) {
        self.tool = None;
        self.status.drop_confirm();
        self.play.reset();
        self.chat.clear();
        self.outside = outside;
    }

    /// Quit: leave the arena we are a member of, and the room we are in or the pool we wait
    /// in, first.
    fn leave(&mut self) -> Vec<Effect> {
        self.quit = true;
        let mut effects = Vec::new();
        // Sent while the room moves too: the connection task sends it once it can.
        if !matches!(self.conn, Conn::Connecting | Conn::Closed(_)) {
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

/// A race's kind as the screens name it: its difficulty, after its variant unless classic
/// ("killer · medium", or "medium").
pub fn variant_label(variant: engine::Variant, difficulty: impl std::fmt::Display) -> String {
    match variant {
        engine::Variant::Classic => difficulty.to_string(),
        v => format!("{v} · {difficulty}"),
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
