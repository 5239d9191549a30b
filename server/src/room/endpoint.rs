//! How a room reaches its members: a room task holds each one as an [`Endpoint`], a local
//! connection's [`Outbox`] or a [`RemoteConn`] on another node of a cluster, reached through a
//! [`Relay`]. The relay is the seam: the room layer defines it and the cluster layer
//! implements it, so nothing here knows Redis.

use std::fmt;
use std::sync::Arc;

use tokio_tungstenite::tungstenite::Utf8Bytes;

use crate::metrics::Metrics;
use crate::outbox::{CloseCode, ConnId, Outbox};

/// Conn ids of remote members have this bit set, so they never meet the node's own
/// connection ids (which count up from 1).
pub const REMOTE_BIT: u64 = 1 << 63;

/// How a room reaches members on other nodes: each call queues one message to one node, in
/// order, and never waits (a relay that cannot send counts and drops).
pub trait Relay: Send + Sync + fmt::Debug {
    /// The same serialized message for several of one node's connections.
    fn deliver(&self, node: &str, conns: Vec<u64>, bytes: Utf8Bytes);
    /// The room let go of a connection.
    fn detach(&self, node: &str, conn: u64);
    /// The room closes a connection with `code`.
    fn close(&self, node: &str, conn: u64, code: CloseCode);
    /// Ask a connection for a round trip (A8): its own node sends the Ping and times the
    /// Pong, and the sample comes back as the member's `RoomMsg::Lag`.
    fn probe(&self, node: &str, conn: u64);
}

/// A member on another node.
#[derive(Clone, Debug)]
pub struct RemoteConn {
    /// The id the room knows it by (with [`REMOTE_BIT`]).
    pub id: ConnId,
    /// The node its connection is on.
    pub node: Arc<str>,
    /// Its connection id on that node.
    pub conn: u64,
    /// The way there.
    pub relay: Arc<dyn Relay>,
}

/// A room member's way out.
#[derive(Clone, Debug)]
pub enum Endpoint {
    /// A connection on this node.
    Local(Outbox),
    /// A connection on another node.
    Remote(RemoteConn),
}

impl Endpoint {
    /// The id the room knows the member by.
    pub fn id(&self) -> ConnId {
        match self {
            Endpoint::Local(o) => o.id,
            Endpoint::Remote(r) => r.id,
        }
    }

    /// The room has let go of it.
    pub fn detach(&self) {
        match self {
            Endpoint::Local(o) => o.detach(),
            Endpoint::Remote(r) => r.relay.detach(&r.node, r.conn),
        }
    }

    /// Ask it for a round trip (A8).
    pub fn probe(&self) {
        match self {
            Endpoint::Local(o) => {
                o.probe();
            }
            Endpoint::Remote(r) => r.relay.probe(&r.node, r.conn),
        }
    }

    /// Let go of it and close its connection with `code`.
    pub fn close(&self, code: CloseCode) {
        match self {
            Endpoint::Local(o) => {
                o.detach();
                o.close(code);
            }
            Endpoint::Remote(r) => r.relay.close(&r.node, r.conn, code),
        }
    }
}

/// Send `bytes` to every member in `to`: straight into local queues, and once per other node
/// for the members there (the same bytes for all of them).
pub fn deliver<'a>(to: impl Iterator<Item = &'a Endpoint>, bytes: &Utf8Bytes, metrics: &Metrics) {
    // Rooms hold a few dozen members at most: a small list beats a map.
    let mut remote: Vec<(&RemoteConn, Vec<u64>)> = Vec::new();
    let mut sent = 0;
    for m in to {
        match m {
            Endpoint::Local(o) => {
                sent += u64::from(o.push_text(bytes.clone(), metrics));
            }
            Endpoint::Remote(r) => match remote.iter_mut().find(|(n, _)| n.node == r.node) {
                Some((_, ids)) => ids.push(r.conn),
                None => remote.push((r, vec![r.conn])),
            },
        }
    }
    metrics.messages_out.inc_by(sent);
    for (r, ids) in remote {
        r.relay.deliver(&r.node, ids, bytes.clone());
    }
}
