//! The replay screen's state: the [`Playback`], whose board is shown, and the keys. Like the
//! other apps, [`ReplayApp::update`] does no IO; wall time comes in as ticks.

use crossterm::event::KeyCode;

use super::{Playback, Replay};
use crate::app::{is_ctrl_c, Effect, Event};

/// The keys, for the help line (`ui::replay`): 75 columns, so it fits the smallest screen.
pub const HELP: [(&str, &str); 6] = [
    ("space", "pause"),
    ("+/-", "speed"),
    (". ,", "step"),
    ("Tab 1-9", "board"),
    ("Home/End", "start/end"),
    ("q", "quit"),
];

/// `sudoku-race replay`'s whole state.
#[derive(Clone, Debug)]
pub struct ReplayApp {
    /// The race and where its playback stands.
    pub playback: Playback,
    /// Whose board is shown (an index into the replay's players).
    pub selected: usize,
    /// The last tick's wall clock, to turn ticks into elapsed time.
    last_tick_ms: Option<u64>,
}

impl ReplayApp {
    /// At the start of `replay`, playing, showing the winner's board.
    pub fn new(replay: Replay) -> ReplayApp {
        ReplayApp {
            playback: Playback::new(replay),
            selected: 0,
            last_tick_ms: None,
        }
    }

    /// Apply one event.
    pub fn update(&mut self, event: Event) -> Vec<Effect> {
        match event {
            Event::Tick(now) => {
                let dt = self.last_tick_ms.map_or(0, |t| now.saturating_sub(t));
                self.last_tick_ms = Some(now.max(self.last_tick_ms.unwrap_or(0)));
                self.playback.advance(dt);
                Vec::new()
            }
            Event::Key(key) if is_ctrl_c(&key) => vec![Effect::Quit],
            Event::Key(key) => self.on_key(key.code),
            Event::Net(_) | Event::Resize => Vec::new(),
        }
    }

    fn on_key(&mut self, code: KeyCode) -> Vec<Effect> {
        let n = self.playback.replay().players.len();
        let p = &mut self.playback;
        match code {
            KeyCode::Char('q') | KeyCode::Esc => return vec![Effect::Quit],
            KeyCode::Char(' ') => p.toggle_pause(),
            KeyCode::Char('+' | '=' | ']') => p.faster(),
            KeyCode::Char('-' | '[') => p.slower(),
            KeyCode::Char('.' | 'n') => p.step_forward(),
            KeyCode::Char(',' | 'b') => p.step_back(),
            KeyCode::Home => p.restart(),
            KeyCode::End => p.to_end(),
            KeyCode::Tab | KeyCode::Right if n > 0 => self.selected = (self.selected + 1) % n,
            KeyCode::BackTab | KeyCode::Left if n > 0 => {
                self.selected = (self.selected + n - 1) % n;
            }
            KeyCode::Char(c @ '1'..='9') => {
                let i = usize::from(c as u8 - b'1');
                if i < n {
                    self.selected = i;
                }
            }
            _ => {}
        }
        Vec::new()
    }
}
