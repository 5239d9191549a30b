//! Delayed boards (A8): boards-spectators see each board as it was the delay earlier, never
//! newer, only the boards that changed per tick, all at once when they join mid-race, and every
//! final board at `race_over`; other spectators get none of it.

use super::*;
use crate::room::rules::BOARD_TICK;

/// The `board` messages to `conn` in `fx`: (player, board, at_ms).
fn boards_to(fx: &[Effect], conn: u64) -> Vec<(String, Grid, u64)> {
    to(fx, conn)
        .into_iter()
        .filter_map(|m| match m {
            ServerMsg::Board {
                player_id,
                board,
                at_ms,
            } => Some((player_id.to_string(), board, at_ms)),
            _ => None,
        })
        .collect()
}

/// Players on conns 1 and 2, a plain spectator on 8 and a boards-spectator on 9, in a race
/// started at `t0` (the default delay, 30 s); the effects since the start are left to take.
fn watched(t0: Instant) -> Room {
    let mut r = room(settings());
    let before = t0 - Duration::from_millis(100);
    for c in 1..=2 {
        assert!(join(
            &mut r,
            c,
            Some(&format!("p{c}")),
            Role::Player,
            before
        ));
    }
    assert!(join(&mut r, 8, None, Role::Spectator, before));
    assert!(join(&mut r, 9, Some("tv"), Role::Spectator, before));
    r.watch_boards(ConnId(9), before);
    r.start_race(ConnId(1), before);
    let race_id = needed_race(&r.take_effects());
    r.puzzle_ready(&race_id, dealt(), before, 0);
    r.tick(t0, 0);
    assert_eq!(r.phase(), Phase::Racing);
    r
}

#[test]
fn boards_are_delayed_sent_on_change_and_final_at_race_over() {
    let t0 = Instant::now();
    let mut r = watched(t0);
    let fx = r.take_effects();
    let start = boards_to(&fx, 9);
    assert_eq!(start.len(), 2, "each starting board at once: {start:?}");
    assert!(start
        .iter()
        .all(|(_, b, at)| *b == dealt().puzzle && *at == 0));
    assert!(
        boards_to(&fx, 8).is_empty(),
        "a plain spectator gets no board"
    );
    assert!(
        r.next_deadline().is_some_and(|d| d <= t0 + BOARD_TICK),
        "a watched race ticks every second"
    );

    let [a, b, ..] = empty_cells()[..] else {
        panic!("the puzzle has empty cells")
    };
    r.place(
        ConnId(1),
        cell(a),
        solution_digit(a),
        None,
        t0 + Duration::from_secs(1),
    );
    r.take_effects();
    for s in 2..=30 {
        r.tick(t0 + Duration::from_secs(s), 0);
        let fx = r.take_effects();
        assert!(
            boards_to(&fx, 9).is_empty(),
            "nothing newer than 30 s at {s} s"
        );
    }
    r.tick(t0 + Duration::from_secs(31), 0);
    let shown = boards_to(&r.take_effects(), 9);
    assert!(shown.is_empty(), "a board at 1 s is the one before 1 s");
    r.tick(t0 + Duration::from_millis(31_500), 0);
    assert!(
        boards_to(&r.take_effects(), 9).is_empty(),
        "one tick a second"
    );
    r.tick(t0 + Duration::from_secs(32), 0);
    let fx = r.take_effects();
    let shown = boards_to(&fx, 9);
    assert_eq!(shown.len(), 1, "only the board that changed: {shown:?}");
    let (who, board, at_ms) = &shown[0];
    assert_eq!((who.as_str(), *at_ms), ("p1", 2000));
    assert_eq!(board.get(cell(a)), Some(solution_digit(a)));
    assert!(boards_to(&fx, 8).is_empty());

    let late = t0 + Duration::from_millis(31_500);
    r.place(ConnId(2), cell(b), solution_digit(b), None, late);
    r.take_effects();
    r.tick(t0 + Duration::from_secs(33), 0);
    assert!(
        boards_to(&r.take_effects(), 9).is_empty(),
        "p2's digit is 1.5 s old"
    );

    // Joining mid-race: every delayed board at once, none newer than the delay.
    let mid = t0 + Duration::from_secs(40);
    // The test room takes two spectators.
    assert!(r.leave(ConnId(8), mid));
    assert!(join(&mut r, 7, Some("late"), Role::Spectator, mid));
    r.watch_boards(ConnId(7), mid);
    let joined = boards_to(&r.take_effects(), 7);
    assert_eq!(joined.len(), 2);
    assert!(joined.iter().all(|(_, _, at)| *at == 10_000));
    let p1 = joined.iter().find(|(w, _, _)| w == "p1").unwrap();
    let p2 = joined.iter().find(|(w, _, _)| w == "p2").unwrap();
    assert_eq!(p1.1.get(cell(a)), Some(solution_digit(a)));
    assert_eq!(p2.1, dealt().puzzle, "p2's digit came at 31.5 s");

    // The race ends: every final board, to every boards-spectator, after race_over.
    let end = t0 + Duration::from_secs(41);
    r.forfeit(ConnId(1), end);
    r.forfeit(ConnId(2), end);
    let fx = r.take_effects();
    for c in [7, 9] {
        let msgs = to(&fx, c);
        let over = msgs
            .iter()
            .position(|m| matches!(m, ServerMsg::RaceOver { .. }));
        let first_board = msgs
            .iter()
            .position(|m| matches!(m, ServerMsg::Board { .. }));
        assert!(over < first_board, "final boards follow race_over");
        let finals = boards_to(&fx, c);
        assert_eq!(finals.len(), 2);
        let p2 = finals.iter().find(|(w, _, _)| w == "p2").unwrap();
        assert_eq!(p2.1.get(cell(b)), Some(solution_digit(b)));
        assert_eq!(p2.2, 41_000);
    }
    assert_eq!(r.next_deadline(), None, "no ticks once it is over");

    // A boards-spectator joining after the race gets the final boards.
    assert!(r.leave(ConnId(7), end));
    assert!(join(&mut r, 6, None, Role::Spectator, end));
    r.watch_boards(ConnId(6), end);
    assert_eq!(boards_to(&r.take_effects(), 6).len(), 2);
}

#[test]
fn an_unwatched_race_does_not_tick_and_a_player_cannot_ask() {
    let t0 = Instant::now();
    let mut r = racing(2, settings(), t0);
    // The room still wakes for its lag probes (A8), but no wake-up sends a board.
    let mut now = t0;
    for _ in 0..5 {
        now = r.next_deadline().expect("a deadline while racing");
        r.tick(now, 0);
        let fx = r.take_effects();
        assert!(
            (0..8).all(|c| boards_to(&fx, c).is_empty()),
            "no boards without a boards-spectator"
        );
    }
    assert!(now > t0);
    r.watch_boards(ConnId(1), now);
    assert!(r.take_effects().is_empty(), "a player's ask is ignored");
    let next = r.next_deadline().expect("a deadline while racing");
    r.tick(next, 0);
    let fx = r.take_effects();
    assert!((0..8).all(|c| boards_to(&fx, c).is_empty()), "still none");
}
