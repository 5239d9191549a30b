//! The cost of a race's start with and without a different isomorph per seat (A8): a room of
//! 16 players and 4 spectators, from the puzzle's arrival to every `race_started` serialized
//! as the room task sends it (`cargo bench -p sudoku-race-server --bench race_start`).
//! With isomorphs the rules draw 16 transforms and apply each to the puzzle and solution, and
//! the task serializes 17 messages instead of 1 (docs/benchmarks.md). Then the same start
//! with isomorphs for each variant (A10): a seat's transform keeps the variant, a jigsaw's or
//! killer's layout is carried to each seat and serialized beside its puzzle.

// A bench picks its own instants.
#![allow(clippy::disallowed_methods)]

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::sync::Arc;

use engine::generator::variant::generate_in;
use engine::{Difficulty, Grid, Variant};
use protocol::variant::Draws;
use protocol::{ResumeToken, Role, Settings};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use server::outbox::{encode, ConnId};
use server::puzzles::SolvedPuzzle;
use server::room::handle::Identity;
use server::room::rules::{Effect, MintToken, Room, RoomOpts};
use tokio::time::Instant;

const PUZZLE: &str =
    "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..";
const SOLUTION: &str =
    "483921657967345821251876493548132976729564138136798245372689514814253769695417382";

/// A room of `variant` with 16 players and 4 spectators, counting down; the race the room
/// asked a puzzle for.
fn counting_down(variant: Variant, isomorphs: bool, t: Instant) -> (Room, protocol::RaceId) {
    let settings = Settings {
        max_players: 16,
        isomorphs,
        variant,
        ..Settings::default()
    };
    let opts = RoomOpts {
        countdown: Duration::from_millis(100),
        resume_grace: Duration::from_secs(5),
        max_spectators: 8,
        chat_rate: 5,
        chat_burst: 10,
        kick_bar: Duration::from_secs(600),
        fair_play: false,
        lag_cap_ms: 500,
        spectator_delay: Duration::from_secs(30),
        shutdown_reason: protocol::ClosedReason::Shutdown,
    };
    let mut n = 0u128;
    let mint = MintToken(Box::new(move || {
        n += 1;
        ResumeToken::from(format!("{n:032x}"))
    }));
    let code = "BENCH".try_into().expect("a code");
    let mut room = Room::new(
        code,
        settings,
        opts,
        Xoshiro256PlusPlus::seed_from_u64(1),
        mint,
    );
    let addr = IpAddr::V4(Ipv4Addr::LOCALHOST);
    for c in 1..=20u64 {
        let (name, role) = match c {
            1..=16 => (format!("p{c}"), Role::Player),
            _ => (format!("s{c}"), Role::Spectator),
        };
        let who = Identity {
            draws: Draws::all(),
            ..Identity::default()
        };
        room.join(ConnId(c), addr, Some(&name), role, who, t);
    }
    room.start_race(ConnId(1), t);
    let race_id = room
        .take_effects()
        .into_iter()
        .find_map(|f| match f {
            Effect::NeedPuzzle { race_id, .. } => Some(race_id),
            _ => None,
        })
        .expect("a puzzle asked for");
    (room, race_id)
}

/// A medium puzzle of `variant`, seeded.
fn variant_puzzle(variant: Variant) -> SolvedPuzzle {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(34);
    let g = generate_in(&mut rng, variant, Difficulty::Medium);
    SolvedPuzzle {
        puzzle: g.puzzle,
        solution: g.solution,
        geometry: Arc::new(g.geometry),
    }
}

fn race_start(c: &mut Criterion) {
    let classic = SolvedPuzzle::classic(
        Grid::parse(PUZZLE).expect("a puzzle"),
        Grid::parse(SOLUTION).expect("a solution"),
    );
    let mut cases = vec![
        (
            "shared".to_owned(),
            Variant::Classic,
            false,
            classic.clone(),
        ),
        ("isomorphs".to_owned(), Variant::Classic, true, classic),
    ];
    for v in [
        Variant::X,
        Variant::Windoku,
        Variant::Jigsaw,
        Variant::Killer,
    ] {
        cases.push((format!("isomorphs_{v}"), v, true, variant_puzzle(v)));
    }
    let mut group = c.benchmark_group("race_start_16_players");
    for (name, variant, isomorphs, dealt) in cases {
        group.bench_function(name, |b| {
            b.iter_batched(
                || {
                    let t = Instant::now();
                    (counting_down(variant, isomorphs, t), t)
                },
                |((mut room, race_id), t)| {
                    room.puzzle_ready(&race_id, dealt.clone(), t + Duration::from_secs(1), 0);
                    let mut bytes = 0;
                    for fx in room.take_effects() {
                        if let Effect::Send(_, msg) = fx {
                            bytes += encode(&msg).len();
                        }
                    }
                    bytes
                },
                BatchSize::SmallInput,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, race_start);
criterion_main!(benches);
