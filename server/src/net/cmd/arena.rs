//! `join_arena` and `leave_arena` (A7): identified players join an arena, upcoming or running,
//! and wait in its pool; its races are pool rooms carrying `settings.arena`, and `requeue` from
//! one goes back to the arena ([`Session::requeue`]). The arena's state is
//! [`crate::arena::Arenas`]'.

use protocol::{ErrorCode, IdentityKey, PlayerName, ServerMsg};

use super::identity::lookup;
use super::Session;

impl Session {
    /// `join_arena`: a member of `arena_id` from now, waiting in its pool for its races.
    pub(super) async fn join_arena(
        &mut self,
        arena_id: String,
        name: String,
        key: Option<IdentityKey>,
    ) {
        if self.already_in_room() || self.refused_draining() {
            return;
        }
        let name = match PlayerName::try_from(name.as_str()) {
            Ok(name) => name,
            Err(why) => return self.error(ErrorCode::InvalidName, why.to_string()),
        };
        if key.is_none() {
            return self.error(ErrorCode::InvalidKey, "arenas are for registered players");
        }
        let who = match lookup(&self.server.env.store, key, false).await {
            Ok((who, _)) => who,
            Err((code, message)) => return self.error(code, message),
        };
        let Some(handle) = who.handle.clone() else {
            return self.error(ErrorCode::InvalidKey, "arenas are for registered players");
        };
        if let Some(old) = self.arena.take() {
            self.server.arenas.leave(&old, self.outbox.id);
        }
        let arenas = self.server.arenas.clone();
        let (arena, standings, pool) =
            match arenas.join(&arena_id, &handle, name.clone(), &self.outbox) {
                Ok(joined) => joined,
                Err((code, message)) => return self.error(code, message),
            };
        let difficulty = arena.difficulty;
        self.send(&ServerMsg::ArenaJoined { arena });
        self.send(&standings);
        self.arena = Some(arena_id);
        self.wait_in_arena(pool, difficulty, name.to_string(), who)
            .await;
    }

    /// `leave_arena`: out of the arena (and its pool); the member's row stays in the standings.
    pub(super) fn leave_arena(&mut self) {
        let Some(arena_id) = self.arena.take() else {
            return self.error(ErrorCode::UnknownArena, "you are in no arena");
        };
        self.server.arenas.leave(&arena_id, self.outbox.id);
        if self.queue_pool.is_some() {
            // The arena's pool let the connection go; `current` forgets the ticket.
            self.current();
        }
        self.send(&ServerMsg::LeftArena { arena_id });
    }
}
