//! One handler per client command (after mini-redis's `cmd/`): the connection's reader
//! ([`super::conn`]) parses a message and hands it to [`Session::apply`], which dispatches it to
//! the module that owns it. A [`Session`] is what one connection knows between messages: its
//! way out, its address, and the room it is in.
//!
//! - [`rooms`]: `list_rooms`, `create_room`, `join_room`, `spectate`, `resume`: finding and
//!   entering rooms (through [`crate::room::rooms::Rooms`], whichever node owns them).
//! - [`in_room`]: `leave` and the messages a room handles (ready, start, forfeit, place, chat,
//!   settings, kick, report).
//! - [`identity`]: `register`, and a key becoming the [`crate::room::handle::Who`] a room sees.
//! - [`daily`]: `start_daily`, the day's one attempt.
//! - [`pool`]: `quick_race`, `leave_queue`, `requeue`: waiting for a race with strangers (A7).
//! - [`ghost`]: `race_ghost`: racing a stored replay (A7).
//! - [`arena`]: `join_arena`, `leave_arena`: racing an arena's members back to back (A7).

mod arena;
pub mod daily;
mod ghost;
pub mod identity;
mod in_room;
mod pool;
mod rooms;

use std::net::IpAddr;
use std::sync::Arc;

use protocol::{ClientMsg, ErrorCode, Role, ServerMsg};
use tokio::sync::oneshot;

use super::Transport;
use crate::outbox::Outbox;
use crate::pool::queue::{Pool, Seat, Ticket};
use crate::room::command::FromClient;
use crate::room::handle::{JoinOutcome, RoomCmd, RoomHandle, RoomMsg};

/// The room a connection is in, valid while the room has not let go of it.
struct Link {
    room: RoomHandle,
    generation: u64,
}

/// One connection's state between its messages.
pub(super) struct Session {
    server: Arc<Transport>,
    outbox: Outbox,
    /// The client's address (the peer's, or a trusted proxy's word for it).
    client: IpAddr,
    link: Option<Link>,
    /// Its place in the pool (A7), until the pool seats it or it leaves.
    ticket: Option<Arc<Ticket>>,
    /// The arena pool the ticket is in (`None`: the open pool).
    queue_pool: Option<Arc<Pool>>,
    /// The arena it joined (A7), until it leaves.
    arena: Option<String>,
    warned: bool,
    /// Identities this connection has registered.
    registered: u8,
}

impl Session {
    /// A connection from `client` that answers through `outbox`, in no room yet.
    pub(super) fn new(server: Arc<Transport>, outbox: Outbox, client: IpAddr) -> Session {
        Session {
            server,
            outbox,
            client,
            link: None,
            ticket: None,
            queue_pool: None,
            arena: None,
            warned: false,
            registered: 0,
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
            FromClient::Other(ClientMsg::Ping { id }) => self.send(&ServerMsg::Pong { id }),
            FromClient::Other(ClientMsg::LeaveArena) => self.leave_arena(),
            FromClient::Other(msg) => Box::pin(self.apply_rare(msg)).await,
        }
    }

    /// The messages [`Session::apply`] boxes.
    async fn apply_rare(&mut self, msg: ClientMsg) {
        match msg {
            ClientMsg::ListRooms => self.list_rooms().await,
            ClientMsg::CreateRoom {
                name,
                settings,
                key,
                bot,
            } => {
                if let Some(who) = self.identify(key, bot).await {
                    self.create(name, settings, who).await;
                }
            }
            ClientMsg::JoinRoom {
                room,
                name,
                key,
                bot,
            } => {
                if let Some(who) = self.identify(key, bot).await {
                    self.enter(&room, Some(name), Role::Player, who).await;
                }
            }
            ClientMsg::Spectate {
                room,
                name,
                key,
                boards,
            } => {
                let Some(who) = self.identify(key, false).await else {
                    return;
                };
                // A8: the room hears of `boards` once the spectator is in (the same command
                // reaches a room on another node through the relay).
                if self.enter(&room, name, Role::Spectator, who).await && boards {
                    self.forward(RoomMsg::WatchBoards).await;
                }
            }
            ClientMsg::Register { name } => self.register(name).await,
            ClientMsg::Resume { token } => self.resume(token).await,
            ClientMsg::Leave => self.leave().await,
            ClientMsg::StartDaily { difficulty, key } => self.start_daily(difficulty, key).await,
            ClientMsg::QuickRace {
                difficulty,
                name,
                key,
                bot,
            } => self.quick_race(difficulty, name, key, bot).await,
            ClientMsg::LeaveQueue => self.leave_queue().await,
            ClientMsg::Requeue => self.requeue().await,
            ClientMsg::RaceGhost {
                ghost,
                difficulty,
                name,
                key,
            } => self.race_ghost(ghost, difficulty, name, key).await,
            ClientMsg::JoinArena {
                arena_id,
                name,
                key,
            } => self.join_arena(arena_id, name, key).await,
            // Handled inline by `apply`.
            ClientMsg::Ping { .. }
            | ClientMsg::SetReady { .. }
            | ClientMsg::StartRace
            | ClientMsg::Forfeit
            | ClientMsg::Place { .. }
            | ClientMsg::Chat { .. }
            | ClientMsg::SetSettings { .. }
            | ClientMsg::Kick { .. }
            | ClientMsg::LeaveArena
            | ClientMsg::Report { .. } => {}
        }
    }

    /// The room this connection is in, if the room still holds it (a pool's seat included).
    pub(super) fn current(&mut self) -> Option<RoomHandle> {
        if let Some(ticket) = &self.ticket {
            match ticket.seat() {
                Seat::Waiting => {}
                Seat::Seated { room, generation } => {
                    self.link = Some(Link { room, generation });
                    self.ticket = None;
                    self.queue_pool = None;
                }
                Seat::Out => {
                    self.ticket = None;
                    self.queue_pool = None;
                }
            }
        }
        let gen = self.outbox.room_gen();
        match &self.link {
            Some(l) if l.generation == gen && !l.room.tx.is_closed() => Some(l.room.clone()),
            Some(_) => {
                self.link = None;
                None
            }
            None => None,
        }
    }

    fn send(&self, msg: &ServerMsg) {
        self.outbox.send(msg, &self.server.metrics);
    }

    /// The contract's error for this client; misbehaviour is logged once per connection.
    pub(super) fn error(&mut self, code: ErrorCode, message: impl Into<String>) {
        let message = message.into();
        if matches!(code, ErrorCode::BadMessage | ErrorCode::RateLimited) && !self.warned {
            self.warned = true;
            tracing::warn!(?code, message, "misbehaving client");
        }
        self.send(&ServerMsg::Error { code, message });
    }

    fn already_in_room(&mut self) -> bool {
        if self.current().is_some() {
            self.error(ErrorCode::AlreadyInRoom, "leave your room first");
            return true;
        }
        if self.ticket.is_some() {
            self.error(ErrorCode::WrongPhase, "in the pool: send leave_queue first");
            return true;
        }
        false
    }

    /// A draining server (A9) takes no new pool entry or arena wait: `server_draining`.
    pub(super) fn refused_draining(&mut self) -> bool {
        if !self.server.rooms.draining() {
            return false;
        }
        let why = "the server is restarting for an update: connect again";
        self.error(ErrorCode::ServerDraining, why);
        true
    }

    /// The error for a room's message from a connection in no room: `wrong_phase` while it
    /// waits in the pool (A7), else `not_in_room`.
    pub(super) fn not_in_room(&mut self) {
        if self.ticket.is_some() {
            self.error(ErrorCode::WrongPhase, "in the pool: no room yet");
        } else {
            self.error(ErrorCode::NotInRoom, "not in a room");
        }
    }

    /// The connection is gone: its room, or its pool, lets go of it.
    pub(super) async fn close(&mut self) {
        if let Some(room) = self.current() {
            let _ = room.tx.send(RoomCmd::dropped(self.outbox.id)).await;
        } else if let Some(ticket) = self.ticket.take() {
            let pool = self.pool();
            pool.quit(ticket.difficulty, self.outbox.id, true).await;
        }
        if let Some(arena_id) = self.arena.take() {
            self.server.arenas.leave(&arena_id, self.outbox.id);
        }
    }

    /// The pool the connection's ticket is in: an arena's, or the open pool.
    fn pool(&self) -> Arc<Pool> {
        self.queue_pool
            .clone()
            .unwrap_or_else(|| self.server.pool.clone())
    }

    /// Wait for the room's answer to a join, create or resume; link on success.
    async fn linked(
        &mut self,
        room: RoomHandle,
        generation: u64,
        answer: oneshot::Receiver<JoinOutcome>,
    ) -> bool {
        match answer.await {
            Ok(JoinOutcome::Refused) => false,
            Ok(joined) => {
                let span = tracing::Span::current();
                span.record("room", room.code.as_str());
                if let JoinOutcome::Player(pid) = &joined {
                    span.record("player_id", pid.as_str());
                }
                self.link = Some(Link { room, generation });
                true
            }
            Err(_) => {
                self.error(ErrorCode::UnknownRoom, "the room has closed");
                false
            }
        }
    }
}
