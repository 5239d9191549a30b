//! The owner side of the relay: this node's rooms' members on other nodes ([`OwnerSide`]).
//! Commands that came up a room's channel from members on other nodes become the room task's
//! own commands, for a [`Endpoint::Remote`] that answers back down the member node's channel
//! (the [`Relay`] the room is given). The room task cannot tell a relayed member from a local
//! one.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use dashmap::DashMap;
use engine::{Cell, Digit};
use protocol::RoomCode;
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::{Bytes, Utf8Bytes};

use super::member::Sent;
use super::publisher::Publisher;
use super::wire::{self, Ctl, Outcome, Up};
use super::{keys, now_us};
use crate::metrics::Metrics;
use crate::outbox::{CloseCode, ConnId};
use crate::room::directory::Directory;
use crate::room::endpoint::{Endpoint, Relay, RemoteConn};
use crate::room::handle::{Command, Link, RoomCmd, RoomHandle, RoomMsg};

/// One member node's members in this node's rooms, by their connection there.
type Proxies = HashMap<u64, Proxy>;

/// A member on another node, as one of this node's rooms knows it.
#[derive(Clone, Debug)]
pub(super) struct Proxy {
    /// The id the room knows it by.
    pub id: ConnId,
    /// The room.
    pub room: RoomCode,
    /// The number of the room's last delivery to the member's node (shared by the node's
    /// members of the room).
    seq: Arc<AtomicU64>,
}

/// This node as the owner of rooms with members elsewhere: those members, by node, and the
/// way down to them.
#[derive(Debug)]
pub(super) struct OwnerSide {
    /// This node's rooms.
    directory: Arc<Directory>,
    publisher: Publisher<Sent>,
    metrics: Arc<Metrics>,
    /// Members on other nodes of this node's rooms, by node, then connection (looked up by the
    /// node id's text, without building a key).
    proxies: DashMap<Arc<str>, Proxies>,
    /// Each member node's channel name, made once.
    node_channels: DashMap<Arc<str>, Arc<str>>,
    /// Per member node and room, the number of the room's last delivery there: a member node
    /// that sees a number skipped asks for fresh views ([`RoomMsg::Resync`]).
    seqs: DashMap<(Arc<str>, RoomCode), Arc<AtomicU64>>,
    next_proxy: AtomicU64,
}

impl OwnerSide {
    /// The owner side of `directory`'s rooms, sending down through `publisher`.
    pub(super) fn new(
        directory: Arc<Directory>,
        publisher: Publisher<Sent>,
        metrics: Arc<Metrics>,
    ) -> Self {
        OwnerSide {
            directory,
            publisher,
            metrics,
            proxies: DashMap::new(),
            node_channels: DashMap::new(),
            seqs: DashMap::new(),
            next_proxy: AtomicU64::new(1),
        }
    }

    /// The nodes with members in this node's rooms.
    pub(super) fn member_nodes(&self) -> Vec<Arc<str>> {
        self.proxies
            .iter()
            .filter(|p| !p.is_empty())
            .map(|p| p.key().clone())
            .collect()
    }

    /// The room `code` names, if this node runs it.
    pub(super) fn room(&self, code: &str) -> Option<RoomHandle> {
        let code = RoomCode::try_from(code).ok()?;
        self.directory.find(&code)
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
        Some(RoomCmd::msg(self.proxy_of(p.from, p.conn)?, msg))
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
            return self.answer_gone(up);
        };
        let Up {
            from,
            conn,
            seq,
            cmd,
        } = up;
        // A request from a broken node without its number is answered as number 0.
        let seq = seq.unwrap_or(0);
        match cmd {
            Command::Join { .. } | Command::Resume { .. } => {
                let member = self.proxy(&from, conn, &room.code);
                let (reply, answer) = oneshot::channel();
                let cmd = RoomCmd::Member {
                    conn: member.id(),
                    cmd,
                    link: Link::Enter(member, reply),
                };
                self.ask(&room.tx, cmd, from, conn, seq, answer).await;
            }
            Command::Leave => self.leave(room, from, conn, seq).await,
            Command::Requeue => self.requeue(room, from, conn, seq).await,
            Command::Dropped => {
                if let Some(p) = self.forget_proxy(&from, conn) {
                    let _ = room.tx.send(RoomCmd::dropped(p.id)).await;
                }
            }
            Command::Msg { msg } => {
                let Some(id) = self.proxy_of(&from, conn) else {
                    return;
                };
                let _ = room.tx.send(RoomCmd::msg(id, msg)).await;
            }
        }
    }

    /// A command for a room this node does not run (yet: it subscribed to the room's channel to
    /// take it over and is still rebuilding it; or no more: it just closed): a request still
    /// gets its answer, so its connection is not left waiting. A join or resume is told the
    /// room is moving (A12) before it is refused (a refusal's error goes first): its client
    /// asks again, and finds the room rebuilt, or hears then that it is gone.
    fn answer_gone(&self, up: Up) {
        let Some(seq) = up.seq else { return };
        let outcome = match up.cmd {
            Command::Join { .. } | Command::Resume { .. } => {
                let moving = crate::room::task::room_moving(
                    "the room is moving to another server and is not there yet: trying again",
                );
                self.deliver(&up.from, vec![up.conn], crate::outbox::encode(&moving));
                Outcome::Refused
            }
            Command::Requeue => Outcome::Refused,
            Command::Leave => Outcome::Left { ok: false },
            Command::Dropped | Command::Msg { .. } => return,
        };
        self.reply(&up.from, up.conn, seq, outcome);
    }

    /// Member `conn` of node `from` leaves `room`; the answer goes back down once the room
    /// gives it.
    async fn leave(self: &Arc<Self>, room: &RoomHandle, from: String, conn: u64, seq: u64) {
        let Some(id) = self.proxy_of(&from, conn) else {
            return self.reply(&from, conn, seq, Outcome::Left { ok: false });
        };
        let (reply, answer) = oneshot::channel();
        if room.tx.send(RoomCmd::leave(id, reply)).await.is_err() {
            return self.reply(&from, conn, seq, Outcome::Left { ok: false });
        }
        let owner = self.clone();
        tokio::spawn(async move {
            let ok = answer.await.unwrap_or(false);
            owner.reply(&from, conn, seq, Outcome::Left { ok });
        });
    }

    /// Member `conn` of node `from` requeues from `room` (A7); the answer goes back down once
    /// the room gives it.
    async fn requeue(self: &Arc<Self>, room: &RoomHandle, from: String, conn: u64, seq: u64) {
        let Some(id) = self.proxy_of(&from, conn) else {
            return self.reply(&from, conn, seq, Outcome::Refused);
        };
        let (reply, answer) = oneshot::channel();
        let cmd = RoomCmd::requeue(id, reply);
        if room.tx.send(cmd).await.is_err() {
            return self.reply(&from, conn, seq, Outcome::Refused);
        }
        let owner = self.clone();
        tokio::spawn(async move {
            let left = answer.await.ok().flatten();
            owner.reply(&from, conn, seq, Outcome::requeued(left));
        });
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
        let owner = self.clone();
        tokio::spawn(async move {
            let outcome = answer.await.map_or(Outcome::Refused, Outcome::from);
            if outcome == Outcome::Refused {
                owner.forget_proxy(&from, conn);
            }
            owner.reply(&from, conn, seq, outcome);
        });
    }

    fn reply(&self, node: &str, conn: u64, seq: u64, outcome: Outcome) {
        self.down(node, &Ctl::Reply { conn, seq, outcome });
    }

    /// The member `conn` of node `from` in room `room`, with a fresh id.
    pub(super) fn proxy(self: &Arc<Self>, from: &str, conn: u64, room: &RoomCode) -> Endpoint {
        let id = self.proxy_id();
        let seq = self
            .seqs
            .entry((Arc::from(from), room.clone()))
            .or_default()
            .clone();
        let proxy = Proxy {
            id,
            room: room.clone(),
            seq,
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

    /// Node `n`, where members of this node's rooms are connected, is gone: their
    /// connections dropped, as far as the rooms can tell; their seats are held for a resume
    /// elsewhere.
    pub(super) fn drop_members_of(&self, n: &Arc<str>) {
        if let Some((_, gone)) = self.proxies.remove(n) {
            for p in gone.into_values() {
                if let Some(room) = self.directory.find(&p.room) {
                    let _ = room.tx.try_send(RoomCmd::dropped(p.id));
                }
            }
        }
        self.node_channels.remove(n);
    }

    /// Forget the delivery numbers of rooms with no member left on a node (a later member
    /// starts from whatever number comes first).
    pub(super) fn sweep_seqs(&self) {
        self.seqs.retain(|_, seq| Arc::strong_count(seq) > 1);
    }

    /// The next number of a delivery to `conns` of node `node` (their room's, on that node);
    /// 0 when none of them is known here any more.
    fn next_seq(&self, node: &str, conns: &[u64]) -> u64 {
        let Some(members) = self.proxies.get(node) else {
            return 0;
        };
        conns
            .iter()
            .find_map(|c| members.get(c))
            .map_or(0, |p| p.seq.fetch_add(1, Relaxed) + 1)
    }

    fn down(&self, node: &str, ctl: &wire::Ctl) {
        self.publisher
            .publish(self.node_channel(node), wire::encode_ctl(ctl, now_us()));
    }

    /// Node `node`'s channel, its name made once.
    fn node_channel(&self, node: &str) -> Arc<str> {
        if let Some(c) = self.node_channels.get(node) {
            return c.clone();
        }
        let c: Arc<str> = keys::node_channel(node).into();
        self.node_channels.insert(node.into(), c.clone());
        c
    }

    /// A fresh id for a member on another node.
    fn proxy_id(&self) -> ConnId {
        ConnId(crate::room::endpoint::REMOTE_BIT | self.next_proxy.fetch_add(1, Relaxed))
    }
}

impl Relay for OwnerSide {
    fn deliver(&self, node: &str, conns: Vec<u64>, bytes: Utf8Bytes) {
        // Numbered in the room task's order (it alone delivers for the room), which is the
        // publisher's.
        let seq = self.next_seq(node, &conns);
        #[cfg(feature = "cluster-tests")]
        if test_hook::drops(bytes.as_str()) {
            return;
        }
        self.publisher.publish(
            self.node_channel(node),
            wire::encode_numbered(&conns, bytes.as_bytes(), seq, now_us()),
        );
    }

    fn detach(&self, node: &str, conn: u64) {
        self.forget_proxy(node, conn);
        self.down(node, &wire::Ctl::Detach { conn });
    }

    fn probe(&self, node: &str, conn: u64) {
        self.down(node, &wire::Ctl::Probe { conn });
    }

    fn close(&self, node: &str, conn: u64, code: CloseCode) {
        self.forget_proxy(node, conn);
        self.down(
            node,
            &wire::Ctl::Close {
                conn,
                code: code.as_u16(),
            },
        );
    }
}

/// A test hook (`cluster-tests` builds only): with `SUDOKU_RACE_TEST_DROP_DELIVERY=TEXT` in its
/// environment, an owner drops the first delivery to another node whose message holds `TEXT`
/// (numbered, not published), as pub/sub loses a message while a subscriber reconnects.
#[cfg(feature = "cluster-tests")]
mod test_hook {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::OnceLock;

    static TEXT: OnceLock<Option<String>> = OnceLock::new();
    static DROPPED: AtomicBool = AtomicBool::new(false);

    pub(super) fn drops(msg: &str) -> bool {
        let text = TEXT.get_or_init(|| std::env::var("SUDOKU_RACE_TEST_DROP_DELIVERY").ok());
        match text {
            Some(t) if msg.contains(t.as_str()) => !DROPPED.swap(true, Ordering::Relaxed),
            _ => false,
        }
    }
}
