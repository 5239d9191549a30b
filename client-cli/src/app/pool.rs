//! The pool (Amendment A7) on the app's side: `queued` puts the queue screen up (out of any
//! room: after a `requeue` the mirror has dropped the pool room), `pool_alone` adds its line
//! and the ghost it offers (`g` leaves the queue and races it), and `r` after a pool race asks
//! for the next one. Leaving the queue is quitting (`App::leave` sends `leave_queue`). An
//! arena member's `queued` (between the arena's races) shows the arena instead (`arena`).

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
            ServerMsg::PoolAlone { ref ghost } => {
                if let Outside::Queued {
                    alone, ghost: g, ..
                } = &mut self.outside
                {
                    *alone = true;
                    g.clone_from(ghost);
                }
            }
            // We quit as we send `leave_queue`: a late answer changes nothing on screen.
            _ => {}
        }
    }

    /// In the pool of `difficulty` with `waiting` players: a new count in the same pool keeps
    /// the time we began waiting.
    fn queued(&mut self, difficulty: Difficulty, waiting: u32) {
        if self.arena.is_some() {
            // Between an arena's races: the arena's screen, not the open pool's.
            self.between_arena_races();
            return;
        }
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
            ghost: None,
        };
    }

    /// `g` on the queue screen when `pool_alone` offered a ghost: leave the queue and race it.
    pub(super) fn race_offered_ghost(&mut self) -> Vec<Effect> {
        let Outside::Queued {
            ghost: Some(ghost), ..
        } = &self.outside
        else {
            return Vec::new();
        };
        let intent = crate::net::Intent::Ghost {
            ghost: ghost.clone(),
            difficulty: None,
            name: self.name.clone(),
        };
        let ask = intent.first_message();
        self.intent = Some(intent);
        self.outside = Outside::Entering;
        self.notify("racing the ghost…", false);
        let mut effects = vec![Effect::Send(ClientMsg::LeaveQueue)];
        effects.extend(ask.map(Effect::Send));
        effects
    }

    /// `r` on a pool race's results: back to the pool (an arena room's: into the arena's next
    /// race). The results stay until `queued` (or the next `room_joined`) comes.
    pub(super) fn requeue(&mut self) -> Vec<Effect> {
        let arena_room = self.in_arena_room();
        if let Some(arena) = self.arena.as_mut() {
            arena.requeue_at_ms = None;
        }
        let words = if arena_room {
            "on to the arena's next race…"
        } else {
            "back to the pool…"
        };
        self.notify(words, false);
        vec![Effect::Send(ClientMsg::Requeue)]
    }
}
