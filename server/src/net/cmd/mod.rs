//! One handler per client command (after mini-redis's `cmd/`): the connection's reader
//! ([`super::conn`]) parses a message and hands it to [`Session::apply`], which dispatches it to
//! the module that owns it. A [`Session`] is what one connection knows between messages,
//! composed of parts that each own their fields, and a handler takes the parts it needs:
//!
//! - `peer`: the `Peer`, the way out every handler answers through (the server, the
//!   outbox, the client's address, whether it was warned).
//! - [`in_room`]: the `RoomLink`, the room the connection is in; `leave` and the
//!   messages a room handles (ready, start, forfeit, place, chat, settings, kick, report).
//! - [`rooms`]: `list_rooms`, `create_room`, `join_room`, `spectate`, `resume`: finding and
//!   entering rooms (through [`crate::room::rooms::Rooms`], whichever node owns them).
//! - [`identity`]: `register` and its `Registrations`, and a key becoming the
//!   [`crate::room::handle::Identity`] a room sees.
//! - [`daily`]: `start_daily`, the day's one attempt.
//! - [`pool`]: `quick_race`, `leave_queue`, `requeue` and the `Queue`: waiting for a
//!   race with strangers (A7).
//! - [`ghost`]: `race_ghost`: racing a stored replay (A7).
//! - [`arena`]: `join_arena`, `leave_arena` and the `Membership`: racing an arena's
//!   members back to back (A7).
//!
//! The session itself decides only what spans its parts: whether the connection is free to
//! enter a room or a pool, and which room it is in (a pool's seat becomes its room link).

mod arena;
pub mod daily;
mod ghost;
pub mod identity;
mod in_room;
mod peer;
mod pool;
mod rooms;

use std::net::IpAddr;
use std::sync::Arc;

use engine::Variant;
use protocol::variant::Draws;
use protocol::{ClientMsg, ErrorCode, Role, ServerMsg};

use super::Transport;
use crate::outbox::Outbox;
use crate::room::command::FromClient;
use crate::room::handle::{Identity, RoomCmd, RoomHandle, RoomMsg};

/// One connection's state between its messages.
pub(super) struct Session {
    peer: peer::Peer,
    link: in_room::RoomLink,
    queue: pool::Queue,
    arena: arena::Membership,
    registered: identity::Registrations,
}

impl Session {
    /// A connection from `client` that answers through `outbox`, in no room yet.
    pub(super) fn new(server: Arc<Transport>, outbox: Outbox, client: IpAddr) -> Session {
        Session {
            peer: peer::Peer::new(server, outbox, client),
            link: in_room::RoomLink::default(),
            queue: pool::Queue::default(),
            arena: arena::Membership::default(),
            registered: identity::Registrations::default(),
        }
    }

    /// Carry out one client message. What a race sends runs inline; the rest (joining,
    /// identities, the pool, the daily) is boxed: its futures await the store and the
    /// directory and are large, and inline they would size every connection's task, idle or
    /// not, while they run a few times per connection.
    pub(super) async fn apply(&mut self, msg: ClientMsg) {
        match RoomMsg::from_client(msg) {
            FromClient::Room(msg) => self.forward(msg).await,
            FromClient::Bad(code, why) => self.error(code, why),
            FromClient::Other(ClientMsg::Ping { id }) => self.peer.send(&ServerMsg::Pong { id }),
            FromClient::Other(ClientMsg::LeaveArena) => {
                if self.arena.leave(&mut self.peer) && self.queue.in_arena_pool() {
                    // The arena's pool let the connection go; `current` forgets the ticket.
                    self.current();
                }
            }
            FromClient::Other(msg) => Box::pin(self.apply_rare(msg)).await,
        }
    }

    /// The messages [`Session::apply`] boxes; those that enter a room go on to
    /// [`Session::apply_entering`].
    async fn apply_rare(&mut self, msg: ClientMsg) {
        match msg {
            ClientMsg::ListRooms => rooms::list_rooms(&self.peer).await,
            ClientMsg::Register { name } => self.registered.register(&mut self.peer, name).await,
            ClientMsg::Leave => {
                if let Some(room) = self.room() {
                    self.link.leave(&mut self.peer, room).await;
                }
            }
            ClientMsg::LeaveQueue => self.queue.leave_queue(&mut self.peer).await,
            ClientMsg::Requeue => {
                if let Some(room) = self.room() {
                    let (peer, link) = (&mut self.peer, &mut self.link);
                    self.queue.requeue(peer, link, room).await;
                }
            }
            ClientMsg::QuickRace {
                difficulty,
                name,
                key,
                bot,
                variant,
                ..
            } => {
                if self.free()
                    && !self.peer.refused_draining()
                    && classic_only(&mut self.peer, variant, "pool")
                {
                    let (peer, queue) = (&mut self.peer, &mut self.queue);
                    queue.quick_race(peer, difficulty, name, key, bot).await;
                }
            }
            ClientMsg::JoinArena {
                arena_id,
                name,
                key,
                variant,
                ..
            } => {
                if self.free()
                    && !self.peer.refused_draining()
                    && classic_only(&mut self.peer, variant, "arena")
                {
                    let (peer, queue) = (&mut self.peer, &mut self.queue);
                    self.arena.join(peer, queue, arena_id, name, key).await;
                }
            }
            msg @ (ClientMsg::CreateRoom { .. }
            | ClientMsg::JoinRoom { .. }
            | ClientMsg::Spectate { .. }
            | ClientMsg::Resume { .. }
            | ClientMsg::StartDaily { .. }
            | ClientMsg::RaceGhost { .. }) => self.apply_entering(msg).await,
            // `apply` handles `Ping`, `LeaveArena` and every room message (read by
            // `RoomMsg::from_client`, beside the room command each becomes: a new room message
            // touches only its command and its rule). Anything else is a message nobody handles.
            msg => tracing::warn!(?msg, "a client message that no handler takes"),
        }
    }

    /// The messages that put a connection in no room and no pool into a room ([`rooms`],
    /// [`daily`], [`ghost`]); each enters only if the connection is free to, after its key is
    /// read where it has one.
    async fn apply_entering(&mut self, msg: ClientMsg) {
        match msg {
            ClientMsg::CreateRoom {
                name,
                settings,
                key,
                bot,
                variants,
            } => {
                if let Some(who) = self.peer.identify(key, bot).await {
                    let who = drawing(who, variants);
                    if self.free() {
                        rooms::create(&mut self.peer, &mut self.link, name, settings, who).await;
                    }
                }
            }
            ClientMsg::JoinRoom {
                room,
                name,
                key,
                bot,
                variants,
            } => {
                if let Some(who) = self.peer.identify(key, bot).await {
                    let who = drawing(who, variants);
                    if self.free() {
                        let (peer, link) = (&mut self.peer, &mut self.link);
                        rooms::enter(peer, link, &room, Some(name), Role::Player, who).await;
                    }
                }
            }
            ClientMsg::Spectate {
                room,
                name,
                key,
                boards,
                variants,
            } => {
                let Some(who) = self.peer.identify(key, false).await else {
                    return;
                };
                let who = drawing(who, variants);
                // A8: the room hears of `boards` once the spectator is in (the same command
                // reaches a room on another node through the relay).
                if !self.free() {
                    return;
                }
                let (peer, link) = (&mut self.peer, &mut self.link);
                if rooms::enter(peer, link, &room, name, Role::Spectator, who).await && boards {
                    self.forward(RoomMsg::WatchBoards).await;
                }
            }
            msg => self.apply_fixed(msg).await,
        }
    }

    /// The messages that enter a room by a token, or a room of a puzzle fixed in advance
    /// (the daily's, a ghost's), in no room and no pool.
    async fn apply_fixed(&mut self, msg: ClientMsg) {
        match msg {
            ClientMsg::Resume { token, variants } => {
                if !self.free() {
                    return;
                }
                let draws = Draws::of(variants.as_deref());
                rooms::resume(&mut self.peer, &mut self.link, token, draws).await;
            }
            ClientMsg::StartDaily {
                difficulty,
                key,
                variant,
                ..
            } => {
                if !self.free() || !classic_only(&mut self.peer, variant, "daily") {
                    return;
                }
                let (peer, link) = (&mut self.peer, &mut self.link);
                if daily::start_daily(peer, link, difficulty, key).await {
                    self.forward(RoomMsg::StartRace).await;
                }
            }
            ClientMsg::RaceGhost {
                ghost,
                difficulty,
                name,
                key,
                variant,
                ..
            } => {
                if !self.free() || !classic_only(&mut self.peer, variant, "ghost") {
                    return;
                }
                let (peer, link) = (&mut self.peer, &mut self.link);
                if ghost::race_ghost(peer, link, ghost, difficulty, name, key).await {
                    self.forward(RoomMsg::StartRace).await;
                }
            }
            // The others never come here (`apply_rare` sends only these six).
            _ => {}
        }
    }

    /// Whether the connection may enter a room or a pool: in neither (else the error is sent).
    fn free(&mut self) -> bool {
        if self.current().is_some() {
            self.error(ErrorCode::AlreadyInRoom, "leave your room first");
            return false;
        }
        if self.queue.waiting() {
            self.error(ErrorCode::WrongPhase, "in the pool: send leave_queue first");
            return false;
        }
        true
    }

    /// The room this connection is in, if the room still holds it (a pool's seat included).
    pub(super) fn current(&mut self) -> Option<RoomHandle> {
        if let Some((room, generation)) = self.queue.seated() {
            self.link.set(room, generation);
        }
        self.link.current(self.peer.outbox.room_gen())
    }

    /// [`Session::current`] for a message to the room; without one, the error says why.
    fn room(&mut self) -> Option<RoomHandle> {
        let room = self.current();
        if room.is_none() {
            self.peer.not_in_room(self.queue.waiting());
        }
        room
    }

    /// A message for the connection's room.
    async fn forward(&mut self, msg: RoomMsg) {
        if let Some(room) = self.room() {
            self.link.forward(&mut self.peer, room, msg).await;
        }
    }

    /// A round trip measured to this connection (A8), for its room; nothing to say if it has
    /// none (the probe outlived its room).
    pub(super) async fn lag_sample(&mut self, rtt_ms: u32) {
        if let Some(room) = self.current() {
            let id = self.peer.outbox.id;
            self.link.lag_sample(id, room, rtt_ms).await;
        }
    }

    /// The contract's error for this client; misbehaviour is logged once per connection.
    pub(super) fn error(&mut self, code: ErrorCode, message: impl Into<String>) {
        self.peer.error(code, message);
    }

    /// The connection is gone: its room, or its pool, lets go of it; so does its arena.
    pub(super) async fn close(&mut self) {
        if let Some(room) = self.current() {
            let _ = room.tx.send(RoomCmd::dropped(self.peer.outbox.id)).await;
        } else {
            self.queue.quit(&self.peer).await;
        }
        self.arena.quit(&self.peer);
    }
}

/// `who`, as a client that sent `variants` draws (A10).
fn drawing(mut who: Identity, variants: Option<Vec<String>>) -> Identity {
    who.draws = Draws::of(variants.as_deref());
    who
}

/// A10: the pools, dailies, ghosts and arenas deal classic Sudoku only so far (a variant's
/// race is a room's, `settings.variant`): a request for another variant's is refused
/// clearly, never dealt classic instead. Whether the request may go on.
fn classic_only(peer: &mut peer::Peer, variant: Option<String>, what: &str) -> bool {
    match variant.as_deref().map(str::parse::<Variant>) {
        None | Some(Ok(Variant::Classic)) => true,
        Some(Err(e)) => {
            peer.error(ErrorCode::InvalidSettings, format!("variant: {e}"));
            false
        }
        Some(Ok(v)) => {
            let why = format!(
                "this server has no {v} {what}, only classic's: race {v} in a room (create_room with settings.variant)"
            );
            peer.error(ErrorCode::UnsupportedVariant, why);
            false
        }
    }
}
