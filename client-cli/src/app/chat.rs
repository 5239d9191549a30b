//! The room's chat on screen ([`Chat`]): the lines heard (the last [`CHAT_KEPT`]) and the line
//! being typed. It decides what a key does to the typed line and when a line goes out.

use crossterm::event::KeyCode;
use protocol::{PlayerName, MAX_CHAT_CHARS};

/// Chat lines kept.
const CHAT_KEPT: usize = 100;

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

/// The chat heard in the room, and the line being typed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Chat {
    /// Chat, oldest first.
    lines: Vec<ChatLine>,
    /// The chat line being typed, when typing.
    input: Option<String>,
}

impl Chat {
    /// The lines heard, oldest first.
    pub fn lines(&self) -> &[ChatLine] {
        &self.lines
    }

    /// The line being typed, when typing.
    pub fn input(&self) -> Option<&str> {
        self.input.as_deref()
    }

    /// Start typing a line.
    pub(super) fn start_typing(&mut self) {
        self.input = Some(String::new());
    }

    /// A line heard; the oldest goes past [`CHAT_KEPT`].
    pub(super) fn heard(&mut self, line: ChatLine) {
        self.lines.push(line);
        if self.lines.len() > CHAT_KEPT {
            self.lines.remove(0);
        }
    }

    /// Another room, with other people: nothing heard is kept.
    pub(super) fn clear(&mut self) {
        self.lines.clear();
    }

    /// A key while a line is typed (it takes every key): `Esc` drops the line, `Enter` returns
    /// it to send (unless blank). `None` when no line is being typed.
    pub(super) fn key(&mut self, code: KeyCode) -> Option<Option<String>> {
        let input = self.input.as_mut()?;
        match code {
            KeyCode::Esc => self.input = None,
            KeyCode::Enter => {
                let text = input.trim().to_owned();
                self.input = None;
                return Some((!text.is_empty()).then_some(text));
            }
            KeyCode::Backspace => {
                input.pop();
            }
            KeyCode::Char(c) if !c.is_control() && input.chars().count() < MAX_CHAT_CHARS => {
                input.push(c);
            }
            _ => {}
        }
        Some(None)
    }
}
