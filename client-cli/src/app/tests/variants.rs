//! Variant races (A10) on screen at 80×24: the layout from `race_started` drawn (jigsaw
//! regions, killer cages and their sums, x and windoku tints), the variant named, pencil marks
//! cleared by the variant's peers.

use engine::Variant;
use protocol::variant::{Cage, WireLayout};

use super::*;

/// Killer cages over [`SOLUTION`]: in each row, the pairs of columns 0-1, 2-3, 4-5, 6-7, and
/// column 8 alone.
fn killer_layout() -> WireLayout {
    let solution: engine::Grid = SOLUTION.parse().expect("grid");
    let mut cages = Vec::new();
    for r in 0..9u8 {
        for cols in [&[0u8, 1][..], &[2, 3], &[4, 5], &[6, 7], &[8]] {
            let cells: Vec<u8> = cols.iter().map(|c| r * 9 + c).collect();
            let sum = cells
                .iter()
                .filter_map(|&c| Cell::new(c).and_then(|c| solution.get(c)))
                .map(|d| d.get())
                .sum();
            cages.push(Cage { cells, sum });
        }
    }
    WireLayout {
        regions: None,
        cages: Some(cages),
    }
}

/// Jigsaw regions: the boxes, except that r1c4 is in region 0 and r3c3 in region 1.
pub(crate) const REGIONS: &str =
    "000011222000111222001111222333444555333444555333444555666777888666777888666777888";

fn jigsaw_layout() -> WireLayout {
    WireLayout {
        regions: Some(REGIONS.to_owned()),
        cages: None,
    }
}

/// The lobby app, after a race of `variant` with `layout` started.
fn racing_variant(variant: Variant, layout: WireLayout) -> App {
    let mut app = lobby();
    app.update(net(ServerMsg::Countdown { starts_in_ms: 3000 }));
    app.update(Event::Tick(1000));
    app.update(net(ServerMsg::RaceStarted {
        race_id: "r1".into(),
        puzzle: PUZZLE.parse().unwrap(),
        difficulty: Difficulty::Medium,
        time_limit_s: 1800,
        rated: false,
        layout,
        variant,
    }));
    app
}

/// The character and its colour at `(x, y)`.
fn at(buf: &Buffer, x: u16, y: u16) -> (String, Option<Color>) {
    let c = &buf[(x, y)];
    (c.symbol().to_owned(), c.style().fg)
}

/// Screen position of cell `(r, c)`'s top-left border corner on the small lattice drawn at the
/// main area's origin (row 1 of the screen, column 0).
fn corner(r: usize, c: usize) -> (u16, u16) {
    (c as u16 * 4, 1 + r as u16 * 2)
}

#[test]
fn a_killer_race_at_80x24_shows_every_cage_outline_and_sum() {
    let app = racing_variant(Variant::Killer, killer_layout());
    assert_eq!(race(&app).geometry.variant(), Variant::Killer);
    let buf = render(&app, 80, 24);
    assert!(
        find(&buf, "board needs").is_none(),
        "{}",
        lines(&buf).join("\n")
    );
    let layout = killer_layout();
    for cage in layout.cages.iter().flatten() {
        let first = usize::from(cage.cells[0]);
        let (x, y) = corner(first / 9, first % 9);
        let sum = cage.sum.to_string();
        let shown: String = (1..=sum.len() as u16)
            .map(|dx| at(&buf, x + dx, y).0)
            .collect();
        assert_eq!(
            shown,
            sum,
            "cage at cell {first}:\n{}",
            lines(&buf).join("\n")
        );
        assert_eq!(at(&buf, x + 1, y).1, SUM.fg);
    }
    // r1c1 and r1c2 share a cage: nothing between them; r1c2 | r1c3 inside box 1: dashed;
    // r1c3 and r1c4 share a cage across the box line: grey and dashed; r1c6 | r1c7: heavy.
    let (x, y) = corner(0, 1);
    assert_eq!(at(&buf, x, y + 1).0, " ");
    let (x, y) = corner(0, 2);
    assert_eq!(at(&buf, x, y + 1), ("┆".to_owned(), CAGE.fg));
    let (x, y) = corner(0, 3);
    assert_eq!(at(&buf, x, y + 1), ("┇".to_owned(), BORDER.fg));
    let (x, y) = corner(0, 6);
    assert_eq!(at(&buf, x, y + 1).0, "┃");
    check_shows(&buf, "killer · medium");
}

#[test]
fn a_jigsaw_race_draws_heavy_lines_between_regions_and_light_inside() {
    let app = racing_variant(Variant::Jigsaw, jigsaw_layout());
    let buf = render(&app, 80, 24);
    // r1c3 | r1c4: one region across the box line (light); r2c3 | r2c4: two regions (heavy).
    let (x, y) = corner(0, 3);
    assert_eq!(at(&buf, x, y + 1).0, "│", "{}", lines(&buf).join("\n"));
    let (x, y) = corner(1, 3);
    assert_eq!(at(&buf, x, y + 1).0, "┃");
    // r1c1 | r1c2 inside region 0: light; r3c3 over r2c3 (regions 1 and 0): heavy.
    let (x, y) = corner(0, 1);
    assert_eq!(at(&buf, x, y + 1).0, "│");
    let (x, y) = corner(2, 2);
    assert_eq!(at(&buf, x + 1, y).0, "━");
    check_shows(&buf, "jigsaw · medium");
}

/// The background of cell `(r, c)`'s centre on the small classic board at 80×24.
fn small_bg(buf: &Buffer, r: u16, c: u16) -> Option<Color> {
    let x = 1 + (c / 3) * 10 + (c % 3) * 3 + 1;
    let y = 1 + 1 + (r / 3) * 4 + r % 3;
    buf[(x, y)].style().bg.filter(|&bg| bg != Color::Reset)
}

#[test]
fn x_and_windoku_tint_their_extra_houses_and_keep_the_classic_board() {
    let classic = render(&racing(), 80, 24);
    let x = render(&racing_variant(Variant::X, WireLayout::default()), 80, 24);
    let windoku = render(
        &racing_variant(Variant::Windoku, WireLayout::default()),
        80,
        24,
    );
    // The cursor sits on r1c1: its background is the cursor's.
    for (r, c, on_x, on_windoku) in [
        (1, 1, true, true),
        (4, 4, true, false),
        (2, 6, true, true),
        (0, 8, true, false),
        (1, 2, false, true),
        (0, 4, false, false),
        (5, 5, true, true),
        (5, 6, false, true),
    ] {
        assert_eq!(small_bg(&classic, r, c), None);
        assert_eq!(small_bg(&x, r, c) == Some(TINT_BG), on_x, "x r{r}c{c}");
        let tinted = small_bg(&windoku, r, c) == Some(TINT_BG);
        assert_eq!(tinted, on_windoku, "windoku r{r}c{c}");
    }
    // Same characters as classic's board: only the backgrounds differ.
    let board_rows = |buf: &Buffer| -> Vec<String> {
        lines(buf)[1..14]
            .iter()
            .map(|l| l.chars().take(31).collect())
            .collect()
    };
    assert_eq!(board_rows(&x), board_rows(&classic));
    assert_eq!(board_rows(&windoku), board_rows(&classic));
}

/// The pencil marks left in r9c1 after a 4 marked there and a 4 placed in r1c9, in a race of
/// `variant`.
fn marks_left_in_r9c1(variant: Variant) -> u16 {
    let mut app = racing_variant(variant, WireLayout::default());
    for k in ['k', 'p', '4', 'p'] {
        app.update(key(k));
    }
    app.update(net(ServerMsg::Placement {
        id: None,
        cell: Cell::at(0, 8).expect("cell"),
        digit: Digit::new(4).expect("digit"),
        accepted: true,
        reason: None,
        conflicts: vec![],
        mistakes: 0,
        penalty_ms: 0,
    }));
    app.play().pencil_cursor().pencil[Cell::at(8, 0).expect("cell").idx()]
}

#[test]
fn a_variant_race_clears_pencil_marks_by_its_own_peers() {
    // r1c9 and r9c1 share only the anti-diagonal: peers on an x, not in classic.
    let four = Digit::new(4).expect("digit").bit();
    assert_eq!(marks_left_in_r9c1(Variant::Classic), four);
    assert_eq!(marks_left_in_r9c1(Variant::X), 0);
}

#[test]
fn a_room_of_a_variant_this_client_cannot_draw_is_refused_clearly() {
    let mut app = App::new("ann").with_intent(&Intent::Join {
        room: "K7QX".into(),
        name: "ann".into(),
    });
    app.update(Event::Net(NetEvent::Connected { reconnect: false }));
    app.update(net(ServerMsg::Error {
        code: protocol::ErrorCode::UnsupportedVariant,
        message: "room K7QX is a hexadoku room".into(),
        retry_ms: None,
    }));
    let buf = render(&app, 80, 24);
    check_shows(
        &buf,
        "could not join room K7QX: room K7QX is a hexadoku room",
    );
    check_shows(&buf, "(unsupported_variant)");
    check_shows(
        &buf,
        "this sudoku-race draws classic, x, windoku, jigsaw, killer",
    );
}

/// Every cage's sum of [`killer_layout`] is on the top border of its first cell, on a small
/// lattice drawn at the main area's origin.
#[track_caller]
fn check_sums(buf: &Buffer) {
    for cage in killer_layout().cages.iter().flatten() {
        let first = usize::from(cage.cells[0]);
        let (x, y) = corner(first / 9, first % 9);
        let sum = cage.sum.to_string();
        let shown: String = (1..=sum.len() as u16)
            .map(|dx| at(buf, x + dx, y).0)
            .collect();
        assert_eq!(
            shown,
            sum,
            "cage at cell {first}:\n{}",
            lines(buf).join("\n")
        );
    }
}

#[test]
fn the_results_of_a_killer_race_keep_its_cages_at_80x24() {
    let mut app = racing_variant(Variant::Killer, killer_layout());
    app.update(net(ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::TimeLimit,
        standings: vec![],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }));
    let buf = render(&app, 80, 24);
    check_sums(&buf);
    check_shows(&buf, "given yours solution");
}

#[test]
fn a_spectator_joining_a_killer_race_draws_it_from_the_rooms_variant_and_the_views_layout() {
    let settings = Settings {
        variant: Variant::Killer,
        ..Settings::default()
    };
    let view = RaceView {
        race_id: "r1".into(),
        puzzle: Some(PUZZLE.parse().unwrap()),
        difficulty: Difficulty::Hard,
        time_limit_s: 1800,
        elapsed_ms: 5_000,
        board: None,
        mistakes: 0,
        progress: vec![],
        standings: None,
        reason: None,
        layout: killer_layout(),
    };
    let mut joined = spectator_joined(Some(view), Phase::Racing);
    if let ServerMsg::RoomJoined { settings: s, .. } = &mut joined {
        *s = settings;
    }
    let mut app = App::new("eve");
    app.update(Event::Net(NetEvent::Connected { reconnect: false }));
    app.update(net(joined));
    assert_eq!(race(&app).variant, Variant::Killer);
    let buf = render(&app, 80, 24);
    check_sums(&buf);
    check_shows(&buf, "room K7QX  ·  killer · medium  ·  spectating");
}

#[test]
fn the_queue_names_the_pools_variant() {
    let mut app = App::new("ann").with_intent(&Intent::Quick {
        difficulty: Difficulty::Easy,
        variant: Variant::Killer,
        name: "ann".into(),
    });
    app.update(Event::Net(NetEvent::Connected { reconnect: false }));
    app.update(net(ServerMsg::Queued {
        difficulty: Difficulty::Easy,
        waiting: 1,
    }));
    check_shows(
        &render(&app, 80, 24),
        "quick race  ·  killer · easy  ·  waiting as ann",
    );
}

#[test]
fn the_panel_says_what_the_variant_adds() {
    check_shows(
        &render(&racing_variant(Variant::Killer, killer_layout()), 80, 24),
        "cages: no repeats, sum at top-left",
    );
    check_shows(
        &render(
            &racing_variant(Variant::Windoku, WireLayout::default()),
            80,
            24,
        ),
        "shaded windows hold 1-9 too",
    );
    let classic = render(&racing(), 80, 24);
    assert!(find(&classic, "hold 1-9").is_none());
}

#[test]
fn a_killer_race_without_its_cages_is_never_trusted_with_them() {
    // No server sends one; the board falls back to classic's houses instead of guessing.
    let mut bad = killer_layout();
    if let Some(cage) = bad.cages.as_mut().and_then(|c| c.first_mut()) {
        cage.cells.push(80);
    }
    for layout in [WireLayout::default(), bad] {
        let app = racing_variant(Variant::Killer, layout);
        assert!(race(&app).geometry.is_classic());
        check_shows(&render(&app, 80, 24), "┏━━━━━━━━━┳");
    }
}

#[test]
fn from_103x42_a_killer_board_is_big_with_pencil_marks_and_its_sums() {
    let mut app = racing_variant(Variant::Killer, killer_layout());
    // Pencil marks 1 and 9 in r1c3 (empty in PUZZLE).
    for k in ['l', 'l', 'p', '1', '9'] {
        app.update(key(k));
    }
    let small = render(&app, 102, 42);
    assert_eq!(
        at(&small, 8, 2).0,
        "┆",
        "102 columns: still the small board"
    );
    let buf = render(&app, 103, 42);
    for cage in killer_layout().cages.iter().flatten() {
        let first = usize::from(cage.cells[0]);
        let (x, y) = ((first % 9) as u16 * 8, 1 + (first / 9) as u16 * 4);
        let sum = cage.sum.to_string();
        let shown: String = (1..=sum.len() as u16)
            .map(|dx| at(&buf, x + dx, y).0)
            .collect();
        assert_eq!(
            shown,
            sum,
            "cage at cell {first}:\n{}",
            lines(&buf).join("\n")
        );
    }
    // r1c3's inside starts at column 17, row 2: marks at 1 + 2·((d−1) mod 3), row (d−1) div 3.
    assert_eq!(at(&buf, 18, 2).0, "1");
    assert_eq!(at(&buf, 22, 4).0, "9");
}
