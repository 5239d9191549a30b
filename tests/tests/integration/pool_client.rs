//! The terminal client in the pool (A7), end to end: two `quick` sessions (the client's `App`
//! wired to real sessions and driven by keys, as the TUI's run loop does) wait in the queue, are
//! told when nobody else is there, are seated together in one hostless pool room, race, and go
//! back to the pool with `r` from the results into their next race together.

use std::time::Duration;

use client::app::{App, Outside};
use client::net::{self, Intent};
use crossterm::event::KeyCode;
use engine::Difficulty;
use protocol::{Phase, ServerMsg};

use crate::driver::Driven;
use crate::support::TestServer;

/// One `sudoku-race quick` without its terminal.
struct Racer(Driven);

impl std::ops::Deref for Racer {
    type Target = Driven;
    fn deref(&self) -> &Driven {
        &self.0
    }
}

impl std::ops::DerefMut for Racer {
    fn deref_mut(&mut self) -> &mut Driven {
        &mut self.0
    }
}

impl Racer {
    fn quick(url: &net::ServerUrl, name: &str) -> Racer {
        let intent = Intent::Quick {
            difficulty: Difficulty::Easy,
            variant: engine::Variant::Classic,
            name: name.into(),
        };
        let app = App::new(name).with_intent(&intent);
        Racer(Driven::connect(url, intent, app))
    }

    /// In no room, on the queue screen.
    fn queued_app(app: &App) -> bool {
        app.room().is_none() && matches!(app.outside, Outside::Queued { .. })
    }

    /// The pool room we are seated in after leaving `old`.
    async fn seated_in_new(&mut self, old: &str) -> String {
        self.until("a new room_joined", |a| {
            a.room().is_some_and(|r| r.code.as_str() != old)
        })
        .await;
        self.seated().await
    }

    /// The pool room we are seated in: its code, once `room_joined` came.
    async fn seated(&mut self) -> String {
        self.until("room_joined", |a| a.room().is_some()).await;
        let room = self.app.room().expect("seated");
        assert!(room.settings.pool, "a pool room");
        assert_eq!(room.room_host, None, "nobody hosts a pool room");
        room.code.to_string()
    }

    /// Give up the race (f twice) and wait for its results.
    async fn forfeit(&mut self) {
        self.until("race_started", |a| {
            a.room().is_some_and(|r| r.phase == Phase::Racing) && a.race().is_some()
        })
        .await;
        self.key(KeyCode::Char('f'));
        self.key(KeyCode::Char('f'));
    }

    async fn results(&mut self) {
        self.until("race_over", |a| {
            a.room().is_some_and(|r| r.results.is_some())
        })
        .await;
    }
}

#[tokio::test]
async fn two_quick_clients_race_in_one_pool_room_and_race_again_with_r() {
    let srv = TestServer::start_with(|c| {
        c.pool = server::config::PoolRules {
            size: 2,
            wait: Duration::from_millis(300),
            alone: Duration::from_millis(600),
        };
    })
    .await;
    let url: net::ServerUrl = srv.url().parse().expect("the test server URL");

    let mut ann = Racer::quick(&url, "ann");
    ann.until("queued", Racer::queued_app).await;
    ann.until("pool_alone", |a| {
        matches!(a.outside, Outside::Queued { alone: true, .. })
    })
    .await;

    let mut bob = Racer::quick(&url, "bob");
    let first = ann.seated().await;
    assert_eq!(bob.seated().await, first, "one room for both");

    ann.forfeit().await;
    bob.forfeit().await;
    ann.results().await;
    bob.results().await;

    // `r` from the results: back to the queue, then seated together again.
    ann.key(KeyCode::Char('r'));
    ann.until("queued again", Racer::queued_app).await;
    bob.key(KeyCode::Char('r'));
    let second = ann.seated().await;
    assert_ne!(second, first, "a new pool room");
    assert_eq!(bob.seated_in_new(&first).await, second);

    // Leaving from the queue: Esc sends `leave_queue` and quits.
    let mut cy = Racer::quick(&url, "cy");
    cy.until("queued", Racer::queued_app).await;
    cy.key(KeyCode::Esc);
    assert!(cy.app.quit);
    cy.next_message("left_queue", |m| *m == ServerMsg::LeftQueue)
        .await;
}
