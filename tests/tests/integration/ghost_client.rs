//! `sudoku-race ghost RACE_ID`, end to end: a race stored first over a raw socket (one player,
//! paced), then the terminal client's `App` on a real session asking `race_ghost` for it (as the
//! TUI's run loop drives it): the ghost's seat is listed and drawn `[ghost]`, its progress comes
//! by itself, it finishes, and when we give up the results rank it first, still marked.

use std::time::Duration;

use client::app::App;
use client::net::{self, Intent};
use crossterm::event::KeyCode;
use protocol::{Phase, PlayerStatus};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::json;
use testkit::{solve, to_fill};

use crate::driver::Driven;
use crate::support::{create, TestServer};

/// The app drawn at 120×40, as lines of text.
fn screen(app: &App) -> String {
    let mut t = Terminal::new(TestBackend::new(120, 40)).expect("test backend");
    t.draw(|f| f.render_widget(app, f.area())).expect("draw");
    let buf = t.backend().buffer().clone();
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_owned())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The ghost seat of the app's room: its id and status.
fn ghost_seat(app: &App) -> Option<(String, PlayerStatus)> {
    let room = app.room()?;
    let p = room.players.iter().find(|p| p.ghost)?;
    Some((p.player_id.to_string(), p.status))
}

#[tokio::test]
async fn sudoku_race_ghost_races_a_stored_race_that_shows_and_finishes() {
    let srv = TestServer::start_with(|c| c.fair_play = false).await;
    // ann's paced solo race, stored.
    let mut ann = srv.client().await;
    let settings = json!({"difficulty": "easy", "max_players": 1, "public": false});
    create(&mut ann, "ann", settings).await;
    ann.send(json!({"type": "start_race"})).await;
    let started = ann.until("race_started").await;
    let puzzle = started["puzzle"].as_str().expect("puzzle").to_owned();
    for (cell, digit) in to_fill(&puzzle, &solve(&puzzle)) {
        tokio::time::sleep(Duration::from_millis(20)).await;
        ann.send(json!({"type": "place", "cell": cell, "digit": digit}))
            .await;
    }
    let over = ann.until("race_over").await;
    let source = over["race_id"].as_str().expect("race id").to_owned();

    // `sudoku-race ghost RACE_ID` as bob.
    let url: net::ServerUrl = srv.url().parse().expect("the test server URL");
    let intent = Intent::Ghost {
        ghost: source.clone(),
        difficulty: None,
        variant: engine::Variant::Classic,
        name: "bob".into(),
    };
    let app = App::new("bob").with_intent(&intent);
    let mut bob = Driven::connect(&url, intent, app);
    bob.until("the ghost's room", |a| ghost_seat(a).is_some())
        .await;
    let room = bob.app.room().expect("in the ghost's room");
    assert_eq!(room.players.len(), 2, "bob and the ghost");
    assert!(!room.settings.rated && !room.settings.public);
    let shown = screen(&bob.app);
    assert!(shown.contains("ghost of ann [ghost]"), "{shown}");

    // The race starts at once; the ghost's progress comes by itself, and it finishes.
    bob.until("the race", |a| {
        a.room().is_some_and(|r| r.phase == Phase::Racing) && a.race().is_some()
    })
    .await;
    let (ghost_id, _) = ghost_seat(&bob.app).expect("the ghost");
    bob.until("the ghost's first cells", |a| {
        a.race()
            .and_then(|r| r.progress.get(ghost_id.as_str()))
            .is_some_and(|p| p.filled > 0)
    })
    .await;
    let shown = screen(&bob.app);
    assert!(shown.contains("ghost of ann [ghost]"), "{shown}");
    bob.until("the ghost's finish", |a| {
        ghost_seat(a).is_some_and(|(_, s)| s == PlayerStatus::Solved)
    })
    .await;

    // bob gives up: the ghost ranks first in the results, marked.
    bob.key(KeyCode::Char('f'));
    bob.key(KeyCode::Char('f'));
    bob.until("race_over", |a| {
        a.room().is_some_and(|r| r.results.is_some())
    })
    .await;
    let results = bob
        .app
        .room()
        .and_then(|r| r.results.clone())
        .expect("results");
    assert_eq!(results.standings[0].player_id.as_str(), ghost_id);
    let shown = screen(&bob.app);
    assert!(shown.contains("ghost of ann [ghost]"), "{shown}");
}
