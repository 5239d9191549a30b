//! The owner's side of the relay: commands that came up a room's channel from members on other
//! nodes become the room task's own commands, for a [`Member::Remote`] that answers back down
//! the member node's channel. The room task cannot tell a relayed member from a local one.

use std::sync::Arc;

use protocol::{ResumeToken, RoomCode};
use tokio::sync::oneshot;

use super::wire::{self, Ctl, Outcome, Up};
use super::Node;
use crate::outbox::ConnId;
use crate::room::handle::RoomCmd;
use crate::room::remote::{Member, Relay, RemoteConn};

/// A member on another node, as one of this node's rooms knows it.
#[derive(Clone, Debug)]
pub struct Proxy {
    /// The id the room knows it by.
    pub id: ConnId,
    /// The room.
    pub room: RoomCode,
}

impl Node {
    /// A command for room `code`, from another node.
    pub(super) async fn up(self: &Arc<Self>, code: &str, frame: &[u8]) {
        self.observe(frame);
        let up = match wire::decode_up(frame) {
            Ok(up) => up,
            Err(e) => {
                self.metrics.relay_errors.inc();
                return tracing::warn!(error = %e, room = code, "a relayed command did not decode");
            }
        };
        let env = self.env();
        let room = RoomCode::try_from(code)
            .ok()
            .and_then(|c| env.as_ref()?.directory.find(&c));
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
                    who,
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
                if let Some((_, p)) = self.proxies.remove(&(Arc::from(from.as_str()), conn)) {
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
    fn proxy(self: &Arc<Self>, from: &str, conn: u64, room: &RoomCode) -> Member {
        let node: Arc<str> = Arc::from(from);
        let id = self.proxy_id();
        self.proxies.insert(
            (node.clone(), conn),
            Proxy {
                id,
                room: room.clone(),
            },
        );
        Member::Remote(RemoteConn {
            id,
            node,
            conn,
            relay: self.clone() as Arc<dyn Relay>,
        })
    }

    fn proxy_of(&self, from: &str, conn: u64) -> Option<ConnId> {
        self.proxies
            .get(&(Arc::from(from), conn))
            .map(|p| p.value().id)
    }

    pub(super) fn forget_proxy(&self, from: &str, conn: u64) {
        self.proxies.remove(&(Arc::from(from), conn));
    }

    /// Node `n` is gone: its members' connections dropped, as far as this node's rooms can
    /// tell; their seats are held for a resume elsewhere.
    pub(super) fn member_node_lost(&self, n: &Arc<str>) {
        let gone: Vec<((Arc<str>, u64), Proxy)> = self
            .proxies
            .iter()
            .filter(|p| p.key().0 == *n)
            .map(|p| (p.key().clone(), p.value().clone()))
            .collect();
        let Some(env) = self.env() else { return };
        for (key, p) in gone {
            self.proxies.remove(&key);
            if let Some(room) = env.directory.find(&p.room) {
                let _ = room.tx.try_send(RoomCmd::Dropped { conn: p.id });
            }
        }
    }
}
