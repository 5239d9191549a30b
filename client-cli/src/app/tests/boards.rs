//! `spectate --boards` (A8): the leader's delayed board (the most filled) in the board's place,
//! with whose it is and the race time it shows; a plain spectator keeps the givens.

use super::*;
use engine::Grid;

/// A spectator of K7QX, where ann (p1) and bob (p2) race.
fn watching(boards: bool) -> App {
    let mut app = App::new("eve").with_intent(&Intent::Spectate {
        room: "K7QX".into(),
        name: "eve".into(),
        boards,
    });
    let mut joined = spectator_joined(None, Phase::Lobby);
    if let ServerMsg::RoomJoined { players, .. } = &mut joined {
        players.push(player("p2", "bob"));
    }
    app.update(net(joined));
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

/// `PUZZLE` with the solution's digits in `cells` (row, col).
fn filled(cells: &[(u8, u8)]) -> Grid {
    let mut g: Grid = PUZZLE.parse().unwrap();
    let solution: Grid = SOLUTION.parse().unwrap();
    for &(r, c) in cells {
        let cell = Cell::at(r, c).expect("a cell");
        g.set(cell, solution.get(cell));
    }
    g
}

fn board(player_id: &str, board: Grid, at_ms: u64) -> Event {
    net(ServerMsg::Board {
        player_id: player_id.into(),
        board,
        at_ms,
    })
}

#[test]
fn the_leaders_delayed_board_shows_beside_the_panel() {
    let mut app = watching(true);
    let ask = app.seating.intent().and_then(Intent::first_message);
    assert_eq!(
        ask,
        Some(ClientMsg::Spectate {
            room: "K7QX".into(),
            name: Some("eve".into()),
            key: None,
            boards: true,
            variants: crate::net::drawn(),
        })
    );
    app.update(board("p1", filled(&[]), 0));
    app.update(board("p2", filled(&[]), 0));
    // 72 s in, the boards as of 42 s: bob has two digits, ann one.
    app.update(board("p2", filled(&[(0, 2), (0, 3)]), 42_000));
    app.update(board("p1", filled(&[(0, 2)]), 42_000));
    let buf = render(&app, 120, 40);
    check_shows(&buf, "leader: bob, as of 0:42 (delayed)");
    for (row, col, digit) in [(0, 2, "4"), (0, 3, "6")] {
        let (x, y) = big_cell_centre(row, col);
        assert_eq!(
            buf[(x, y)].symbol(),
            digit,
            "bob's r{}c{}",
            row + 1,
            col + 1
        );
    }
    let (x, y) = big_cell_centre(0, 0);
    assert_eq!(buf[(x, y)].symbol(), "5", "a given");
    check_shows(&buf, "ann  racing");
    check_shows(&render(&app, 80, 24), "leader: bob");
    // Ann passes bob: she is the leader now.
    app.update(board("p1", filled(&[(0, 2), (0, 3), (0, 5)]), 43_000));
    check_shows(&render(&app, 120, 40), "leader: ann, as of 0:43 (delayed)");
}

#[test]
fn a_plain_spectator_sees_the_givens_only() {
    let app = watching(false);
    let buf = render(&app, 120, 40);
    assert!(find(&buf, "leader:").is_none());
    let (x, y) = big_cell_centre(0, 2);
    assert_eq!(buf[(x, y)].symbol(), " ");
}
