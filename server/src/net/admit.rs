//! Room for new sockets when there is none: the sockets still in their handshake (accepted,
//! TLS or request head not complete yet), oldest first, so that at the connection cap, or when
//! accept runs out of descriptors, the oldest of them makes way for a new socket (a slowloris
//! holds its sockets for the whole head deadline; a real client finishes in a few round trips);
//! and a descriptor held in reserve, so that when none can make way the accept loop still
//! takes the next client out of the backlog and refuses it ([`super::refuse`]) instead of
//! leaving it to wait there, as nginx and HAProxy do.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
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

/// A descriptor held in reserve, given up for a moment when accept runs out of descriptors
/// to take the next client out of the backlog and refuse it, rather than leave it waiting
/// there. It is a duplicate of the listener's own descriptor: nothing to open, so it needs no
/// `/dev/null` (a sandbox may have none) and cannot fail for want of a file.
#[derive(Debug)]
pub struct Reserve(Option<Held>);

#[cfg(unix)]
type Held = std::os::fd::OwnedFd;
#[cfg(not(unix))]
type Held = ();

/// A new reserve descriptor, if the process has one to spare.
#[cfg(unix)]
fn hold(listener: &TcpListener) -> Option<Held> {
    std::os::fd::AsFd::as_fd(listener).try_clone_to_owned().ok()
}

/// Elsewhere accept reports no EMFILE ([`super::fd::out_of_descriptors`]): no reserve.
#[cfg(not(unix))]
fn hold(_: &TcpListener) -> Option<Held> {
    None
}

/// What [`Reserve::shed`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Shed {
    /// A client was taken out of the backlog and handed to the refusal.
    Refused,
    /// The reserve was given up, but no client came out of the backlog (this turn).
    Nothing,
    /// No reserve to give up: every descriptor is taken.
    NoReserve,
}

impl Reserve {
    /// The reserve for `listener`'s accept loop.
    pub fn new(listener: &TcpListener) -> Reserve {
        Reserve(hold(listener))
    }

    /// Take the reserve back if it is not held (it is lost when another thread takes its
    /// descriptor between its release and its return); whether it is held now.
    pub fn restore(&mut self, listener: &TcpListener) -> bool {
        if self.0.is_none() {
            self.0 = hold(listener);
        }
        self.0.is_some()
    }

    /// Accept ran out of descriptors: give the reserve up, take the next client out of the
    /// backlog with its descriptor and hand it to `refuse` (which closes it before returning),
    /// then take the reserve back.
    pub fn shed(
        &mut self,
        listener: &TcpListener,
        refuse: impl FnOnce(TcpStream, SocketAddr),
    ) -> Shed {
        if !self.restore(listener) {
            return Shed::NoReserve;
        }
        self.0 = None;
        let shed = match listener.accept().now_or_never() {
            Some(Ok((stream, peer))) => {
                refuse(stream, peer);
                Shed::Refused
            }
            _ => Shed::Nothing,
        };
        self.restore(listener);
        shed
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
