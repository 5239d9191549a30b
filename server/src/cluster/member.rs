//! The member side of the relay: this node's connections in rooms owned by other nodes
//! ([`MemberSide`]). Such a connection's [`RoomHandle`] is a stub whose commands a forwarder
//! task sends up the room's channel; what the owner sends down this node's channel reaches the
//! connection's own [`Outbox`]. When the owner dies, its rooms wait here to be taken
//! over (`orphans.rs`, A9), or end in `room_closed` `node_lost` and 1012.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use dashmap::DashMap;
use protocol::{Phase, PlayerId, RoomCode, Settings};
use tokio::sync::{mpsc, oneshot};

use tokio_tungstenite::tungstenite::Bytes;

use super::publisher::{Publisher, Unsent};
use super::wire::{self, Ctl, Down, Outcome, Place, Up};
use super::{keys, now_us};
use crate::metrics::Metrics;
use crate::outbox::{CloseCode, Outbox};
use crate::room::endpoint::Endpoint;
use crate::room::handle::{
    Command, JoinOutcome, Link, Requeued, RoomCmd, RoomHandle, RoomInfo, RoomMsg,
};

mod orphans;

/// Commands one connection may queue to its forwarder.
const STUB_QUEUE: usize = 256;

/// A command on its way up, as the publisher hears back about it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sent {
    conn: u64,
    kind: Kind,
}

impl Sent {
    /// What a lost command means for its sender.
    fn of(up: &Up) -> Sent {
        let kind = match &up.cmd {
            Command::Msg {
                msg: RoomMsg::Resync,
            } => Kind::Resync,
            Command::Msg { .. } => Kind::Msg,
            Command::Join { .. } | Command::Resume { .. } | Command::Leave | Command::Requeue => {
                Kind::Request
            }
            Command::Dropped => Kind::Dropped,
        };
        Sent {
            conn: up.conn,
            kind,
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    /// A message for the room: its sender gets an error if it is lost.
    Msg,
    /// A join, resume or leave: its waiter is let go if it is lost.
    Request,
    /// A dropped connection: nobody is left to tell.
    Dropped,
    /// A member's fresh view asked for: asked again later if it is lost.
    Resync,
}

/// An answer this node waits for.
#[derive(Debug)]
enum Pending {
    Join(oneshot::Sender<JoinOutcome>),
    Leave(oneshot::Sender<bool>),
    Requeue(oneshot::Sender<Option<Requeued>>),
}

/// One of this node's connections in a room owned elsewhere.
#[derive(Debug)]
struct Remote {
    /// The connection.
    outbox: Outbox,
    /// The room's owner.
    owner: Arc<str>,
    /// The room.
    room: RoomCode,
    /// Answers awaited, by request.
    pending: HashMap<u64, Pending>,
    /// Since when its owner is known lost, while the room waits to be taken over (A9).
    orphaned: Option<tokio::time::Instant>,
}

/// This node as a member of rooms owned elsewhere: its connections there, and the answers
/// they wait for.
#[derive(Debug)]
pub(super) struct MemberSide {
    /// This node's id, which its commands up carry.
    id: Arc<str>,
    publisher: Publisher<Sent>,
    metrics: Arc<Metrics>,
    /// This node's connections in rooms owned elsewhere, by connection id.
    members: DashMap<u64, Remote>,
    next_seq: AtomicU64,
    /// Per room, the number of the last delivery that came down for it ([`Down::Deliver`]):
    /// a number skipped is a message lost on the way.
    last: DashMap<RoomCode, u64>,
    /// The subscription connection dropped: what was published meanwhile is lost, so every
    /// member here gets a fresh view once it has resubscribed.
    resubscribing: AtomicBool,
}

impl MemberSide {
    /// Node `id`'s member side, sending up through `publisher`.
    pub(super) fn new(id: Arc<str>, publisher: Publisher<Sent>, metrics: Arc<Metrics>) -> Self {
        MemberSide {
            id,
            publisher,
            metrics,
            members: DashMap::new(),
            next_seq: AtomicU64::new(1),
            last: DashMap::new(),
            resubscribing: AtomicBool::new(false),
        }
    }

    /// The nodes that own rooms this node's connections are in.
    pub(super) fn owners(&self) -> Vec<Arc<str>> {
        self.members
            .iter()
            .filter(|m| m.orphaned.is_none())
            .map(|m| m.owner.clone())
            .collect()
    }

    fn seq(&self) -> u64 {
        self.next_seq.fetch_add(1, Relaxed)
    }

    /// A handle on room `code`, owned by node `owner`: its commands go up the relay.
    pub(super) fn stub(self: &Arc<Self>, code: RoomCode, owner: Arc<str>) -> RoomHandle {
        let (tx, rx) = mpsc::channel(STUB_QUEUE);
        tokio::spawn(self.clone().forward(code.clone(), owner, rx));
        RoomHandle {
            code,
            tx,
            info: Arc::new(Mutex::new(RoomInfo {
                phase: Phase::Lobby,
                players: 0,
                settings: Settings::default(),
                rating: None,
            })),
        }
    }

    /// Send one connection's commands up, in order, until its handle is dropped.
    async fn forward(
        self: Arc<Self>,
        code: RoomCode,
        owner: Arc<str>,
        mut rx: mpsc::Receiver<RoomCmd>,
    ) {
        let channel: Arc<str> = keys::room_channel(&code).into();
        let from = self.id.to_string();
        while let Some(cmd) = rx.recv().await {
            let (frame, sent) = match cmd {
                RoomCmd::Member {
                    conn,
                    cmd:
                        Command::Msg {
                            msg: RoomMsg::Place { cell, digit, id },
                        },
                    ..
                } => {
                    let place = Place {
                        from: &from,
                        conn: conn.0,
                        cell: cell.get(),
                        digit: digit.get(),
                        id,
                    };
                    let sent = Sent {
                        conn: conn.0,
                        kind: Kind::Msg,
                    };
                    (wire::encode_place(&place, now_us()), sent)
                }
                cmd => match self.up_message(cmd, &from, &owner, &code) {
                    Some(up) => (wire::encode_up(&up, now_us()), Sent::of(&up)),
                    None => continue,
                },
            };
            // Through the ordered publisher with everything else: many connections' commands
            // share one pipelined write, and it hears back who got each.
            self.publisher.up(channel.clone(), frame, sent);
        }
    }

    /// Any command but a placement, as the [`Up`] message that carries it to the room's owner
    /// (`None`: nothing to send). A join, resume or leave first records the answer its
    /// connection waits for; a dropped connection is let go here.
    fn up_message(
        &self,
        cmd: RoomCmd,
        from: &str,
        owner: &Arc<str>,
        code: &RoomCode,
    ) -> Option<Up> {
        // Only the room's own node starts a pool room (A7), tells late ratings (A9) or deals.
        let RoomCmd::Member { conn, cmd, link } = cmd else {
            return None;
        };
        let seq = match link {
            Link::None => None,
            Link::Enter(Endpoint::Local(outbox), reply) => {
                Some(self.await_answer(&outbox, owner, code, Pending::Join(reply)))
            }
            // A member from another node is that node's to relay.
            Link::Enter(Endpoint::Remote(_), _) => return None,
            Link::Leave(reply) => Some(self.await_member(conn.0, Pending::Leave(reply))?),
            Link::Requeue(reply) => Some(self.await_member(conn.0, Pending::Requeue(reply))?),
        };
        if matches!(cmd, Command::Dropped) {
            self.members.remove(&conn.0);
        }
        Some(Up {
            from: from.to_owned(),
            conn: conn.0,
            seq,
            cmd,
        })
    }

    /// Member `conn` waits for the answer `p`: the request's number (`None`: it is no member
    /// here, and `p` is answered so at once).
    fn await_member(&self, conn: u64, p: Pending) -> Option<u64> {
        let seq = self.seq();
        match self.members.get_mut(&conn) {
            Some(mut m) => {
                m.pending.insert(seq, p);
                Some(seq)
            }
            None => {
                match p {
                    Pending::Join(tx) => drop(tx.send(JoinOutcome::Refused)),
                    Pending::Leave(tx) => drop(tx.send(false)),
                    Pending::Requeue(tx) => drop(tx.send(None)),
                }
                None
            }
        }
    }

    /// Register `outbox` as a member waiting for an answer; the request's number.
    fn await_answer(&self, outbox: &Outbox, owner: &Arc<str>, room: &RoomCode, p: Pending) -> u64 {
        let seq = self.seq();
        let mut m = self.members.entry(outbox.id.0).or_insert_with(|| Remote {
            outbox: outbox.clone(),
            owner: owner.clone(),
            room: room.clone(),
            pending: HashMap::new(),
            orphaned: None,
        });
        m.outbox = outbox.clone();
        m.owner = owner.clone();
        m.room = room.clone();
        m.pending.insert(seq, p);
        seq
    }

    /// A command could not be relayed: a message's sender is told the room is moving (A12:
    /// `room_moving`, not accepted) and stays in the room for when it answers again; a
    /// request's waiter hears the same.
    pub(super) fn unreachable(self: &Arc<Self>, sent: Sent, why: Unsent) {
        match sent.kind {
            Kind::Resync => {
                // The owner has yet to resubscribe, or Redis to come back: ask again later.
                let member = self.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(keys::RESYNC_RETRY).await;
                    member.resync(sent.conn);
                });
            }
            Kind::Msg => {
                let message = match why {
                    Unsent::NoOwner => {
                        "the race is moving to another server (its server does not answer): \
                         trying again"
                    }
                    Unsent::Bus => {
                        "the race's server cannot be reached right now (the cluster's message \
                         bus is down): trying again"
                    }
                };
                if let Some(m) = self.members.get(&sent.conn) {
                    let moving = crate::room::task::room_moving(message);
                    m.outbox.send(&moving, &self.metrics);
                }
            }
            Kind::Request => {
                // Its waiter hears that the room is moving (A12): the owner may be taken over.
                if let Some((_, m)) = self.members.remove(&sent.conn) {
                    for p in m.pending.into_values() {
                        match p {
                            Pending::Join(tx) => drop(tx.send(JoinOutcome::Moving)),
                            Pending::Leave(tx) => drop(tx.send(false)),
                            Pending::Requeue(tx) => drop(tx.send(None)),
                        }
                    }
                }
            }
            Kind::Dropped => {}
        }
    }

    /// What came down this node's channel (it never waits: the redis connection's own task
    /// calls it).
    pub(super) fn down_frame(&self, frame: Bytes) {
        match wire::decode_down(frame) {
            Ok(Down::Deliver { conns, bytes, seq }) => {
                let mut room = None;
                for c in conns.iter() {
                    if let Some(m) = self.members.get(&c) {
                        m.outbox.send_text(bytes.clone(), &self.metrics);
                        if room.is_none() && seq != 0 {
                            room = Some(m.room.clone());
                        }
                    }
                }
                if let Some(room) = room {
                    self.numbered(room, seq);
                }
            }
            Ok(Down::Ctl(Ctl::Reply { conn, seq, outcome })) => self.answer(conn, seq, outcome),
            Ok(Down::Ctl(Ctl::Detach { conn })) => {
                // A leave's or requeue's answer follows its detach: kept for it.
                let waits = self
                    .members
                    .get(&conn)
                    .is_some_and(|m| !m.pending.is_empty());
                if waits {
                    if let Some(m) = self.members.get(&conn) {
                        m.outbox.detach();
                    }
                } else if let Some((_, m)) = self.members.remove(&conn) {
                    m.outbox.detach();
                }
            }
            Ok(Down::Ctl(Ctl::Probe { conn })) => {
                if let Some(m) = self.members.get(&conn) {
                    m.outbox.probe();
                }
            }
            Ok(Down::Ctl(Ctl::Close { conn, code })) => {
                if let Some((_, m)) = self.members.remove(&conn) {
                    m.outbox.detach();
                    m.outbox
                        .close(CloseCode::from_u16(code).unwrap_or(CloseCode::Normal));
                }
            }
            Err(e) => {
                self.metrics.relay_errors.inc();
                tracing::warn!(error = %e, "a relayed message did not decode");
            }
        }
    }

    /// Delivery `seq` of `room` came down: one that does not follow the last seen means
    /// messages were lost on the way, and the room's members here get fresh views.
    fn numbered(&self, room: RoomCode, seq: u64) {
        let last = self.last.insert(room.clone(), seq);
        // Number 1 starts a numbering over: a new owner (a takeover) whose first deliveries
        // are the room as it stands, so nothing was missed.
        if seq != 1 && last.is_some_and(|last| last.checked_add(1) != Some(seq)) {
            tracing::warn!(room = %room, ?last, seq, "a gap in a room's deliveries: resyncing its members");
            self.resync_room(&room);
        }
    }

    /// Ask room `room`'s owner for a fresh view for each of this node's members in it.
    fn resync_room(&self, room: &RoomCode) {
        let conns: Vec<u64> = self
            .members
            .iter()
            .filter(|m| m.room == *room && m.pending.is_empty())
            .map(|m| *m.key())
            .collect();
        conns.into_iter().for_each(|c| self.resync(c));
    }

    /// Ask member `conn`'s room for a fresh view of it (as `resume` sends), through the
    /// ordered publisher like its own commands.
    fn resync(&self, conn: u64) {
        let Some(room) = self.members.get(&conn).map(|m| m.room.clone()) else {
            return;
        };
        self.metrics.relay_resyncs.inc();
        let up = Up {
            from: self.id.to_string(),
            conn,
            seq: None,
            cmd: Command::Msg {
                msg: RoomMsg::Resync,
            },
        };
        let sent = Sent::of(&up);
        let channel: Arc<str> = keys::room_channel(&room).into();
        self.publisher
            .up(channel, wire::encode_up(&up, now_us()), sent);
    }

    /// The subscription connection dropped (Redis restarted, or the connection was cut).
    pub(super) fn subscription_lost(&self) {
        self.resubscribing.store(true, Relaxed);
    }

    /// The subscription connection subscribed to `channel`: once it has this node's own channel
    /// back after a drop, every member here gets a fresh view, and again a renewal later (an
    /// owner's own connections may come back after this node's).
    pub(super) fn subscribed(self: &Arc<Self>, channel: &str) {
        if channel == keys::node_channel(&self.id) {
            self.resubscribed();
        }
    }

    /// Whether the subscription dropped and this node has not resynced its members since.
    pub(super) fn is_resubscribing(&self) -> bool {
        self.resubscribing.load(Relaxed)
    }

    /// The subscription is back after a drop (its confirmation came, or the connection
    /// answered a command since): every member here gets a fresh view, once.
    pub(super) fn resubscribed(self: &Arc<Self>) {
        if !self.resubscribing.swap(false, Relaxed) {
            return;
        }
        tracing::info!("resubscribed after a drop: resyncing every member of a room elsewhere");
        self.resync_all();
        let member = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(keys::RENEW_EVERY).await;
            member.resync_all();
        });
    }

    fn resync_all(&self) {
        // Numbers start afresh: the views are the new baseline.
        self.last.clear();
        let conns: Vec<u64> = self
            .members
            .iter()
            .filter(|m| m.pending.is_empty())
            .map(|m| *m.key())
            .collect();
        conns.into_iter().for_each(|c| self.resync(c));
    }

    /// Forget the numbers of rooms none of this node's connections is in any more.
    pub(super) fn sweep_numbers(&self) {
        let rooms: std::collections::HashSet<RoomCode> =
            self.members.iter().map(|m| m.room.clone()).collect();
        self.last.retain(|room, _| rooms.contains(room));
    }

    fn answer(&self, conn: u64, seq: u64, outcome: Outcome) {
        let Some(mut m) = self.members.get_mut(&conn) else {
            return;
        };
        let Some(p) = m.pending.remove(&seq) else {
            return;
        };
        let stays = match (p, outcome) {
            (Pending::Join(tx), Outcome::Player { id }) => {
                let _ = tx.send(JoinOutcome::Player(PlayerId::from(id)));
                true
            }
            (Pending::Join(tx), Outcome::Spectator) => {
                let _ = tx.send(JoinOutcome::Spectator);
                true
            }
            (Pending::Join(tx), _) => {
                let _ = tx.send(JoinOutcome::Refused);
                false
            }
            (Pending::Leave(tx), Outcome::Left { ok }) => {
                let _ = tx.send(ok);
                false
            }
            (Pending::Leave(tx), _) => {
                let _ = tx.send(false);
                false
            }
            (
                Pending::Requeue(tx),
                Outcome::Requeued {
                    name,
                    who,
                    difficulty,
                    arena,
                },
            ) => {
                let left = difficulty.parse().ok().map(|difficulty| Requeued {
                    name,
                    who,
                    difficulty,
                    arena,
                });
                let _ = tx.send(left);
                false
            }
            (Pending::Requeue(tx), _) => {
                let _ = tx.send(None);
                false
            }
        };
        if !stays && m.pending.is_empty() {
            drop(m);
            self.members.remove(&conn);
        }
    }
}
