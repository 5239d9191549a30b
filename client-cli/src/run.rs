//! The event loop: one `select!` over terminal keys, server messages and a clock tick, feeding
//! a [`Screen`] and carrying out its [`Effect`]s. Generic over the ratatui backend, so tests run
//! it on a `TestBackend`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{self as ct, KeyEventKind};
use ratatui::backend::Backend;
use ratatui::{Frame, Terminal};
use tokio::sync::mpsc;

use crate::app::{App, Effect, Event};
use crate::net::{NetEvent, Session};
use crate::replay::ReplayApp;
use crate::solo::SoloApp;

/// How often the clock ticks (redraws the race clock and fades flashes).
pub const TICK: Duration = Duration::from_millis(200);

/// Something the loop can drive: pure update, pure draw.
pub trait Screen {
    /// Apply one event (no IO).
    fn update(&mut self, event: Event) -> Vec<Effect>;
    /// Draw the whole screen.
    fn draw(&self, frame: &mut Frame);
}

impl Screen for App {
    fn update(&mut self, event: Event) -> Vec<Effect> {
        App::update(self, event)
    }

    fn draw(&self, frame: &mut Frame) {
        frame.render_widget(self, frame.area());
    }
}

impl Screen for SoloApp {
    fn update(&mut self, event: Event) -> Vec<Effect> {
        SoloApp::update(self, event)
    }

    fn draw(&self, frame: &mut Frame) {
        frame.render_widget(self, frame.area());
    }
}

impl Screen for ReplayApp {
    fn update(&mut self, event: Event) -> Vec<Effect> {
        ReplayApp::update(self, event)
    }

    fn draw(&self, frame: &mut Frame) {
        frame.render_widget(self, frame.area());
    }
}

/// Run `screen` until it asks to quit or every input is gone. `net` and `session` are the
/// connection (absent for solo play).
pub async fn run<B: Backend, S: Screen>(
    terminal: &mut Terminal<B>,
    screen: &mut S,
    mut keys: mpsc::UnboundedReceiver<Event>,
    mut net: Option<mpsc::UnboundedReceiver<NetEvent>>,
    session: Option<&Session>,
) -> std::io::Result<()> {
    let start = Instant::now();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        terminal.draw(|f| screen.draw(f))?;
        let event = tokio::select! {
            k = keys.recv() => match k {
                Some(k) => k,
                None => return Ok(()),
            },
            n = async { match net.as_mut() { Some(rx) => rx.recv().await, None => std::future::pending().await } } => match n {
                Some(n) => Event::Net(n),
                None => { net = None; continue; }
            },
            _ = tick.tick() => Event::Tick(start.elapsed().as_millis() as u64),
        };
        let mut effects = screen.update(Event::Tick(start.elapsed().as_millis() as u64));
        effects.extend(screen.update(event));
        for effect in effects {
            match effect {
                Effect::Send(msg) => {
                    if let Some(s) = session {
                        s.send(msg);
                    }
                }
                Effect::Quit => {
                    terminal.draw(|f| screen.draw(f))?;
                    return Ok(());
                }
            }
        }
    }
}

/// Stops the key reader thread when dropped.
pub struct KeyReader {
    stop: Arc<AtomicBool>,
}

impl Drop for KeyReader {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Read terminal events on a thread (crossterm's reads block) and send key presses and resizes.
pub fn spawn_key_reader() -> (KeyReader, mpsc::UnboundedReceiver<Event>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    std::thread::spawn(move || {
        while !flag.load(Ordering::Relaxed) {
            match ct::poll(Duration::from_millis(100)) {
                Ok(false) => continue,
                Ok(true) => {}
                Err(_) => return,
            }
            let ev = match ct::read() {
                Ok(ct::Event::Key(k)) if k.kind != KeyEventKind::Release => Event::Key(k),
                Ok(ct::Event::Resize(..)) => Event::Resize,
                Ok(_) => continue,
                Err(_) => return,
            };
            if tx.send(ev).is_err() {
                return;
            }
        }
    });
    (KeyReader { stop }, rx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::tests::{PUZZLE, SOLUTION};
    use crossterm::event::{KeyCode, KeyEvent};
    use engine::{Grid, Level};
    use ratatui::backend::TestBackend;

    #[tokio::test]
    async fn the_loop_feeds_keys_to_the_screen_and_stops_on_quit() {
        let p = Grid::parse(PUZZLE).expect("grid");
        let s = Grid::parse(SOLUTION).expect("grid");
        let mut game = SoloApp::new(p, s, Level::Easy, |_, _| None);
        let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("backend");
        let (tx, rx) = mpsc::unbounded_channel();
        for c in ['l', 'l', '4', 'q'] {
            tx.send(Event::Key(KeyEvent::from(KeyCode::Char(c))))
                .expect("send");
        }
        run(&mut terminal, &mut game, rx, None, None)
            .await
            .expect("run");
        assert_eq!(game.board.n_placed(), 1);
        let screen: String = terminal
            .backend()
            .buffer()
            .content()
            .iter()
            .map(|c| c.symbol())
            .collect();
        assert!(screen.contains("filled 1/51"), "{screen}");
    }
}
