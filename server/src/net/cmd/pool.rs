//! `quick_race`, `leave_queue` and `requeue` (A7): into the pool of a difficulty, out of it,
//! and from a finished pool room back into it with the room's other players (a rematch chain).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use protocol::{ErrorCode, IdentityKey, ServerMsg};
use shared::engine::Difficulty;
use tokio::sync::oneshot;

use super::Session;
use crate::pool::queue::Entrant;
use crate::room::handle::{Identity, RoomCmd};
use crate::store::Store;

impl Session {
    /// `quick_race`: wait in the pool of `difficulty` for a race with strangers.
    pub(super) async fn quick_race(
        &mut self,
        difficulty: String,
        name: String,
        key: Option<IdentityKey>,
        bot: bool,
    ) {
        if self.already_in_room() {
            return;
        }
        let Ok(difficulty) = difficulty.parse::<Difficulty>() else {
            let why = format!("difficulty: unknown {difficulty:?}");
            return self.error(ErrorCode::InvalidSettings, why);
        };
        if let Err(why) = protocol::PlayerName::try_from(name.as_str()) {
            return self.error(ErrorCode::InvalidName, why.to_string());
        }
        let Some(who) = self.identify(key, bot).await else {
            return;
        };
        let rating = rating_of(&self.server.env.store, &who, difficulty).await;
        self.join_pool(difficulty, name, who, rating, None);
    }

    fn join_pool(
        &mut self,
        difficulty: Difficulty,
        name: String,
        who: Identity,
        rating: Option<f64>,
        chain: Option<u64>,
    ) {
        let entrant = Entrant {
            outbox: self.outbox.clone(),
            addr: self.client,
            name,
            who,
            rating,
            chain,
        };
        self.ticket = Some(self.server.pool.enqueue(difficulty, entrant));
    }

    /// `leave_queue`: out of the pool.
    pub(super) fn leave_queue(&mut self) {
        let Some(ticket) = self.ticket.take() else {
            return self.error(ErrorCode::NotInQueue, "not in the pool");
        };
        if self.server.pool.leave(ticket.difficulty, self.outbox.id) {
            self.send(&ServerMsg::LeftQueue);
        } else {
            // Seated a moment ago: `room_joined` is on its way.
            self.ticket = Some(ticket);
            self.error(ErrorCode::NotInQueue, "already seated in a race");
        }
    }

    /// `requeue`: from a finished pool room back into its difficulty's pool, chained with the
    /// room's other players who requeue (A7).
    pub(super) async fn requeue(&mut self) {
        let Some(room) = self.current() else {
            return self.not_in_room();
        };
        let (reply, answer) = oneshot::channel();
        let cmd = RoomCmd::Requeue {
            conn: self.outbox.id,
            reply,
        };
        if room.tx.send(cmd).await.is_err() {
            return self.not_in_room();
        }
        let Ok(Some(left)) = answer.await else {
            return; // the room sent its reason
        };
        self.link = None;
        let rating = rating_of(&self.server.env.store, &left.who, left.difficulty).await;
        let mut h = DefaultHasher::new();
        room.code.hash(&mut h);
        self.join_pool(
            left.difficulty,
            left.name,
            left.who,
            rating,
            Some(h.finish()),
        );
    }
}

/// An identified human's conservative rating at `difficulty` (a new player's, 0, when they
/// have none yet); `None` for the anonymous and bots, who fit any race.
async fn rating_of(store: &Arc<dyn Store>, who: &Identity, difficulty: Difficulty) -> Option<f64> {
    if !who.rateable() {
        return None;
    }
    let handle = who.handle.clone()?;
    let store = store.clone();
    let page = tokio::task::spawn_blocking(move || store.player(&handle)).await;
    let page = match page {
        Ok(Ok(page)) => page,
        Ok(Err(e)) => {
            tracing::error!(error = %e, "reading a rating for the pool failed");
            None
        }
        Err(e) => {
            tracing::error!(error = %e, "reading a rating for the pool panicked");
            None
        }
    };
    let rating = page.and_then(|p| {
        p.ratings
            .into_iter()
            .find(|r| r.difficulty == difficulty.to_string())
            .map(|r| r.stats.rating)
    });
    Some(rating.unwrap_or(0.0))
}
