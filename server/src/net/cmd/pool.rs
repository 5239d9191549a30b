//! `quick_race`, `leave_queue` and `requeue` (A7): into the pool of a difficulty, out of it,
//! and from a finished pool room back into it with the room's other players (a rematch chain).
//! The connection's ticket and the pool it is in are its [`Queue`]'s.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use engine::Difficulty;
use protocol::{ErrorCode, IdentityKey, ServerMsg};
use tokio::sync::oneshot;

use super::in_room::RoomLink;
use super::peer::Peer;
use crate::clock::unix_ms;
use crate::net::Transport;
use crate::pool::queue::{Entrant, Pool, Seat, Ticket};
use crate::room::handle::{Identity, Requeued, RoomCmd, RoomHandle};
use crate::store::period::utc_date;
use crate::store::{GhostRef, Store, StoreError};

/// The connection's place in a pool (A7), until the pool seats it or it leaves.
#[derive(Default)]
pub(super) struct Queue {
    ticket: Option<Arc<Ticket>>,
    /// The arena pool the ticket is in (`None`: the open pool).
    pool: Option<Arc<Pool>>,
}

impl Queue {
    /// Whether the connection waits in a pool.
    pub(super) fn waiting(&self) -> bool {
        self.ticket.is_some()
    }

    /// Whether the ticket is in an arena's pool.
    pub(super) fn in_arena_pool(&self) -> bool {
        self.pool.is_some()
    }

    /// The room the pool seated the connection in, once: the ticket is done then, as it is
    /// when the pool let the connection go.
    pub(super) fn seated(&mut self) -> Option<(RoomHandle, u64)> {
        let seat = self.ticket.as_ref()?.seat();
        match seat {
            Seat::Waiting => None,
            Seat::Seated { room, generation } => {
                self.forget();
                Some((room, generation))
            }
            Seat::Out => {
                self.forget();
                None
            }
        }
    }

    fn forget(&mut self) {
        self.ticket = None;
        self.pool = None;
    }

    /// The pool the ticket is in: an arena's, or the open pool.
    fn pool(&self, server: &Transport) -> Arc<Pool> {
        self.pool
            .clone()
            .unwrap_or_else(|| server.play.pool.clone())
    }

    /// `quick_race`: wait in the pool of `difficulty` for a race with strangers.
    pub(super) async fn quick_race(
        &mut self,
        peer: &mut Peer,
        difficulty: String,
        name: String,
        key: Option<IdentityKey>,
        bot: bool,
    ) {
        let Ok(difficulty) = difficulty.parse::<Difficulty>() else {
            let why = format!("difficulty: unknown {difficulty:?}");
            return peer.error(ErrorCode::InvalidSettings, why);
        };
        if let Err(why) = protocol::PlayerName::try_from(name.as_str()) {
            return peer.error(ErrorCode::InvalidName, why.to_string());
        }
        let Some(who) = peer.identify(key, bot).await else {
            return;
        };
        let (rating, ghost) = standing_of(peer.server.play.store(), &who, difficulty).await;
        let entrant = entrant(peer, name, who, rating, ghost, None);
        self.ticket = Some(peer.server.play.pool.enqueue(difficulty, entrant).await);
    }

    /// `leave_queue`: out of the pool.
    pub(super) async fn leave_queue(&mut self, peer: &mut Peer) {
        let Some(ticket) = self.ticket.take() else {
            return peer.error(ErrorCode::NotInQueue, "not in the pool");
        };
        let pool = self.pool(&peer.server);
        if pool.quit(ticket.difficulty, peer.outbox.id, false).await {
            self.pool = None;
            peer.send(&ServerMsg::LeftQueue);
        } else {
            // Seated a moment ago: `room_joined` is on its way.
            self.ticket = Some(ticket);
            peer.error(ErrorCode::NotInQueue, "already seated in a race");
        }
    }

    /// The connection is gone: out of the pool, if it waits in one.
    pub(super) async fn quit(&mut self, peer: &Peer) {
        if let Some(ticket) = self.ticket.take() {
            let pool = self.pool(&peer.server);
            pool.quit(ticket.difficulty, peer.outbox.id, true).await;
        }
    }

    /// `requeue`: from a finished pool room, `room`, back into its difficulty's pool, chained
    /// with the room's other players who requeue (A7).
    pub(super) async fn requeue(&mut self, peer: &mut Peer, link: &mut RoomLink, room: RoomHandle) {
        if peer.refused_draining() {
            return;
        }
        let (reply, answer) = oneshot::channel();
        let cmd = RoomCmd::requeue(peer.outbox.id, reply);
        if room.tx.send(cmd).await.is_err() {
            return peer.not_in_room(self.waiting());
        }
        let Ok(Some(left)) = answer.await else {
            return; // the room sent its reason
        };
        link.clear();
        if let Some(arena_id) = left.arena.clone() {
            return self.back_to_arena(peer, &arena_id, left).await;
        }
        let store = peer.server.play.store();
        let (rating, ghost) = standing_of(store, &left.who, left.difficulty).await;
        let mut h = DefaultHasher::new();
        room.code.hash(&mut h);
        let chain = Some(h.finish());
        let entrant = entrant(peer, left.name, left.who, rating, ghost, chain);
        self.ticket = Some(
            peer.server
                .play
                .pool
                .enqueue(left.difficulty, entrant)
                .await,
        );
    }

    /// From an arena room back into the arena's pool, while it runs and the player is in it.
    async fn back_to_arena(&mut self, peer: &mut Peer, arena_id: &str, left: Requeued) {
        let handle = left.who.handle.clone().unwrap_or_default();
        let pool = match peer.server.play.arenas.back(arena_id, &handle) {
            Ok(pool) => pool,
            Err((code, message)) => return peer.error(code, message),
        };
        self.wait_in_arena(peer, pool, left.difficulty, left.name, left.who)
            .await;
    }

    /// Wait in an arena's pool: no rating band, no ghost offer, no chain.
    pub(super) async fn wait_in_arena(
        &mut self,
        peer: &Peer,
        pool: Arc<Pool>,
        difficulty: Difficulty,
        name: String,
        who: Identity,
    ) {
        let entrant = entrant(peer, name, who, None, None, None);
        self.ticket = Some(pool.enqueue(difficulty, entrant).await);
        self.pool = Some(pool);
    }
}

/// The connection as a pool's entrant.
fn entrant(
    peer: &Peer,
    name: String,
    who: Identity,
    rating: Option<f64>,
    ghost: Option<String>,
    chain: Option<u64>,
) -> Entrant {
    Entrant {
        outbox: peer.outbox.clone(),
        addr: peer.client,
        name,
        who,
        rating,
        ghost,
        chain,
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
