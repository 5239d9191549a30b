//! A lost owner's rooms, as this node's members of them see it (A9): they wait to be taken
//! over by another node, follow the room to its new owner, or, past `--takeover-s`, end.

use std::sync::Arc;

use protocol::{ClosedReason, RoomCode, ServerMsg};

use super::MemberSide;
use crate::outbox::CloseCode;

impl MemberSide {
    /// Node `n`, the owner of rooms this node's connections are in, is gone: its rooms wait
    /// to be taken over by another node (A9, [`MemberSide::reowned`]); their connections stay.
    pub(in crate::cluster) fn orphan_rooms_of(&self, n: &Arc<str>) {
        let at = super::super::now();
        for mut m in self.members.iter_mut() {
            if m.owner == *n && m.orphaned.is_none() {
                m.orphaned = Some(at);
            }
        }
    }

    /// The rooms waiting to be taken over.
    pub(in crate::cluster) fn orphaned_rooms(&self) -> Vec<RoomCode> {
        let mut rooms: Vec<RoomCode> = self
            .members
            .iter()
            .filter(|m| m.orphaned.is_some())
            .map(|m| m.room.clone())
            .collect();
        rooms.sort();
        rooms.dedup();
        rooms
    }

    /// Room `code` was taken over by node `owner`: its members here are its members there.
    pub(in crate::cluster) fn reowned(&self, code: &RoomCode, owner: &Arc<str>) {
        for mut m in self.members.iter_mut() {
            if m.room == *code && m.orphaned.is_some() {
                m.owner = owner.clone();
                m.orphaned = None;
            }
        }
    }

    /// Rooms that waited `longer` than this to be taken over are lost: every member here
    /// hears `room_closed` (`node_lost`) and is closed with 1012 (the service restarts), as
    /// the contract says for a room lost.
    pub(in crate::cluster) fn close_orphans(&self, longer: std::time::Duration) {
        let now = super::super::now();
        let gone: Vec<u64> = self
            .members
            .iter()
            .filter(|m| {
                m.orphaned
                    .is_some_and(|t| now.saturating_duration_since(t) >= longer)
            })
            .map(|m| *m.key())
            .collect();
        for c in gone {
            if let Some((_, m)) = self.members.remove(&c) {
                m.outbox.send(
                    &ServerMsg::RoomClosed {
                        room: m.room.clone(),
                        reason: Some(ClosedReason::NodeLost),
                    },
                    &self.metrics,
                );
                m.outbox.detach();
                m.outbox.close(CloseCode::ServiceRestart);
            }
        }
    }
}
