//! The online app's keys: one table from key to [`Action`], with the label the footer shows.
//!
//! [`action`] resolves a key press against the table and [`help`] draws the footer from the
//! same rows, so the footer cannot name a key the handling does not know. The chat line being
//! typed takes every key itself; its two keys are [`INPUT_HELP`].

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use protocol::Phase;
use shared::engine::Digit;

/// What a key asks the online app to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Move the cursor by rows and columns.
    Move(i8, i8),
    /// Place a digit (or toggle its pencil mark) in the cursor cell.
    Place(Digit),
    /// Erase the pencil marks of the cursor cell.
    Erase,
    /// Switch between pen and pencil.
    Pencil,
    /// Give up the race (asks first).
    Forfeit,
    /// Toggle ready in the lobby.
    Ready,
    /// Start the race (the host), or a rematch.
    Start,
    /// Start typing a chat line.
    Chat,
    /// Leave (asks first mid-race).
    Quit,
}

/// What the key table depends on: where we are and who we are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Context {
    /// The room's phase; `None` before a room is joined.
    pub phase: Option<Phase>,
    /// Seated as a player (not a spectator).
    pub player: bool,
    /// The room's host.
    pub host: bool,
    /// Still in the race in progress (a player not yet out of it).
    pub racing: bool,
}

impl Context {
    fn is(&self, phase: Phase) -> bool {
        self.phase == Some(phase)
    }

    fn idle(&self) -> bool {
        self.is(Phase::Lobby) || self.is(Phase::Finished)
    }
}

/// One row of the table.
struct Binding {
    /// The key's name and what it does, for the footer.
    label: (&'static str, &'static str),
    /// The action of a key this row knows.
    keys: fn(KeyCode) -> Option<Action>,
    /// Where the key works.
    active: fn(&Context) -> bool,
    /// Where the footer names it.
    shown: fn(&Context) -> bool,
}

/// The key table, in footer order. Two rows may share a key with different labels (`s` starts
/// in the lobby and rematches after a race; `q` quits or leaves).
const TABLE: &[Binding] = &[
    Binding {
        label: ("r", "ready"),
        keys: |k| (k == KeyCode::Char('r')).then_some(Action::Ready),
        active: |c| c.player && c.is(Phase::Lobby),
        shown: |c| c.player && c.is(Phase::Lobby),
    },
    Binding {
        label: ("s", "start"),
        keys: |k| (k == KeyCode::Char('s')).then_some(Action::Start),
        // A player who is not the host hears that only the host can start.
        active: |c| c.player && c.idle(),
        shown: |c| c.player && c.host && c.is(Phase::Lobby),
    },
    Binding {
        label: ("s", "rematch"),
        keys: |k| (k == KeyCode::Char('s')).then_some(Action::Start),
        active: |c| c.player && c.idle(),
        shown: |c| c.player && c.host && c.is(Phase::Finished),
    },
    Binding {
        label: ("←↓↑→/hjkl", "move"),
        keys: |k| nav_key(k).map(|(dr, dc)| Action::Move(dr, dc)),
        active: |c| c.idle() || c.is(Phase::Racing),
        shown: |c| c.racing,
    },
    Binding {
        label: ("1-9", "place"),
        keys: |k| digit_key(k).map(Action::Place),
        active: |c| c.racing,
        shown: |c| c.racing,
    },
    Binding {
        label: ("p", "pencil"),
        keys: |k| (k == KeyCode::Char('p')).then_some(Action::Pencil),
        active: |c| c.racing,
        shown: |c| c.racing,
    },
    Binding {
        label: ("x", "erase marks"),
        keys: |k| erase_key(k).then_some(Action::Erase),
        active: |c| c.racing,
        shown: |c| c.racing,
    },
    Binding {
        label: ("f", "forfeit"),
        keys: |k| (k == KeyCode::Char('f')).then_some(Action::Forfeit),
        active: |c| c.racing,
        shown: |c| c.racing,
    },
    Binding {
        label: ("Enter", "chat"),
        keys: |k| (k == KeyCode::Enter).then_some(Action::Chat),
        active: |c| c.phase.is_some(),
        shown: |c| c.phase.is_some(),
    },
    Binding {
        label: ("q", "quit"),
        keys: quit_key,
        active: |_| true,
        shown: |c| !leaves(c),
    },
    Binding {
        label: ("q", "leave"),
        keys: quit_key,
        active: |_| true,
        shown: leaves,
    },
];

/// The footer while a chat line is being typed.
pub const INPUT_HELP: &[(&str, &str)] = &[("Enter", "send"), ("Esc", "cancel")];

/// After a race the host's `q` leaves the room it could rematch in.
fn leaves(c: &Context) -> bool {
    c.player && c.host && c.is(Phase::Finished)
}

fn quit_key(k: KeyCode) -> Option<Action> {
    matches!(k, KeyCode::Char('q') | KeyCode::Esc).then_some(Action::Quit)
}

/// The action of `code` in `ctx`, if the key does anything there.
pub fn action(ctx: &Context, code: KeyCode) -> Option<Action> {
    TABLE
        .iter()
        .filter(|b| (b.active)(ctx))
        .find_map(|b| (b.keys)(code))
}

/// The footer's `(key, what)` pairs in `ctx`.
pub fn help(ctx: &Context) -> Vec<(&'static str, &'static str)> {
    TABLE
        .iter()
        .filter(|b| (b.shown)(ctx))
        .map(|b| b.label)
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    const PHASES: [Option<Phase>; 5] = [
        None,
        Some(Phase::Lobby),
        Some(Phase::Countdown),
        Some(Phase::Racing),
        Some(Phase::Finished),
    ];

    fn contexts() -> impl Iterator<Item = Context> {
        PHASES.into_iter().flat_map(|phase| {
            (0..8).map(move |bits| Context {
                phase,
                player: bits & 1 != 0,
                host: bits & 2 != 0,
                racing: bits & 4 != 0 && phase == Some(Phase::Racing),
            })
        })
    }

    #[test]
    fn every_key_the_footer_names_works_there() {
        for ctx in contexts() {
            for b in TABLE.iter().filter(|b| (b.shown)(&ctx)) {
                assert!(
                    (b.active)(&ctx),
                    "{:?} is shown but dead in {ctx:?}",
                    b.label
                );
            }
        }
    }

    #[test]
    fn the_footer_follows_the_room() {
        let lobby_host = Context {
            phase: Some(Phase::Lobby),
            player: true,
            host: true,
            racing: false,
        };
        assert_eq!(
            help(&lobby_host),
            [
                ("r", "ready"),
                ("s", "start"),
                ("Enter", "chat"),
                ("q", "quit")
            ]
        );
        let rematch = Context {
            phase: Some(Phase::Finished),
            ..lobby_host
        };
        assert_eq!(
            help(&rematch),
            [("s", "rematch"), ("Enter", "chat"), ("q", "leave")]
        );
        assert_eq!(help(&Context::default()), [("q", "quit")]);
        // Out of the race (forfeited, eliminated, solved) while it goes on: nothing to place.
        let out = Context {
            phase: Some(Phase::Racing),
            player: true,
            host: false,
            racing: false,
        };
        assert_eq!(help(&out), [("Enter", "chat"), ("q", "quit")]);
    }

    #[test]
    fn keys_resolve_only_where_they_work() {
        let watching = Context {
            phase: Some(Phase::Racing),
            ..Context::default()
        };
        assert_eq!(action(&watching, KeyCode::Left), Some(Action::Move(0, -1)));
        assert_eq!(action(&watching, KeyCode::Char('5')), None);
        let racing = Context {
            player: true,
            racing: true,
            ..watching
        };
        assert_eq!(
            action(&racing, KeyCode::Char('5')),
            Digit::new(5).map(Action::Place)
        );
        assert_eq!(action(&racing, KeyCode::Backspace), Some(Action::Erase));
        assert_eq!(action(&Context::default(), KeyCode::Enter), None);
        assert_eq!(
            action(&Context::default(), KeyCode::Esc),
            Some(Action::Quit)
        );
    }
}
