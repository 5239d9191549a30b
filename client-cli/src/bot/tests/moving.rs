//! A bot rides through its room moving to another server (A12): a placement answered
//! `room_moving` goes again, and after a drop the bot resumes (asked again while the room
//! moves) and races on from the board the new server shows.

use super::*;
use crate::net::tests::{accept, fake_server, recv_client};
use futures::SinkExt;
use protocol::RaceView;
use tokio_tungstenite::tungstenite::Message;

type Ws = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;

fn room_moving(retry_ms: Option<u64>) -> ServerMsg {
    ServerMsg::Error {
        code: ErrorCode::RoomMoving,
        message: "the race is moving to another server".into(),
        retry_ms,
    }
}

/// The room mid-race as its new server shows it: `board`, and no token (A12).
fn shown_again(board: &Grid) -> ServerMsg {
    let mut msg = joined("h");
    if let ServerMsg::RoomJoined {
        you, phase, race, ..
    } = &mut msg
    {
        you.token = None;
        *phase = Phase::Racing;
        *race = Some(RaceView {
            race_id: "r1".into(),
            puzzle: Some(PUZZLE.parse().unwrap()),
            difficulty: engine::Difficulty::Easy,
            time_limit_s: 1800,
            elapsed_ms: 9_000,
            board: Some(*board),
            mistakes: 0,
            progress: vec![],
            standings: None,
            reason: None,
            layout: Default::default(),
        });
    }
    msg
}

#[test]
fn a_placement_answered_room_moving_goes_again_backing_off_until_the_room_answers() {
    let mut brain = Brain::new(BotConfig::default(), None);
    brain.on_msg(&joined("h"));
    brain.on_msg(&started());
    let first = brain.next_move().expect("a placement");
    brain.on_msg(&room_moving(Some(400)));
    let wait = brain.take_wake().expect("a wake-up");
    assert!((400..=500).contains(&wait.as_millis()), "{wait:?}");
    assert_eq!(brain.next_move(), Some(first.clone()), "the same placement");
    brain.on_msg(&room_moving(None));
    let wait = brain.take_wake().expect("a wake-up");
    assert!(
        (500..=625).contains(&wait.as_millis()),
        "backing off: {wait:?}"
    );
    assert_eq!(brain.next_move(), Some(first));
    assert_eq!(brain.report.room_moving, 2);
    // The new server shows the room with ten more cells filled: the bot plays on from there.
    let solution = Grid::parse(SOLUTION).expect("grid");
    let puzzle = Grid::parse(PUZZLE).expect("grid");
    let mut board = puzzle;
    for cell in Cell::all().filter(|&c| puzzle.get(c).is_none()).take(10) {
        board.set(cell, solution.get(cell));
    }
    let shown = board;
    brain.on_msg(&shown_again(&board));
    while let Some(m) = brain.next_move() {
        if let ClientMsg::Place { cell, .. } = &m {
            let cell = Cell::try_from(*cell).expect("cell");
            assert_eq!(shown.get(cell), None, "{cell:?} was filled already");
        }
        let reply = answer(&mut board, &m);
        brain.on_msg(&reply);
    }
    assert_eq!(board.to_line(), SOLUTION);
}

/// A bot that never slips, so that each empty cell takes one placement.
fn sure() -> BotConfig {
    BotConfig {
        style: Style::flat(Duration::from_millis(1), 0.0),
        ..BotConfig::default()
    }
}

#[test]
fn a_placement_the_moving_room_did_not_take_is_counted_once() {
    let mut brain = Brain::new(sure(), None);
    brain.on_msg(&joined("h"));
    brain.on_msg(&started());
    let puzzle = Grid::parse(PUZZLE).expect("grid");
    let mut board = puzzle;
    let first = brain.next_move().expect("a placement");
    brain.on_msg(&room_moving(Some(250)));
    // The new server shows the board without it: it was not taken, and goes again.
    brain.on_msg(&shown_again(&board));
    let mut sent = 0;
    while let Some(m) = brain.next_move() {
        sent += 1;
        let reply = answer(&mut board, &m);
        brain.on_msg(&reply);
    }
    assert_eq!(board.to_line(), SOLUTION);
    let empty = Cell::all().filter(|&c| puzzle.get(c).is_none()).count() as u32;
    assert_eq!(sent, empty, "after {first:?}");
    assert_eq!(
        (brain.report.placements, brain.report.mistakes),
        (empty, 0),
        "each placement counted once"
    );
}

#[test]
fn a_placement_the_moving_room_took_is_not_sent_again() {
    let mut brain = Brain::new(sure(), None);
    brain.on_msg(&joined("h"));
    brain.on_msg(&started());
    let puzzle = Grid::parse(PUZZLE).expect("grid");
    let mut board = puzzle;
    let first = brain.next_move().expect("a placement");
    // Its answer is lost with the server; the new server shows the board with it.
    let _ = answer(&mut board, &first);
    brain.on_msg(&shown_again(&board));
    while let Some(m) = brain.next_move() {
        assert_ne!(m, first, "sent again");
        let reply = answer(&mut board, &m);
        brain.on_msg(&reply);
    }
    assert_eq!(board.to_line(), SOLUTION);
    let empty = Cell::all().filter(|&c| puzzle.get(c).is_none()).count() as u32;
    assert_eq!(
        brain.report.placements,
        empty - 1,
        "counted from the answers: the first one's was lost with its server"
    );
}

async fn say(ws: &mut Ws, m: &ServerMsg) {
    ws.send(Message::text(serde_json::to_string(m).expect("json")))
        .await
        .expect("send");
}

#[tokio::test]
async fn a_bot_whose_server_is_lost_resumes_and_finishes_the_race() {
    let (url, listener) = fake_server().await;
    let config = BotConfig {
        style: Style::flat(Duration::from_millis(1), 0.0),
        seed: 5,
        ..BotConfig::default()
    };
    let bot = tokio::spawn(async move {
        let role = BotRole::Join {
            room: "K7QX".into(),
        };
        run(&url, config, role, std::future::pending()).await
    });
    let mut ws = accept(&listener).await;
    recv_client(&mut ws).await;
    say(&mut ws, &joined("h")).await;
    say(&mut ws, &started()).await;
    let mut board = Grid::parse(PUZZLE).expect("grid");
    for _ in 0..5 {
        let m = recv_client(&mut ws).await;
        let reply = answer(&mut board, &m);
        say(&mut ws, &reply).await;
    }
    // The server is killed: the socket drops with a placement unanswered.
    recv_client(&mut ws).await;
    drop(ws);
    let mut ws = accept(&listener).await;
    let resume = ClientMsg::Resume {
        token: "t".into(),
        variants: crate::net::drawn(),
    };
    assert_eq!(recv_client(&mut ws).await, resume);
    say(&mut ws, &room_moving(Some(100))).await;
    assert_eq!(recv_client(&mut ws).await, resume, "asked again");
    say(&mut ws, &shown_again(&board)).await;
    while board.to_line() != SOLUTION {
        let m = recv_client(&mut ws).await;
        let reply = answer(&mut board, &m);
        say(&mut ws, &reply).await;
    }
    say(
        &mut ws,
        &ServerMsg::PlayerFinished {
            player_id: "b1".into(),
            status: FinishStatus::Solved,
            time_ms: Some(60_000),
        },
    )
    .await;
    say(&mut ws, &over(FinishStatus::Solved)).await;
    assert_eq!(recv_client(&mut ws).await, ClientMsg::Leave);
    drop(ws);
    let report = tokio::time::timeout(Duration::from_secs(5), bot)
        .await
        .expect("bot ends")
        .expect("task")
        .expect("ok");
    assert_eq!(report.races.len(), 1);
    assert_eq!(report.races[0].status, Some(FinishStatus::Solved));
}
