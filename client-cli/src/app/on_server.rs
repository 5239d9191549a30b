//! What the screen does with each server message, after the [`Mirror`](super::Mirror) has
//! taken what the server said: the pencil marks and cursor, pending placements, flashes,
//! notices, chat, the screen shown outside a room, the room host's tools, and the messages some
//! answers call for (another ask for a seat, a seat after watching).

use crossterm::event::KeyCode;
use protocol::{
    ClientMsg, ErrorCode, FinishStatus, MsgId, PlaceReason, Role, ServerMsg, MAX_NAME_CHARS,
};
use shared::engine::{Cell, Digit, Geometry};

use super::outside::{self, Outside};
use super::{clock, room_host, App, ChatLine, Effect, Flash, Notice, Play, CHAT_KEPT, FLASH_MS};
use crate::net::Intent;

impl App {
    /// Apply one server message: the mirror takes what the server said, then the screen's own
    /// state follows. Returns the messages the answer calls for.
    pub fn on_server(&mut self, msg: ServerMsg) -> Vec<Effect> {
        let now = self.clock_ms;
        // Read before the mirror forgets it: the leaving player's name, the race we were in,
        // the room a `kicked` takes us out of.
        // Not us: a player who requeues from a pool room (A7) hears of its own leaving.
        let left = match &msg {
            ServerMsg::PlayerLeft { player_id } => self
                .room()
                .filter(|r| !r.is_me(player_id))
                .and_then(|r| r.name_of(player_id))
                .map(str::to_owned),
            _ => None,
        };
        let prev_race = self.race().map(|r| r.race_id.clone());
        let prev_room = self.room().map(|r| r.code.to_string());
        // A9: the restart screen replaces the room, whatever the mirror would keep of it.
        if self.restarted(&msg, prev_room.clone()) {
            return Vec::new();
        }
        self.mirror.apply(&msg, now);
        if let ServerMsg::Reported { player_id } = &msg {
            self.on_reported(player_id);
        }
        let effects = self.update_screen(msg, left, prev_race, prev_room);
        self.close_stale_tool();
        effects
    }

    /// `room_closed`: nothing of the room stays open on screen.
    fn room_closed(&mut self, room: protocol::RoomCode) {
        self.tool = None;
        self.confirm = None;
        self.notice = None;
        self.outside = Outside::Closed { room };
    }

    /// The screen's own state after the mirror took `msg` in: notices, the pencil marks and
    /// cursor, pending placements, chat, the screen outside a room. `left`, `prev_race` and
    /// `prev_room` were read before the mirror forgot them.
    fn update_screen(
        &mut self,
        msg: ServerMsg,
        left: Option<String>,
        prev_race: Option<protocol::RaceId>,
        prev_room: Option<String>,
    ) -> Vec<Effect> {
        match msg {
            ServerMsg::RoomJoined { .. } => self.entered(prev_race),
            ServerMsg::PlayerJoined { player } => {
                if !self.room().is_some_and(|r| r.is_me(&player.player_id)) {
                    self.notify(format!("{} joined", player.name), false);
                }
            }
            ServerMsg::PlayerLeft { .. } => {
                if let Some(name) = left {
                    self.notify(format!("{name} left"), false);
                }
            }
            ServerMsg::SettingsChanged { settings } => {
                self.notify(
                    format!("settings changed: {}", room_host::summary(&settings)),
                    false,
                );
            }
            ServerMsg::Countdown { .. } => self.confirm = None,
            ServerMsg::RaceStarted { .. } => self.play = Play::default(),
            ServerMsg::Placement {
                id,
                cell,
                digit,
                accepted,
                reason,
                conflicts,
                ..
            } => self.placement_answered(id, cell, digit, accepted, reason, conflicts),
            ServerMsg::PlayerFinished {
                player_id,
                status,
                time_ms,
            } => self.announce_finish(&player_id, status, time_ms),
            ServerMsg::RaceOver { .. } => return self.race_over(),
            ServerMsg::Chat {
                player_id,
                name,
                text,
            } => {
                self.chat.push(ChatLine {
                    name,
                    watching: player_id.is_none(),
                    text,
                });
                if self.chat.len() > CHAT_KEPT {
                    self.chat.remove(0);
                }
            }
            ServerMsg::RoomClosed { room, .. } => self.room_closed(room),
            ServerMsg::Error { code, message } => return self.refused(code, message, prev_room),
            ServerMsg::Welcome { .. }
            | ServerMsg::Pong { .. }
            | ServerMsg::Registered { .. }
            | ServerMsg::RoomList { .. }
            | ServerMsg::PlayerUpdated { .. }
            | ServerMsg::HostChanged { .. }
            | ServerMsg::Progress(_)
            | ServerMsg::Board { .. }
            | ServerMsg::Reported { .. }
            | ServerMsg::Ratings { .. }
            | ServerMsg::Solution { .. } => {}
            ServerMsg::ArenaJoined { .. }
            | ServerMsg::ArenaStandings { .. }
            | ServerMsg::LeftArena { .. } => self.in_arena(&msg),
            ServerMsg::Queued { .. } | ServerMsg::PoolAlone { .. } | ServerMsg::LeftQueue => {
                self.in_pool(&msg)
            }
        }
        Vec::new()
    }

    /// `room_joined`: a fresh screen in the room, except that coming back to the same race (a
    /// resume) keeps the local pencil marks and cursor.
    fn entered(&mut self, prev_race: Option<protocol::RaceId>) {
        self.outside = Outside::Entering;
        self.switching = false;
        let kept = std::mem::take(&mut self.play.pencil_cursor);
        self.play = Play::default();
        if let Some(race) = self.mirror.race() {
            if prev_race.as_ref() == Some(&race.race_id) {
                self.play.pencil_cursor = kept;
                self.play.pencil_cursor.clear_filled(&race.board);
            }
        }
    }

    /// The server's answer to one of our placements: no longer pending; placed, or flashed
    /// with the reason it was refused.
    fn placement_answered(
        &mut self,
        id: Option<MsgId>,
        cell: Cell,
        digit: Digit,
        accepted: bool,
        reason: Option<PlaceReason>,
        conflicts: Vec<Cell>,
    ) {
        if self.mirror.race().is_none() {
            return;
        }
        let now = self.clock_ms;
        let play = &mut self.play;
        match id.as_ref().and_then(MsgId::as_u64) {
            Some(n) => play.pending.retain(|(i, _, _)| *i != n),
            None => play.pending.retain(|(_, pc, _)| *pc != cell),
        }
        if accepted {
            // A race is classic Sudoku until race_started names a variant.
            play.pencil_cursor.placed(Geometry::classic(), cell, digit);
            if play.flash.as_ref().is_some_and(|f| f.cell == cell) {
                play.flash = None;
            }
        } else {
            play.flash = Some(Flash {
                cell,
                digit,
                reason: reason.unwrap_or(PlaceReason::Wrong),
                conflicts,
                until_ms: now + FLASH_MS,
            });
        }
    }

    /// A notice that a player finished, and how.
    fn announce_finish(&mut self, player_id: &str, status: FinishStatus, time_ms: Option<u64>) {
        let Some(room) = self.room() else {
            return;
        };
        let name = room.name_of(player_id).unwrap_or("someone").to_owned();
        let text = match (status, time_ms) {
            (FinishStatus::Solved, Some(t)) => format!("{name} solved it in {}", clock(t)),
            (FinishStatus::Solved, None) => format!("{name} solved it"),
            (FinishStatus::Forfeited, _) => format!("{name} gave up"),
            (FinishStatus::Eliminated, _) => format!("{name} is out: too many mistakes"),
            (FinishStatus::TimedOut, _) => format!("{name} ran out of time"),
        };
        self.notify(text, false);
    }

    /// `race_over`: nothing is pending or flashed any more; a spectator waiting for a seat
    /// takes one now.
    fn race_over(&mut self) -> Vec<Effect> {
        let Some(room) = self.room() else {
            return Vec::new();
        };
        let watching = room.role == Role::Spectator;
        self.play.pending.clear();
        self.play.flash = None;
        self.confirm = None;
        self.arena_race_over();
        if self.seat_after_race && watching {
            return self.take_a_seat();
        }
        Vec::new()
    }

    /// An `error`: a flash in a room; outside one, the screen that answers the ask.
    fn refused(
        &mut self,
        code: ErrorCode,
        message: String,
        prev_room: Option<String>,
    ) -> Vec<Effect> {
        let now = self.clock_ms;
        if code == ErrorCode::RateLimited {
            self.play.pending.clear();
            self.notify("slow down: too many messages", true);
            return Vec::new();
        }
        if code == ErrorCode::Kicked {
            // The mirror has dropped the room; name the one we were in, or the one we asked for.
            let room = prev_room
                .or_else(|| outside::intent_room(self.intent.as_ref()).map(str::to_owned))
                .unwrap_or_else(|| "?".to_owned());
            self.tool = None;
            self.confirm = None;
            self.notice = None;
            self.outside = Outside::Kicked { room };
            return Vec::new();
        }
        if code == ErrorCode::InvalidToken && self.room().is_some() {
            self.notice = Some(Notice {
                text: "your seat expired while you were away: you are out of this race".into(),
                bad: true,
                until_ms: u64::MAX,
            });
            return Vec::new();
        }
        if self.switching {
            // Our `leave` went through: the room on screen is no longer ours.
            self.switching = false;
            self.mirror.room = None;
        }
        if self.room().is_some() {
            self.notice = Some(Notice {
                text: format!("{}: {message}", code.as_str()),
                bad: true,
                until_ms: now + FLASH_MS,
            });
            return Vec::new();
        }
        // Outside a room an error answers our ask, unless the session is over already.
        if !self.outside.is_final() {
            self.notice = None;
            self.outside = outside::answer(self.intent.as_ref(), code, &message);
        }
        Vec::new()
    }

    /// A key while another name is typed in place of a refused one: `Enter` asks again with it,
    /// `Esc` quits.
    pub(super) fn type_new_name(&mut self, code: KeyCode) -> Vec<Effect> {
        let Outside::Rename { input, .. } = &mut self.outside else {
            return Vec::new();
        };
        match code {
            KeyCode::Esc => return self.leave(),
            KeyCode::Enter => {
                let name = input.trim().to_owned();
                if !name.is_empty() {
                    return self.rename(name);
                }
            }
            KeyCode::Backspace => {
                input.pop();
            }
            KeyCode::Char(c) if !c.is_control() && input.chars().count() < MAX_NAME_CHARS => {
                input.push(c);
            }
            _ => {}
        }
        Vec::new()
    }

    /// Ask again under the name typed in place of a refused one.
    pub(super) fn rename(&mut self, name: String) -> Vec<Effect> {
        let Some(intent) = self.intent.as_ref() else {
            return Vec::new();
        };
        let intent = outside::renamed(intent, &name);
        self.name = name;
        self.outside = Outside::Entering;
        let ask = intent.first_message();
        self.intent = Some(intent);
        ask.map(Effect::Send).into_iter().collect()
    }

    /// Refused a seat mid-race: watch the race now, and take a seat when it ends.
    pub(super) fn watch_then_join(&mut self) -> Vec<Effect> {
        let Outside::RaceOn { room } = &self.outside else {
            return Vec::new();
        };
        let room = room.clone();
        self.seat_after_race = true;
        self.outside = Outside::Entering;
        self.intent = Some(Intent::Spectate {
            room: room.clone(),
            name: self.name.clone(),
            boards: false,
        });
        vec![Effect::Send(ClientMsg::Spectate {
            room,
            name: Some(self.name.clone()),
            key: None,
            boards: false,
        })]
    }

    /// The race we watched is over: leave the spectators' bench and join as a player.
    fn take_a_seat(&mut self) -> Vec<Effect> {
        let Some(room) = self.room().map(|r| r.code.to_string()) else {
            return Vec::new();
        };
        self.seat_after_race = false;
        self.switching = true;
        let join = Intent::Join {
            room,
            name: self.name.clone(),
        };
        let ask = join.first_message();
        self.intent = Some(join);
        self.notify("the race is over: taking a seat…", false);
        let mut effects = vec![Effect::Send(ClientMsg::Leave)];
        effects.extend(ask.map(Effect::Send));
        effects
    }
}
