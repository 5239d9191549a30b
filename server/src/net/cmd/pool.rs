//! `quick_race`, `leave_queue` and `requeue` (A7): into the pool of a difficulty, out of it,
//! and from a finished pool room back into it with the room's other players (a rematch chain).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use protocol::{ErrorCode, IdentityKey, ServerMsg};
use shared::engine::Difficulty;
use tokio::sync::oneshot;

use super::Session;
use crate::clock::unix_ms;
use crate::pool::queue::{Entrant, Pool};
use crate::room::handle::{Identity, Requeued, RoomCmd};
use crate::store::period::utc_date;
use crate::store::{GhostRef, Store, StoreError};

impl Session {
    /// `quick_race`: wait in the pool of `difficulty` for a race with strangers.
    pub(super) async fn quick_race(
        &mut self,
        difficulty: String,
        name: String,
        key: Option<IdentityKey>,
        bot: bool,
    ) {
        if self.already_in_room() || self.refused_draining() {
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
        let (rating, ghost) = standing_of(&self.server.env.store, &who, difficulty).await;
        self.join_pool(difficulty, name, who, rating, ghost, None)
            .await;
    }

    async fn join_pool(
        &mut self,
        difficulty: Difficulty,
        name: String,
        who: Identity,
        rating: Option<f64>,
        ghost: Option<String>,
        chain: Option<u64>,
    ) {
        let entrant = Entrant {
            outbox: self.outbox.clone(),
            addr: self.client,
            name,
            who,
            rating,
            ghost,
            chain,
        };
        self.ticket = Some(self.server.pool.enqueue(difficulty, entrant).await);
    }

    /// `leave_queue`: out of the pool.
    pub(super) async fn leave_queue(&mut self) {
        let Some(ticket) = self.ticket.take() else {
            return self.error(ErrorCode::NotInQueue, "not in the pool");
        };
        let pool = self.pool();
        if pool.quit(ticket.difficulty, self.outbox.id, false).await {
            self.queue_pool = None;
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
        if self.refused_draining() {
            return;
        }
        let (reply, answer) = oneshot::channel();
        let cmd = RoomCmd::requeue(self.outbox.id, reply);
        if room.tx.send(cmd).await.is_err() {
            return self.not_in_room();
        }
        let Ok(Some(left)) = answer.await else {
            return; // the room sent its reason
        };
        self.link = None;
        if let Some(arena_id) = left.arena.clone() {
            return self.back_to_arena(&arena_id, left).await;
        }
        let (rating, ghost) = standing_of(&self.server.env.store, &left.who, left.difficulty).await;
        let mut h = DefaultHasher::new();
        room.code.hash(&mut h);
        let chain = Some(h.finish());
        self.join_pool(left.difficulty, left.name, left.who, rating, ghost, chain)
            .await;
    }

    /// From an arena room back into the arena's pool, while it runs and the player is in it.
    async fn back_to_arena(&mut self, arena_id: &str, left: Requeued) {
        let handle = left.who.handle.clone().unwrap_or_default();
        let pool = match self.server.arenas.back(arena_id, &handle) {
            Ok(pool) => pool,
            Err((code, message)) => return self.error(code, message),
        };
        self.wait_in_arena(pool, left.difficulty, left.name, left.who)
            .await;
    }

    /// Wait in an arena's pool: no rating band, no ghost offer, no chain.
    pub(super) async fn wait_in_arena(
        &mut self,
        pool: Arc<Pool>,
        difficulty: Difficulty,
        name: String,
        who: Identity,
    ) {
        let entrant = Entrant {
            outbox: self.outbox.clone(),
            addr: self.client,
            name,
            who,
            rating: None,
            ghost: None,
            chain: None,
        };
        self.ticket = Some(pool.enqueue(difficulty, entrant).await);
        self.queue_pool = Some(pool);
    }
}

/// An identified human's conservative rating at `difficulty` (a new player's, 0, when they
/// have none yet; `None` for the anonymous and bots, who fit any race), and the ghost
/// `pool_alone` offers them: their own best at `difficulty`, else today's daily winner.
async fn standing_of(
    store: &Arc<dyn Store>,
    who: &Identity,
    difficulty: Difficulty,
) -> (Option<f64>, Option<String>) {
    let store = store.clone();
    let handle = who.handle.clone().filter(|_| !who.bot);
    let rateable = who.rateable();
    let read = tokio::task::spawn_blocking(move || -> Result<_, StoreError> {
        let page = match &handle {
            Some(h) => store.player(h)?,
            None => None,
        };
        let rating = page.as_ref().and_then(|p| {
            let r = p
                .ratings
                .iter()
                .find(|r| r.difficulty == difficulty.as_str());
            r.map(|r| r.stats.rating)
        });
        let best = page.and_then(|p| {
            let b = p
                .best
                .into_iter()
                .find(|b| b.difficulty == difficulty.as_str());
            b.map(|b| b.race_id)
        });
        let ghost = match best {
            Some(race_id) => Some(race_id),
            None => {
                let date = utc_date(unix_ms());
                let daily = GhostRef::Daily {
                    date: &date,
                    difficulty,
                };
                store.ghost_source(&daily)?.map(|g| g.race_id)
            }
        };
        Ok((rating, ghost))
    })
    .await;
    let (rating, ghost) = match read {
        Ok(Ok(found)) => found,
        Ok(Err(e)) => {
            tracing::error!(error = %e, "reading a rating for the pool failed");
            (None, None)
        }
        Err(e) => {
            tracing::error!(error = %e, "reading a rating for the pool panicked");
            (None, None)
        }
    };
    (rateable.then(|| rating.unwrap_or(0.0)), ghost)
}
