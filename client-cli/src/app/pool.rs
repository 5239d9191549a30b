//! The pool (Amendment A7) on the app's side: `queued` puts the queue screen up (out of any
//! room: after a `requeue` the mirror has dropped the pool room), `pool_alone` adds its line, and
//! `r` after a pool race asks for the next one. Leaving the queue is quitting (`App::leave`
//! sends `leave_queue`).

use protocol::{ClientMsg, ServerMsg};
use shared::engine::Difficulty;

use super::{App, Effect, Outside, Play};

impl App {
    /// `queued`, `pool_alone` or `left_queue`.
    pub(super) fn in_pool(&mut self, msg: &ServerMsg) {
        match *msg {
            ServerMsg::Queued {
                difficulty,
                waiting,
            } => self.queued(difficulty, waiting),
            ServerMsg::PoolAlone { .. } => {
                if let Outside::Queued { alone, .. } = &mut self.outside {
                    *alone = true;
                }
            }
            // We quit as we send `leave_queue`: a late answer changes nothing on screen.
            _ => {}
        }
    }

    /// In the pool of `difficulty` with `waiting` players: a new count in the same pool keeps
    /// the time we began waiting.
    fn queued(&mut self, difficulty: Difficulty, waiting: u32) {
        if let Outside::Queued {
            difficulty: d,
            waiting: w,
            ..
        } = &mut self.outside
        {
            if *d == difficulty {
                *w = waiting;
                return;
            }
        }
        self.tool = None;
        self.confirm = None;
        self.play = Play::default();
        // The next room is another one, with other people.
        self.chat.clear();
        self.outside = Outside::Queued {
            difficulty,
            waiting,
            since_ms: self.clock_ms,
            alone: false,
        };
    }

    /// `r` on a pool race's results: back to the pool. The results stay until `queued` comes.
    pub(super) fn requeue(&mut self) -> Vec<Effect> {
        self.notify("back to the pool…", false);
        vec![Effect::Send(ClientMsg::Requeue)]
    }
}
