//! State-machine tests: no sockets, time given explicitly.
// Tests pick their own instants.
#![allow(clippy::disallowed_methods)]

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use protocol::{
    ErrorCode, FinishStatus, MsgId, OverReason, Phase, PlaceReason, ResumeToken, Role, ServerMsg,
    Settings, Standing,
};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use shared::engine::validator::placement_conflicts;
use shared::engine::{Cell, Digit, Grid};
use tokio::time::Instant;

use super::standings::standings;
use super::{Effect, MintToken, Room, RoomOpts};
use crate::outbox::{CloseCode, ConnId};
use crate::puzzles::SolvedPuzzle;
use crate::room::handle::Identity;

/// Where the tests' clients come from.
const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

const PUZZLE: &str =
    "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..";
const SOLUTION: &str =
    "483921657967345821251876493548132976729564138136798245372689514814253769695417382";

fn dealt() -> SolvedPuzzle {
    SolvedPuzzle {
        puzzle: Grid::parse(PUZZLE).unwrap(),
        solution: Grid::parse(SOLUTION).unwrap(),
    }
}

pub(crate) fn settings() -> Settings {
    Settings {
        max_players: 3,
        ..Settings::default()
    }
}

/// Tokens numbered from 1, as 32 hex digits like the directory's.
fn mint() -> MintToken {
    let mut n = 0u128;
    MintToken(Box::new(move || {
        n += 1;
        ResumeToken::from(format!("{n:032x}"))
    }))
}

fn room_seeded(settings: Settings, seed: u64) -> Room {
    Room::new(
        "ABCDE".try_into().unwrap(),
        settings,
        RoomOpts {
            countdown: Duration::from_millis(100),
            resume_grace: Duration::from_secs(5),
            max_spectators: 2,
            chat_rate: 5,
            chat_burst: 10,
            kick_bar: Duration::from_secs(600),
            fair_play: true,
            lag_cap_ms: 500,
            spectator_delay: Duration::from_secs(30),
            shutdown_reason: protocol::ClosedReason::Shutdown,
        },
        Xoshiro256PlusPlus::seed_from_u64(seed),
        mint(),
    )
}

fn room(settings: Settings) -> Room {
    room_seeded(settings, 1)
}

/// Messages sent to `conn` in these effects.
fn to(fx: &[Effect], conn: u64) -> Vec<ServerMsg> {
    let conn = ConnId(conn);
    fx.iter()
        .filter_map(|f| match f {
            Effect::Send(c, m) if c.contains(&conn) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

#[track_caller]
fn check_error(fx: &[Effect], conn: u64, expected: ErrorCode) {
    let msgs = to(fx, conn);
    assert!(
        matches!(msgs.as_slice(), [ServerMsg::Error { code, .. }] if *code == expected),
        "expected {expected:?}, got {msgs:?}"
    );
}

/// Room with players on conns 1..=n (1 is host), in a race that has started at `t0`.
pub(crate) fn racing(n: u64, settings: Settings, t0: Instant) -> Room {
    let mut r = room(settings);
    let before = t0 - Duration::from_millis(100);
    for c in 1..=n {
        assert!(join(
            &mut r,
            c,
            Some(&format!("p{c}")),
            Role::Player,
            before
        ));
    }
    r.start_race(ConnId(1), before);
    let fx = r.take_effects();
    let race_id = needed_race(&fx);
    r.puzzle_ready(&race_id, dealt(), before, 0);
    assert_eq!(r.phase(), Phase::Countdown);
    r.tick(t0, 0);
    assert_eq!(r.phase(), Phase::Racing);
    r.take_effects();
    r
}

/// The race the room asked a puzzle for in `fx`.
fn needed_race(fx: &[Effect]) -> protocol::RaceId {
    fx.iter()
        .find_map(|f| match f {
            Effect::NeedPuzzle { race_id, .. } => Some(race_id.clone()),
            _ => None,
        })
        .unwrap()
}

pub(crate) fn cell(i: u8) -> Cell {
    Cell::new(i).unwrap()
}

fn digit(d: u8) -> Digit {
    Digit::new(d).unwrap()
}

pub(crate) fn solution_digit(i: u8) -> Digit {
    digit(SOLUTION.as_bytes()[usize::from(i)] - b'0')
}

/// `room.join` from conn `c` on the local address, anonymous and human.
fn join(room: &mut Room, c: u64, name: Option<&str>, role: Role, t: Instant) -> bool {
    room.join(ConnId(c), LOCAL, name, role, Identity::default(), t)
}

pub(crate) fn empty_cells() -> Vec<u8> {
    (0..81u8)
        .filter(|&i| PUZZLE.as_bytes()[usize::from(i)] == b'.')
        .collect()
}

#[test]
fn lobby_join_rules() {
    let t = Instant::now();
    let mut r = room(settings());
    assert!(join(&mut r, 1, Some("ann"), Role::Player, t));
    let fx = r.take_effects();
    assert!(
        matches!(&to(&fx, 1)[0], ServerMsg::RoomJoined { host, you, .. } if host.as_ref().is_some_and(|h| h == "p1") && you.token.as_ref().is_some_and(|t| t.len() == 32))
    );
    assert!(!join(&mut r, 2, Some("ANN"), Role::Player, t));
    check_error(&r.take_effects(), 2, ErrorCode::NameTaken);
    assert!(
        join(&mut r, 2, Some("\tbob "), Role::Player, t),
        "names are trimmed"
    );
    r.take_effects();
    assert!(!join(&mut r, 3, Some("b\u{0}b"), Role::Player, t));
    check_error(&r.take_effects(), 3, ErrorCode::InvalidName);
    assert!(join(&mut r, 4, Some("cy"), Role::Player, t));
    let fx = r.take_effects();
    assert!(matches!(&to(&fx, 1)[0], ServerMsg::PlayerJoined { player } if player.name == "cy"));
    assert!(!join(&mut r, 5, Some("dee"), Role::Player, t));
    check_error(&r.take_effects(), 5, ErrorCode::RoomFull);
    assert!(join(&mut r, 6, None, Role::Spectator, t));
    let fx = r.take_effects();
    assert!(
        matches!(&to(&fx, 6)[0], ServerMsg::RoomJoined { you, .. } if you.player_id.is_none() && you.role == Role::Spectator)
    );
    r.set_ready(ConnId(6), true);
    check_error(&r.take_effects(), 6, ErrorCode::NotPlayer);
    r.start_race(ConnId(2), t);
    check_error(&r.take_effects(), 2, ErrorCode::NotHost);
    r.place(ConnId(1), cell(0), digit(4), None, t);
    check_error(&r.take_effects(), 1, ErrorCode::WrongPhase);
}

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

#[test]
fn held_seat_resume_and_expiry() {
    let t0 = Instant::now();
    let mut r = racing(2, settings(), t0);
    let token = |r: &mut Room, c: u64| r.seats.seat_of_conn(ConnId(c)).unwrap().token.clone();
    let tok1 = token(&mut r, 1);
    r.place(ConnId(1), cell(0), digit(4), None, t0);
    r.dropped(ConnId(1), t0);
    let fx = r.take_effects();
    assert!(
        matches!(&to(&fx, 2).last().unwrap(), ServerMsg::PlayerUpdated { player } if !player.connected)
    );
    // Resume within the grace period: same board, mistakes and clock.
    let t1 = t0 + Duration::from_secs(4);
    assert!(r.resume(ConnId(7), &tok1, t1));
    let fx = r.take_effects();
    match &to(&fx, 7)[0] {
        ServerMsg::RoomJoined {
            race: Some(view), ..
        } => {
            assert_eq!(view.elapsed_ms, 4000);
            assert_eq!(view.board.unwrap().to_line().as_bytes()[0], b'4');
        }
        m => panic!("{m:?}"),
    }
    // A second resume moves the seat and closes the old connection with 1000.
    assert!(r.resume(ConnId(8), &tok1, t1));
    let fx = r.take_effects();
    assert!(fx
        .iter()
        .any(|f| matches!(f, Effect::Close(ConnId(7), CloseCode::Normal))));
    assert!(!r.resume(ConnId(9), "00000000000000000000000000000000", t1));
    check_error(&r.take_effects(), 9, ErrorCode::InvalidToken);
    // The host (p1, conn 8) drops and its seat expires: forfeited, p2 becomes host.
    r.dropped(ConnId(8), t1);
    r.take_effects();
    assert_eq!(
        r.next_deadline_but_probes(),
        Some(t1 + Duration::from_secs(5))
    );
    r.tick(t1 + Duration::from_secs(5), 0);
    let fx = r.take_effects();
    let msgs = to(&fx, 2);
    assert!(msgs.iter().any(|m| matches!(m, ServerMsg::PlayerFinished { player_id, status: FinishStatus::Forfeited, .. } if player_id == "p1")));
    assert!(msgs
        .iter()
        .any(|m| matches!(m, ServerMsg::PlayerLeft { player_id } if player_id == "p1")));
    assert!(msgs
        .iter()
        .any(|m| matches!(m, ServerMsg::HostChanged { player_id } if player_id == "p2")));
    assert!(fx
        .iter()
        .any(|f| matches!(f, Effect::TokenRevoked(t) if *t == tok1)));
    assert_eq!(r.phase(), Phase::Racing);
}

#[test]
fn last_leaver_ends_race_and_closes_room() {
    let t0 = Instant::now();
    let mut r = racing(1, settings(), t0);
    assert!(join(&mut r, 5, Some("watcher"), Role::Spectator, t0));
    r.take_effects();
    r.chat(ConnId(5), "hi".into(), t0);
    let fx = r.take_effects();
    assert!(
        matches!(&to(&fx, 1)[0], ServerMsg::Chat { player_id: None, name, .. } if name == "watcher")
    );
    assert!(!join(&mut r, 6, Some("late"), Role::Player, t0));
    check_error(&r.take_effects(), 6, ErrorCode::RaceInProgress);
    assert!(r.leave(ConnId(1), t0));
    let fx = r.take_effects();
    let spec = to(&fx, 5);
    let kinds: Vec<&str> = spec
        .iter()
        .map(|m| match m {
            ServerMsg::PlayerFinished { .. } => "finished",
            ServerMsg::PlayerLeft { .. } => "left",
            ServerMsg::RaceOver { .. } => "over",
            ServerMsg::RoomClosed { .. } => "closed",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["finished", "left", "over", "closed"]);
    assert!(r.is_empty());
}

#[test]
fn rematch_from_finished() {
    let t0 = Instant::now();
    let mut r = racing(1, settings(), t0);
    r.forfeit(ConnId(1), t0);
    r.take_effects();
    assert_eq!(r.phase(), Phase::Finished);
    assert!(join(&mut r, 2, Some("bo"), Role::Player, t0));
    r.take_effects();
    r.start_race(ConnId(1), t0);
    let fx = r.take_effects();
    assert!(matches!(
        &to(&fx, 2)[0],
        ServerMsg::Countdown { starts_in_ms: 100 }
    ));
    assert_eq!(r.phase(), Phase::Countdown);
    // No puzzle yet: the countdown waits for it.
    r.tick(t0 + Duration::from_secs(1), 0);
    assert_eq!(r.phase(), Phase::Countdown);
}

#[track_caller]
fn check_ranks(rows: &[(&str, FinishStatus, Option<u64>, u32, u32)], expected: &[(&str, u32)]) {
    let rows: Vec<_> = rows
        .iter()
        .map(|r| Standing {
            rank: 0,
            player_id: r.0.to_owned().into(),
            name: r.0.to_owned().try_into().unwrap(),
            status: r.1,
            time_ms: r.2,
            filled: r.3,
            mistakes: r.4,
            time_ms_raw: None,
            lag_ms: 0,
            puzzle: None,
            solution: None,
        })
        .collect();
    let got: Vec<(String, u32)> = standings(rows)
        .into_iter()
        .map(|s| (s.player_id.to_string(), s.rank))
        .collect();
    let expected: Vec<(String, u32)> = expected.iter().map(|e| (e.0.to_owned(), e.1)).collect();
    assert_eq!(got, expected);
}

#[test]
fn standings_rank_and_share_ties() {
    use FinishStatus::*;
    check_ranks(
        &[
            ("d", Forfeited, None, 10, 1),
            ("a", Solved, Some(5000), 50, 0),
            ("c", TimedOut, None, 10, 1),
            ("b", Solved, Some(6000), 50, 3),
            ("e", Eliminated, None, 20, 3),
        ],
        &[("a", 1), ("b", 2), ("e", 3), ("d", 4), ("c", 4)],
    );
    check_ranks(
        &[
            ("a", Solved, Some(1), 1, 0),
            ("b", Solved, Some(1), 1, 0),
            ("c", TimedOut, None, 0, 0),
        ],
        &[("a", 1), ("b", 1), ("c", 3)],
    );
    // The contract's example: 1, 2, 2, 4 (ties among the unsolved share a rank too).
    check_ranks(
        &[
            ("d", TimedOut, None, 30, 0),
            ("b", Solved, Some(9000), 50, 1),
            ("a", Solved, Some(4000), 50, 0),
            ("c", Solved, Some(9000), 50, 2),
        ],
        &[("a", 1), ("b", 2), ("c", 2), ("d", 4)],
    );
    check_ranks(
        &[
            ("a", Solved, Some(4000), 50, 0),
            ("b", Forfeited, None, 30, 2),
            ("c", Eliminated, None, 30, 2),
            ("d", TimedOut, None, 30, 3),
        ],
        &[("a", 1), ("b", 2), ("c", 2), ("d", 4)],
    );
}

/// The race id and the seed the deal comes from, as a new race in `r` asks for them.
fn race_seed(r: &mut Room, t: Instant) -> (String, u64) {
    r.start_race(ConnId(1), t);
    r.take_effects()
        .into_iter()
        .find_map(|f| match f {
            Effect::NeedPuzzle { race_id, seed } => Some((race_id.to_string(), seed)),
            _ => None,
        })
        .unwrap()
}

#[test]
fn the_room_seed_decides_race_ids_and_deals() {
    let t = Instant::now();
    let seeded = |seed| {
        let mut r = room_seeded(settings(), seed);
        assert!(join(&mut r, 1, Some("ann"), Role::Player, t));
        race_seed(&mut r, t)
    };
    let (a, b) = (seeded(7), seeded(7));
    assert_eq!(a, b, "same room seed, same race id and race seed");
    assert_eq!(dealt().transformed(a.1), dealt().transformed(b.1));
    let c = seeded(8);
    assert_ne!(a, c);
    assert_ne!(dealt().transformed(a.1), dealt().transformed(c.1));
}

#[test]
fn end_reasons_as_stored_and_announced() {
    use super::race::EndReason;
    let names = [
        EndReason::AllDone,
        EndReason::TimeLimit,
        EndReason::Shutdown,
    ]
    .map(EndReason::as_str);
    assert_eq!(names, ["all_done", "time_limit", "shutdown"]);
    assert_eq!(
        EndReason::TimeLimit.announced(),
        Some(OverReason::TimeLimit)
    );
    assert_eq!(EndReason::Shutdown.announced(), None);
}

#[test]
fn names_by_a3_spectators_never_pass_for_players() {
    let t = Instant::now();
    let mut r = room(settings());
    assert!(join(&mut r, 1, Some("host"), Role::Player, t));
    r.take_effects();
    // A case variant, a Cyrillic `о`, or NFC-equal spelling of a player's name is that name,
    // for a player and for a spectator alike.
    for (c, name) in [(2, "HOST"), (3, "h\u{043e}st"), (4, " Host ")] {
        for role in [Role::Player, Role::Spectator] {
            assert!(
                !r.join(ConnId(c), LOCAL, Some(name), role, Identity::default(), t),
                "{name:?}"
            );
            check_error(&r.take_effects(), c, ErrorCode::NameTaken);
        }
    }
    // Bidi controls, zero-width characters, the soft hyphen and the BOM are refused.
    for (c, name) in [
        (5, "\u{202E}tsoh"),
        (6, "ho\u{2066}st"),
        (7, "ho\u{200B}st"),
        (8, "ho\u{00AD}st"),
        (9, "\u{FEFF}host"),
        (10, "\u{0301}"),
    ] {
        for role in [Role::Player, Role::Spectator] {
            assert!(
                !r.join(ConnId(c), LOCAL, Some(name), role, Identity::default(), t),
                "{name:?}"
            );
            check_error(&r.take_effects(), c, ErrorCode::InvalidName);
        }
    }
    // Spectators share names with each other (the default one too); a player may then take a
    // spectator's name: seats have priority, and chat tells them apart by `player_id`.
    assert!(join(&mut r, 11, None, Role::Spectator, t));
    assert!(join(&mut r, 12, Some("Spectator"), Role::Spectator, t));
    r.take_effects();
    assert!(join(&mut r, 13, Some("spectator"), Role::Player, t));
    r.take_effects();
    r.chat(ConnId(11), "hi".into(), t);
    let fx = r.take_effects();
    assert!(matches!(
        &to(&fx, 13)[..],
        [ServerMsg::Chat { player_id: None, name, .. }] if name == "spectator"
    ));
}

#[test]
fn spectators_are_capped() {
    let t = Instant::now();
    let mut r = room(settings());
    assert!(join(&mut r, 1, Some("ann"), Role::Player, t));
    assert!(join(&mut r, 2, None, Role::Spectator, t));
    assert!(join(&mut r, 3, None, Role::Spectator, t));
    r.take_effects();
    assert!(!join(&mut r, 4, None, Role::Spectator, t));
    check_error(&r.take_effects(), 4, ErrorCode::RoomFull);
    // A place frees up when one leaves; players do not count.
    assert!(r.leave(ConnId(2), t));
    assert!(join(&mut r, 4, None, Role::Spectator, t));
    assert!(join(&mut r, 5, Some("bob"), Role::Player, t));
}

#[test]
fn chat_is_checked_and_budgeted_per_room() {
    let t0 = Instant::now();
    let mut r = room(settings());
    assert!(join(&mut r, 1, Some("ann"), Role::Player, t0));
    assert!(join(&mut r, 2, None, Role::Spectator, t0));
    assert!(join(&mut r, 3, None, Role::Spectator, t0));
    r.take_effects();
    for bad in ["", "\u{1b}[2J", "a\u{202E}b", "x\u{2066}", &"é".repeat(201)] {
        r.chat(ConnId(2), bad.into(), t0);
        check_error(&r.take_effects(), 2, ErrorCode::BadMessage);
    }
    // Bursts of 10 over all senders, then 5 per second; the refused sender alone hears of it.
    let mut passed = 0;
    for i in 0..30u64 {
        let c = 1 + i % 3;
        r.chat(ConnId(c), format!("m{i}"), t0);
        let fx = r.take_effects();
        match &to(&fx, c)[..] {
            [ServerMsg::Chat { .. }] => passed += 1,
            [ServerMsg::Error {
                code: ErrorCode::RateLimited,
                ..
            }] => assert!(to(&fx, 1 + (c % 3)).is_empty(), "nothing is broadcast"),
            m => panic!("{m:?}"),
        }
    }
    assert_eq!(passed, 10);
    let t1 = t0 + Duration::from_secs(1);
    let passed = (0..30)
        .filter(|_| {
            r.chat(ConnId(2), "again".into(), t1);
            matches!(&to(&r.take_effects(), 1)[..], [ServerMsg::Chat { .. }])
        })
        .count();
    assert_eq!(passed, 5);
}

/// Room in the lobby with players on conns 1..=n (1 is host, named `p1`..) and a spectator on 9.
fn lobby(n: u64, settings: Settings, t: Instant) -> Room {
    let mut r = room(settings);
    for c in 1..=n {
        assert!(join(&mut r, c, Some(&format!("p{c}")), Role::Player, t));
    }
    assert!(join(&mut r, 9, None, Role::Spectator, t));
    r.take_effects();
    r
}

#[test]
fn the_host_sets_the_next_races_settings_between_races() {
    let t = Instant::now();
    let mut r = lobby(2, settings(), t);
    let new = Settings {
        difficulty: shared::engine::Difficulty::Hard,
        max_players: 2,
        public: false,
        ..settings()
    };
    r.set_settings(ConnId(2), new.clone());
    check_error(&r.take_effects(), 2, ErrorCode::NotHost);
    r.set_settings(ConnId(9), new.clone());
    check_error(&r.take_effects(), 9, ErrorCode::NotPlayer);
    let too_few = Settings {
        max_players: 1,
        ..new.clone()
    };
    r.set_settings(ConnId(1), too_few);
    check_error(&r.take_effects(), 1, ErrorCode::InvalidSettings);
    assert_eq!(r.settings(), &settings());
    r.set_settings(ConnId(1), new.clone());
    let fx = r.take_effects();
    for c in [1, 2, 9] {
        assert_eq!(
            to(&fx, c),
            [ServerMsg::SettingsChanged {
                settings: new.clone()
            }]
        );
    }
    assert_eq!(r.settings(), &new);
    // Mid-race: wrong_phase; after it, allowed again.
    let t0 = t + Duration::from_secs(1);
    let mut r = racing(2, settings(), t0);
    r.set_settings(ConnId(1), new.clone());
    check_error(&r.take_effects(), 1, ErrorCode::WrongPhase);
    r.forfeit(ConnId(1), t0);
    r.forfeit(ConnId(2), t0);
    assert_eq!(r.phase(), Phase::Finished);
    r.take_effects();
    r.set_settings(ConnId(1), new.clone());
    assert!(matches!(
        &to(&r.take_effects(), 2)[..],
        [ServerMsg::SettingsChanged { .. }]
    ));
}

#[test]
fn a_kicked_player_leaves_and_is_barred_by_name_and_address() {
    let t = Instant::now();
    let four = Settings {
        max_players: 4,
        ..settings()
    };
    let mut r = lobby(3, four, t);
    r.kick(ConnId(2), "p1", t);
    check_error(&r.take_effects(), 2, ErrorCode::NotHost);
    r.kick(ConnId(1), "p7", t);
    check_error(&r.take_effects(), 1, ErrorCode::BadMessage);
    r.kick(ConnId(1), "p1", t);
    check_error(&r.take_effects(), 1, ErrorCode::BadMessage);
    r.kick(ConnId(1), "p2", t);
    let fx = r.take_effects();
    check_error(&fx, 2, ErrorCode::Kicked);
    assert!(fx.iter().any(|f| matches!(f, Effect::Detach(ConnId(2)))));
    assert!(fx.iter().any(|f| matches!(f, Effect::TokenRevoked(_))));
    for c in [1, 3, 9] {
        assert!(
            matches!(&to(&fx, c)[..], [ServerMsg::PlayerLeft { player_id }] if player_id.as_str() == "p2")
        );
    }
    assert!(!r.has_conn(ConnId(2)));
    assert_eq!(r.n_players(), 2);
    // Barred by name (by key) from anywhere, and anyone from that address; watching too.
    let elsewhere = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));
    assert!(!r.join(
        ConnId(4),
        elsewhere,
        Some("P2"),
        Role::Player,
        Identity::default(),
        t
    ));
    check_error(&r.take_effects(), 4, ErrorCode::Kicked);
    assert!(!join(&mut r, 4, Some("other"), Role::Player, t));
    check_error(&r.take_effects(), 4, ErrorCode::Kicked);
    assert!(!join(&mut r, 4, None, Role::Spectator, t));
    check_error(&r.take_effects(), 4, ErrorCode::Kicked);
    assert!(r.join(
        ConnId(4),
        elsewhere,
        Some("other"),
        Role::Player,
        Identity::default(),
        t
    ));
    r.take_effects();
    // After the bar, both may come back.
    let later = t + Duration::from_secs(600);
    assert!(join(&mut r, 5, Some("p2"), Role::Player, later));
    // Not during a race.
    let t0 = later + Duration::from_secs(1);
    let mut r = racing(2, settings(), t0);
    r.kick(ConnId(1), "p2", t0);
    check_error(&r.take_effects(), 1, ErrorCode::WrongPhase);
}

#[test]
fn a_held_seat_can_be_kicked() {
    let t = Instant::now();
    let mut r = lobby(2, settings(), t);
    r.dropped(ConnId(2), t);
    r.take_effects();
    r.kick(ConnId(1), "p2", t);
    let fx = r.take_effects();
    assert!(matches!(&to(&fx, 1)[..], [ServerMsg::PlayerLeft { .. }]));
    assert!(!fx.iter().any(|f| matches!(f, Effect::Detach(_))));
    assert_eq!(r.n_players(), 1);
}

#[test]
fn shutdown_tells_everyone_the_room_closed_then_closes_1001() {
    let t0 = Instant::now();
    let mut r = racing(2, settings(), t0);
    assert!(join(&mut r, 9, None, Role::Spectator, t0));
    r.take_effects();
    r.shutdown(t0);
    let fx = r.take_effects();
    for c in [1, 2, 9] {
        let conn = ConnId(c);
        let closed_at = fx.iter().position(
            |f| matches!(f, Effect::Send(to, ServerMsg::RoomClosed { .. }) if to.contains(&conn)),
        );
        let close_at = fx
            .iter()
            .position(|f| matches!(f, Effect::Close(x, CloseCode::GoingAway) if *x == conn));
        assert!(
            matches!((closed_at, close_at), (Some(a), Some(b)) if a < b),
            "{fx:?}"
        );
    }
    assert!(fx.iter().any(|f| matches!(f, Effect::Store(_))));
}

#[test]
fn a_pool_room_has_no_host_starts_when_the_pool_says_and_requeues_once_finished() {
    let t = Instant::now();
    let pool = Settings {
        pool: true,
        public: false,
        ..settings()
    };
    let mut r = room(pool);
    assert!(join(&mut r, 1, Some("ann"), Role::Player, t));
    assert!(join(&mut r, 2, Some("bob"), Role::Player, t));
    let fx = r.take_effects();
    assert!(
        matches!(&to(&fx, 1)[0], ServerMsg::RoomJoined { host: None, .. }),
        "{fx:?}"
    );
    // Nobody starts a pool room, and nobody requeues before its race is over.
    r.start_race(ConnId(1), t);
    check_error(&r.take_effects(), 1, ErrorCode::NotHost);
    assert!(r.requeue(ConnId(2), t).is_none());
    check_error(&r.take_effects(), 2, ErrorCode::WrongPhase);

    r.start_pool_race(t);
    assert_eq!(r.phase(), Phase::Countdown);
    let race_id = r
        .take_effects()
        .iter()
        .find_map(|f| match f {
            Effect::NeedPuzzle { race_id, .. } => Some(race_id.clone()),
            _ => None,
        })
        .expect("the pool's start asks for a puzzle");
    // Once started, the pool's seats are all there are; watching is open.
    assert!(!join(&mut r, 3, Some("cy"), Role::Player, t));
    check_error(&r.take_effects(), 3, ErrorCode::WrongPhase);
    assert!(join(&mut r, 4, None, Role::Spectator, t));

    r.puzzle_ready(&race_id, dealt(), t, 0);
    let t1 = t + Duration::from_millis(200);
    r.tick(t1, 0);
    assert_eq!(r.phase(), Phase::Racing);
    r.forfeit(ConnId(1), t1);
    r.forfeit(ConnId(2), t1);
    assert_eq!(r.phase(), Phase::Finished);
    r.take_effects();
    let left = r.requeue(ConnId(1), t1).expect("ann leaves for the pool");
    assert_eq!(
        (left.name.as_str(), left.difficulty),
        ("ann", settings().difficulty)
    );
    assert!(
        r.player_id_of(ConnId(1)).is_none(),
        "ann's seat is given up"
    );
}

mod boards;
mod drain;
mod ghost;
mod isomorphs;
mod lag;
mod late_join;
mod report;
mod resync;
