//! The online app's keys: one table from key to [`Action`], with the label the footer shows.
//!
//! [`action`] resolves a key press against the table and [`help`] draws the footer from the
//! same rows, so the footer cannot name a key the handling does not know. Each row belongs to a
//! [`Mode`]: the room itself, or the room host's settings editor or kick list open over it. A line
//! being typed (chat, or a new name) takes every key itself; its keys are [`INPUT_HELP`] and
//! [`RENAME_HELP`].

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use engine::Digit;
use protocol::Phase;

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
    /// Start the race (the room host), or a rematch.
    Start,
    /// Start typing a chat line.
    Chat,
    /// Leave (asks first mid-race).
    Quit,
    /// Room host, between races: open the settings editor.
    Settings,
    /// Room host, between races: choose a player to remove.
    Kick,
    /// In the editor or the kick list: the previous (-1) or next (1) row.
    Row(i8),
    /// In the editor: the previous (-1) or next (1) value of the row.
    Value(i8),
    /// In the editor or the kick list: send it.
    Apply,
    /// Close the editor or the kick list.
    Cancel,
    /// Refused a seat mid-race: watch now and take a seat when the race ends.
    Watch,
    /// After a pool race: back into the pool for the next one (A7 `requeue`).
    Requeue,
    /// In the queue, offered a ghost by `pool_alone`: leave the queue and race it (A7).
    RaceGhost,
    /// After a race: choose a player to report to the moderators (A8).
    Report,
    /// The server restarted (A9): a new room, on a new connection.
    NewRoom,
    /// The server restarted (A9): the pool, on a new connection.
    PlayNow,
}

/// What has the keys: the room, or a room host's tool open over it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// The room's own keys.
    #[default]
    Room,
    /// The room host's settings editor.
    Settings,
    /// The room host's list of players to remove.
    Kick,
    /// The list of players to report (A8).
    Report,
    /// A report's reason being typed (it takes every key; these rows are the footer's).
    ReportReason,
}

/// What the key table depends on: where we are and who we are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Context {
    /// The room's phase; `None` before a room is joined.
    pub phase: Option<Phase>,
    /// Seated as a player (not a spectator).
    pub player: bool,
    /// We are the room host (we start races and edit the settings).
    pub room_host: bool,
    /// Still in the race in progress (a player not yet out of it, and connected).
    pub racing: bool,
    /// What has the keys.
    pub mode: Mode,
    /// In no room, refused a seat because a race is on: watching is offered.
    pub offer: bool,
    /// A pool room (A7): nobody hosts it and the server starts its races, so there is no ready
    /// mark, start or rematch; after a race, `requeue`.
    pub pool: bool,
    /// In no room, waiting in the pool: leaving means leaving the queue.
    pub queued: bool,
    /// Waiting in the pool, offered a ghost to race instead (`pool_alone`).
    pub ghost: bool,
    /// In no room, the server restarting (A9): a new room or the pool is offered.
    pub restart: bool,
}

impl Context {
    fn is(&self, phase: Phase) -> bool {
        self.phase == Some(phase)
    }

    fn idle(&self) -> bool {
        self.is(Phase::Lobby) || self.is(Phase::Finished)
    }

    /// The room host between races: the one who may change settings and remove players (A5).
    fn controls(&self) -> bool {
        self.player && self.room_host && self.idle()
    }
}

/// One row of the table.
struct Binding {
    /// What has the keys when this row applies.
    mode: Mode,
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
/// in the lobby and rematches after a race; `r` is ready in a lobby and races again after a
/// pool race; `q` and `Esc` quit, leave the room, or leave the queue).
const TABLE: &[Binding] = &[
    Binding {
        mode: Mode::Room,
        label: ("r", "ready"),
        keys: |k| (k == KeyCode::Char('r')).then_some(Action::Ready),
        active: |c| c.player && !c.pool && c.is(Phase::Lobby),
        shown: |c| c.player && !c.pool && c.is(Phase::Lobby),
    },
    Binding {
        mode: Mode::Room,
        label: ("r", "race again"),
        keys: |k| (k == KeyCode::Char('r')).then_some(Action::Requeue),
        active: |c| c.player && c.pool && c.is(Phase::Finished),
        shown: |c| c.player && c.pool && c.is(Phase::Finished),
    },
    Binding {
        mode: Mode::Room,
        label: ("s", "start"),
        keys: |k| (k == KeyCode::Char('s')).then_some(Action::Start),
        // A player who is not the room host hears that only the room host can start; in a pool
        // room nobody starts (the server does).
        active: |c| c.player && !c.pool && c.idle(),
        shown: |c| c.player && c.room_host && c.is(Phase::Lobby),
    },
    Binding {
        mode: Mode::Room,
        label: ("s", "rematch"),
        keys: |k| (k == KeyCode::Char('s')).then_some(Action::Start),
        active: |c| c.player && !c.pool && c.idle(),
        shown: |c| c.player && c.room_host && c.is(Phase::Finished),
    },
    Binding {
        mode: Mode::Room,
        label: ("←↓↑→", "move"),
        keys: |k| nav_key(k).map(|(dr, dc)| Action::Move(dr, dc)),
        // Only a player's board has a cursor (`hjkl` move it too; `k` kicks between races).
        active: |c| c.player && c.is(Phase::Racing),
        shown: |c| c.racing,
    },
    Binding {
        mode: Mode::Room,
        label: ("1-9", "place"),
        keys: |k| digit_key(k).map(Action::Place),
        active: |c| c.racing,
        shown: |c| c.racing,
    },
    Binding {
        mode: Mode::Room,
        label: ("p", "pencil"),
        keys: |k| (k == KeyCode::Char('p')).then_some(Action::Pencil),
        active: |c| c.racing,
        shown: |c| c.racing,
    },
    Binding {
        mode: Mode::Room,
        label: ("x", "erase"),
        keys: |k| erase_key(k).then_some(Action::Erase),
        active: |c| c.racing,
        shown: |c| c.racing,
    },
    Binding {
        mode: Mode::Room,
        label: ("f", "forfeit"),
        keys: |k| (k == KeyCode::Char('f')).then_some(Action::Forfeit),
        active: |c| c.racing,
        shown: |c| c.racing,
    },
    Binding {
        mode: Mode::Room,
        label: ("e", "settings"),
        keys: |k| (k == KeyCode::Char('e')).then_some(Action::Settings),
        active: Context::controls,
        shown: Context::controls,
    },
    Binding {
        mode: Mode::Room,
        label: ("k", "kick"),
        keys: |k| (k == KeyCode::Char('k')).then_some(Action::Kick),
        active: Context::controls,
        shown: Context::controls,
    },
    Binding {
        mode: Mode::Room,
        label: ("!", "report"),
        keys: |k| (k == KeyCode::Char('!')).then_some(Action::Report),
        active: |c| c.is(Phase::Finished),
        shown: |c| c.is(Phase::Finished),
    },
    Binding {
        mode: Mode::Room,
        label: ("s", "watch, then join"),
        keys: |k| (k == KeyCode::Char('s')).then_some(Action::Watch),
        active: |c| c.offer,
        shown: |c| c.offer,
    },
    Binding {
        mode: Mode::Room,
        label: ("n", "new room"),
        keys: |k| (k == KeyCode::Char('n')).then_some(Action::NewRoom),
        active: |c| c.restart,
        shown: |c| c.restart,
    },
    Binding {
        mode: Mode::Room,
        label: ("p", "play now"),
        keys: |k| (k == KeyCode::Char('p')).then_some(Action::PlayNow),
        active: |c| c.restart,
        shown: |c| c.restart,
    },
    Binding {
        mode: Mode::Room,
        label: ("Enter", "chat"),
        keys: |k| (k == KeyCode::Enter).then_some(Action::Chat),
        active: |c| c.phase.is_some(),
        shown: |c| c.phase.is_some(),
    },
    Binding {
        mode: Mode::Room,
        label: ("g", "race the ghost"),
        keys: |k| (k == KeyCode::Char('g')).then_some(Action::RaceGhost),
        active: |c| c.ghost,
        shown: |c| c.ghost,
    },
    Binding {
        mode: Mode::Room,
        label: ("Esc", "leave the queue"),
        keys: quit_key,
        active: |c| c.queued,
        shown: |c| c.queued,
    },
    Binding {
        mode: Mode::Room,
        label: ("q", "quit"),
        keys: quit_key,
        active: |_| true,
        shown: |c| !leaves(c) && !c.queued,
    },
    Binding {
        mode: Mode::Room,
        label: ("q", "leave"),
        keys: quit_key,
        active: |_| true,
        shown: leaves,
    },
    Binding {
        mode: Mode::Settings,
        label: ("↑↓", "setting"),
        keys: row_key,
        active: |_| true,
        shown: |_| true,
    },
    Binding {
        mode: Mode::Settings,
        label: ("←→", "change"),
        keys: |k| nav_key(k).and_then(|(_, dc)| (dc != 0).then_some(Action::Value(dc))),
        active: |_| true,
        shown: |_| true,
    },
    Binding {
        mode: Mode::Settings,
        label: ("Enter", "apply"),
        keys: |k| (k == KeyCode::Enter).then_some(Action::Apply),
        active: |_| true,
        shown: |_| true,
    },
    Binding {
        mode: Mode::Settings,
        label: ("Esc", "cancel"),
        keys: quit_key_cancels,
        active: |_| true,
        shown: |_| true,
    },
    Binding {
        mode: Mode::Kick,
        label: ("↑↓", "player"),
        keys: row_key,
        active: |_| true,
        shown: |_| true,
    },
    Binding {
        mode: Mode::Kick,
        label: ("Enter", "kick"),
        keys: |k| (k == KeyCode::Enter).then_some(Action::Apply),
        active: |_| true,
        shown: |_| true,
    },
    Binding {
        mode: Mode::Kick,
        label: ("Esc", "cancel"),
        keys: quit_key_cancels,
        active: |_| true,
        shown: |_| true,
    },
    Binding {
        mode: Mode::Report,
        label: ("↑↓", "player"),
        keys: row_key,
        active: |_| true,
        shown: |_| true,
    },
    Binding {
        mode: Mode::Report,
        label: ("Enter", "give a reason"),
        keys: |k| (k == KeyCode::Enter).then_some(Action::Apply),
        active: |_| true,
        shown: |_| true,
    },
    Binding {
        mode: Mode::Report,
        label: ("Esc", "cancel"),
        keys: quit_key_cancels,
        active: |_| true,
        shown: |_| true,
    },
    Binding {
        mode: Mode::ReportReason,
        label: ("Enter", "send the report"),
        keys: |_| None,
        active: |_| true,
        shown: |_| true,
    },
    Binding {
        mode: Mode::ReportReason,
        label: ("Esc", "cancel"),
        keys: |_| None,
        active: |_| true,
        shown: |_| true,
    },
];

/// The footer while a chat line is being typed.
pub const INPUT_HELP: &[(&str, &str)] = &[("Enter", "send"), ("Esc", "cancel")];

/// The footer while another name is being typed (the first was taken or refused).
pub const RENAME_HELP: &[(&str, &str)] = &[("Enter", "try it"), ("Esc", "quit")];

/// After a race the room host's `q` leaves the room it could rematch in.
fn leaves(c: &Context) -> bool {
    c.player && c.room_host && c.is(Phase::Finished)
}

fn quit_key(k: KeyCode) -> Option<Action> {
    matches!(k, KeyCode::Char('q') | KeyCode::Esc).then_some(Action::Quit)
}

fn quit_key_cancels(k: KeyCode) -> Option<Action> {
    quit_key(k).map(|_| Action::Cancel)
}

fn row_key(k: KeyCode) -> Option<Action> {
    nav_key(k).and_then(|(dr, _)| (dr != 0).then_some(Action::Row(dr)))
}

/// The action of `code` in `ctx`, if the key does anything there.
pub fn action(ctx: &Context, code: KeyCode) -> Option<Action> {
    TABLE
        .iter()
        .filter(|b| b.mode == ctx.mode && (b.active)(ctx))
        .find_map(|b| (b.keys)(code))
}

/// The footer's `(key, what)` pairs in `ctx`.
pub fn help(ctx: &Context) -> Vec<(&'static str, &'static str)> {
    TABLE
        .iter()
        .filter(|b| b.mode == ctx.mode && (b.shown)(ctx))
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
mod tests;
