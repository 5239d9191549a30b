//! Solo practice driven by keys: placing, pencil marks, undo, hints, give-up.

use super::*;
use crate::app::tests::{PUZZLE, SOLUTION};
use crossterm::event::KeyEvent;

fn hinter(_: &Geometry, _: &Grid) -> Option<Hint> {
    Some(Hint {
        text: "naked single: r1c3 = 4".into(),
        cells: vec![Cell::at(0, 2).expect("cell")],
    })
}

fn game() -> SoloApp {
    let p = Grid::parse(PUZZLE).expect("grid");
    let s = Grid::parse(SOLUTION).expect("grid");
    let mut g = SoloApp::new(p, s, Level::Easy, hinter);
    g.update(Event::Tick(100));
    g
}

fn keys(g: &mut SoloApp, s: &str) {
    for c in s.chars() {
        g.update(Event::Key(KeyEvent::from(KeyCode::Char(c))));
    }
}

#[test]
fn place_undo_and_pencil() {
    let mut g = game();
    keys(&mut g, "ll9");
    let c = Cell::at(0, 2).expect("cell");
    assert_eq!(g.board.board.get(c), Digit::new(9));
    keys(&mut g, "u");
    assert_eq!(g.board.board.get(c), None);
    keys(&mut g, "p12");
    assert_eq!(g.board.pencil_cursor.pencil[c.idx()], 0b11);
    keys(&mut g, "u");
    assert_eq!(g.board.pencil_cursor.pencil[c.idx()], 0b1);
    keys(&mut g, "p4");
    assert_eq!(g.board.board.get(c), Digit::new(4));
    assert_eq!(
        g.board.pencil_cursor.pencil[c.idx()],
        0,
        "placing clears the marks"
    );
    keys(&mut g, "u");
    assert_eq!(
        g.board.pencil_cursor.pencil[c.idx()],
        0b1,
        "undo brings them back"
    );
    assert_eq!(g.undo_depth(), 1);
}

#[test]
fn conflicts_are_found_on_request() {
    let mut g = game();
    keys(&mut g, "ll5c");
    let clash: Vec<Cell> = [(0, 0), (0, 2)]
        .iter()
        .map(|&(r, c)| Cell::at(r, c).expect("cell"))
        .collect();
    for c in &clash {
        assert!(
            g.conflicts.contains(c),
            "{c} should clash: {:?}",
            g.conflicts
        );
    }
    keys(&mut g, "x");
    assert!(g.conflicts.is_empty(), "a change clears the highlight");
}

#[test]
fn hints_and_give_up() {
    let mut g = game();
    keys(&mut g, "?");
    assert_eq!(
        g.hint.as_ref().map(|h| h.text.as_str()),
        Some("naked single: r1c3 = 4")
    );
    keys(&mut g, "gj");
    assert_eq!(g.outcome, None, "a second key other than g cancels");
    keys(&mut g, "gg");
    assert_eq!(g.outcome, Some(Outcome::GaveUp));
    keys(&mut g, "5");
    assert_eq!(g.board.board, g.board.puzzle, "no play after giving up");
}

#[test]
fn the_screen_shows_the_hint_and_highlights_its_cells() {
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;
    let mut g = game();
    keys(&mut g, "?");
    let mut t = Terminal::new(TestBackend::new(120, 40)).expect("backend");
    t.draw(|f| f.render_widget(&g, f.area())).expect("draw");
    let buf = t.backend().buffer();
    let text: String = buf.content().iter().map(|c| c.symbol()).collect();
    assert!(text.contains("naked single: r1c3 = 4"), "{text}");
    assert!(text.contains("solo practice  ·  easy"));
    // r1c3's centre on the big board.
    assert_eq!(
        buf[(1 + 2 * 7 + 3, 1 + 1 + 1)].bg,
        crate::ui::board::HINT_BG
    );
}

#[test]
fn the_grader_names_a_technique_and_its_cells() {
    let p = Grid::parse(PUZZLE).expect("grid");
    let hint = grader_hint(Geometry::classic(), &p).expect("an easy puzzle has a step");
    assert!(hint.text.contains("single"), "{}", hint.text);
    assert!(!hint.cells.is_empty());
    let solved = Grid::parse(SOLUTION).expect("grid");
    assert_eq!(grader_hint(Geometry::classic(), &solved), None);
}

#[test]
fn the_solo_screen_draws_at_any_size() {
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;
    let mut g = game();
    keys(&mut g, "?gg");
    for (w, h) in [(1, 1), (10, 3), (31, 13), (67, 31), (200, 60)] {
        let mut t = Terminal::new(TestBackend::new(w, h)).expect("backend");
        t.draw(|f| f.render_widget(&g, f.area())).expect("draw");
    }
}

#[test]
fn filling_the_solution_stops_the_clock() {
    let mut g = game();
    let solution = Grid::parse(SOLUTION).expect("grid");
    for cell in Cell::all() {
        if g.board.is_given(cell) {
            continue;
        }
        g.board.pencil_cursor.cursor = cell;
        let d = solution.get(cell).expect("full");
        g.update(Event::Tick(100 + u64::from(cell.get()) * 1000));
        keys(&mut g, &d.to_string());
    }
    assert_eq!(g.outcome, Some(Outcome::Solved { time_ms: 78_000 }));
    g.update(Event::Tick(500_000));
    assert_eq!(g.elapsed_ms(), 78_000);
}

#[test]
fn giving_up_clears_the_hint() {
    let mut g = game();
    keys(&mut g, "?");
    assert!(g.hint.is_some());
    keys(&mut g, "gg");
    assert_eq!(g.outcome, Some(Outcome::GaveUp));
    assert_eq!(
        g.hint, None,
        "no hint about a board that is no longer played"
    );
}

#[test]
fn a_change_clears_the_clash_warning() {
    let mut g = game();
    // A digit that clashes with a given in its row, then `c`, then undo.
    let cell = Cell::all()
        .find(|&c| !g.board.is_given(c))
        .expect("an empty cell");
    g.board.pencil_cursor.cursor = cell;
    let row_given = Cell::all()
        .filter(|c| c.row() == cell.row())
        .find_map(|c| g.board.puzzle.get(c))
        .expect("a given in the row");
    keys(&mut g, &row_given.to_string());
    keys(&mut g, "c");
    assert!(g
        .notice
        .as_ref()
        .is_some_and(|n| n.bad && n.text.contains("clash")));
    keys(&mut g, "u");
    assert!(g.conflicts.is_empty());
    assert_eq!(g.notice, None, "the warning went with the clash");
}

fn dealer(_: Variant, _: Difficulty) -> (Geometry, Grid, Grid) {
    let mut p = Grid::parse(SOLUTION).expect("grid");
    let s = p;
    p.set(Cell::new(0).expect("cell"), None);
    (Geometry::classic().clone(), p, s)
}

#[test]
fn n_deals_a_new_puzzle() {
    let mut g = game();
    keys(&mut g, "n");
    assert!(
        g.notice.as_ref().is_some_and(|n| n.bad),
        "no dealer: said so"
    );
    let mut g = game().with_dealer(dealer);
    keys(&mut g, "n");
    assert_eq!(
        g.board.puzzle.n_empty(),
        1,
        "a fresh game at once when nothing was played"
    );
    // With moves made, the first `n` asks, another key cancels, a second `n` deals.
    let mut g = game().with_dealer(dealer);
    let cell = Cell::all()
        .find(|&c| !g.board.is_given(c))
        .expect("an empty cell");
    g.board.pencil_cursor.cursor = cell;
    keys(&mut g, "5");
    keys(&mut g, "nx");
    assert_ne!(g.board.puzzle.n_empty(), 1, "cancelled");
    keys(&mut g, "nn");
    assert_eq!(g.board.puzzle.n_empty(), 1);
    assert_eq!(g.outcome, None);
    assert_eq!(g.undo_depth(), 0);
}

#[test]
fn a_killer_game_shows_its_cage_sums_at_80x24_and_checks_clashes_by_cage() {
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let dealt =
        engine::generator::variant::generate_in(&mut rng, Variant::Killer, Difficulty::Easy);
    let mut g = SoloApp::new(dealt.puzzle, dealt.solution, Level::Easy, grader_hint)
        .in_geometry(dealt.geometry.clone());
    assert_eq!(g.variant(), Variant::Killer);
    let mut t =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).expect("backend");
    t.draw(|f| f.render_widget(&g, f.area())).expect("draw");
    let buf = t.backend().buffer().clone();
    for k in dealt.geometry.constraints() {
        let engine::Constraint::Cage { cells, sum } = k;
        let first = cells.iter().min().expect("a cage has cells");
        let (x, y) = (first.col() as u16 * 4 + 1, 1 + first.row() as u16 * 2);
        let shown: String = (0..sum.to_string().len() as u16)
            .map(|dx| buf[(x + dx, y)].symbol().to_owned())
            .collect();
        assert_eq!(shown, sum.to_string(), "the sum of the cage at {first}");
    }
    // Two cells of one cage with the same digit clash, wherever they are.
    let cage = dealt
        .geometry
        .constraints()
        .iter()
        .map(|k| k.cells())
        .find(|cells| cells.len() >= 2 && cells.iter().all(|&c| dealt.puzzle.get(c).is_none()))
        .expect("an empty cage of two cells or more");
    let d = Digit::new(1).expect("digit");
    g.board.place(cage[0], d);
    g.board.place(cage[1], d);
    keys(&mut g, "c");
    assert!(g.conflicts.contains(&cage[0]) && g.conflicts.contains(&cage[1]));
    // A hint walks the killer's houses and cages: it names empty cells.
    g.board.board.set(cage[0], None);
    g.board.board.set(cage[1], None);
    keys(&mut g, "?");
    let hint = g.hint.as_ref().expect("an easy killer has a step");
    assert!(
        hint.cells.iter().any(|&c| dealt.puzzle.get(c).is_none()),
        "{hint:?}"
    );
}
