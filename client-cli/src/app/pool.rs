//! The pool (Amendment A7) on the app's side: `queued` puts the queue screen up (out of any
//! room: after a `requeue` the mirror has dropped the pool room), `pool_alone` adds its line
//! and the ghost it offers (`g` leaves the queue and races it), and `r` after a pool race asks
//! for the next one. Leaving the queue is quitting (`App::leave` sends `leave_queue`). An
//! arena member's `queued` (between the arena's races) shows the arena instead (`arena`).
//!
//! The queue's state is the [`Outside::Queued`] screen; these are its decisions. The app
//! composes them with the rest of the screen (`on_server`, `on_key`).

use engine::Difficulty;

use super::Outside;

impl Outside {
    /// `queued` for the pool of `difficulty` with `waiting` players: true if we already wait
    /// in that pool (the new count is kept, and so is the time we began waiting).
    pub(super) fn queued_again(&mut self, difficulty: Difficulty, waiting: u32) -> bool {
        match self {
            Outside::Queued {
                difficulty: d,
                waiting: w,
                ..
            } if *d == difficulty => {
                *w = waiting;
                true
            }
            _ => false,
        }
    }

    /// The queue screen for the pool of `difficulty`, entered at local time `now_ms`.
    pub(super) fn queue(difficulty: Difficulty, waiting: u32, now_ms: u64) -> Outside {
        Outside::Queued {
            difficulty,
            waiting,
            since_ms: now_ms,
            alone: false,
            ghost: None,
        }
    }

    /// `pool_alone`: nobody else waits; `ghost` is offered instead, if any.
    pub(super) fn pool_alone(&mut self, ghost: &Option<String>) {
        if let Outside::Queued {
            alone, ghost: g, ..
        } = self
        {
            *alone = true;
            g.clone_from(ghost);
        }
    }

    /// The ghost `pool_alone` offered, while we wait in the queue.
    pub(super) fn offered_ghost(&self) -> Option<&str> {
        match self {
            Outside::Queued {
                ghost: Some(ghost), ..
            } => Some(ghost),
            _ => None,
        }
    }
}
