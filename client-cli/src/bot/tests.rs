//! The brain against scripted server messages, and the driver against a scripted server.

use super::*;
use crate::app::tests::{PUZZLE, SOLUTION};
use protocol::{ErrorCode, PlaceReason, Role, ServerMsg};
use protocol::{Phase, Player, PlayerStatus, Settings, You};
use shared::engine::{Cell, Digit, Grid};

fn joined(host: &str) -> ServerMsg {
    ServerMsg::RoomJoined {
        room: "K7QX".try_into().unwrap(),
        you: You {
            player_id: Some("b1".into()),
            token: Some("t".into()),
            role: Role::Player,
        },
        host: Some(host.into()),
        settings: Settings::default(),
        phase: Phase::Lobby,
        players: vec![Player {
            player_id: "b1".into(),
            name: "bot".try_into().unwrap(),
            ready: false,
            connected: true,
            status: PlayerStatus::Waiting,
            bot: false,
            handle: None,
        }],
        race: None,
    }
}

fn started() -> ServerMsg {
    ServerMsg::RaceStarted {
        race_id: "r1".into(),
        puzzle: PUZZLE.parse().unwrap(),
        difficulty: shared::engine::Difficulty::Easy,
        time_limit_s: 1800,
        rated: false,
    }
}

/// Answer `msg` as the server would for a board with `SOLUTION` as its solution.
fn answer(board: &mut Grid, msg: &ClientMsg) -> ServerMsg {
    let ClientMsg::Place { cell, digit, id } = msg else {
        panic!("expected a place, got {msg:?}");
    };
    let solution = Grid::parse(SOLUTION).expect("grid");
    let c = Cell::try_from(*cell).expect("cell");
    let d = Digit::try_from(*digit).expect("digit");
    let ok = solution.get(c) == Some(d);
    if ok {
        board.set(c, Some(d));
    }
    ServerMsg::Placement {
        id: id.clone(),
        cell: c,
        digit: d,
        accepted: ok,
        reason: (!ok).then_some(PlaceReason::Wrong),
        conflicts: vec![],
        mistakes: 0,
        penalty_ms: 0,
    }
}

#[track_caller]
fn check_solves(mistake_rate: f64, seed: u64) -> BotReport {
    let config = BotConfig {
        mistake_rate,
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
        }],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }
}

/// A1: no `solution` arrives when the bot is out; it stops placing and waits for `race_over`.
#[test]
fn an_eliminated_bot_stops_and_waits_for_race_over_without_a_solution() {
    let config = BotConfig {
        mistake_rate: 1.0,
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
        difficulty: shared::engine::Difficulty::Easy,
        time_limit_s: 1800,
        rated: false,
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
    });
    assert_eq!(brain.take_wake(), Some(RATE_LIMIT_PAUSE));
    assert_eq!(brain.next_move(), Some(first));
    assert_eq!(brain.report.rate_limited, 1);
    assert_eq!(brain.report.placements, 1);
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
        pace: Duration::from_millis(1),
        mistake_rate: 0.2,
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
    });
    assert!(matches!(
        brain.take_error(),
        Some(BotError::Refused {
            code: "unknown_room",
            ..
        })
    ));
}
