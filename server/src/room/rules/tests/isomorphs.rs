//! A different isomorph per seat (A8): each racer's own `race_started` puzzle, judged on its
//! own board, resumed on its own board, ranked with its own puzzle and solution; the same
//! commands deal the same boards; which rooms deal isomorphs.

use engine::solver::solve_unique;

use super::*;

fn iso_settings() -> Settings {
    Settings {
        isomorphs: true,
        ..settings()
    }
}

/// Players on conns 1..=3 and a spectator on conn 9, raced from `t0` on `dealt()`; the
/// effects of the start.
fn iso_race(seed: u64, t0: Instant) -> (Room, Vec<Effect>) {
    let mut r = room_seeded(iso_settings(), seed);
    let before = t0 - Duration::from_millis(100);
    for c in 1..=3 {
        assert!(join(
            &mut r,
            c,
            Some(&format!("p{c}")),
            Role::Player,
            before
        ));
    }
    assert!(join(&mut r, 9, None, Role::Spectator, before));
    r.start_race(ConnId(1), before);
    let race_id = needed_race(&r.take_effects());
    r.puzzle_ready(&race_id, dealt(), before, 0);
    r.tick(t0, 0);
    assert_eq!(r.phase(), Phase::Racing);
    let fx = r.take_effects();
    (r, fx)
}

/// The one puzzle `race_started` gave `conn`.
#[track_caller]
fn started_puzzle(fx: &[Effect], conn: u64) -> Grid {
    let got: Vec<Grid> = to(fx, conn)
        .into_iter()
        .filter_map(|m| match m {
            ServerMsg::RaceStarted { puzzle, .. } => Some(puzzle),
            _ => None,
        })
        .collect();
    assert_eq!(got.len(), 1, "one race_started for conn {conn}");
    got[0]
}

fn cells() -> impl Iterator<Item = Cell> {
    (0..81u8).map(cell)
}

#[test]
fn each_seat_races_its_own_isomorph_judged_on_its_own_board() {
    let t0 = Instant::now();
    let (mut r, fx) = iso_race(7, t0);
    let own: Vec<Grid> = (1..=3).map(|c| started_puzzle(&fx, c)).collect();
    // The spectator sees the race's puzzle; every seat its own, all different.
    assert_eq!(started_puzzle(&fx, 9), dealt().puzzle);
    for (i, p) in own.iter().enumerate() {
        assert_ne!(*p, dealt().puzzle);
        assert_eq!(p.n_empty(), dealt().puzzle.n_empty(), "same clue count");
        assert!(own[..i].iter().all(|q| q != p), "seats' puzzles differ");
    }
    let solutions: Vec<Grid> = own.iter().map(|p| solve_unique(p).unwrap()).collect();
    // p2 places p1's solution digit in a cell empty on p2's board where the two differ:
    // refused as wrong (or conflict), a mistake.
    let c = cells()
        .find(|&c| own[1].get(c).is_none() && solutions[0].get(c) != solutions[1].get(c))
        .unwrap();
    let d = solutions[0].get(c).unwrap();
    r.place(ConnId(2), c, d, None, t0);
    let fx = r.take_effects();
    assert!(
        matches!(
            &to(&fx, 2)[0],
            ServerMsg::Placement {
                accepted: false,
                reason: Some(PlaceReason::Wrong | PlaceReason::Conflict),
                mistakes: 1,
                ..
            }
        ),
        "{fx:?}"
    );
    // Each solves its own board.
    let mut t = t0;
    for (k, (p, s)) in own.iter().zip(&solutions).enumerate() {
        let conn = ConnId(k as u64 + 1);
        for c in cells().filter(|&c| p.get(c).is_none()) {
            t += Duration::from_millis(10);
            r.place(conn, c, s.get(c).unwrap(), None, t);
        }
    }
    assert_eq!(r.phase(), Phase::Finished);
    let fx = r.take_effects();
    let over = to(&fx, 9)
        .into_iter()
        .find_map(|m| match m {
            ServerMsg::RaceOver {
                standings,
                solution,
                ..
            } => Some((standings, solution)),
            _ => None,
        })
        .unwrap();
    // The top-level solution stays the race's; each standing carries its seat's own.
    assert_eq!(over.1, dealt().solution);
    for s in &over.0 {
        assert_eq!(s.status, FinishStatus::Solved);
        let k = usize::from(s.player_id.as_str().as_bytes()[1] - b'1');
        assert_eq!((s.puzzle, s.solution), (Some(own[k]), Some(solutions[k])));
    }
}

#[test]
fn the_same_seed_deals_the_same_boards_and_a_resume_gets_its_own() {
    let t0 = Instant::now();
    let (mut r, fx) = iso_race(11, t0);
    let (_, again) = iso_race(11, t0);
    let (_, other) = iso_race(12, t0);
    for c in 1..=3 {
        assert_eq!(started_puzzle(&fx, c), started_puzzle(&again, c));
        assert_ne!(started_puzzle(&fx, c), started_puzzle(&other, c));
    }
    // p2 places a digit, drops and resumes: its own puzzle and board come back.
    let own = started_puzzle(&fx, 2);
    let solution = solve_unique(&own).unwrap();
    let c = cells().find(|&c| own.get(c).is_none()).unwrap();
    r.place(ConnId(2), c, solution.get(c).unwrap(), None, t0);
    let token = r.seats.seat_of_conn(ConnId(2)).unwrap().token.clone();
    r.dropped(ConnId(2), t0);
    r.take_effects();
    assert!(r.resume(
        ConnId(7),
        &token,
        Default::default(),
        t0 + Duration::from_secs(1)
    ));
    let fx = r.take_effects();
    let mut board = own;
    board.set(c, solution.get(c));
    match &to(&fx, 7)[0] {
        ServerMsg::RoomJoined {
            race: Some(view), ..
        } => assert_eq!((view.puzzle, view.board), (Some(own), Some(board))),
        m => panic!("{m:?}"),
    }
    // A spectator joining now sees the race's puzzle and no board.
    assert!(join(&mut r, 8, None, Role::Spectator, t0));
    match &to(&r.take_effects(), 8)[0] {
        ServerMsg::RoomJoined {
            race: Some(view), ..
        } => assert_eq!((view.puzzle, view.board), (Some(dealt().puzzle), None)),
        m => panic!("{m:?}"),
    }
}

#[test]
fn without_isomorphs_race_started_is_one_message_for_everyone() {
    let t0 = Instant::now();
    let mut r = lobby(3, settings(), t0);
    r.start_race(ConnId(1), t0);
    let race_id = needed_race(&r.take_effects());
    r.puzzle_ready(&race_id, dealt(), t0, 0);
    r.tick(t0 + Duration::from_secs(1), 0);
    let starts: Vec<(Vec<ConnId>, Grid)> = r
        .take_effects()
        .into_iter()
        .filter_map(|f| match f {
            Effect::Send(to, ServerMsg::RaceStarted { puzzle, .. }) => Some((to, puzzle)),
            _ => None,
        })
        .collect();
    let everyone = [1, 2, 3, 9].map(ConnId).to_vec();
    assert_eq!(starts, [(everyone, dealt().puzzle)]);
}

#[test]
fn pool_arena_and_rated_rooms_deal_isomorphs_daily_and_ghost_rooms_never() {
    let kept = |s: Settings| room(s).settings().isomorphs;
    assert!(kept(Settings {
        rated: true,
        ..settings()
    }));
    assert!(kept(Settings {
        pool: true,
        ..settings()
    }));
    assert!(kept(Settings {
        arena: Some("a1".into()),
        ..settings()
    }));
    assert!(!kept(settings()));
    let mut daily = room(Settings {
        isomorphs: true,
        ..settings()
    });
    daily.make_daily("2026-12-01".into(), dealt());
    assert!(!daily.settings().isomorphs);
    // A host asking for a rated race gets isomorphs; in the daily room never.
    let t = Instant::now();
    let mut r = lobby(1, settings(), t);
    r.set_settings(
        ConnId(1),
        Settings {
            rated: true,
            ..settings()
        },
    );
    assert!(r.settings().isomorphs);
}
