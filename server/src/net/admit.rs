//! Room for new sockets when there is none: the sockets still in their handshake (accepted,
//! TLS or request head not complete yet), oldest first, so that at the connection cap, or when
//! accept runs out of descriptors, the oldest of them makes way for a new socket (a slowloris
//! holds its sockets for the whole head deadline; a real client finishes in a few round trips);
//! and a descriptor held in reserve, so that when none can make way the accept loop still
//! takes the next client out of the backlog and refuses it ([`super::refuse`]) instead of
//! leaving it to wait there, as nginx and HAProxy do.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::Ordering::{AcqRel, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// How long a socket may be in its handshake before a new one may take its place: longer
/// than a real client needs on a slow network, so that a burst of them at the cap is told
/// `server_full` rather than evicting each other.
pub const HANDSHAKE_GRACE: Duration = Duration::from_secs(1);

/// The sockets still in their handshake, by accept order.
#[derive(Debug, Default)]
pub struct Handshakes {
    open: Mutex<BTreeMap<u64, Waiting>>,
    next: AtomicU64,
}

/// One socket in its handshake.
#[derive(Debug)]
struct Waiting {
    since: Instant,
    evict: CancellationToken,
}

impl Handshakes {
    /// A new socket accepted `now`: its place in the list, left when its handshake is done or
    /// the socket is gone.
    pub fn enter(self: &Arc<Self>, now: Instant) -> Ticket {
        let seq = self.next.fetch_add(1, Relaxed);
        let evict = CancellationToken::new();
        if let Ok(mut open) = self.open.lock() {
            open.insert(
                seq,
                Waiting {
                    since: now,
                    evict: evict.clone(),
                },
            );
        }
        Ticket {
            list: self.clone(),
            seq,
            evict,
        }
    }

    /// Evict the oldest socket still in its handshake, if it has been in it for at least
    /// [`HANDSHAKE_GRACE`] at `now`. Returns whether one was.
    pub fn evict_oldest(&self, now: Instant) -> bool {
        let Ok(mut open) = self.open.lock() else {
            return false;
        };
        let Some(entry) = open.first_entry() else {
            return false;
        };
        if now.saturating_duration_since(entry.get().since) < HANDSHAKE_GRACE {
            return false;
        }
        entry.remove().evict.cancel();
        true
    }

    fn leave(&self, seq: u64) {
        if let Ok(mut open) = self.open.lock() {
            open.remove(&seq);
        }
    }
}

/// A socket's place in [`Handshakes`].
#[derive(Debug)]
pub struct Ticket {
    list: Arc<Handshakes>,
    seq: u64,
    evict: CancellationToken,
}

impl Ticket {
    /// The handshake is complete: the socket can no longer be evicted.
    pub fn done(&self) {
        self.list.leave(self.seq);
    }

    /// Cancelled when the socket is evicted.
    pub fn evicted(&self) -> &CancellationToken {
        &self.evict
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.list.leave(self.seq);
    }
}

/// Descriptors held in reserve, given up for a moment when accept runs out of descriptors to
/// take the next client out of the backlog and refuse it, rather than leave it waiting there.
/// Each is a duplicate of the listener's own descriptor: nothing to open, so it needs no
/// `/dev/null` (a sandbox may have none) and cannot fail for want of a file.
#[derive(Debug)]
pub struct Reserve {
    /// Given up to refuse a client at once, and taken back as soon as it is closed; it comes
    /// before any client ([`Reserve::restore`]).
    now: Option<Held>,
    /// Given up to the one refusal that may wait a moment for its client's handshake (while
    /// it holds the [`Turn`]); taken back when that refusal is over.
    wait: Option<Held>,
    turn: WaitTurn,
}

#[cfg(unix)]
type Held = std::os::fd::OwnedFd;
#[cfg(not(unix))]
type Held = ();

/// A new reserve descriptor, if the process has one to spare.
#[cfg(unix)]
fn hold(listener: &TcpListener) -> Option<Held> {
    std::os::fd::AsFd::as_fd(listener).try_clone_to_owned().ok()
}

/// Elsewhere accept reports no EMFILE ([`super::fd::out_of_descriptors`]): nothing to hold,
/// and never anything to give up.
#[cfg(not(unix))]
fn hold(_: &TcpListener) -> Option<Held> {
    Some(())
}

/// Whose turn it is to wait for a refused client's handshake: one refusal at a time, so that
/// waiting holds one descriptor at most and every other refusal is at once.
#[derive(Clone, Debug, Default)]
pub struct WaitTurn(Arc<AtomicBool>);

/// The turn to wait, given back when dropped (after the refused socket is closed).
#[derive(Debug)]
pub struct Turn(Arc<AtomicBool>);

impl WaitTurn {
    /// The turn, if no refusal has it.
    pub fn take(&self) -> Option<Turn> {
        let free = !self.0.swap(true, AcqRel);
        free.then(|| Turn(self.0.clone()))
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        self.0.store(false, Release);
    }
}

/// What [`Reserve::restore`] found.
#[derive(Debug)]
pub enum Restored {
    /// Every reserve descriptor not given out is held.
    Held,
    /// The one for refusing at once cannot be had: refuse the client just accepted at once,
    /// then restore again.
    NoNow,
    /// The waiting one cannot be had: the client just accepted is the waiting refusal, with
    /// this turn (its descriptor stands in for the reserve's until it is closed).
    NoWait(Turn),
}

/// What [`Reserve::shed`] did.
#[derive(Debug)]
pub enum Shed {
    /// A client taken out of the backlog with the reserve, to refuse at once; take the
    /// reserve back ([`Reserve::restore`]) once it is closed.
    Now(TcpStream, SocketAddr),
    /// A client taken out of the backlog with the waiting reserve, to refuse within its turn.
    Wait(TcpStream, SocketAddr, Turn),
    /// The reserve was given up, but no client came out of the backlog (this time).
    Nothing,
    /// No reserve to give up: every descriptor is taken.
    NoReserve,
}

impl Reserve {
    /// The reserve for `listener`'s accept loop, sharing `turn` with the other refusals.
    pub fn new(listener: &TcpListener, turn: WaitTurn) -> Reserve {
        let mut reserve = Reserve {
            now: None,
            wait: None,
            turn,
        };
        reserve.restore(listener);
        reserve
    }

    /// Take back what is neither held nor given out. The reserve comes before any client: a
    /// descriptor of it is lost when another thread takes it between its release and its
    /// return, or a client accepted after a waiting refusal ended takes that one's; when it
    /// cannot be taken back now, the client just accepted gives its own up for it.
    pub fn restore(&mut self, listener: &TcpListener) -> Restored {
        if self.now.is_none() {
            self.now = hold(listener);
            if self.now.is_none() {
                return Restored::NoNow;
            }
        }
        if self.wait.is_none() {
            if let Some(turn) = self.turn.take() {
                self.wait = hold(listener);
                if self.wait.is_none() {
                    return Restored::NoWait(turn);
                }
            }
        }
        Restored::Held
    }

    /// Accept ran out of descriptors: give up a reserve descriptor and take the next client
    /// out of the backlog with it — the waiting one with the turn, if both are free, else the
    /// one for refusing at once.
    pub fn shed(&mut self, listener: &TcpListener) -> Shed {
        if matches!(self.restore(listener), Restored::NoNow) {
            return Shed::NoReserve;
        }
        let turn = self.wait.as_ref().and_then(|_| self.turn.take());
        if turn.is_some() {
            self.wait = None;
        } else {
            self.now = None;
        }
        match (listener.accept().now_or_never(), turn) {
            (Some(Ok((stream, peer))), Some(turn)) => Shed::Wait(stream, peer, turn),
            (Some(Ok((stream, peer))), None) => Shed::Now(stream, peer),
            _ => {
                self.restore(listener);
                Shed::Nothing
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests pick their own instants
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_oldest_past_the_grace_is_evicted_first() {
        let list = Arc::new(Handshakes::default());
        let t0 = Instant::now();
        let first = list.enter(t0);
        let second = list.enter(t0 + Duration::from_millis(10));
        let third = list.enter(t0 + Duration::from_millis(20));
        // Nobody is past the grace yet.
        assert!(!list.evict_oldest(t0 + Duration::from_millis(500)));
        first.done();
        let later = t0 + HANDSHAKE_GRACE + Duration::from_millis(15);
        assert!(list.evict_oldest(later));
        assert!(second.evicted().is_cancelled());
        assert!(!first.evicted().is_cancelled());
        // The third is not past the grace at `later`.
        assert!(!list.evict_oldest(later));
        drop(third);
        assert!(!list.evict_oldest(later + HANDSHAKE_GRACE));
    }
}
