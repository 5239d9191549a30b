//! The owner's side of the relay: commands that came up a room's channel from members on other
//! nodes become the room task's own commands, for a [`Endpoint::Remote`] that answers back down
//! the member node's channel. The room task cannot tell a relayed member from a local one.

use std::collections::HashMap;
use std::sync::Arc;

use protocol::{ResumeToken, RoomCode};
use shared::engine::{Cell, Digit};
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Bytes;

use super::wire::{self, Ctl, Outcome, Up};
use super::Node;
use crate::outbox::ConnId;
use crate::room::endpoint::{Endpoint, Relay, RemoteConn};
use crate::room::handle::{RoomCmd, RoomHandle, RoomMsg};

/// One member node's members in this node's rooms, by their connection there.
pub type Proxies = HashMap<u64, Proxy>;

/// A member on another node, as one of this node's rooms knows it.
#[derive(Clone, Debug)]
pub struct Proxy {
    /// The id the room knows it by.
    pub id: ConnId,
    /// The room.
    pub room: RoomCode,
}

impl Node {
    /// The room `code` names, if this node runs it.
    pub(super) fn room(&self, code: &str) -> Option<RoomHandle> {
        let code = RoomCode::try_from(code).ok()?;
        self.env()?.directory.find(&code)
    }

    /// Commands for room `code` from other nodes, as one publish carried them (the room is
    /// looked up once for all of them), each handed to the room when its queue has room.
    pub(super) async fn up(self: &Arc<Self>, code: &str, frames: Vec<Bytes>) {
        let room = self.room(code);
        for frame in frames {
            if wire::is_place(&frame) {
                if let (Some(room), Some(cmd)) = (&room, self.place(code, &frame)) {
                    let _ = room.tx.send(cmd).await;
                }
            } else {
                self.command(code, room.as_ref(), &frame).await;
            }
        }
    }

    /// The race-speed path: a placement frame as the room's command (`None`: it did not
    /// decode, or its member is not known here).
    pub(super) fn place(&self, code: &str, frame: &[u8]) -> Option<RoomCmd> {
        let p = match wire::decode_place(frame) {
            Ok(p) => p,
            Err(e) => {
                self.metrics.relay_errors.inc();
                tracing::warn!(error = %e, room = code, "a relayed placement did not decode");
                return None;
            }
        };
        let msg = RoomMsg::Place {
            cell: Cell::new(p.cell)?,
            digit: Digit::new(p.digit)?,
            id: p.id,
        };
        Some(RoomCmd::Msg {
            conn: self.proxy_of(p.from, p.conn)?,
            msg,
        })
    }

    /// Any other command.
    async fn command(self: &Arc<Self>, code: &str, room: Option<&RoomHandle>, frame: &[u8]) {
        let up = match wire::decode_up(frame) {
            Ok(up) => up,
            Err(e) => {
                self.metrics.relay_errors.inc();
                return tracing::warn!(error = %e, room = code, "a relayed command did not decode");
            }
        };
        let Some(room) = room else {
            // Gone already: a request still gets its answer, so its connection is not left
            // waiting.
            return match up {
                Up::Join {
                    from, conn, seq, ..
                }
                | Up::Resume {
                    from, conn, seq, ..
                } => self.reply(&from, conn, seq, Outcome::Refused),
                Up::Leave { from, conn, seq } => {
                    self.reply(&from, conn, seq, Outcome::Left { ok: false })
                }
                Up::Dropped { .. } | Up::Msg { .. } => {}
            };
        };
        match up {
            Up::Join {
                from,
                conn,
                seq,
                addr,
                name,
                role,
                who,
            } => {
                let member = self.proxy(&from, conn, &room.code);
                let (reply, answer) = oneshot::channel();
                let cmd = RoomCmd::Join {
                    conn: member,
                    addr,
                    name,
                    role,
                    who: who.into(),
                    reply,
                };
                self.ask(&room.tx, cmd, from, conn, seq, answer).await;
            }
            Up::Resume {
                from,
                conn,
                seq,
                token,
            } => {
                let member = self.proxy(&from, conn, &room.code);
                let (reply, answer) = oneshot::channel();
                let cmd = RoomCmd::Resume {
                    conn: member,
                    token: ResumeToken::from(token),
                    reply,
                };
                self.ask(&room.tx, cmd, from, conn, seq, answer).await;
            }
            Up::Leave { from, conn, seq } => {
                let Some(id) = self.proxy_of(&from, conn) else {
                    return self.reply(&from, conn, seq, Outcome::Left { ok: false });
                };
                let (reply, answer) = oneshot::channel();
                if room
                    .tx
                    .send(RoomCmd::Leave { conn: id, reply })
                    .await
                    .is_err()
                {
                    return self.reply(&from, conn, seq, Outcome::Left { ok: false });
                }
                let node = self.clone();
                tokio::spawn(async move {
                    let ok = answer.await.unwrap_or(false);
                    node.reply(&from, conn, seq, Outcome::Left { ok });
                });
            }
            Up::Dropped { from, conn } => {
                if let Some(p) = self.forget_proxy(&from, conn) {
                    let _ = room.tx.send(RoomCmd::Dropped { conn: p.id }).await;
                }
            }
            Up::Msg { from, conn, msg } => {
                let (Some(id), Some(msg)) = (self.proxy_of(&from, conn), msg.into_room()) else {
                    return;
                };
                let _ = room.tx.send(RoomCmd::Msg { conn: id, msg }).await;
            }
        }
    }

    /// Send a join or resume to the room; its answer goes back down once the room gives it
    /// (after the room's own messages to the member, which are queued first).
    async fn ask(
        self: &Arc<Self>,
        tx: &tokio::sync::mpsc::Sender<RoomCmd>,
        cmd: RoomCmd,
        from: String,
        conn: u64,
        seq: u64,
        answer: oneshot::Receiver<crate::room::handle::JoinOutcome>,
    ) {
        if tx.send(cmd).await.is_err() {
            self.forget_proxy(&from, conn);
            return self.reply(&from, conn, seq, Outcome::Refused);
        }
        let node = self.clone();
        tokio::spawn(async move {
            let outcome = answer.await.map_or(Outcome::Refused, Outcome::from);
            if outcome == Outcome::Refused {
                node.forget_proxy(&from, conn);
            }
            node.reply(&from, conn, seq, outcome);
        });
    }

    fn reply(&self, node: &str, conn: u64, seq: u64, outcome: Outcome) {
        self.down(node, &Ctl::Reply { conn, seq, outcome });
    }

    /// The member `conn` of node `from` in room `room`, with a fresh id.
    fn proxy(self: &Arc<Self>, from: &str, conn: u64, room: &RoomCode) -> Endpoint {
        let id = self.proxy_id();
        let proxy = Proxy {
            id,
            room: room.clone(),
        };
        let node = match self.proxies.get_mut(from) {
            Some(mut m) => {
                m.insert(conn, proxy);
                m.key().clone()
            }
            None => {
                let node: Arc<str> = Arc::from(from);
                self.proxies
                    .entry(node.clone())
                    .or_default()
                    .insert(conn, proxy);
                node
            }
        };
        Endpoint::Remote(RemoteConn {
            id,
            node,
            conn,
            relay: self.clone() as Arc<dyn Relay>,
        })
    }

    fn proxy_of(&self, from: &str, conn: u64) -> Option<ConnId> {
        self.proxies.get(from)?.get(&conn).map(|p| p.id)
    }

    /// Let go of member `conn` of node `from`; what the room knew it as, if anything.
    pub(super) fn forget_proxy(&self, from: &str, conn: u64) -> Option<Proxy> {
        self.proxies.get_mut(from)?.remove(&conn)
    }

    /// Node `n` is gone: its members' connections dropped, as far as this node's rooms can
    /// tell; their seats are held for a resume elsewhere.
    pub(super) fn member_node_lost(&self, n: &Arc<str>) {
        let Some((_, gone)) = self.proxies.remove(n) else {
            return;
        };
        let Some(env) = self.env() else { return };
        for p in gone.into_values() {
            if let Some(room) = env.directory.find(&p.room) {
                let _ = room.tx.try_send(RoomCmd::Dropped { conn: p.id });
            }
        }
    }
}
