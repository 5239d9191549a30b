//! The terminal client in the pool (A7), end to end: two `quick` sessions (the client's `App`
//! wired to real sessions and driven by keys, as the TUI's run loop does) wait in the queue, are
//! told when nobody else is there, are seated together in one hostless pool room, race, and go
//! back to the pool with `r` from the results into their next race together.

use std::time::Duration;

use client::app::{App, Effect, Event, Outside};
use client::net::{self, Intent, NetEvent, Session};
use crossterm::event::{KeyCode, KeyEvent};
use protocol::{Phase, ServerMsg};
use shared::engine::Difficulty;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::support::TestServer;

/// Upper bound on any single wait: a hang fails the test instead of blocking CI.
const WAIT: Duration = Duration::from_secs(20);

/// One `sudoku-race quick` without its terminal.
struct Racer {
    app: App,
    session: Session,
    events: UnboundedReceiver<NetEvent>,
    started: tokio::time::Instant,
}

impl Racer {
    fn quick(url: &net::ServerUrl, name: &str) -> Racer {
        let intent = Intent::Quick {
            difficulty: Difficulty::Easy,
            name: name.into(),
        };
        let (session, events) = net::connect(url.clone(), intent.clone());
        Racer {
            app: App::new(name).with_intent(&intent),
            session,
            events,
            started: tokio::time::Instant::now(),
        }
    }

    fn tick(&mut self) {
        let now = self.started.elapsed().as_millis() as u64;
        self.app.update(Event::Tick(now));
    }

    fn apply(&mut self, effects: Vec<Effect>) {
        for e in effects {
            if let Effect::Send(m) = e {
                self.session.send(m);
            }
        }
    }

    fn key(&mut self, code: KeyCode) {
        self.tick();
        let effects = self.app.update(Event::Key(KeyEvent::from(code)));
        self.apply(effects);
    }

    /// Feed server messages to the app until `done(app)` holds.
    async fn until(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        let wait = async {
            while !done(&self.app) {
                let ev = self.events.recv().await.expect("the session ended early");
                self.tick();
                let effects = self.app.update(Event::Net(ev));
                self.apply(effects);
            }
        };
        tokio::time::timeout(WAIT, wait)
            .await
            .unwrap_or_else(|_| panic!("{}: timed out waiting for {what}", self.app.name));
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
    let left = async {
        loop {
            match cy.events.recv().await.expect("the session ended early") {
                NetEvent::Message(m) if *m == ServerMsg::LeftQueue => return,
                _ => {}
            }
        }
    };
    tokio::time::timeout(WAIT, left)
        .await
        .expect("left_queue answers the Esc");
}
