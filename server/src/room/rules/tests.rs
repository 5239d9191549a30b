//! State-machine tests: no sockets, time given explicitly.
// Tests pick their own instants.
#![allow(clippy::disallowed_methods)]

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use engine::validator::placement_conflicts;
use engine::{Cell, Digit, Grid};
use protocol::{
    ErrorCode, FinishStatus, MsgId, OverReason, Phase, PlaceReason, ResumeToken, Role, ServerMsg,
    Settings, Standing,
};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
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
    SolvedPuzzle::classic(Grid::parse(PUZZLE).unwrap(), Grid::parse(SOLUTION).unwrap())
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

mod boards;
mod chat;
mod drain;
mod ghost;
mod host;
mod isomorphs;
mod joins;
mod lag;
mod late_join;
mod leaving;
mod placement;
mod pool;
mod rematch;
mod report;
mod resync;
mod standings;
