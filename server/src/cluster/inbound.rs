//! What Redis pushes to this node: frames on its own channel (messages for its members) and
//! on its rooms' channels (commands from members elsewhere). The subscription connection's
//! own task hands each push to [`Inbound::on_push`], which never waits: frames down go straight
//! into their connections' outboxes, and placements straight into their room's queue. Only
//! what could wait — a full room queue, or a join, resume or leave — goes to the dispatcher
//! task, and while it holds anything, every later command goes behind it, so that each room
//! still takes its commands in the order they were published.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;
use tokio_tungstenite::tungstenite::Bytes;
use tokio_util::sync::CancellationToken;

use super::member::MemberSide;
use super::owner::OwnerSide;
use super::pool::{self, ClusterPool};
use super::{keys, now_us, wire};
use crate::metrics::Metrics;
use crate::room::handle::RoomCmd;

/// Work for the dispatcher, in arrival order.
#[derive(Debug)]
enum Work {
    /// Frames for room `code`, as they came.
    Frames {
        /// The room.
        code: String,
        /// Its frames.
        frames: Vec<Bytes>,
    },
    /// A command already made, for a room whose queue was full.
    Cmd {
        /// The room's queue.
        tx: mpsc::Sender<RoomCmd>,
        /// The command.
        cmd: RoomCmd,
    },
}

/// Where each push goes: down to the member side, up to the owner side, or, when it could
/// wait, to the dispatcher.
#[derive(Debug)]
pub(super) struct Inbound {
    owner: Arc<OwnerSide>,
    member: Arc<MemberSide>,
    pool: Arc<ClusterPool>,
    metrics: Arc<Metrics>,
    /// What the pushes leave to the dispatcher.
    dispatcher: mpsc::UnboundedSender<Work>,
    /// How many of those it has yet to finish.
    held: Arc<AtomicUsize>,
}

/// The dispatcher task's end: what [`Inbound::on_push`] could not hand over, in order.
#[derive(Debug)]
pub(super) struct Dispatcher {
    owner: Arc<OwnerSide>,
    rx: mpsc::UnboundedReceiver<Work>,
    held: Arc<AtomicUsize>,
}

impl Inbound {
    /// Pushes for `owner`, `member` and `pool`, and the dispatcher behind them.
    pub(super) fn new(
        owner: Arc<OwnerSide>,
        member: Arc<MemberSide>,
        pool: Arc<ClusterPool>,
        metrics: Arc<Metrics>,
    ) -> (Inbound, Dispatcher) {
        let (dispatcher, rx) = mpsc::unbounded_channel();
        let held = Arc::new(AtomicUsize::new(0));
        let d = Dispatcher {
            owner: owner.clone(),
            rx,
            held: held.clone(),
        };
        let inbound = Inbound {
            owner,
            member,
            pool,
            metrics,
            dispatcher,
            held,
        };
        (inbound, d)
    }

    /// One push from Redis (called by the subscription connection's task: it must not wait).
    pub(super) fn on_push(&self, push: redis::PushInfo) {
        match push.kind {
            redis::PushKind::Message => {}
            // Pub/sub keeps nothing for a subscriber away: the member side resyncs its rooms'
            // members once this node's channel is subscribed again.
            redis::PushKind::Disconnection => return self.member.subscription_lost(),
            redis::PushKind::Subscribe => {
                if let Some(Ok(channel)) =
                    push.data.first().map(redis::from_redis_value_ref::<String>)
                {
                    self.member.subscribed(&channel);
                }
                return;
            }
            _ => return,
        }
        let mut data = push.data.into_iter();
        let (Some(channel), Some(payload)) = (data.next(), data.next()) else {
            return;
        };
        // The payload's bytes are taken as they are, and its frames cut from them.
        let (Ok(channel), redis::Value::BulkString(payload)) =
            (redis::from_redis_value::<String>(channel), payload)
        else {
            return;
        };
        let frames = wire::split_bundle(Bytes::from(payload));
        let now = now_us();
        frames.iter().for_each(|f| self.observe(f, now));
        if let Some(code) = channel.strip_prefix(keys::ROOM_CHANNEL_PREFIX) {
            self.up_now(code, frames);
        } else if channel.starts_with(keys::NODE_CHANNEL_PREFIX) {
            for f in frames {
                if pool::is_pool(&f) {
                    self.pool.on_frame(&f);
                } else {
                    self.member.down_frame(f);
                }
            }
        }
    }

    /// One received frame's latency, sender's clock to ours (`now_us`, read once a publish).
    fn observe(&self, frame: &[u8], now_us: i64) {
        self.metrics.relay_in.inc();
        if let Some(at) = wire::sent_at(frame) {
            let us = now_us.saturating_sub(at).max(0);
            self.metrics.relay_latency.observe(us as f64 / 1e6);
        }
    }

    /// Room `code`'s commands: placements into its queue now, while nothing waits before
    /// them; the rest, in order, to the dispatcher.
    fn up_now(&self, code: &str, frames: Vec<Bytes>) {
        let held = self.held.load(Relaxed) > 0;
        let room = if held { None } else { self.owner.room(code) };
        let (full, rest) = take_now(
            frames,
            held,
            |f| wire::is_place(f),
            |frame| {
                let (Some(room), Some(cmd)) = (&room, self.owner.place(code, &frame)) else {
                    // Its room or its member is gone here: dropped, as the dispatcher would.
                    return Ok(());
                };
                match room.tx.try_send(cmd) {
                    // Boxed: the rare path carries the command, the common one nothing.
                    Err(TrySendError::Full(cmd)) => Err(Box::new(cmd)),
                    _ => Ok(()),
                }
            },
        );
        if let (Some(cmd), Some(room)) = (full, &room) {
            let tx = room.tx.clone();
            self.to_dispatcher(Work::Cmd { tx, cmd: *cmd });
        }
        if !rest.is_empty() {
            let code = code.to_owned();
            self.to_dispatcher(Work::Frames { code, frames: rest });
        }
    }

    fn to_dispatcher(&self, work: Work) {
        self.held.fetch_add(1, Relaxed);
        let _ = self.dispatcher.send(work);
    }
}

impl Dispatcher {
    /// Hand over, in order, what [`Inbound::on_push`] could not, until `shutdown`.
    pub(super) async fn run(mut self, shutdown: CancellationToken) {
        loop {
            let work = tokio::select! {
                w = self.rx.recv() => match w {
                    Some(w) => w,
                    None => return,
                },
                () = shutdown.cancelled() => return,
            };
            match work {
                Work::Frames { code, frames } => self.owner.up(&code, frames).await,
                Work::Cmd { tx, cmd } => {
                    let _ = tx.send(cmd).await;
                }
            }
            self.held.fetch_sub(1, Relaxed);
        }
    }
}

/// One push's frames for a room, in order: while nothing is `held` for the dispatcher, each
/// frame that `is_now` is offered at once, until one is not (or `offer` gives back what found
/// the queue full). Returns that, and the frames left, for the dispatcher to take in order.
fn take_now<C>(
    frames: Vec<Bytes>,
    held: bool,
    is_now: impl Fn(&Bytes) -> bool,
    mut offer: impl FnMut(Bytes) -> Result<(), C>,
) -> (Option<C>, Vec<Bytes>) {
    let mut frames = frames.into_iter().peekable();
    let mut full = None;
    if !held {
        while let Some(frame) = frames.next_if(&is_now) {
            if let Err(c) = offer(frame) {
                full = Some(c);
                break;
            }
        }
    }
    (full, frames.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(names: &[&'static str]) -> Vec<Bytes> {
        names
            .iter()
            .map(|n| Bytes::from_static(n.as_bytes()))
            .collect()
    }

    #[test]
    fn nothing_overtakes_what_waits_for_the_dispatcher() {
        let is_place = |f: &Bytes| f.starts_with(b"P");
        // A queue of one: the first placement goes in now, the second finds it full; it and
        // everything after it wait, in order.
        let (tx, mut rx) = mpsc::channel::<Bytes>(1);
        let offer = |f: Bytes| tx.try_send(f).map_err(|e| e.into_inner());
        let (full, rest) = take_now(
            frames(&["P1", "P2", "P3", "J4", "P5"]),
            false,
            is_place,
            offer,
        );
        assert_eq!(rx.try_recv().ok(), Some(Bytes::from_static(b"P1")));
        assert_eq!(full, Some(Bytes::from_static(b"P2")));
        assert_eq!(rest, frames(&["P3", "J4", "P5"]));
        // A join is not taken now, nor anything behind it.
        let (tx, mut rx) = mpsc::channel::<Bytes>(8);
        let offer = |f: Bytes| tx.try_send(f).map_err(|e| e.into_inner());
        let (full, rest) = take_now(frames(&["P1", "J2", "P3"]), false, is_place, offer);
        assert_eq!(rx.try_recv().ok(), Some(Bytes::from_static(b"P1")));
        assert!(rx.try_recv().is_err() && full.is_none());
        assert_eq!(rest, frames(&["J2", "P3"]));
        // While the dispatcher holds anything, nothing is taken now.
        let offer = |f: Bytes| tx.try_send(f).map_err(|e| e.into_inner());
        let (full, rest) = take_now(frames(&["P1", "P2"]), true, is_place, offer);
        assert!(rx.try_recv().is_err() && full.is_none());
        assert_eq!(rest, frames(&["P1", "P2"]));
    }
}
