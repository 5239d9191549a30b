//! A different isomorph per seat (A8) on screen: our board was our own isomorph, so the
//! solution shown against it after `race_over` is the one in our standing, not the race's.

use super::*;

/// `race_over` whose top-level solution is the race's (`base`) and whose standing for us
/// (p1) carries `own`, when given.
fn race_over(base: &str, own: Option<&str>) -> ServerMsg {
    ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::AllDone,
        standings: vec![Standing {
            rank: 1,
            player_id: "p1".into(),
            name: "ann".try_into().unwrap(),
            status: FinishStatus::Forfeited,
            time_ms: None,
            filled: 0,
            mistakes: 0,
            time_ms_raw: None,
            lag_ms: 0,
            puzzle: own.map(|_| PUZZLE.parse().unwrap()),
            solution: own.map(|s| s.parse().unwrap()),
            layout: Default::default(),
        }],
        solution: base.parse().unwrap(),
        ratings: Vec::new(),
    }
}

/// SOLUTION with its digits relabelled (1 <-> 2): a valid grid that is not ours.
fn relabelled() -> String {
    SOLUTION
        .chars()
        .map(|c| match c {
            '1' => '2',
            '2' => '1',
            c => c,
        })
        .collect()
}

#[test]
fn the_solution_shown_is_our_own_isomorphs() {
    let mut app = racing();
    app.update(net(race_over(&relabelled(), Some(SOLUTION))));
    assert_eq!(race(&app).solution, SOLUTION.parse().ok());
    // r1c8 was empty on our board: our own solution's 1 is revealed there (the race's has 2).
    let buf = render(&app, 120, 40);
    let (x, y) = big_cell_centre(0, 7);
    assert_eq!(buf[(x, y)].symbol(), "1");
}

#[test]
fn without_our_own_the_races_solution_is_shown() {
    let mut app = racing();
    app.update(net(race_over(SOLUTION, None)));
    assert_eq!(race(&app).solution, SOLUTION.parse().ok());
}
