//! What every command's handler needs of its connection, and owns nothing of a room, the pool
//! or an arena: the server it answers for, its outbox, its client's address, and whether it has
//! been warned about misbehaving (once per connection). A key becomes an identity through it
//! in [`super::identity`].

use std::net::IpAddr;
use std::sync::Arc;

use protocol::{ErrorCode, ServerMsg};

use crate::net::Transport;
use crate::outbox::Outbox;

/// One connection as its handlers answer through it.
pub(super) struct Peer {
    pub(super) server: Arc<Transport>,
    pub(super) outbox: Outbox,
    /// The client's address (the peer's, or a trusted proxy's word for it).
    pub(super) client: IpAddr,
    warned: bool,
}

impl Peer {
    /// A connection from `client` that answers through `outbox`.
    pub(super) fn new(server: Arc<Transport>, outbox: Outbox, client: IpAddr) -> Peer {
        Peer {
            server,
            outbox,
            client,
            warned: false,
        }
    }

    pub(super) fn send(&self, msg: &ServerMsg) {
        self.outbox.send(msg, &self.server.metrics);
    }

    /// The contract's error for this client; misbehaviour is logged once per connection.
    pub(super) fn error(&mut self, code: ErrorCode, message: impl Into<String>) {
        let message = message.into();
        if matches!(code, ErrorCode::BadMessage | ErrorCode::RateLimited) && !self.warned {
            self.warned = true;
            tracing::warn!(?code, message, "misbehaving client");
        }
        self.send(&ServerMsg::Error {
            code,
            message,
            retry_ms: None,
        });
    }

    /// The room is moving to another server (A12): try again after a moment.
    pub(super) fn moving(&mut self) {
        self.send(&crate::room::task::room_moving(
            "the race is moving to another server: trying again",
        ));
    }

    /// A draining server (A9) takes no new pool entry or arena wait: `server_draining`.
    pub(super) fn refused_draining(&mut self) -> bool {
        if !self.server.play.rooms.draining() {
            return false;
        }
        let why = "the server is restarting for an update: connect again";
        self.error(ErrorCode::ServerDraining, why);
        true
    }

    /// The error for a room's message from a connection in no room: `wrong_phase` while it
    /// waits in the pool (A7), else `not_in_room`.
    pub(super) fn not_in_room(&mut self, in_pool: bool) {
        if in_pool {
            self.error(ErrorCode::WrongPhase, "in the pool: no room yet");
        } else {
            self.error(ErrorCode::NotInRoom, "not in a room");
        }
    }
}
