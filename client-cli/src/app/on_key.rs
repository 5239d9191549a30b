//! What each key does, once the key table (`keys`) has named its [`Action`]: the glue between
//! the parts a key reaches. A line being typed (a new name, a report's reason, chat) takes every
//! key first, then a confirmation waiting for its second press.

use crossterm::event::{KeyCode, KeyEvent};
use protocol::{ClientMsg, MAX_NAME_CHARS};

use super::keys::{self, Action, Context};
use super::play::{place_msg, Placing};
use super::report::{self, ReasonKey};
use super::{is_ctrl_c, room_host, App, Confirm, Conn, Effect, Outside, Room, Tool};
use crate::net::Intent;

impl App {
    pub(super) fn on_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if is_ctrl_c(&key) {
            return self.leave();
        }
        if self.room().is_none() && matches!(self.outside, Outside::Rename { .. }) {
            return self.type_new_name(key.code);
        }
        if self.tool.as_ref().is_some_and(Tool::typing_reason) {
            return self.type_reason(key.code);
        }
        if let Some(line) = self.chat.key(key.code) {
            return line
                .map(|text| Effect::Send(ClientMsg::Chat { text }))
                .into_iter()
                .collect();
        }
        if let Some(confirm) = self.status.take_confirm() {
            return self.confirmed(confirm, key.code);
        }
        let ctx = self.key_context();
        match keys::action(&ctx, key.code) {
            Some(action) => self.act(action, &ctx),
            None => Vec::new(),
        }
    }

    /// The key after a confirmation's first press: its own key (or `y`) goes ahead; any other
    /// cancels.
    fn confirmed(&mut self, confirm: Confirm, code: KeyCode) -> Vec<Effect> {
        match (confirm, code) {
            (Confirm::Quit, KeyCode::Char('q') | KeyCode::Char('y')) => self.leave(),
            (Confirm::Forfeit, KeyCode::Char('f') | KeyCode::Char('y')) => {
                vec![Effect::Send(ClientMsg::Forfeit)]
            }
            (Confirm::Kick(player_id), KeyCode::Char('y')) => {
                self.status.clear_notice();
                let player_id = player_id.to_string();
                vec![Effect::Send(ClientMsg::Kick { player_id })]
            }
            _ => {
                self.status.clear_notice();
                Vec::new()
            }
        }
    }

    fn act(&mut self, action: Action, ctx: &Context) -> Vec<Effect> {
        let has_race = self.race().is_some();
        match action {
            Action::Quit => return self.quit(ctx),
            Action::Chat => self.chat.start_typing(),
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
                    self.play.move_cursor(dr, dc);
                }
            }
            Action::Place(digit) => return self.place(digit),
            Action::Erase => self.play.erase(),
            Action::Pencil => {
                let text = if self.play.toggle_pencil_mode() {
                    "pencil mode: digits toggle marks"
                } else {
                    "pen mode: digits are placed"
                };
                self.notify(text, false);
            }
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
            Action::Forfeit => self.status.ask(
                Confirm::Forfeit,
                "give up this race? press f again (any other key cancels)",
            ),
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
            self.status.ask(Confirm::Quit, format!("quit and close the room? {others} other player(s) will be disconnected; press q again (any other key cancels)"));
            return Vec::new();
        }
        if ctx.racing && !matches!(self.conn, Conn::Closed(_)) {
            self.status.ask(
                Confirm::Quit,
                "leave the race? press q again (any other key cancels)",
            );
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
                    self.status.ask(
                        Confirm::Kick(player_id),
                        format!("remove {name} from the room? press y (any other key cancels)"),
                    );
                }
                Vec::new()
            }
            Some(Tool::Report { row, .. }) => {
                if let Some(tool) = Tool::choose_report(row, self.room()) {
                    self.tool = Some(tool);
                }
                Vec::new()
            }
            None => Vec::new(),
        }
    }

    /// `!`: the list of players to report, or a notice when there is nobody.
    fn open_report(&mut self) {
        if self
            .room()
            .is_some_and(|r| report::report_list(r).is_empty())
        {
            self.notify("nobody else to report", true);
        } else {
            self.tool = Some(Tool::Report {
                row: 0,
                reason: None,
            });
        }
    }

    /// A key while a report's reason is typed: `Enter` sends the report, `Esc` cancels.
    fn type_reason(&mut self, code: KeyCode) -> Vec<Effect> {
        let Some(tool) = self.tool.as_mut() else {
            return Vec::new();
        };
        match tool.type_reason(code) {
            ReasonKey::Typing => {}
            ReasonKey::Cancel => self.tool = None,
            ReasonKey::Blank => self.notify("a report needs a reason", true),
            ReasonKey::Send(row, reason) => {
                self.tool = None;
                let chosen = self
                    .room()
                    .and_then(|r| report::report_list(r).into_iter().nth(row));
                if let Some((player_id, _)) = chosen {
                    let player_id = player_id.to_string();
                    return vec![Effect::Send(ClientMsg::Report { player_id, reason })];
                }
            }
        }
        Vec::new()
    }

    /// A digit key in the cursor's cell: a pencil mark, or a placement sent to the server.
    fn place(&mut self, digit: engine::Digit) -> Vec<Effect> {
        let Some((puzzle, board)) = self.race().map(|r| (r.puzzle, r.board)) else {
            return Vec::new();
        };
        let hold = !self.room_answers();
        match self.play.place(&puzzle, &board, digit, hold) {
            (_, Placing::Pencilled | Placing::Pending | Placing::Held(_)) => Vec::new(),
            (_, Placing::Given) => {
                self.notify("that cell is a given", true);
                Vec::new()
            }
            (_, Placing::Filled) => {
                self.notify("that cell is already filled", true);
                Vec::new()
            }
            (cell, Placing::Send(id)) => vec![Effect::Send(place_msg(id, cell, digit))],
        }
    }

    /// A key while another name is typed in place of a refused one: `Enter` asks again with it,
    /// `Esc` quits.
    fn type_new_name(&mut self, code: KeyCode) -> Vec<Effect> {
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
    fn rename(&mut self, name: String) -> Vec<Effect> {
        let Some(ask) = self.seating.rename(&name) else {
            return Vec::new();
        };
        self.name = name;
        self.outside = Outside::Entering;
        ask.map(Effect::Send).into_iter().collect()
    }

    /// Refused a seat mid-race: watch the race now, and take a seat when it ends.
    fn watch_then_join(&mut self) -> Vec<Effect> {
        let Outside::RaceOn { room } = &self.outside else {
            return Vec::new();
        };
        let spectate = self.seating.watch_then_join(room.clone(), &self.name);
        self.outside = Outside::Entering;
        vec![Effect::Send(spectate)]
    }

    /// `n` (a new room) or `p` (Play now) on the restart screen: the ask, for a new connection.
    fn again(&mut self, action: Action) -> Vec<Effect> {
        let Some(intent) = self.outside.again(action, &self.name) else {
            return Vec::new();
        };
        let ask = self.seating.ask(intent);
        self.arena = None;
        self.redo = None;
        self.outside = Outside::Entering;
        self.notify("reconnecting…", false);
        ask.map(Effect::Send).into_iter().collect()
    }

    /// `g` on the queue screen when `pool_alone` offered a ghost: leave the queue and race it.
    fn race_offered_ghost(&mut self) -> Vec<Effect> {
        let Some(ghost) = self.outside.offered_ghost() else {
            return Vec::new();
        };
        let intent = Intent::Ghost {
            ghost: ghost.to_owned(),
            difficulty: None,
            variant: engine::Variant::Classic,
            name: self.name.clone(),
        };
        let ask = self.seating.ask(intent);
        self.outside = Outside::Entering;
        self.notify("racing the ghost…", false);
        let mut effects = vec![Effect::Send(ClientMsg::LeaveQueue)];
        effects.extend(ask.map(Effect::Send));
        effects
    }

    /// `r` on a pool race's results: back to the pool (an arena room's: into the arena's next
    /// race). The results stay until `queued` (or the next `room_joined`) comes.
    pub(super) fn requeue(&mut self) -> Vec<Effect> {
        let arena_room = self.in_arena_room();
        if let Some(arena) = self.arena.as_mut() {
            arena.requeued();
        }
        let words = if arena_room {
            "on to the arena's next race…"
        } else {
            "back to the pool…"
        };
        self.notify(words, false);
        vec![Effect::Send(ClientMsg::Requeue)]
    }
}
