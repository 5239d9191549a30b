//! `report` (A8) from the results screen: `!` opens the list of the race's other players,
//! `Enter` on one asks for a reason (one line, 1 to 200 characters), `Enter` again sends
//! `report`; the server answers `reported`, shown as a notice. Spectators may report too.

use crossterm::event::KeyCode;
use protocol::{Phase, PlayerId};

use super::{Room, Tool};

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

/// What a key did to the reason being typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ReasonKey {
    /// Still typing (or no reason is being typed).
    Typing,
    /// `Esc`: the report is dropped.
    Cancel,
    /// `Enter` on a blank reason.
    Blank,
    /// `Enter`: report the player on this row of [`report_list`] for this reason.
    Send(usize, String),
}

impl Tool {
    /// `Enter` on the report list's `row` in `room`: type the reason, if the row is a player.
    pub(super) fn choose_report(row: usize, room: Option<&Room>) -> Option<Tool> {
        room.and_then(|r| report_list(r).into_iter().nth(row))?;
        Some(Tool::Report {
            row,
            reason: Some(String::new()),
        })
    }

    /// Whether a reason is being typed (it takes every key).
    pub(super) fn typing_reason(&self) -> bool {
        matches!(
            self,
            Tool::Report {
                reason: Some(_),
                ..
            }
        )
    }

    /// A key while the reason is typed: `Enter` sends the report, `Esc` cancels.
    pub(super) fn type_reason(&mut self, code: KeyCode) -> ReasonKey {
        let Tool::Report {
            row,
            reason: Some(reason),
        } = self
        else {
            return ReasonKey::Typing;
        };
        match code {
            KeyCode::Esc => return ReasonKey::Cancel,
            KeyCode::Backspace => {
                reason.pop();
            }
            KeyCode::Char(c) if !c.is_control() && reason.chars().count() < MAX_REASON_CHARS => {
                reason.push(c);
            }
            KeyCode::Enter => {
                let reason = reason.trim().to_owned();
                if reason.is_empty() {
                    return ReasonKey::Blank;
                }
                return ReasonKey::Send(*row, reason);
            }
            _ => {}
        }
        ReasonKey::Typing
    }

    /// Whether the tool stays open over `room` after a server message: the room host's tools
    /// close when we stop being the room host between races; the report list closes once the
    /// results screen is gone.
    pub(super) fn stays_open(&self, room: Option<&Room>) -> bool {
        match self {
            Tool::Report { .. } => room.is_some_and(|r| r.phase == Phase::Finished),
            Tool::Settings { .. } | Tool::Kick { .. } => room.is_some_and(|r| {
                r.am_room_host() && matches!(r.phase, Phase::Lobby | Phase::Finished)
            }),
        }
    }
}
