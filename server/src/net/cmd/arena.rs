//! `join_arena` and `leave_arena` (A7): identified players join an arena, upcoming or running,
//! and wait in its pool; its races are pool rooms carrying `settings.arena`, and `requeue` from
//! one goes back to the arena ([`super::pool::Queue::requeue`]). The arena a connection is a
//! member of is its [`Membership`]; the arena's state is [`crate::arena::Arenas`]'.

use protocol::{ErrorCode, IdentityKey, PlayerName, ServerMsg};

use super::identity::lookup;
use super::peer::Peer;
use super::pool::Queue;

/// The arena the connection joined, until it leaves. Boxed `str`, not `String`: it lives in
/// every connection's session and is rarely set.
#[derive(Default)]
pub(super) struct Membership(Option<Box<str>>);

impl Membership {
    /// `join_arena`: a member of `arena_id` from now, waiting in its pool for its races. The
    /// caller has checked that the connection is in no room and in no pool.
    pub(super) async fn join(
        &mut self,
        peer: &mut Peer,
        queue: &mut Queue,
        arena_id: String,
        name: String,
        key: Option<IdentityKey>,
    ) {
        let name = match PlayerName::try_from(name.as_str()) {
            Ok(name) => name,
            Err(why) => return peer.error(ErrorCode::InvalidName, why.to_string()),
        };
        if key.is_none() {
            return peer.error(ErrorCode::InvalidKey, "arenas are for registered players");
        }
        let who = match lookup(peer.server.play.store(), key, false).await {
            Ok((who, _)) => who,
            Err((code, message)) => return peer.error(code, message),
        };
        let Some(handle) = who.handle.clone() else {
            return peer.error(ErrorCode::InvalidKey, "arenas are for registered players");
        };
        self.quit(peer);
        let arenas = peer.server.play.arenas.clone();
        let (arena, standings, pool) =
            match arenas.join(&arena_id, &handle, name.clone(), &peer.outbox) {
                Ok(joined) => joined,
                Err((code, message)) => return peer.error(code, message),
            };
        let difficulty = arena.difficulty;
        peer.send(&ServerMsg::ArenaJoined { arena });
        peer.send(&standings);
        self.0 = Some(arena_id.into_boxed_str());
        queue
            .wait_in_arena(peer, pool, difficulty, name.to_string(), who)
            .await;
    }

    /// `leave_arena`: out of the arena (and its pool); the member's row stays in the standings.
    /// Whether it was in one (else the error is sent).
    pub(super) fn leave(&mut self, peer: &mut Peer) -> bool {
        let Some(arena_id) = self.0.take() else {
            peer.error(ErrorCode::UnknownArena, "you are in no arena");
            return false;
        };
        peer.server.play.arenas.leave(&arena_id, peer.outbox.id);
        let arena_id = arena_id.into_string();
        peer.send(&ServerMsg::LeftArena { arena_id });
        true
    }

    /// Out of the arena it is in, if any, with nothing to say (a new join, or the connection
    /// gone).
    pub(super) fn quit(&mut self, peer: &Peer) {
        if let Some(arena_id) = self.0.take() {
            peer.server.play.arenas.leave(&arena_id, peer.outbox.id);
        }
    }
}
