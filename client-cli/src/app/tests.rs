//! State transitions driven by recorded server messages, and the screens they render
//! (ratatui `TestBackend` at a fixed size, asserting on the buffer).

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
use shared::engine::{Cell, Digit};

mod arena;
mod boards;
mod isomorph;
mod lag;
mod late_join;
mod late_ratings;
mod pool;
mod report;
mod trial;
use shared::engine::Difficulty;

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

/// Screen position of the centre of `cell` on the big board drawn at the main area's origin
/// (row 1 of the screen, column 0).
fn big_cell_centre(row: u16, col: u16) -> (u16, u16) {
    (
        1 + (col / 3) * 22 + (col % 3) * 7 + 3,
        1 + 1 + (row / 3) * 10 + (row % 3) * 3 + 1,
    )
}

#[test]
fn lobby_keys_send_ready_and_start_for_the_host_only() {
    let mut app = lobby();
    check_effects(app.update(key('r')), &[ClientMsg::SetReady { ready: true }]);
    app.update(net(ServerMsg::PlayerUpdated {
        player: Player {
            ready: true,
            ..player("p1", "ann")
        },
    }));
    check_effects(
        app.update(key('r')),
        &[ClientMsg::SetReady { ready: false }],
    );
    check_effects(app.update(key('s')), &[ClientMsg::StartRace]);
    app.update(net(ServerMsg::HostChanged {
        player_id: "p2".into(),
    }));
    check_effects(app.update(key('s')), &[]);
    assert!(app.status.notice().is_some_and(|n| n.bad));
}

#[test]
fn lobby_shows_code_join_command_players_and_marks() {
    let mut app = lobby();
    app.update(net(ServerMsg::PlayerUpdated {
        player: Player {
            ready: true,
            connected: false,
            ..player("p2", "bob")
        },
    }));
    let buf = render(&app, 120, 40);
    check_shows(&buf, "Room code: K7QX");
    check_shows(&buf, "sudoku-race join K7QX --server ws://10.1.2.3:7878/ws");
    check_shows(&buf, "ann ★ host (you)");
    check_shows(&buf, "✓ bob (reconnecting)");
    check_shows(&buf, "Players (2/8)");
    check_shows(&buf, "r ready  s start");
}

#[test]
fn chat_is_typed_sent_and_shown() {
    let mut app = lobby();
    app.update(code(KeyCode::Enter));
    for c in "gl hf".chars() {
        check_effects(app.update(key(c)), &[]);
    }
    check_effects(
        app.update(code(KeyCode::Enter)),
        &[ClientMsg::Chat {
            text: "gl hf".into(),
        }],
    );
    assert_eq!(app.chat.input(), None);
    app.update(net(ServerMsg::Chat {
        player_id: Some("p2".into()),
        name: "bob".try_into().unwrap(),
        text: "you too".into(),
    }));
    check_shows(&render(&app, 120, 40), "bob: you too");
}

#[test]
fn countdown_then_race_start_puts_the_cursor_top_left() {
    let mut app = lobby();
    app.update(Event::Tick(500));
    app.update(net(ServerMsg::Countdown { starts_in_ms: 3000 }));
    assert_eq!(app.room().map(|r| r.phase), Some(Phase::Countdown));
    app.update(Event::Tick(1600));
    check_shows(&render(&app, 120, 40), "The race starts in 2");
    let app = racing();
    let r = race(&app);
    assert_eq!(
        app.play.pencil_cursor().cursor,
        Cell::at(0, 0).expect("cell")
    );
    assert_eq!(r.started_at_ms, 1000);
    assert_eq!(r.progress.len(), 2);
    assert_eq!(r.progress["p2"].to_fill, 51);
}

#[test]
fn digits_are_sent_with_ids_and_accepted_placements_land() {
    let mut app = racing();
    app.update(key('l'));
    app.update(key('l'));
    let cell = Cell::at(0, 2).expect("cell");
    check_effects(
        app.update(key('4')),
        &[ClientMsg::Place {
            cell: 2,
            digit: 4,
            id: Some(MsgId::Number(1.into())),
        }],
    );
    assert_eq!(app.play.pending_in(cell), Digit::new(4));
    check_effects(app.update(key('5')), &[]);
    app.update(net(accepted_4_in_r1c3()));
    let r = race(&app);
    assert_eq!(app.play.pending().collect::<Vec<_>>(), vec![]);
    assert_eq!(r.board.get(cell), Digit::new(4));
    // Givens and filled cells are refused locally, without a message.
    check_effects(app.update(key('4')), &[]);
    app.update(key('h'));
    check_effects(app.update(key('1')), &[]);
}

#[test]
fn a_conflict_flashes_its_reason_and_highlights_the_clashing_cells() {
    let mut app = racing();
    app.update(key('l'));
    app.update(key('l'));
    check_effects(
        app.update(key('5')),
        &[ClientMsg::Place {
            cell: 2,
            digit: 5,
            id: Some(MsgId::Number(1.into())),
        }],
    );
    app.update(net(ServerMsg::Placement {
        id: Some(MsgId::Number(1.into())),
        cell: Cell::new(2).unwrap(),
        digit: Digit::new(5).unwrap(),
        accepted: false,
        reason: Some(PlaceReason::Conflict),
        conflicts: vec![Cell::new(0).unwrap()],
        mistakes: 1,
        penalty_ms: 10_000,
    }));
    let r = race(&app);
    assert_eq!(r.mistakes, 1);
    let flash = app.play.flash().expect("a flash");
    assert_eq!(flash.conflicts, vec![Cell::at(0, 0).expect("cell")]);
    let buf = render(&app, 120, 40);
    check_shows(&buf, "5 at r1c3: conflicts with r1c1");
    check_shows(&buf, "mistakes 1/3  penalty +10s");
    let (x, y) = big_cell_centre(0, 0);
    assert_eq!(buf[(x, y)].symbol(), "5");
    assert_eq!(
        buf[(x, y)].bg,
        Color::Red,
        "the clashing given is highlighted"
    );
    let (x, y) = big_cell_centre(0, 2);
    assert_eq!(
        buf[(x, y)].symbol(),
        "5",
        "the rejected digit flashes in its cell"
    );
    assert_eq!(buf[(x, y)].bg, Color::Red);
    app.update(Event::Tick(1000 + FLASH_MS + 1));
    assert_eq!(app.play.flash(), None, "the flash fades");
}

#[test]
fn the_board_shows_cursor_givens_and_pencil_marks() {
    let mut app = racing();
    app.update(key('p'));
    app.update(key('j'));
    app.update(key('l'));
    app.update(key('4'));
    app.update(key('7'));
    assert_eq!(
        app.play.pencil_cursor().pencil[Cell::at(1, 1).expect("cell").idx()],
        Digit::new(4).expect("d").bit() | Digit::new(7).expect("d").bit()
    );
    let buf = render(&app, 120, 40);
    let lines = lines(&buf);
    assert!(lines[1].starts_with("┏━━━━"), "{}", lines[1]);
    assert_eq!(buf[(22, 2)].symbol(), "┃", "heavy box border");
    // Cell r2c2: marks 4 and 7 on the second and third rows of its mini-grid.
    let (x, y) = big_cell_centre(1, 1);
    assert_eq!(buf[(x - 2, y)].symbol(), "4");
    assert_eq!(buf[(x - 2, y + 1)].symbol(), "7");
    assert_eq!(buf[(x, y)].bg, CURSOR, "the cursor cell");
    let (x, y) = big_cell_centre(0, 0);
    assert_eq!(buf[(x, y)].symbol(), "5");
    assert_eq!(buf[(x, y)].fg, Color::White);
    check_shows(&buf, " PENCIL ");
    // Small terminals get the compact board.
    let small = render(&app, 80, 24);
    check_shows(&small, "┏━━━━━━━━━┳");
}

const CURSOR: Color = crate::ui::board::CURSOR_BG;

#[test]
fn the_side_panel_shows_clock_and_every_players_progress() {
    let mut app = racing();
    app.update(net(ServerMsg::Progress(Progress {
        player_id: "p2".into(),
        filled: 17,
        to_fill: 51,
        mistakes: 2,
    })));
    app.update(net(ServerMsg::PlayerUpdated {
        player: Player {
            connected: false,
            status: PlayerStatus::Racing,
            ..player("p2", "bob")
        },
    }));
    app.update(Event::Tick(1000 + 75_000));
    let buf = render(&app, 120, 40);
    check_shows(&buf, "clock 1:15 / 30:00");
    check_shows(&buf, "bob  racing  ✗2");
    check_shows(&buf, " 17/51");
    check_shows(&buf, " 0/51");
    let (x, y) = find(&buf, "bob  racing").expect("bob");
    assert_eq!(
        buf[(x - 2, y)].symbol(),
        "○",
        "bob's connection dot is hollow"
    );
    assert_eq!(buf[(x - 2, y)].fg, Color::Red);
}

#[test]
fn race_over_shows_standings_time_and_the_solution_against_the_board() {
    let mut app = racing();
    app.update(net(ServerMsg::PlayerFinished {
        player_id: "p2".into(),
        status: FinishStatus::Solved,
        time_ms: Some(312_000),
    }));
    app.update(net(ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::AllDone,
        standings: vec![
            Standing {
                rank: 1,
                player_id: "p2".into(),
                name: "bob".try_into().unwrap(),
                status: FinishStatus::Solved,
                time_ms: Some(312_000),
                filled: 51,
                mistakes: 0,
                time_ms_raw: None,
                lag_ms: 0,
                puzzle: None,
                solution: None,
            },
            Standing {
                rank: 2,
                player_id: "p1".into(),
                name: "ann".try_into().unwrap(),
                status: FinishStatus::Forfeited,
                time_ms: None,
                filled: 0,
                mistakes: 1,
                time_ms_raw: None,
                lag_ms: 0,
                puzzle: None,
                solution: None,
            },
        ],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }));
    let room = app.room().expect("room");
    assert_eq!(room.phase, Phase::Finished);
    // At the size of a common terminal the table's words fit whole.
    let small = render(&app, 110, 36);
    let table: Vec<String> = lines(&small)
        .into_iter()
        .filter(|l| l.contains(" ann "))
        .collect();
    assert!(
        table.iter().any(|l| l.contains("forfeited")),
        "status cut: {table:?}"
    );
    check_shows(&small, "lag");
    let buf = render(&app, 120, 40);
    check_shows(&buf, "solved");
    check_shows(&buf, "5:12");
    check_shows(&buf, "You forfeited (rank 2)");
    check_shows(&buf, "s rematch");
    // r1c3 was empty on ann's board: the solution's 4 is revealed in its own colour.
    let (x, y) = big_cell_centre(0, 2);
    assert_eq!(buf[(x, y)].symbol(), "4");
    assert_eq!(buf[(x, y)].fg, Color::Magenta);
    check_effects(app.update(key('s')), &[ClientMsg::StartRace]);
}

/// robo (p3), a bot, takes a seat.
fn robo_joins() -> Event {
    net(ServerMsg::PlayerJoined {
        player: Player {
            bot: true,
            ..player("p3", "robo")
        },
    })
}

#[test]
fn bots_are_marked_in_the_lobby_the_progress_panel_the_results_and_to_spectators() {
    let mut app = lobby();
    app.update(robo_joins());
    let buf = render(&app, 120, 40);
    check_shows(&buf, "robo [bot]");
    assert_eq!(find(&buf, "ann [bot]"), None, "people are not marked");
    app.update(net(ServerMsg::Countdown { starts_in_ms: 3000 }));
    app.update(net(ServerMsg::RaceStarted {
        race_id: "r1".into(),
        puzzle: PUZZLE.parse().unwrap(),
        difficulty: Difficulty::Medium,
        time_limit_s: 1800,
        rated: false,
    }));
    check_shows(&render(&app, 120, 40), "robo [bot]  racing");
    let standing = |rank, id: &str, name: &str| Standing {
        rank,
        player_id: id.into(),
        name: name.try_into().unwrap(),
        status: FinishStatus::Solved,
        time_ms: Some(300_000 + u64::from(rank)),
        filled: 51,
        mistakes: 0,
        time_ms_raw: None,
        lag_ms: 0,
        puzzle: None,
        solution: None,
    };
    app.update(net(ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::AllDone,
        standings: vec![standing(1, "p3", "robo"), standing(2, "p1", "ann")],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }));
    let buf = render(&app, 120, 40);
    let rows: Vec<String> = lines(&buf)
        .into_iter()
        .filter(|l| l.contains("5:00"))
        .collect();
    assert!(rows.iter().any(|l| l.contains("robo [bot]")), "{rows:?}");
    assert!(!rows.iter().any(|l| l.contains("ann [bot]")), "{rows:?}");

    let mut eve = App::new("eve");
    eve.update(net(spectator_joined(None, Phase::Lobby)));
    eve.update(robo_joins());
    check_shows(&render(&eve, 120, 40), "robo [bot]");
}

#[test]
fn resume_mid_race_keeps_local_pencil_marks_and_the_clock() {
    let mut app = racing();
    app.update(key('p'));
    app.update(key('l'));
    app.update(key('l'));
    app.update(key('1'));
    app.update(Event::Net(NetEvent::Reconnecting {
        attempt: 1,
        delay: std::time::Duration::from_millis(200),
    }));
    check_shows(&render(&app, 120, 40), "reconnecting… (attempt 1)");
    app.update(Event::Tick(20_000));
    app.update(Event::Net(NetEvent::Connected { reconnect: true }));
    let mut board = PUZZLE.to_owned();
    board.replace_range(3..4, "6");
    app.update(net(joined(
        "p1",
        Some(RaceView {
            race_id: "r1".into(),
            puzzle: Some(PUZZLE.parse().unwrap()),
            difficulty: Difficulty::Medium,
            time_limit_s: 1800,
            elapsed_ms: 19_500,
            board: Some(board.parse().unwrap()),
            mistakes: 1,
            progress: vec![],
            standings: None,
            reason: None,
        }),
        Phase::Racing,
    )));
    assert_eq!(app.conn, Conn::Online);
    let r = race(&app);
    assert_eq!(
        app.play.pencil_cursor().pencil[2],
        Digit::new(1).expect("d").bit()
    );
    assert_eq!(
        app.play.pencil_cursor().cursor,
        Cell::at(0, 2).expect("cell")
    );
    assert_eq!(r.board.get(Cell::at(0, 3).expect("cell")), Digit::new(6));
    assert_eq!(r.elapsed_ms(20_000), 19_500);
    assert_eq!(r.mistakes, 1);
}

#[test]
fn an_in_process_host_confirms_a_quit_that_closes_the_room_on_others() {
    // Ann runs the server (an in-process host) and bob is connected: `q` asks first.
    let mut app = lobby().with_server_in_process();
    check_effects(app.update(key('q')), &[]);
    assert_eq!(app.status.confirm(), Some(&Confirm::Quit));
    let asked = app
        .status
        .notice()
        .map(|n| n.text.clone())
        .unwrap_or_default();
    assert!(
        asked.contains("1 other player(s) will be disconnected"),
        "{asked}"
    );
    // Any other key cancels; a second `q` quits.
    check_effects(app.update(key('x')), &[]);
    assert_eq!(app.status.confirm(), None);
    app.update(key('q'));
    let effects = app.update(key('q'));
    assert!(effects.contains(&Effect::Quit), "{effects:?}");
    // Alone in the room, or not the program that runs the server: no question.
    let mut alone = lobby().with_server_in_process();
    alone.update(net(ServerMsg::PlayerLeft {
        player_id: "p2".into(),
    }));
    assert!(alone.update(key('q')).contains(&Effect::Quit));
    let mut remote = lobby();
    assert!(remote.update(key('q')).contains(&Effect::Quit));
}

#[test]
fn quitting_mid_race_needs_a_second_press_and_sends_leave() {
    let mut app = racing();
    check_effects(app.update(key('q')), &[]);
    assert_eq!(app.status.confirm(), Some(&Confirm::Quit));
    check_effects(app.update(key('j')), &[]);
    assert_eq!(app.status.confirm(), None);
    app.update(key('q'));
    let effects = app.update(key('q'));
    assert_eq!(effects, vec![Effect::Send(ClientMsg::Leave), Effect::Quit]);
    let mut app = racing();
    app.update(key('f'));
    check_effects(app.update(key('f')), &[ClientMsg::Forfeit]);
}

#[test]
fn spectators_see_the_puzzle_but_cannot_place() {
    let mut app = App::new("eve");
    app.update(net(spectator_joined(None, Phase::Lobby)));
    app.update(net(ServerMsg::RaceStarted {
        race_id: "r1".into(),
        puzzle: PUZZLE.parse().unwrap(),
        difficulty: Difficulty::Medium,
        time_limit_s: 1800,
        rated: false,
    }));
    check_effects(app.update(key('4')), &[]);
    let buf = render(&app, 120, 40);
    check_shows(&buf, "spectating");
    check_shows(&buf, "ann  racing");
}

#[test]
fn a_refusal_shows_only_the_refusal_and_a_closed_session_quits() {
    let mut app = App::new("ann").with_intent(&Intent::Join {
        room: "ZZZZ".into(),
        name: "ann".into(),
    });
    app.update(Event::Net(NetEvent::Connected { reconnect: false }));
    app.update(net(ServerMsg::Error {
        code: protocol::ErrorCode::UnknownRoom,
        message: "no room ZZZZ".into(),
    }));
    let buf = render(&app, 80, 24);
    check_shows(
        &buf,
        "could not join room ZZZZ: no room ZZZZ (unknown_room)",
    );
    assert_eq!(find(&buf, "joining"), None, "{}", lines(&buf).join("\n"));
    check_shows(&buf, "q quit");
    assert_eq!(
        app.update(Event::Net(NetEvent::Closed { error: None })),
        vec![Effect::Quit]
    );
}

#[test]
fn a_closed_room_or_a_lost_connection_is_said_once_and_q_quits() {
    let mut app = lobby();
    app.update(net(ServerMsg::RoomClosed {
        room: "K7QX".try_into().unwrap(),
        reason: None,
    }));
    assert_eq!(app.room(), None);
    // The connection task ends the session; the screen stays until a key.
    assert_eq!(
        app.update(Event::Net(NetEvent::Closed { error: None })),
        vec![]
    );
    let buf = render(&app, 80, 24);
    check_shows(&buf, "room K7QX was closed");
    check_shows(&buf, "the host left, or its server was lost");
    assert_eq!(app.update(key('q')), vec![Effect::Quit]);
    assert_eq!(app.conn, Conn::Closed(None), "a clean exit");
    let mut app = racing();
    app.update(Event::Net(NetEvent::Closed {
        error: Some("gave up reconnecting".into()),
    }));
    let buf = render(&app, 120, 40);
    check_shows(&buf, "disconnected");
    check_shows(
        &buf,
        "connection lost: gave up reconnecting; press q to quit",
    );
    check_shows(&buf, "ann  disconnected");
    assert_eq!(find(&buf, "f forfeit"), None, "nothing to place any more");
    // No `leave` is sent over a dead connection, and no confirmation is asked.
    assert_eq!(app.update(key('q')), vec![Effect::Quit]);
}

#[test]
fn a_room_closed_for_a_drain_offers_a_new_room_or_the_pool_on_a_new_connection() {
    let mut app = racing();
    app.update(net(ServerMsg::RoomClosed {
        room: "K7QX".try_into().unwrap(),
        reason: Some(protocol::ClosedReason::Drain),
    }));
    assert_eq!(app.room(), None);
    let buf = render(&app, 100, 30);
    check_shows(
        &buf,
        "room K7QX was closed: the server is restarting for an update",
    );
    check_shows(
        &buf,
        "n a new room (medium), p play now (medium pool), q quit",
    );
    check_shows(&buf, "n new room");
    assert_eq!(
        app.update(key('p')),
        vec![Effect::Send(ClientMsg::QuickRace {
            difficulty: "medium".into(),
            name: "ann".into(),
            key: None,
            bot: false,
        })]
    );
    assert_eq!(app.outside, Outside::Entering);
    // The new connection's answer takes us on as ever.
    app.update(Event::Net(NetEvent::Connected { reconnect: true }));
    app.update(net(ServerMsg::Queued {
        difficulty: Difficulty::Medium,
        waiting: 1,
    }));
    assert!(
        matches!(app.outside, Outside::Queued { .. }),
        "{:?}",
        app.outside
    );
}

#[test]
fn server_draining_for_an_ask_offers_the_same_and_n_asks_for_a_new_room() {
    let mut app = App::new("ann").with_intent(&Intent::Quick {
        difficulty: Difficulty::Hard,
        name: "ann".into(),
    });
    app.update(Event::Net(NetEvent::Connected { reconnect: false }));
    app.update(net(ServerMsg::Error {
        code: protocol::ErrorCode::ServerDraining,
        message: "the server is restarting for an update".into(),
    }));
    let buf = render(&app, 100, 30);
    check_shows(&buf, "the server is restarting for an update");
    assert_eq!(find(&buf, "was closed"), None, "no room was closed");
    let effects = app.update(key('n'));
    let [Effect::Send(ClientMsg::CreateRoom { name, settings, .. })] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert_eq!(name, "ann");
    let difficulty = settings.as_ref().and_then(|s| s.difficulty.as_deref());
    assert_eq!(difficulty, Some("hard"));
    // A shutdown's room_closed reads the same; a host's close stays final.
    let mut app = lobby();
    app.update(net(ServerMsg::RoomClosed {
        room: "K7QX".try_into().unwrap(),
        reason: Some(protocol::ClosedReason::HostClosed),
    }));
    assert_eq!(app.update(key('n')), vec![]);
    check_shows(&render(&app, 80, 24), "room K7QX was closed");
}

#[test]
fn every_screen_draws_at_any_size_without_panicking() {
    let mut finished = racing();
    finished.update(net(ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::TimeLimit,
        standings: vec![],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }));
    let mut countdown = lobby();
    countdown.update(net(ServerMsg::Countdown { starts_in_ms: 3000 }));
    for app in [lobby(), countdown, racing(), finished, App::new("x")] {
        for (w, h) in [
            (1, 1),
            (79, 24),
            (80, 23),
            (10, 3),
            (31, 13),
            (40, 16),
            (67, 31),
            (90, 30),
            (200, 60),
        ] {
            render(&app, w, h);
        }
    }
}

/// What the connection task hands the app for this JSON: the server's text made terminal-safe.
fn wire(json: serde_json::Value) -> Event {
    let msg = crate::net::parse_server_msg(&json.to_string()).expect("a server message");
    net(msg)
}

/// A character that must never reach the terminal: control (Cc), bidi, or another format
/// character (Cf) other than the zero-width joiner.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || ('\u{202A}'..='\u{202E}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
        || matches!(
            c,
            '\u{200B}' | '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{FEFF}'
        )
}

#[track_caller]
fn check_safe(buf: &Buffer) {
    for line in lines(buf) {
        assert!(!line.chars().any(unsafe_char), "{line:?}");
    }
}

#[test]
fn no_server_string_reaches_the_screen_with_control_or_bidi_characters() {
    let mut app = lobby();
    // A name the server should have refused: it still arrives, made safe, with the message.
    app.update(wire(serde_json::json!({
        "type": "player_joined",
        "player": {"player_id": "p3", "name": "ev\u{1b}[31mil\u{7}", "ready": false,
                   "connected": true, "status": "waiting"},
    })));
    app.update(wire(serde_json::json!({
        "type": "chat", "player_id": "p3", "name": "ev\u{1b}[31mil\u{7}",
        "text": "\u{1b}]0;pwned\u{7}hi \u{1b}[2J\u{1b}[10;10Hthere \u{202E}olleh \u{9b}31m",
    })));
    let buf = render(&app, 120, 40);
    check_safe(&buf);
    check_shows(&buf, "ev\u{FFFD}[31mil\u{FFFD}");
    check_shows(&buf, "\u{FFFD}]0;pwned\u{FFFD}hi");
    check_shows(&buf, "\u{FFFD}olleh");
    // An error's message is server text too.
    app.update(wire(serde_json::json!({
        "type": "error", "code": "not_host", "message": "no\u{1b}[2J\u{202E}pe",
    })));
    let buf = render(&app, 120, 40);
    check_safe(&buf);
    check_shows(&buf, "not_host: no\u{FFFD}[2J\u{FFFD}pe");
}

#[test]
fn a_spectators_chat_line_is_marked_watching() {
    let mut app = lobby();
    app.update(net(ServerMsg::Chat {
        player_id: None,
        name: "eve".try_into().unwrap(),
        text: "go ann".into(),
    }));
    app.update(net(ServerMsg::Chat {
        player_id: Some("p2".into()),
        name: "bob".try_into().unwrap(),
        text: "hi".into(),
    }));
    let buf = render(&app, 120, 40);
    check_shows(&buf, "eve (watching): go ann");
    check_shows(&buf, "bob: hi");
    assert!(find(&buf, "bob (watching)").is_none());
}

#[test]
fn out_of_the_race_the_board_stays_ours_until_race_over_brings_the_solution() {
    let mut app = racing();
    app.update(net(accepted_4_in_r1c3()));
    check_effects(app.update(key('f')), &[]);
    check_effects(app.update(key('f')), &[ClientMsg::Forfeit]);
    // A1: no `solution` message follows the forfeit.
    app.update(net(ServerMsg::PlayerFinished {
        player_id: "p1".into(),
        status: FinishStatus::Forfeited,
        time_ms: None,
    }));
    assert_eq!(race(&app).solution, None);
    let buf = render(&app, 120, 40);
    // Our 4 in r1c3 stays; r1c4 (solution 6) stays empty.
    let (x, y) = big_cell_centre(0, 2);
    assert_eq!(buf[(x, y)].symbol(), "4");
    let (x, y) = big_cell_centre(0, 3);
    assert_eq!(buf[(x, y)].symbol(), " ");
    check_shows(&buf, "the solution comes with the results");
    let footer = lines(&buf).pop().expect("footer");
    assert!(
        !footer.contains("place") && !footer.contains("forfeit"),
        "{footer}"
    );
    // Digits do nothing now.
    check_effects(app.update(key('6')), &[]);
    app.update(net(ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::AllDone,
        standings: vec![],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }));
    assert_eq!(race(&app).solution, SOLUTION.parse().ok());
    let buf = render(&app, 120, 40);
    let (x, y) = big_cell_centre(0, 3);
    assert_eq!(buf[(x, y)].symbol(), "6");
    assert_eq!(buf[(x, y)].fg, Color::Magenta);
}

#[test]
fn a_rated_race_over_shows_how_our_rating_moved() {
    let mut app = racing();
    app.update(net(ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::AllDone,
        standings: vec![Standing {
            rank: 1,
            player_id: "p1".into(),
            name: "ann".try_into().unwrap(),
            status: FinishStatus::Solved,
            time_ms: Some(200_000),
            filled: 51,
            mistakes: 0,
            time_ms_raw: None,
            lag_ms: 0,
            puzzle: None,
            solution: None,
        }],
        solution: SOLUTION.parse().unwrap(),
        ratings: vec![protocol::RatingChange {
            player_id: "p1".into(),
            handle: "hABCDEFG".into(),
            before: 1.5,
            after: 3.75,
        }],
    }));
    let buf = render(&app, 120, 40);
    check_shows(&buf, "rating 1.5 → 3.8 (+2.2)");
}
