//! The brain against scripted server messages, and the driver against a scripted server.

use super::pace::{Tier, LEVELS};
use super::*;
use crate::app::tests::{PUZZLE, SOLUTION};
use engine::{Cell, Digit, Grid};
use protocol::{
    ErrorCode, Phase, PlaceReason, Player, PlayerStatus, Role, ServerMsg, Settings, You,
};

fn joined(host: &str) -> ServerMsg {
    joined_with(host, Settings::default())
}

fn joined_with(host: &str, settings: Settings) -> ServerMsg {
    ServerMsg::RoomJoined {
        room: "K7QX".try_into().unwrap(),
        you: You {
            player_id: Some("b1".into()),
            token: Some("t".into()),
            role: Role::Player,
        },
        host: Some(host.into()),
        settings,
        phase: Phase::Lobby,
        players: vec![Player {
            player_id: "b1".into(),
            name: "bot".try_into().unwrap(),
            ready: false,
            connected: true,
            status: PlayerStatus::Waiting,
            bot: false,
            handle: None,
            ghost: false,
        }],
        race: None,
    }
}

fn started() -> ServerMsg {
    ServerMsg::RaceStarted {
        race_id: "r1".into(),
        puzzle: PUZZLE.parse().unwrap(),
        difficulty: engine::Difficulty::Easy,
        time_limit_s: 1800,
        rated: false,
        layout: Default::default(),
        variant: Default::default(),
    }
}

/// Answer `msg` as the server would for a board with `SOLUTION` as its solution.
fn answer(board: &mut Grid, msg: &ClientMsg) -> ServerMsg {
    answer_for(&Grid::parse(SOLUTION).expect("grid"), board, &mut 0, msg)
}

/// Answer `msg` as the server would for a board with `solution` as its solution, counting
/// refused digits in `mistakes`.
fn answer_for(solution: &Grid, board: &mut Grid, mistakes: &mut u32, msg: &ClientMsg) -> ServerMsg {
    let ClientMsg::Place { cell, digit, id } = msg else {
        panic!("expected a place, got {msg:?}");
    };
    let c = Cell::try_from(*cell).expect("cell");
    let d = Digit::try_from(*digit).expect("digit");
    let ok = solution.get(c) == Some(d);
    if ok {
        board.set(c, Some(d));
    } else {
        *mistakes += 1;
    }
    ServerMsg::Placement {
        id: id.clone(),
        cell: c,
        digit: d,
        accepted: ok,
        reason: (!ok).then_some(PlaceReason::Wrong),
        conflicts: vec![],
        mistakes: *mistakes,
        penalty_ms: 0,
    }
}

#[track_caller]
fn check_solves(mistake_rate: f64, seed: u64) -> BotReport {
    let config = BotConfig {
        style: Style::flat(Duration::from_millis(800), mistake_rate),
        seed,
        ..BotConfig::default()
    };
    let mut brain = Brain::new(config, None);
    brain.on_msg(&joined("h"));
    brain.on_msg(&started());
    assert!(brain.take_wake().is_some());
    let mut board = Grid::parse(PUZZLE).expect("grid");
    let mut steps = 0;
    while let Some(m) = brain.next_move() {
        assert_eq!(brain.next_move(), None, "one placement in flight at a time");
        let reply = answer(&mut board, &m);
        brain.on_msg(&reply);
        steps += 1;
        assert!(steps < 1000, "the bot does not converge");
    }
    assert_eq!(board.to_line(), SOLUTION);
    brain.report
}

#[test]
fn a_careful_bot_fills_every_cell_once() {
    let r = check_solves(0.0, 7);
    assert_eq!((r.placements, r.mistakes), (51, 0));
}

#[test]
fn a_sloppy_bot_makes_mistakes_and_still_solves() {
    let r = check_solves(0.3, 9);
    assert!(r.mistakes > 0);
    assert_eq!(r.placements, 51 + r.mistakes);
}

fn over(status: protocol::FinishStatus) -> ServerMsg {
    ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: protocol::OverReason::AllDone,
        standings: vec![protocol::Standing {
            rank: 1,
            player_id: "b1".into(),
            name: "bot".try_into().unwrap(),
            status,
            time_ms: None,
            filled: 0,
            mistakes: 1,
            time_ms_raw: None,
            lag_ms: 0,
            puzzle: None,
            solution: None,
            layout: Default::default(),
        }],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }
}

/// A1: no `solution` arrives when the bot is out; it stops placing and waits for `race_over`.
#[test]
fn an_eliminated_bot_stops_and_waits_for_race_over_without_a_solution() {
    let config = BotConfig {
        style: Style::flat(Duration::from_millis(800), 1.0),
        ..BotConfig::default()
    };
    let mut brain = Brain::new(config, None);
    brain.on_msg(&joined("h"));
    brain.on_msg(&started());
    let mut board = Grid::parse(PUZZLE).expect("grid");
    let wrong = brain.next_move().expect("a placement");
    brain.on_msg(&answer(&mut board, &wrong));
    brain.on_msg(&ServerMsg::PlayerFinished {
        player_id: "b1".into(),
        status: protocol::FinishStatus::Eliminated,
        time_ms: None,
    });
    assert_eq!(brain.next_move(), None, "nothing to send once out");
    assert!(!brain.done());
    brain.on_msg(&over(protocol::FinishStatus::Eliminated));
    assert_eq!(brain.next_move(), None);
    assert!(brain.done());
    assert_eq!(
        brain.report.races[0].status,
        Some(protocol::FinishStatus::Eliminated)
    );
}

#[test]
fn a_bot_that_forfeits_sends_nothing_more_until_race_over() {
    let mut brain = Brain::new(BotConfig::default(), None);
    brain.on_msg(&joined("h"));
    // A puzzle with many solutions: the bot gives up on it.
    brain.on_msg(&ServerMsg::RaceStarted {
        race_id: "r1".into(),
        puzzle: ".".repeat(81).parse().unwrap(),
        difficulty: engine::Difficulty::Easy,
        time_limit_s: 1800,
        rated: false,
        layout: Default::default(),
        variant: Default::default(),
    });
    assert_eq!(brain.next_move(), Some(ClientMsg::Forfeit));
    brain.on_msg(&ServerMsg::PlayerFinished {
        player_id: "b1".into(),
        status: protocol::FinishStatus::Forfeited,
        time_ms: None,
    });
    assert_eq!(brain.next_move(), None);
    brain.on_msg(&over(protocol::FinishStatus::Forfeited));
    assert!(brain.done());
    assert_eq!(brain.next_move(), None);
}

#[test]
fn rate_limited_placements_are_resent() {
    let mut brain = Brain::new(BotConfig::default(), None);
    brain.on_msg(&joined("h"));
    brain.on_msg(&started());
    let first = brain.next_move().expect("a placement");
    brain.on_msg(&ServerMsg::Error {
        code: ErrorCode::RateLimited,
        message: "slow down".into(),
        retry_ms: None,
    });
    assert_eq!(brain.take_wake(), Some(RATE_LIMIT_PAUSE));
    let again = brain.next_move().expect("the placement again");
    assert_eq!(again, first);
    assert_eq!(brain.report.rate_limited, 1);
    let mut board = Grid::parse(PUZZLE).expect("grid");
    brain.on_msg(&answer(&mut board, &again));
    assert_eq!(brain.report.placements, 1, "counted once");
}

#[test]
fn a_host_bot_starts_when_enough_players_are_seated() {
    let mut brain = Brain::new(BotConfig::default(), Some(2));
    brain.on_msg(&joined("b1"));
    assert_eq!(brain.next_move(), None);
    brain.on_msg(&ServerMsg::PlayerJoined {
        player: Player {
            player_id: "b2".into(),
            name: "other".try_into().unwrap(),
            ready: false,
            connected: true,
            status: PlayerStatus::Waiting,
            bot: false,
            handle: None,
            ghost: false,
        },
    });
    assert_eq!(brain.take_wake(), Some(Duration::ZERO));
    assert_eq!(brain.next_move(), Some(ClientMsg::StartRace));
    assert_eq!(brain.next_move(), None);
    brain.on_msg(&ServerMsg::Countdown { starts_in_ms: 100 });
    brain.on_msg(&started());
    // Out of the race early, the host does not start another while others still race.
    brain.on_msg(&ServerMsg::PlayerFinished {
        player_id: "b1".into(),
        status: FinishStatus::Forfeited,
        time_ms: None,
    });
    brain.on_msg(&ServerMsg::PlayerJoined {
        player: Player {
            player_id: "b3".into(),
            name: "late".try_into().unwrap(),
            ready: false,
            connected: true,
            status: PlayerStatus::Waiting,
            bot: false,
            handle: None,
            ghost: false,
        },
    });
    assert_eq!(brain.next_move(), None);
}

#[tokio::test]
async fn run_races_against_a_scripted_server_then_leaves() {
    use crate::net::tests::{accept, fake_server, recv_client};
    use futures::SinkExt;
    use tokio_tungstenite::tungstenite::Message;

    let (url, listener) = fake_server().await;
    let config = BotConfig {
        style: Style::flat(Duration::from_millis(1), 0.2),
        seed: 3,
        ..BotConfig::default()
    };
    let bot = tokio::spawn(async move {
        run(
            &url,
            config,
            BotRole::Join {
                room: "K7QX".into(),
            },
            std::future::pending(),
        )
        .await
    });
    let mut ws = accept(&listener).await;
    async fn say(
        ws: &mut tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>,
        m: &ServerMsg,
    ) {
        ws.send(Message::text(serde_json::to_string(m).expect("json")))
            .await
            .expect("send");
    }
    assert!(matches!(
        recv_client(&mut ws).await,
        ClientMsg::JoinRoom { .. }
    ));
    say(&mut ws, &joined("h")).await;
    say(&mut ws, &started()).await;
    let mut board = Grid::parse(PUZZLE).expect("grid");
    let mut limited_once = false;
    while board.to_line() != SOLUTION {
        let m = recv_client(&mut ws).await;
        if !limited_once {
            // The first placement is refused for the rate: the bot must send it again.
            limited_once = true;
            say(
                &mut ws,
                &ServerMsg::Error {
                    code: ErrorCode::RateLimited,
                    message: "slow down".into(),
                    retry_ms: None,
                },
            )
            .await;
            assert_eq!(recv_client(&mut ws).await, m);
        }
        let reply = answer(&mut board, &m);
        say(&mut ws, &reply).await;
    }
    say(
        &mut ws,
        &ServerMsg::PlayerFinished {
            player_id: "b1".into(),
            status: FinishStatus::Solved,
            time_ms: Some(1234),
        },
    )
    .await;
    let standing = Standing {
        rank: 1,
        player_id: "b1".into(),
        name: "bot".try_into().unwrap(),
        status: FinishStatus::Solved,
        time_ms: Some(1234),
        filled: 51,
        mistakes: 0,
        time_ms_raw: None,
        lag_ms: 0,
        puzzle: None,
        solution: None,
        layout: Default::default(),
    };
    say(
        &mut ws,
        &ServerMsg::RaceOver {
            race_id: "r1".into(),
            reason: protocol::OverReason::AllDone,
            standings: vec![standing],
            solution: SOLUTION.parse().unwrap(),
            ratings: Vec::new(),
        },
    )
    .await;
    assert_eq!(recv_client(&mut ws).await, ClientMsg::Leave);
    drop(ws);
    let report = tokio::time::timeout(Duration::from_secs(5), bot)
        .await
        .expect("bot ends")
        .expect("task")
        .expect("ok");
    assert_eq!(report.rate_limited, 1);
    assert_eq!(report.races.len(), 1);
    assert_eq!(report.races[0].status, Some(FinishStatus::Solved));
    assert_eq!(report.races[0].time_ms, Some(1234));
    assert_eq!(report.placements, 51 + report.mistakes);
}

#[test]
fn entry_refusals_are_fatal() {
    let mut brain = Brain::new(BotConfig::default(), None);
    brain.on_msg(&ServerMsg::Error {
        code: ErrorCode::UnknownRoom,
        message: "no such room".into(),
        retry_ms: None,
    });
    assert!(matches!(
        brain.take_error(),
        Some(BotError::Refused {
            code: "unknown_room",
            ..
        })
    ));
}

// The pacing model, measured without a clock: a race's time is the sum of the brain's waits.

/// What one simulated race took: the sum of the waits, placements sent, digits refused.
#[derive(Debug)]
struct Sim {
    wait: Duration,
    placements: u32,
    mistakes: u32,
}

/// Race `style` (seeded by `seed`) over `puzzle` against a scripted server, in a room with
/// `max_mistakes`.
fn simulate(style: Style, seed: u64, puzzle: &Grid, solution: &Grid, max_mistakes: u8) -> Sim {
    let config = BotConfig {
        style,
        seed,
        ..BotConfig::default()
    };
    let mut brain = Brain::new(config, None);
    let settings = Settings {
        max_mistakes,
        ..Settings::default()
    };
    brain.on_msg(&joined_with("h", settings));
    brain.on_msg(&ServerMsg::RaceStarted {
        race_id: "r1".into(),
        puzzle: *puzzle,
        difficulty: engine::Difficulty::Medium,
        time_limit_s: 1800,
        rated: false,
        layout: Default::default(),
        variant: Default::default(),
    });
    let (mut board, mut mistakes) = (*puzzle, 0);
    let mut wait = Duration::ZERO;
    while let Some(d) = brain.take_wake() {
        wait += d;
        let Some(m) = brain.next_move() else { break };
        brain.on_msg(&answer_for(solution, &mut board, &mut mistakes, &m));
    }
    assert_eq!(board, *solution, "the bot solves the puzzle");
    Sim {
        wait,
        placements: brain.report.placements,
        mistakes: brain.report.mistakes,
    }
}

/// Medium puzzles from the generator, seeded.
fn medium_puzzles(n: u64) -> Vec<(Grid, Grid)> {
    use rand::SeedableRng;
    (0..n)
        .map(|i| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(1000 + i);
            let g = engine::generator::generate(&mut rng, engine::Difficulty::Medium, true);
            (g.puzzle, g.solution)
        })
        .collect()
}

/// The mean time of `level` over `puzzles`, each raced with a few seeds.
fn mean_time(level: Level, puzzles: &[(Grid, Grid)]) -> Duration {
    let runs: Vec<Duration> = puzzles
        .iter()
        .enumerate()
        .flat_map(|(i, (p, s))| (0..3).map(move |k| (i as u64 * 10 + k, p, s)))
        .map(|(seed, p, s)| simulate(level.style(), seed, p, s, 3).wait)
        .collect();
    runs.iter().sum::<Duration>() / runs.len() as u32
}

#[test]
fn each_level_takes_its_time_on_medium() {
    let puzzles = medium_puzzles(12);
    let min = |m: u64| Duration::from_secs(m * 60);
    for (level, lo, hi) in [
        (Level::Beginner, min(10), min(16)),
        (Level::Casual, min(4), min(7)),
        // The old fixed pace (800 ms a cell) took about 0:42 on medium.
        (
            Level::Strong,
            Duration::from_secs(35),
            Duration::from_secs(50),
        ),
        (
            Level::Expert,
            Duration::from_secs(15),
            Duration::from_secs(30),
        ),
    ] {
        let t = mean_time(level, &puzzles);
        assert!(lo <= t && t <= hi, "{level:?}: {t:?} not in {lo:?}..{hi:?}");
    }
}

#[test]
fn levels_are_ordered_from_slow_and_sloppy_to_fast_and_sure() {
    use clap::ValueEnum;
    let rows: Vec<Level> = LEVELS.iter().map(|(l, _)| *l).collect();
    assert_eq!(rows, Level::value_variants(), "one row per level, in order");
    assert_eq!(Level::default(), Level::Casual);
    for pair in LEVELS.windows(2) {
        let ((slow, a), (fast, b)) = (pair[0], pair[1]);
        let faster = a.think_ms.iter().zip(&b.think_ms).all(|(x, y)| y < x);
        assert!(faster, "{fast:?} thinks faster than {slow:?} at every tier");
        assert!(b.pause_rate <= a.pause_rate && b.mistake_rate <= a.mistake_rate);
    }
    let puzzles = medium_puzzles(4);
    let times: Vec<Duration> = rows.iter().map(|&l| mean_time(l, &puzzles)).collect();
    assert!(times.windows(2).all(|t| t[1] < t[0]), "{times:?}");
}

#[test]
fn slips_come_at_the_configured_rate() {
    let puzzles = medium_puzzles(12);
    let (mut tries, mut slips) = (0, 0);
    for (seed, (p, s)) in puzzles.iter().enumerate() {
        // No limit on mistakes: every placement but a correction may slip.
        let sim = simulate(
            Style::flat(Duration::from_millis(1), 0.1),
            seed as u64,
            p,
            s,
            0,
        );
        tries += sim.placements - sim.mistakes;
        slips += sim.mistakes;
    }
    let rate = f64::from(slips) / f64::from(tries);
    assert!(
        (0.07..=0.13).contains(&rate),
        "{slips} slips in {tries} tries"
    );
    let casual: u32 = (0..12)
        .map(|seed| {
            let (p, s) = &puzzles[seed as usize];
            simulate(Level::Casual.style(), seed, p, s, 3).mistakes
        })
        .sum();
    // About one a race (2 % of some 54 placements): occasional, neither none nor many.
    assert!(
        (4..=24).contains(&casual),
        "{casual} slips in 12 casual races"
    );
}

#[test]
fn a_slip_is_corrected_at_once_and_never_costs_the_race() {
    let (puzzle, solution) = medium_puzzles(1).remove(0);
    let style = Style::flat(Duration::from_millis(1), 1.0);
    let mut brain = Brain::new(
        BotConfig {
            style,
            ..BotConfig::default()
        },
        None,
    );
    brain.on_msg(&joined("h"));
    brain.on_msg(&ServerMsg::RaceStarted {
        race_id: "r1".into(),
        puzzle,
        difficulty: engine::Difficulty::Medium,
        time_limit_s: 1800,
        rated: false,
        layout: Default::default(),
        variant: Default::default(),
    });
    let mut board = puzzle;
    let slip = brain.next_move().expect("a placement");
    let refused = answer_for(&solution, &mut board, &mut 0, &slip);
    assert!(matches!(
        refused,
        ServerMsg::Placement {
            accepted: false,
            ..
        }
    ));
    brain.on_msg(&refused);
    let fix = brain.next_move().expect("the correction");
    let (ClientMsg::Place { cell: a, .. }, ClientMsg::Place { cell: b, .. }) = (&slip, &fix) else {
        panic!("two placements: {slip:?}, {fix:?}");
    };
    assert_eq!(a, b, "the same cell again");
    assert!(matches!(
        answer_for(&solution, &mut board, &mut 1, &fix),
        ServerMsg::Placement { accepted: true, .. }
    ));
    // Always slipping, in a room that knocks a player out at 3: it stops at 2 and solves.
    let sim = simulate(style, 1, &puzzle, &solution, 3);
    assert_eq!(sim.mistakes, 2);
}

#[test]
fn the_plan_fills_every_empty_cell_once_singles_first() {
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let easy = Grid::parse(PUZZLE).expect("grid");
    let (medium, _) = medium_puzzles(1).remove(0);
    for board in [easy, medium] {
        let plan = pace::plan(&board, &mut rng);
        let mut cells: Vec<Cell> = plan.iter().map(|p| p.cell).collect();
        cells.sort();
        let empty: Vec<Cell> = Cell::all().filter(|&c| board.get(c).is_none()).collect();
        assert_eq!(cells, empty);
        assert!(plan
            .iter()
            .all(|p| p.looks.iter().any(|&n| n > 0) && !p.fix));
        assert_eq!(plan[0].looks[Tier::Medium as usize..], [0, 0, 0]);
    }
    let medium_looks: u32 = pace::plan(&medium, &mut rng)
        .iter()
        .map(|p| u32::from(p.looks[Tier::Medium as usize]))
        .sum();
    assert!(medium_looks > 0, "a medium puzzle takes a medium technique");
}

mod moving;
mod variants;
