//! The countdown and the race on screen: placements sent with ids and answered, a refusal
//! flashed with its conflicts, the board with cursor and pencil marks, the side panel, what a
//! spectator may do, and the board of a player out of the race.

use super::*;

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

/// `text` under the small board (80×24: 32 columns to the left of the panel), read line by
/// line as the wrapping left it.
#[track_caller]
fn check_shows_under_small_board(buf: &Buffer, text: &str) {
    let left: Vec<String> = lines(buf)
        .iter()
        .map(|l| l.chars().take(32).collect::<String>().trim().to_owned())
        .collect();
    assert!(
        left.join(" ").contains(text),
        "{text:?} not under the board:\n{}",
        left.join("\n")
    );
}

#[test]
fn the_note_under_a_small_board_wraps_instead_of_being_cut() {
    let mut app = racing();
    app.update(key('l'));
    app.update(key('l'));
    app.update(key('5'));
    app.update(net(ServerMsg::Placement {
        id: Some(MsgId::Number(1.into())),
        cell: Cell::new(2).unwrap(),
        digit: Digit::new(5).unwrap(),
        accepted: false,
        reason: Some(PlaceReason::Conflict),
        conflicts: vec![Cell::new(0).unwrap(), Cell::new(56).unwrap()],
        mistakes: 1,
        penalty_ms: 10_000,
    }));
    check_shows_under_small_board(
        &render(&app, 80, 24),
        "5 at r1c3: conflicts with r1c1, r7c3",
    );
    app.update(Event::Tick(1000 + FLASH_MS + 1));
    app.update(net(ServerMsg::PlayerFinished {
        player_id: "p1".into(),
        status: FinishStatus::Solved,
        time_ms: Some(90_000),
    }));
    check_shows_under_small_board(
        &render(&app, 80, 24),
        "solved: the results come when the race ends",
    );
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
fn spectators_see_the_puzzle_but_cannot_place() {
    let mut app = App::new("eve");
    app.update(net(spectator_joined(None, Phase::Lobby)));
    app.update(net(ServerMsg::RaceStarted {
        race_id: "r1".into(),
        puzzle: PUZZLE.parse().unwrap(),
        difficulty: Difficulty::Medium,
        time_limit_s: 1800,
        rated: false,
        layout: Default::default(),
        variant: Default::default(),
    }));
    check_effects(app.update(key('4')), &[]);
    let buf = render(&app, 120, 40);
    check_shows(&buf, "spectating");
    check_shows(&buf, "ann  racing");
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
