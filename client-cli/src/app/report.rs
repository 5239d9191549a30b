//! `report` (A8) from the results screen: `!` opens the list of the race's other players,
//! `Enter` on one asks for a reason (one line, 1 to 200 characters), `Enter` again sends
//! `report`; the server answers `reported`, shown as a notice. Spectators may report too.

use crossterm::event::KeyCode;
use protocol::{ClientMsg, Phase, PlayerId};

use super::{App, Effect, Room, Tool};

/// Longest reason the server takes, in characters (A8).
pub const MAX_REASON_CHARS: usize = 200;

/// The players one may report: everyone seated but us, as (id, name).
pub fn report_list(room: &Room) -> Vec<(PlayerId, String)> {
    room.players
        .iter()
        .filter(|p| !room.is_me(&p.player_id))
        .map(|p| (p.player_id.clone(), p.name.to_string()))
        .collect()
}

impl App {
    /// `!`: the list of players to report, or a notice when there is nobody.
    pub(super) fn open_report(&mut self) {
        if self.room().is_some_and(|r| report_list(r).is_empty()) {
            self.notify("nobody else to report", true);
        } else {
            self.tool = Some(Tool::Report {
                row: 0,
                reason: None,
            });
        }
    }

    /// `Enter` on the list: type the reason for the chosen player.
    pub(super) fn choose_report(&mut self, row: usize) {
        let chosen = self
            .room()
            .and_then(|r| report_list(r).into_iter().nth(row));
        if chosen.is_some() {
            self.tool = Some(Tool::Report {
                row,
                reason: Some(String::new()),
            });
        }
    }

    /// Whether a reason is being typed (it takes every key).
    pub(super) fn typing_reason(&self) -> bool {
        matches!(
            self.tool,
            Some(Tool::Report {
                reason: Some(_),
                ..
            })
        )
    }

    /// A key while the reason is typed: `Enter` sends the report, `Esc` cancels.
    pub(super) fn type_reason(&mut self, code: KeyCode) -> Vec<Effect> {
        let Some(Tool::Report {
            row,
            reason: Some(reason),
        }) = self.tool.as_mut()
        else {
            return Vec::new();
        };
        match code {
            KeyCode::Esc => self.tool = None,
            KeyCode::Backspace => {
                reason.pop();
            }
            KeyCode::Char(c) if !c.is_control() && reason.chars().count() < MAX_REASON_CHARS => {
                reason.push(c);
            }
            KeyCode::Enter => {
                let (row, reason) = (*row, reason.trim().to_owned());
                if reason.is_empty() {
                    self.notify("a report needs a reason", true);
                    return Vec::new();
                }
                self.tool = None;
                let chosen = self
                    .room()
                    .and_then(|r| report_list(r).into_iter().nth(row));
                if let Some((player_id, _)) = chosen {
                    let player_id = player_id.to_string();
                    return vec![Effect::Send(ClientMsg::Report { player_id, reason })];
                }
            }
            _ => {}
        }
        Vec::new()
    }

    /// After a server message: the room host's tools close when we stop being the room host
    /// between races; the report list closes once the results screen is gone.
    pub(super) fn close_stale_tool(&mut self) {
        let open = match &self.tool {
            None => return,
            Some(Tool::Report { .. }) => self.room().is_some_and(|r| r.phase == Phase::Finished),
            Some(Tool::Settings { .. } | Tool::Kick { .. }) => self.room().is_some_and(|r| {
                r.am_room_host() && matches!(r.phase, Phase::Lobby | Phase::Finished)
            }),
        };
        if !open {
            self.tool = None;
        }
    }

    /// `reported`: the server kept the report.
    pub(super) fn on_reported(&mut self, player_id: &PlayerId) {
        let name = self
            .room()
            .and_then(|r| r.players.iter().find(|p| p.player_id == *player_id))
            .map_or_else(|| player_id.to_string(), |p| p.name.to_string());
        self.notify(format!("reported {name} to the moderators"), false);
    }
}
