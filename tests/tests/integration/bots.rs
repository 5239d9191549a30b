//! End to end over real sockets: a host (the terminal client's `App`, driven by key presses) and
//! two bots race to `race_over` on a server started on 127.0.0.1:0, with the server's default
//! rate limits.

use std::time::Duration;

use client::app::App;
use client::net::{self, Intent};
use crossterm::event::KeyCode;
use engine::{solver, Cell, Grid};
use protocol::{FinishStatus, Phase, SettingsRequest};

use crate::driver::Driven;
use crate::support::{spawn_bot, TestServer};

/// Upper bound on a bot's whole run: a hang fails the test instead of blocking CI.
const WAIT: Duration = Duration::from_secs(30);

fn phase(app: &App) -> Option<Phase> {
    app.room().map(|r| r.phase)
}

#[tokio::test]
async fn a_host_and_two_bots_race_to_race_over() {
    // The real rate limits, so fast bots meet `rate_limited` and must re-send.
    let mut server = TestServer::start_with(|c| c.limits = server::Limits::default()).await;
    let url: net::ServerUrl = server.url().parse().expect("the test server URL");

    let settings = SettingsRequest {
        difficulty: Some("easy".into()),
        max_mistakes: Some(0),
        ..SettingsRequest::default()
    };
    let intent = Intent::Create {
        name: "host".into(),
        settings: Some(settings),
    };
    let mut host = Driven::connect(&url, intent, App::new("host"));
    host.until("room_joined", |a| a.room().is_some()).await;
    let code = host.app.room().expect("room").code.to_string();

    let bots = [
        spawn_bot(&url, &code, 1, 0.0),
        spawn_bot(&url, &code, 2, 0.1),
    ];
    host.until("both bots seated", |a| {
        a.room().is_some_and(|r| r.players.len() == 3)
    })
    .await;

    host.key(KeyCode::Char('s'));
    host.until("race_started", |a| phase(a) == Some(Phase::Racing))
        .await;

    // The host places one right digit with the keys: to the first empty cell, then its digit.
    let race = host.app.race().expect("race");
    let puzzle: Grid = race.puzzle;
    let solution = solver::solve_unique(&puzzle).expect("a unique puzzle");
    let target = Cell::all()
        .find(|&c| puzzle.get(c).is_none())
        .expect("an empty cell");
    for _ in 0..target.row() {
        host.key(KeyCode::Char('j'));
    }
    for _ in 0..target.col() {
        host.key(KeyCode::Char('l'));
    }
    let digit = solution.get(target).expect("solved");
    host.key(KeyCode::Char(char::from(b'0' + digit.get())));
    host.until("the placement is accepted", |a| {
        a.race().is_some_and(|r| r.board.get(target) == Some(digit))
    })
    .await;

    // Then gives up (f twice), and watches the bots finish.
    host.key(KeyCode::Char('f'));
    host.key(KeyCode::Char('f'));
    host.until("race_over", |a| {
        a.room().is_some_and(|r| r.results.is_some())
    })
    .await;

    let room = host.app.room().expect("room");
    let results = room.results.as_ref().expect("results");
    assert_eq!(results.solution, Some(solution));
    assert_eq!(results.standings.len(), 3);
    let host_row = results
        .standings
        .iter()
        .find(|s| s.name == "host")
        .expect("host in standings");
    assert_eq!(host_row.status, FinishStatus::Forfeited);
    assert_eq!(host_row.rank, 3);
    assert_eq!(host_row.filled, 1);

    for b in bots {
        let report = tokio::time::timeout(WAIT, b)
            .await
            .expect("bot finished in time")
            .expect("bot task")
            .expect("bot ran");
        assert_eq!(report.races.len(), 1);
        let race = &report.races[0];
        assert_eq!(race.status, Some(FinishStatus::Solved), "{report:?}");
        let t = race.time_ms.expect("a solved time");
        let me = report.player_id.as_deref().expect("seated");
        let row = results
            .standings
            .iter()
            .find(|s| s.player_id == me)
            .expect("bot in standings");
        assert_eq!((row.status, row.time_ms), (FinishStatus::Solved, Some(t)));
        assert!(row.rank <= 2);
        assert_eq!(row.filled, 81 - puzzle.n_filled() as u32);
        assert_eq!(row.mistakes, report.mistakes);
    }

    server.shutdown().await.expect("server stopped cleanly");
}
