//! Parsing the API's race, the playback's clock and steps, the players' states it derives,
//! the keys, and the screen (on a `TestBackend`).

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::{json, Value};

use super::*;
use crate::app::tests::{PUZZLE, SOLUTION};
use crate::app::{Effect, Event};

/// `(player, at_ms, cell, digit, outcome)`.
type Move = (&'static str, u64, u8, u8, &'static str);

/// A race of ann (`p1`) and bob (`p2`) with these placements, lasting `duration_ms`.
fn race(moves: &[Move], duration_ms: u64) -> Value {
    let placements: Vec<Value> = moves
        .iter()
        .map(|&(who, at_ms, cell, digit, outcome)| {
            json!({"player_id": who, "at_ms": at_ms, "cell": cell, "digit": digit,
                   "outcome": outcome})
        })
        .collect();
    json!({
        "race_id": "K7QRM-1", "difficulty": "easy", "puzzle": PUZZLE, "solution": SOLUTION,
        "started_unix_ms": 1_700_000_000_000_i64, "duration_ms": duration_ms,
        "reason": "all_done", "rated": true, "daily": null,
        "players": [
            {"player_id": "p1", "name": "ann", "handle": "hANN", "bot": false},
            {"player_id": "p2", "name": "bob\u{1b}[2J", "handle": null, "bot": true}],
        "standings": [
            {"rank": 1, "player_id": "p1", "name": "ann", "status": "solved", "time_ms": 9000,
             "filled": 51, "mistakes": 0},
            {"rank": 2, "player_id": "p2", "name": "bob", "status": "forfeited",
             "time_ms": null, "filled": 2, "mistakes": 2}],
        "placements": placements,
    })
}

/// The empty cells of the puzzle, in order, with their solution digits.
fn to_fill() -> Vec<(u8, u8)> {
    PUZZLE
        .bytes()
        .zip(SOLUTION.bytes())
        .enumerate()
        .filter(|(_, (p, _))| *p == b'.')
        .map(|(i, (_, s))| (i as u8, s - b'0'))
        .collect()
}

/// Ann solves every cell, one each 100 ms from 1 s (after a refused try on a given); bob
/// makes a wrong and a conflicting placement, fills two cells and repeats one of them.
fn full_race() -> Value {
    let cells = to_fill();
    let mut moves: Vec<Move> = vec![("p1", 500, 0, 5, "given")];
    for (i, &(cell, digit)) in cells.iter().enumerate() {
        moves.push(("p1", 1000 + 100 * i as u64, cell, digit, "accepted"));
    }
    let (c0, d0) = cells[0];
    let (c1, d1) = cells[1];
    moves.extend_from_slice(&[
        ("p2", 1200, c0, d0 % 9 + 1, "wrong"),
        ("p2", 1250, c0, 5, "conflict"),
        ("p2", 2000, c0, d0, "accepted"),
        ("p2", 2600, c1, d1, "accepted"),
        ("p2", 2700, c1, d1, "filled"),
    ]);
    race(&moves, 1000 + 100 * cells.len() as u64 + 2000)
}

fn playback(v: &Value) -> Playback {
    Playback::new(Replay::from_json(v).expect("a good race"))
}

#[test]
fn a_race_parses_in_time_order_with_safe_strings() {
    let r = Replay::from_json(&full_race()).expect("parses");
    assert_eq!(r.race_id, "K7QRM-1");
    assert_eq!((r.players.len(), r.standings.len()), (2, 2));
    assert!(!r.players[1].name.contains('\u{1b}'), "{:?}", r.players[1]);
    assert_eq!(r.players[0].handle.as_deref(), Some("hANN"));
    assert_eq!(r.standings[1].player, 1);
    assert_eq!(r.standings[1].status, FinishStatus::Forfeited);
    let times: Vec<u64> = r.placements.iter().map(|p| p.at_ms).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    assert_eq!(r.placements.len(), 1 + 51 + 5);
    assert_eq!(r.to_fill(), 51);
}

#[test]
fn placements_out_of_order_are_sorted_and_ties_keep_the_servers_order() {
    let v = race(
        &[
            ("p2", 300, 2, 4, "accepted"),
            ("p1", 100, 3, 6, "accepted"),
            ("p2", 100, 5, 8, "wrong"),
            ("p1", 100, 6, 9, "wrong"),
        ],
        1000,
    );
    let r = Replay::from_json(&v).expect("parses");
    let order: Vec<(u64, u8)> = r
        .placements
        .iter()
        .map(|p| (p.at_ms, p.cell.get()))
        .collect();
    assert_eq!(order, [(100, 3), (100, 5), (100, 6), (300, 2)]);
}

#[track_caller]
fn check_refused(v: Value, says: &str) {
    match Replay::from_json(&v) {
        Ok(r) => panic!("accepted {r:?}"),
        Err(e) => assert!(e.to_string().contains(says), "{e} (wanted {says:?})"),
    }
}

#[test]
fn malformed_answers_are_errors_that_say_what() {
    check_refused(json!(null), "shape");
    check_refused(json!({"error": "no such race"}), "shape");
    let mut v = full_race();
    v["puzzle"] = json!("123");
    check_refused(v, "puzzle is not a board");
    let mut v = full_race();
    v["solution"] = json!(PUZZLE);
    check_refused(v, "does not complete");
    let mut v = full_race();
    v["solution"] = json!(SOLUTION.replacen('5', "6", 1));
    check_refused(v, "does not complete");
    check_refused(race(&[("p1", 1, 81, 1, "accepted")], 9), "cell 81");
    check_refused(race(&[("p1", 1, 2, 0, "accepted")], 9), "digit 0");
    check_refused(race(&[("p9", 1, 2, 4, "accepted")], 9), "no seat");
    check_refused(race(&[("p1", 1, 2, 4, "lucky")], 9), "shape");
    let mut v = full_race();
    v["placements"][0]["at_ms"] = json!(-5);
    check_refused(v, "shape");
}

#[test]
fn the_clock_runs_at_the_speed_and_stands_still_when_paused() {
    let mut p = playback(&full_race());
    assert_eq!((p.pos_ms(), p.applied(), p.speed()), (0, 0, 1));
    p.advance(600);
    assert_eq!(
        (p.pos_ms(), p.applied()),
        (600, 1),
        "the refused given at 500"
    );
    p.faster();
    p.faster();
    p.advance(100);
    assert_eq!(
        (p.pos_ms(), p.applied()),
        (1000, 2),
        "×4: 400 ms, ann's first at 1000"
    );
    p.toggle_pause();
    p.advance(10_000);
    assert_eq!((p.pos_ms(), p.applied()), (1000, 2), "paused");
    p.toggle_pause();
    p.advance(0);
    assert_eq!(p.pos_ms(), 1000);
}

#[test]
fn speed_doubles_and_halves_within_1_to_16() {
    let mut p = playback(&full_race());
    let mut seen = vec![p.speed()];
    for _ in 0..6 {
        p.faster();
        seen.push(p.speed());
    }
    assert_eq!(seen, [1, 2, 4, 8, 16, 16, 16]);
    for _ in 0..6 {
        p.slower();
    }
    assert_eq!(p.speed(), 1);
    assert!(SPEEDS.contains(&p.speed()));
}

#[test]
fn steps_go_one_placement_at_a_time_even_within_a_millisecond() {
    let v = race(
        &[
            ("p1", 100, 2, 4, "accepted"),
            ("p2", 100, 2, 4, "accepted"),
            ("p1", 100, 3, 6, "accepted"),
            ("p2", 400, 5, 8, "wrong"),
        ],
        1000,
    );
    let mut p = playback(&v);
    p.step_forward();
    assert!(p.is_paused(), "a step pauses");
    assert_eq!((p.pos_ms(), p.applied()), (100, 1));
    p.step_forward();
    assert_eq!((p.pos_ms(), p.applied()), (100, 2));
    p.step_back();
    assert_eq!((p.pos_ms(), p.applied()), (100, 1));
    p.step_back();
    assert_eq!((p.pos_ms(), p.applied()), (0, 0));
    // Playing on from a part-played millisecond plays the rest of it.
    p.step_forward();
    p.toggle_pause();
    p.advance(1);
    assert_eq!((p.pos_ms(), p.applied()), (101, 3));
    // Time alone plays every placement of a millisecond at once.
    p.restart();
    p.advance(100);
    assert_eq!((p.pos_ms(), p.applied()), (100, 3));
}

#[test]
fn steps_stop_at_both_ends() {
    let v = race(
        &[("p1", 100, 2, 4, "accepted"), ("p2", 400, 5, 8, "wrong")],
        1000,
    );
    let mut p = playback(&v);
    p.step_back();
    assert_eq!((p.pos_ms(), p.applied(), p.at_end()), (0, 0, false));
    p.step_forward();
    p.step_forward();
    assert_eq!((p.pos_ms(), p.applied(), p.at_end()), (400, 2, false));
    p.step_forward();
    assert_eq!(
        (p.pos_ms(), p.at_end()),
        (1000, true),
        "past the last: the end"
    );
    p.step_forward();
    assert_eq!((p.pos_ms(), p.applied(), p.at_end()), (1000, 2, true));
    p.step_back();
    assert_eq!(
        (p.pos_ms(), p.applied()),
        (100, 1),
        "back takes the last one back"
    );
}

#[test]
fn reaching_the_end_pauses_and_space_plays_again() {
    let mut p = playback(&full_race());
    p.advance(u64::MAX);
    assert!(p.at_end() && p.is_paused());
    assert_eq!(p.pos_ms(), p.end_ms());
    p.toggle_pause();
    assert_eq!((p.pos_ms(), p.applied(), p.is_paused()), (0, 0, false));
    p.to_end();
    assert!(p.at_end() && p.is_paused());
    p.restart();
    assert!(!p.at_end() && !p.is_paused());
}

#[test]
fn at_the_end_a_finisher_has_the_solution_and_mistakes_are_not_fills() {
    let mut p = playback(&full_race());
    p.to_end();
    let s = p.players();
    let solution = Grid::parse(SOLUTION).expect("grid");
    assert_eq!(s[0].board, solution);
    assert_eq!(
        (s[0].filled, s[0].mistakes),
        (51, 0),
        "a refused given is neither"
    );
    assert_eq!(s[0].solved_at_ms, Some(1000 + 100 * 50));
    assert_eq!(
        (s[1].filled, s[1].mistakes),
        (2, 2),
        "wrong and conflict are mistakes"
    );
    assert_eq!(s[1].solved_at_ms, None);
    let (c0, d0) = to_fill()[0];
    let (c1, _) = to_fill()[1];
    let bob = &s[1].board;
    assert_eq!(
        bob.n_empty(),
        51 - 2,
        "a repeat of a filled cell fills nothing"
    );
    assert_eq!(
        bob.get(Cell::try_from(c0).expect("cell")),
        Digit::try_from(d0).ok()
    );
    assert!(bob.get(Cell::try_from(c1).expect("cell")).is_some());
    // The final states agree with the standings the server computed.
    for st in &p.replay().standings {
        assert_eq!(
            (s[st.player].filled, s[st.player].mistakes),
            (st.filled, st.mistakes)
        );
    }
}

#[test]
fn mid_race_a_wrong_digit_leaves_the_board_and_counts_a_mistake() {
    let mut p = playback(&full_race());
    p.advance(1220);
    let s = p.players();
    assert_eq!((s[1].filled, s[1].mistakes), (0, 1));
    assert_eq!(s[1].board, Grid::parse(PUZZLE).expect("grid"));
    assert_eq!(s[0].filled, 3, "ann at 1000, 1100, 1200");
    assert_eq!(p.last().map(|l| l.outcome), Some(Outcome::Wrong));
}

fn key(app: &mut ReplayApp, code: KeyCode) -> Vec<Effect> {
    app.update(Event::Key(KeyEvent::from(code)))
}

#[test]
fn keys_drive_the_playback_and_choose_the_board() {
    let mut app = ReplayApp::new(Replay::from_json(&full_race()).expect("parses"));
    app.update(Event::Tick(5_000));
    app.update(Event::Tick(5_700));
    assert_eq!(
        app.playback.pos_ms(),
        700,
        "ticks are wall time from the first"
    );
    key(&mut app, KeyCode::Char(' '));
    assert!(app.playback.is_paused());
    key(&mut app, KeyCode::Char('+'));
    key(&mut app, KeyCode::Char(']'));
    key(&mut app, KeyCode::Char('-'));
    assert_eq!(app.playback.speed(), 2);
    key(&mut app, KeyCode::Char('.'));
    assert_eq!(app.playback.pos_ms(), 1000);
    key(&mut app, KeyCode::Char(','));
    assert_eq!(app.playback.pos_ms(), 500);
    key(&mut app, KeyCode::End);
    assert!(app.playback.at_end());
    key(&mut app, KeyCode::Home);
    assert_eq!(app.playback.pos_ms(), 0);
    assert_eq!(app.selected, 0);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.selected, 1);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.selected, 0, "Tab wraps");
    key(&mut app, KeyCode::Left);
    assert_eq!(app.selected, 1);
    key(&mut app, KeyCode::Char('1'));
    assert_eq!(app.selected, 0);
    key(&mut app, KeyCode::Char('3'));
    assert_eq!(app.selected, 0, "no third player");
    assert_eq!(key(&mut app, KeyCode::Char('q')), vec![Effect::Quit]);
    assert_eq!(key(&mut app, KeyCode::Esc), vec![Effect::Quit]);
}

fn screen(app: &ReplayApp, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("backend");
    t.draw(|f| f.render_widget(app, f.area())).expect("draw");
    let buf = t.backend().buffer();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>() + "\n")
        .collect()
}

#[test]
fn the_screen_shows_the_clock_the_bars_and_at_the_end_the_standings() {
    let mut app = ReplayApp::new(Replay::from_json(&full_race()).expect("parses"));
    key(&mut app, KeyCode::Char('.'));
    key(&mut app, KeyCode::Char('.'));
    for (w, h) in [(80, 24), (120, 40)] {
        let s = screen(&app, w, h);
        assert!(s.contains("replay K7QRM-1"), "{s}");
        assert!(s.contains("⏸ paused") && s.contains("×1"), "{s}");
        assert!(s.contains("placement 2/57"), "{s}");
        assert!(s.contains("1/51"), "ann's bar: {s}");
        assert!(s.contains("board of ann"), "{s}");
        assert!(s.contains(" 1/51 filled  ✗0"), "whole under any board: {s}");
        assert!(s.contains("space pause"), "{s}");
        assert!(!s.contains("final standings"), "{s}");
        assert!(!s.contains('\u{1b}'));
    }
    key(&mut app, KeyCode::End);
    key(&mut app, KeyCode::Char('2'));
    let s = screen(&app, 120, 40);
    assert!(s.contains("final standings") && s.contains("■ end"), "{s}");
    assert!(
        s.contains("board of bob") && s.contains(" 2/51 filled  ✗2"),
        "{s}"
    );
    assert!(
        s.contains("✓ 0:09") && s.contains("forfeited"),
        "the time sent: {s}"
    );
    assert!(s.contains(" 1. ann"), "{s}");
    assert!(s.contains("[2J [bot]  ✗2"), "bob is a bot: {s}");
    let s = screen(&app, 80, 24);
    assert!(
        s.contains(" 2/51  ✗2  │"),
        "a whole standings row at 80 columns: {s}"
    );
    assert!(s.contains("0:08.1 / 0:08.1"), "the end, to the tenth: {s}");
}

/// The race's puzzle and solution, transposed: an isomorph (A8).
fn transposed() -> (Grid, Grid) {
    let id = [0, 1, 2];
    let t = engine::transform::Transform::new(
        [1, 2, 3, 4, 5, 6, 7, 8, 9],
        id,
        [id; 3],
        id,
        [id; 3],
        true,
    )
    .expect("a transform");
    let grid = |line| Grid::parse(line).expect("grid");
    (t.apply(&grid(PUZZLE)), t.apply(&grid(SOLUTION)))
}

#[test]
fn each_seat_replays_on_its_own_isomorph() {
    let (own_puzzle, own_solution) = transposed();
    // Bob fills every cell of his own (transposed) board; ann makes no move.
    let moves: Vec<Move> = (0..81u8)
        .filter(|&i| own_puzzle.get(Cell::new(i).expect("cell")).is_none())
        .map(|i| {
            let d = own_solution.get(Cell::new(i).expect("cell")).expect("full");
            ("p2", 100 + u64::from(i), i, d.get(), "accepted")
        })
        .collect();
    let mut v = race(&moves, 1000);
    v["players"][1]["puzzle"] = json!(own_puzzle.to_line());
    v["players"][1]["solution"] = json!(own_solution.to_line());
    let r = Replay::from_json(&v).expect("parses");
    let race_puzzle = Grid::parse(PUZZLE).expect("grid");
    assert_eq!(
        (r.players[0].puzzle, r.players[1].puzzle),
        (race_puzzle, own_puzzle)
    );
    let mut p = Playback::new(r);
    assert_eq!(
        p.players()[1].board,
        own_puzzle,
        "bob starts from his own givens"
    );
    p.to_end();
    let s = p.players();
    assert_eq!((s[1].board, s[1].filled), (own_solution, 51));
    assert_eq!(s[0].board, race_puzzle);
    // A seat's own solution must complete its own puzzle.
    v["players"][1]["solution"] = json!(SOLUTION);
    check_refused(v, "does not complete");
}

#[test]
fn a_variant_race_carries_its_layout_to_each_seat() {
    let regions = crate::app::tests::variants::REGIONS;
    let mut v = full_race();
    v["variant"] = json!("jigsaw");
    v["regions"] = json!(regions);
    let r = Replay::from_json(&v).expect("a jigsaw race");
    assert_eq!(r.variant, Variant::Jigsaw);
    assert!(r
        .players
        .iter()
        .all(|s| s.geometry.variant() == Variant::Jigsaw));
    let shown = screen(&ReplayApp::new(r), 80, 24);
    assert!(shown.contains("jigsaw · easy"), "{shown}");
    assert!(!shown.contains("board needs"), "{shown}");
    // A seat's own layout goes with its own puzzle.
    v["players"][1]["regions"] = json!("0".repeat(81));
    assert!(matches!(
        Replay::from_json(&v),
        Err(ReplayError::Variant(_))
    ));
    let mut v = full_race();
    v["variant"] = json!("samurai");
    assert!(matches!(
        Replay::from_json(&v),
        Err(ReplayError::Variant(_))
    ));
    v["variant"] = json!("killer");
    assert!(
        matches!(Replay::from_json(&v), Err(ReplayError::Variant(_))),
        "a killer without cages"
    );
}
