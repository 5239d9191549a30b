//! The WebSocket connections open on this node, so that the server's shutdown and the end of
//! its grace reach each one's tasks through the connection's own [`Stop`] (a lock-free wait,
//! where a token shared by every connection is a lock they all contend for on every wake-up).
//!
//! [`Stop`]: crate::outbox::stop::Stop

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::outbox::stop::Reason;
use crate::outbox::{ConnId, Outbox};

/// The open connections, and the reasons raised on all of them so far.
#[derive(Debug, Default)]
pub struct Live {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    conns: HashMap<ConnId, Outbox>,
    /// Raised on every connection, and on every one that comes later.
    raised: Vec<Reason>,
}

/// A connection's place on the list; it leaves when this is dropped.
#[derive(Debug)]
pub struct Entry {
    live: Arc<Live>,
    id: ConnId,
}

impl Live {
    /// Put `outbox`'s connection on the list; the reasons raised already are raised on it.
    pub fn enter(self: &Arc<Self>, outbox: &Outbox) -> Entry {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        for &reason in &inner.raised {
            outbox.stop().raise(reason);
        }
        inner.conns.insert(outbox.id, outbox.clone());
        Entry {
            live: self.clone(),
            id: outbox.id,
        }
    }

    /// Raise `reason` on every connection, now and to come.
    pub fn raise(&self, reason: Reason) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.raised.push(reason);
        for outbox in inner.conns.values() {
            outbox.stop().raise(reason);
        }
    }

    /// Connections on the list.
    pub fn len(&self) -> usize {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.conns.len()
    }

    /// Whether no connection is on the list.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Drop for Entry {
    fn drop(&mut self) {
        let mut inner = self
            .live
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        inner.conns.remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::outbox::SlowRule;

    fn outbox(id: u64) -> Outbox {
        let rule = SlowRule {
            max_bytes: 1000,
            max_stall: Duration::from_secs(1),
        };
        Outbox::new(ConnId(id), rule, 4).0
    }

    #[tokio::test]
    async fn a_reason_reaches_every_connection_on_the_list_and_every_later_one() {
        let live = Arc::new(Live::default());
        let (a, b) = (outbox(1), outbox(2));
        let entry_a = live.enter(&a);
        let entry_b = live.enter(&b);
        assert_eq!(live.len(), 2);
        drop(entry_b);
        assert_eq!(live.len(), 1);
        live.raise(Reason::Shutdown);
        assert!(a.stop().is_raised(Reason::Shutdown));
        assert!(!b.stop().is_raised(Reason::Shutdown), "b had left");
        let c = outbox(3);
        let _entry_c = live.enter(&c);
        assert!(c.stop().is_raised(Reason::Shutdown));
        assert!(!c.stop().is_raised(Reason::HardStop));
        drop(entry_a);
        assert_eq!(live.len(), 1);
    }
}
