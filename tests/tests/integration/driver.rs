//! The terminal client's `App` wired to a real session and driven the way the TUI's run loop
//! drives it (ticks, keys, and each server message in turn), for end-to-end tests without a
//! terminal.

use std::time::Duration;

use client::app::{App, Effect, Event};
use client::net::{self, Intent, NetEvent, Session};
use crossterm::event::{KeyCode, KeyEvent};
use tokio::sync::mpsc::UnboundedReceiver;

/// Upper bound on any single wait: a hang fails the test instead of blocking CI.
const WAIT: Duration = Duration::from_secs(30);

/// One client: its app, its session, and what the session reports.
pub struct Driven {
    pub app: App,
    pub session: Session,
    events: UnboundedReceiver<NetEvent>,
    started: tokio::time::Instant,
}

impl Driven {
    /// `app` on a new session to `url` that first asks for `intent`.
    pub fn connect(url: &net::ServerUrl, intent: Intent, app: App) -> Driven {
        Driven::connect_as(url, intent, net::Identity::default(), app)
    }

    /// [`Driven::connect`] on behalf of an identity (its key stamped on what enters a room).
    pub fn connect_as(
        url: &net::ServerUrl,
        intent: Intent,
        who: net::Identity,
        app: App,
    ) -> Driven {
        let (session, events) = net::connect_as(url.clone(), intent, who);
        Driven {
            app,
            session,
            events,
            started: tokio::time::Instant::now(),
        }
    }

    fn tick(&mut self) {
        let now = self.started.elapsed().as_millis() as u64;
        let effects = self.app.update(Event::Tick(now));
        self.apply(effects);
    }

    fn apply(&mut self, effects: Vec<Effect>) {
        for e in effects {
            if let Effect::Send(m) = e {
                self.session.send(m);
            }
        }
    }

    /// Press `code`.
    pub fn key(&mut self, code: KeyCode) {
        self.tick();
        let effects = self.app.update(Event::Key(KeyEvent::from(code)));
        self.apply(effects);
    }

    /// Read the session's reports, past the app, until a server message `is(m)` arrives.
    pub async fn next_message(&mut self, what: &str, is: impl Fn(&protocol::ServerMsg) -> bool) {
        let wait = async {
            loop {
                match self.events.recv().await.expect("the session ended early") {
                    NetEvent::Message(m) if is(&m) => return,
                    _ => {}
                }
            }
        };
        tokio::time::timeout(WAIT, wait)
            .await
            .unwrap_or_else(|_| panic!("{}: timed out waiting for {what}", self.app.name));
    }

    /// Feed server messages to the app until `done(app)` holds, with the clock ticking every
    /// 100 ms meanwhile as the run loop's does (what the app does by itself on a tick, such as an
    /// arena's next race, is sent).
    pub async fn until(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        let wait = async {
            let mut ticks = tokio::time::interval(Duration::from_millis(100));
            while !done(&self.app) {
                tokio::select! {
                    ev = self.events.recv() => {
                        let ev = ev.expect("the session ended early");
                        self.tick();
                        let effects = self.app.update(Event::Net(ev));
                        self.apply(effects);
                    }
                    _ = ticks.tick() => self.tick(),
                }
            }
        };
        tokio::time::timeout(WAIT, wait)
            .await
            .unwrap_or_else(|_| panic!("{}: timed out waiting for {what}", self.app.name));
    }
}
