//! Finding and opening rooms: the one interface the network layer uses, whether the server runs
//! alone or as one node of a cluster. [`Rooms`] looks in this node's [`Directory`] first and,
//! in cluster mode, then asks the [`OtherNodes`] it was given (implemented by
//! `crate::cluster`), so callers never ask whether they run clustered.
//!
//! The room-code claim loop and the per-address limit are written here once: a code is free
//! when this node has no such room and, in a cluster, when the claim across nodes succeeds.

use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;

use futures::future::BoxFuture;
use protocol::{ResumeToken, RoomCode, RoomSummary};
use tokio::sync::oneshot;

use super::directory::{self, Directory, OpenError};
use super::handle::{JoinOutcome, RoomHandle, RoomInfo};
use super::task::{self, NewRoom, RoomEnv};

/// Codes tried before a crowded server gives up on finding a free one.
const CODE_TRIES: u32 = 64;
/// The same in a cluster, where each try is a claim across nodes (a Redis round trip or two).
const CLUSTER_CODE_TRIES: u32 = 16;

/// The shared directory could not be reached; nothing was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unreachable;

/// This node as one of a cluster, as the room layer sees it: rooms that other nodes own, codes
/// claimed across nodes, and limits counted across nodes. Each answer that needs the shared
/// directory says [`Unreachable`] (or nothing found) when it cannot be had.
pub trait OtherNodes: Send + Sync + fmt::Debug {
    /// The room `code` when another node owns it, reached through this node's relay.
    fn find<'a>(&'a self, code: &'a RoomCode) -> BoxFuture<'a, Option<RoomHandle>>;
    /// The room a resume token belongs to, when another node owns it.
    fn find_by_token<'a>(&'a self, token: &'a ResumeToken) -> BoxFuture<'a, Option<RoomHandle>>;
    /// Every node's listed rooms (unsorted), or `None` when they cannot be had.
    fn list_public(&self) -> BoxFuture<'_, Option<Vec<RoomSummary>>>;
    /// Rooms open anywhere that were created from `ip`.
    fn rooms_from(&self, ip: IpAddr) -> BoxFuture<'_, Result<usize, Unreachable>>;
    /// Claim `code` for a room of this node created from `ip`: true when it was free
    /// everywhere and is now this node's (its traffic already reaches this node).
    fn claim<'a>(
        &'a self,
        code: &'a RoomCode,
        ip: IpAddr,
    ) -> BoxFuture<'a, Result<bool, Unreachable>>;
    /// Give up a claimed code whose room did not open.
    fn release(&self, code: &RoomCode, ip: IpAddr);
    /// What `/healthz` says of this node.
    fn health(&self) -> NodeHealth;
}

/// A cluster node's part of `/healthz`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeHealth {
    /// The node's id.
    pub node: String,
    /// Whether the shared directory answered lately.
    pub bus_up: bool,
}

/// A room just opened for its creator: how to reach it, and the answer to the creator's join.
pub type OpenedRoom = (RoomHandle, oneshot::Receiver<JoinOutcome>);

/// Every room this server can reach: its own, and (in a cluster) the other nodes'.
#[derive(Clone, Debug)]
pub struct Rooms {
    env: Arc<RoomEnv>,
    others: Option<Arc<dyn OtherNodes>>,
}

impl Rooms {
    /// The rooms of `env`'s directory, and of the other nodes when this is one of a cluster.
    pub fn new(env: Arc<RoomEnv>, others: Option<Arc<dyn OtherNodes>>) -> Rooms {
        Rooms { env, others }
    }

    /// The room with this code: this node's, or another node's.
    pub async fn find(&self, code: &RoomCode) -> Option<RoomHandle> {
        if let Some(room) = self.env.directory.find(code) {
            return Some(room);
        }
        self.others.as_ref()?.find(code).await
    }

    /// The room a resume token belongs to: this node's, or another node's.
    pub async fn find_by_token(&self, token: &ResumeToken) -> Option<RoomHandle> {
        if let Some(room) = self.env.directory.find_by_token(token) {
            return Some(room);
        }
        self.others.as_ref()?.find_by_token(token).await
    }

    /// The public rooms (A5), by code: every node's, or this node's own when the others
    /// cannot be asked.
    pub async fn list_public(&self) -> Vec<RoomSummary> {
        if let Some(others) = &self.others {
            if let Some(mut rows) = others.list_public().await {
                rows.sort_by(|a, b| a.room.cmp(&b.room));
                return rows;
            }
        }
        self.env.directory.list_public()
    }

    /// What this node's rooms share.
    pub fn env(&self) -> &Arc<RoomEnv> {
        &self.env
    }

    /// Whether the room with this code runs on this node (not on another of a cluster).
    pub fn runs_here(&self, code: &RoomCode) -> bool {
        self.env.directory.find(code).is_some()
    }

    /// This node's own rooms (the TV reads only these).
    pub fn here(&self) -> &Directory {
        &self.env.directory
    }

    /// Rooms open on this node.
    pub fn len(&self) -> usize {
        self.env.directory.len()
    }

    /// No room is open on this node.
    pub fn is_empty(&self) -> bool {
        self.env.directory.is_empty()
    }

    /// Whether this node is draining (A9): it opens no room, claims no code, seats nobody new.
    pub fn draining(&self) -> bool {
        self.env.draining.is_cancelled()
    }

    /// In a cluster: this node's part of `/healthz`.
    pub fn health(&self) -> Option<NodeHealth> {
        self.others.as_ref().map(|o| o.health())
    }

    /// Open a room on this node for its creator, under a fresh code free on every node, within
    /// the server's and the creator's address's room limits; answers whether the creator got in.
    pub async fn open(&self, new: NewRoom) -> Result<OpenedRoom, OpenError> {
        let ip = new.ip;
        let mut new = Some(new);
        self.claimed(ip, |code| {
            let room = new.take().ok_or(OpenError::NoFreeCode { tries: 0 })?;
            let settings = room.settings.clone();
            let opened = task::open(&self.env, Some(code.clone()), room)?;
            self.listed(code, settings);
            Ok(opened)
        })
        .await
    }

    /// Open a pool room of a cluster-wide pool (A7) on this node, counted against `ip` (its
    /// first player's address), with no seat yet: the `seats` players join from their own
    /// nodes, and it starts once they are seated, or `within` from now with whoever is.
    pub async fn open_pool(
        &self,
        ip: IpAddr,
        settings: protocol::Settings,
        seats: usize,
        within: std::time::Duration,
    ) -> Result<RoomHandle, OpenError> {
        self.claimed(ip, |code| {
            let room =
                task::open_pool(&self.env, code.clone(), ip, settings.clone(), seats, within)?;
            self.listed(code, settings.clone());
            Ok(room)
        })
        .await
    }

    /// Listed at once: the room task tells of changes only.
    fn listed(&self, code: &RoomCode, settings: protocol::Settings) {
        let info = RoomInfo {
            phase: protocol::Phase::Lobby,
            players: 1,
            settings,
            rating: None,
        };
        self.env.directory.changed(code, &info);
    }

    /// `open` a room under a fresh code free on every node, within the server's and `ip`'s
    /// room limits; a code whose room did not open is given up.
    async fn claimed<T>(
        &self,
        ip: IpAddr,
        mut open: impl FnMut(&RoomCode) -> Result<T, OpenError>,
    ) -> Result<T, OpenError> {
        if self.draining() {
            return Err(OpenError::Draining);
        }
        let dir = &self.env.directory;
        let tries = match &self.others {
            Some(others) => {
                let limit = dir.max_rooms_per_ip();
                let n = others.rooms_from(ip).await.map_err(unreachable)?;
                if n >= limit {
                    return Err(OpenError::AddressFull { ip, limit });
                }
                CLUSTER_CODE_TRIES
            }
            None => CODE_TRIES,
        };
        for _ in 0..tries {
            let code = directory::new_code();
            if dir.find(&code).is_some() {
                continue;
            }
            if let Some(others) = &self.others {
                if !others.claim(&code, ip).await.map_err(unreachable)? {
                    continue;
                }
            }
            return open(&code).inspect_err(|_| {
                if let Some(others) = &self.others {
                    others.release(&code, ip);
                }
            });
        }
        Err(OpenError::NoFreeCode { tries })
    }
}

fn unreachable(_: Unreachable) -> OpenError {
    tracing::warn!("the cluster directory is unreachable");
    OpenError::Unavailable
}
