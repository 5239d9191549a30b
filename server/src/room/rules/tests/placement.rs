//! A race's placements: rule 2, then rules 3 and 4 (outcomes, penalties, the solve),
//! elimination at the mistake limit, and the time limit.

use super::*;

#[test]
fn placement_outcomes_penalties_and_solve() {
    let t0 = Instant::now();
    let s = Settings {
        max_mistakes: 0,
        penalty_s: 10,
        ..settings()
    };
    let mut r = racing(2, s, t0);
    let t = t0 + Duration::from_secs(1);
    // Cell 2 holds a given 3.
    r.place(
        ConnId(1),
        cell(2),
        digit(3),
        Some(MsgId::String("a".into())),
        t,
    );
    let fx = r.take_effects();
    assert!(matches!(
        &to(&fx, 1)[..],
        [ServerMsg::Placement {
            reason: Some(PlaceReason::Given),
            accepted: false,
            mistakes: 0,
            id: Some(_),
            ..
        }]
    ));
    assert!(to(&fx, 2).is_empty(), "no progress for a given");
    // Cell 0 (solution 4): a 3 clashes with the given 3 at cell 2 and at cell 3*9=27? check cells.
    r.place(ConnId(1), cell(0), digit(3), None, t);
    let fx = r.take_effects();
    match &to(&fx, 1)[0] {
        ServerMsg::Placement {
            reason,
            conflicts,
            mistakes,
            penalty_ms,
            ..
        } => {
            assert_eq!(*reason, Some(PlaceReason::Conflict));
            assert!(conflicts.contains(&Cell::new(2).unwrap()));
            assert_eq!((*mistakes, *penalty_ms), (1, 10_000));
        }
        m => panic!("{m:?}"),
    }
    assert!(matches!(&to(&fx, 2)[0], ServerMsg::Progress(p) if p.mistakes == 1));
    // Cell 0: a 5 clashes with nothing on the board but is not the solution's 4.
    let d5 = digit(5);
    assert!(placement_conflicts(&Grid::parse(PUZZLE).unwrap(), cell(0), d5).is_empty());
    r.place(ConnId(1), cell(0), d5, None, t);
    let fx = r.take_effects();
    assert!(matches!(
        &to(&fx, 1)[0],
        ServerMsg::Placement {
            reason: Some(PlaceReason::Wrong),
            mistakes: 2,
            penalty_ms: 20_000,
            ..
        }
    ));
    // Accepted, then filled.
    r.place(ConnId(1), cell(0), digit(4), None, t);
    let fx = r.take_effects();
    assert!(matches!(
        &to(&fx, 1)[0],
        ServerMsg::Placement {
            accepted: true,
            reason: None,
            ..
        }
    ));
    assert!(matches!(&to(&fx, 2)[0], ServerMsg::Progress(p) if p.filled == 1));
    r.place(ConnId(1), cell(0), digit(4), None, t);
    let fx = r.take_effects();
    assert!(matches!(
        &to(&fx, 1)[0],
        ServerMsg::Placement {
            reason: Some(PlaceReason::Filled),
            ..
        }
    ));
    // Solve the rest at t = 61 s: time_ms = 61_000 + 2 mistakes * 10 s.
    let t = t0 + Duration::from_secs(61);
    for i in empty_cells().into_iter().filter(|&i| i != 0) {
        r.place(ConnId(1), cell(i), solution_digit(i), None, t);
    }
    let fx = r.take_effects();
    let finished = to(&fx, 2)
        .into_iter()
        .find(|m| matches!(m, ServerMsg::PlayerFinished { .. }))
        .unwrap();
    assert_eq!(
        finished,
        ServerMsg::PlayerFinished {
            player_id: "p1".into(),
            status: FinishStatus::Solved,
            time_ms: Some(81_000)
        }
    );
    assert!(
        !to(&fx, 2)
            .iter()
            .any(|m| matches!(m, ServerMsg::RaceOver { .. } | ServerMsg::Solution { .. })),
        "the solution never reaches a racing player"
    );
    // p2 forfeits (A1: no `solution` for it); the race is over, stored before it is announced.
    r.forfeit(ConnId(2), t);
    let fx = r.take_effects();
    let store_at = fx
        .iter()
        .position(|f| matches!(f, Effect::Store(_)))
        .unwrap();
    let over_at = fx
        .iter()
        .position(|f| matches!(f, Effect::Send(_, ServerMsg::RaceOver { .. })))
        .unwrap();
    assert!(store_at < over_at);
    for c in [1, 2] {
        assert!(!to(&fx, c)
            .iter()
            .any(|m| matches!(m, ServerMsg::Solution { .. })));
    }
    match &fx[over_at] {
        Effect::Send(
            to,
            ServerMsg::RaceOver {
                reason,
                standings,
                solution,
                ..
            },
        ) => {
            assert_eq!(to, &[ConnId(1), ConnId(2)]);
            assert_eq!(solution.to_line(), SOLUTION);
            assert_eq!(*reason, OverReason::AllDone);
            assert_eq!(standings[0].status, FinishStatus::Solved);
            assert_eq!(standings[1].status, FinishStatus::Forfeited);
        }
        _ => unreachable!(),
    }
    assert_eq!(r.phase(), Phase::Finished);
}

#[test]
fn elimination_at_max_mistakes_reveals_no_solution_before_race_over() {
    let t0 = Instant::now();
    let s = Settings {
        max_mistakes: 2,
        ..settings()
    };
    let mut r = racing(2, s, t0);
    r.place(ConnId(2), cell(0), digit(5), None, t0);
    r.take_effects();
    r.place(ConnId(2), cell(0), digit(6), None, t0);
    let fx = r.take_effects();
    let p2 = to(&fx, 2);
    assert!(matches!(p2[0], ServerMsg::Placement { mistakes: 2, .. }));
    assert!(p2.iter().any(|m| matches!(
        m,
        ServerMsg::PlayerFinished {
            status: FinishStatus::Eliminated,
            ..
        }
    )));
    // A1: nobody gets the solution while the race runs, the eliminated player included.
    let leaks = |m: &ServerMsg| {
        matches!(m, ServerMsg::Solution { .. })
            || serde_json::to_string(m).is_ok_and(|j| j.contains(SOLUTION))
    };
    assert!(!p2.iter().chain(&to(&fx, 1)).any(leaks));
    r.place(ConnId(2), cell(0), digit(4), None, t0);
    check_error(&r.take_effects(), 2, ErrorCode::WrongPhase);
    assert_eq!(r.phase(), Phase::Racing);
    // It arrives with race_over, to both.
    r.forfeit(ConnId(1), t0);
    let fx = r.take_effects();
    for c in [1, 2] {
        assert!(to(&fx, c).iter().any(
            |m| matches!(m, ServerMsg::RaceOver { solution, .. } if solution.to_line() == SOLUTION)
        ));
    }
}

#[test]
fn time_limit_times_out_racers() {
    let t0 = Instant::now();
    let mut r = racing(2, settings(), t0);
    r.place(ConnId(1), cell(0), digit(4), None, t0);
    r.take_effects();
    assert_eq!(
        r.next_deadline_but_probes(),
        Some(t0 + Duration::from_secs(1800))
    );
    r.tick(t0 + Duration::from_secs(1800), 0);
    let fx = r.take_effects();
    let msgs = to(&fx, 1);
    assert_eq!(
        msgs.iter()
            .filter(|m| matches!(
                m,
                ServerMsg::PlayerFinished {
                    status: FinishStatus::TimedOut,
                    ..
                }
            ))
            .count(),
        2
    );
    match msgs.last().unwrap() {
        ServerMsg::RaceOver {
            reason, standings, ..
        } => {
            assert_eq!(*reason, OverReason::TimeLimit);
            assert_eq!(standings[0].player_id, "p1");
            assert_eq!((standings[0].rank, standings[1].rank), (1, 2));
        }
        m => panic!("{m:?}"),
    }
}
