//! State transitions driven by recorded server messages, and the screens they render
//! (ratatui `TestBackend` at a fixed size, asserting on the buffer). This file holds the
//! recorded messages and the helpers every subject shares; the tests are in `tests/`, one file
//! per subject.

use crossterm::event::{KeyCode, KeyEvent};
use protocol::{
    ClientMsg, FinishStatus, MsgId, OverReason, Phase, PlaceReason, Player, PlayerStatus, Progress,
    RaceView, Role, ServerMsg, Settings, Standing, You,
};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color;
use ratatui::Terminal;

use super::*;
use crate::net::{Intent, NetEvent};
use engine::{Cell, Digit};

mod arena;
mod boards;
mod isomorph;
mod lag;
mod late_join;
mod late_ratings;
mod lobby;
mod moving;
mod pool;
mod race;
mod report;
mod results;
mod screens;
mod session;
mod trial;
pub(crate) mod variants;
use engine::Difficulty;

pub(crate) const PUZZLE: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
pub(crate) const SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

fn player(id: &str, name: &str) -> Player {
    Player {
        player_id: id.into(),
        name: name.try_into().unwrap(),
        ready: false,
        connected: true,
        status: PlayerStatus::Waiting,
        bot: false,
        handle: None,
        ghost: false,
    }
}

fn joined(me: &str, race: Option<RaceView>, phase: Phase) -> ServerMsg {
    ServerMsg::RoomJoined {
        room: "K7QX".try_into().unwrap(),
        you: You {
            player_id: Some(me.into()),
            token: Some("secret".into()),
            role: Role::Player,
        },
        host: Some("p1".into()),
        settings: Settings::default(),
        phase,
        players: vec![player("p1", "ann"), player("p2", "bob")],
        race,
    }
}

/// A spectator's `room_joined` in K7QX, where ann (p1) hosts.
fn spectator_joined(race: Option<RaceView>, phase: Phase) -> ServerMsg {
    ServerMsg::RoomJoined {
        room: "K7QX".try_into().unwrap(),
        you: You {
            player_id: None,
            token: None,
            role: Role::Spectator,
        },
        host: Some("p1".into()),
        settings: Settings::default(),
        phase,
        players: vec![player("p1", "ann")],
        race,
    }
}

fn net(msg: ServerMsg) -> Event {
    Event::Net(NetEvent::Message(Box::new(msg)))
}

fn key(c: char) -> Event {
    Event::Key(KeyEvent::from(KeyCode::Char(c)))
}

fn code(k: KeyCode) -> Event {
    Event::Key(KeyEvent::from(k))
}

/// An app for `ann` (the host, p1) in the lobby of room K7QX with bob.
fn lobby() -> App {
    let mut app =
        App::new("ann").with_join_command("sudoku-race join {code} --server ws://10.1.2.3:7878/ws");
    app.update(Event::Net(NetEvent::Connected { reconnect: false }));
    app.update(net(joined("p1", None, Phase::Lobby)));
    app
}

/// The lobby app, after the countdown and the race start at local time 1000.
fn racing() -> App {
    let mut app = lobby();
    app.update(net(ServerMsg::Countdown { starts_in_ms: 3000 }));
    app.update(Event::Tick(1000));
    app.update(net(ServerMsg::RaceStarted {
        race_id: "r1".into(),
        puzzle: PUZZLE.parse().unwrap(),
        difficulty: Difficulty::Medium,
        time_limit_s: 1800,
        rated: false,
        layout: Default::default(),
        variant: Default::default(),
    }));
    app
}

/// The server accepting placement 1: a 4 in r1c3 (cell 2).
fn accepted_4_in_r1c3() -> ServerMsg {
    ServerMsg::Placement {
        id: Some(MsgId::Number(1.into())),
        cell: Cell::new(2).unwrap(),
        digit: Digit::new(4).unwrap(),
        accepted: true,
        reason: None,
        conflicts: vec![],
        mistakes: 0,
        penalty_ms: 0,
    }
}

fn race(app: &App) -> &Race {
    app.race().expect("a race")
}

fn render(app: &App, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    t.draw(|f| f.render_widget(app, f.area())).expect("draw");
    t.backend().buffer().clone()
}

fn lines(buf: &Buffer) -> Vec<String> {
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_owned())
                .collect::<String>()
        })
        .collect()
}

/// Position of the first occurrence of `text` on screen.
fn find(buf: &Buffer, text: &str) -> Option<(u16, u16)> {
    lines(buf).iter().enumerate().find_map(|(y, l)| {
        l.find(text)
            .map(|byte| (l[..byte].chars().count() as u16, y as u16))
    })
}

#[track_caller]
fn check_shows(buf: &Buffer, text: &str) {
    assert!(
        find(buf, text).is_some(),
        "{text:?} not on screen:\n{}",
        lines(buf).join("\n")
    );
}

#[track_caller]
fn check_effects(effects: Vec<Effect>, expected: &[ClientMsg]) {
    let sent: Vec<ClientMsg> = effects
        .into_iter()
        .filter_map(|e| match e {
            Effect::Send(m) => Some(m),
            Effect::Quit => None,
        })
        .collect();
    assert_eq!(sent, expected);
}

// The board's variant styles (A10), for `variants`.
use crate::ui::board::{BORDER, CAGE, SUM, TINT_BG};

/// The cursor cell's background on the board.
const CURSOR: Color = crate::ui::board::CURSOR_BG;

/// Screen position of the centre of `cell` on the big board drawn at the main area's origin
/// (row 1 of the screen, column 0).
fn big_cell_centre(row: u16, col: u16) -> (u16, u16) {
    (
        1 + (col / 3) * 22 + (col % 3) * 7 + 3,
        1 + 1 + (row / 3) * 10 + (row % 3) * 3 + 1,
    )
}
