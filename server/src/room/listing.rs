//! A room's listing (what `list_rooms`, a shared directory and `/api/tv` see of it), kept
//! current by its task: the phase, seats and settings after every command, and the running
//! race's mean rating (A8), looked up once as it starts. The task compares with its own copy
//! first, so a command that changes none of it takes no lock.

use std::sync::{Arc, Mutex};

use protocol::{Phase, Settings};

use super::handle::RoomInfo;
use super::rules::Room;
use crate::store::Store;

/// A room's listing, and what its task last wrote there: a command that changes none of it
/// (a placement, the common command) is told by comparing with this copy, without the lock.
#[derive(Debug)]
pub(super) struct Listing {
    info: Arc<Mutex<RoomInfo>>,
    /// Phase, seats and settings as last written.
    shown: Option<(Phase, u32, Settings)>,
}

impl Listing {
    /// The listing behind `info`, which the task alone writes (besides a race's rating).
    pub(super) fn new(info: Arc<Mutex<RoomInfo>>) -> Listing {
        let shown = info
            .lock()
            .ok()
            .map(|i| (i.phase, i.players, i.settings.clone()));
        Listing { info, shown }
    }

    /// The shared listing, for the rating a race's start looks up.
    pub(super) fn info(&self) -> &Arc<Mutex<RoomInfo>> {
        &self.info
    }

    /// Bring the listing up to date with `room`; the new listing if it changed.
    pub(super) fn changed(&mut self, room: &Room) -> Option<RoomInfo> {
        let (phase, players) = (room.phase(), room.n_players() as u32);
        if let Some((p, n, s)) = &self.shown {
            if *p == phase && *n == players && s == room.settings() {
                return None;
            }
        }
        self.shown = Some((phase, players, room.settings().clone()));
        let mut i = self.info.lock().ok()?;
        if phase != Phase::Racing {
            // A race's rating is looked up as it starts (`rate_race`), and may land before
            // the listing says `racing`.
            i.rating = None;
        }
        i.phase = phase;
        i.players = players;
        i.settings = room.settings().clone();
        Some(i.clone())
    }
}

/// A race started: look up the mean rating of its identified human racers off the async
/// workers, for `/api/tv` (A8). Written into the listing only while the race still runs.
pub(super) fn rate_race(
    store: &Arc<dyn Store>,
    tasks: &tokio_util::task::TaskTracker,
    info: &Arc<Mutex<RoomInfo>>,
    room: &Room,
) {
    let handles = room.rated_handles();
    if handles.is_empty() {
        return;
    }
    let store = store.clone();
    let info = info.clone();
    let difficulty = room.settings().difficulty;
    tasks.spawn(async move {
        let mean = tokio::task::spawn_blocking(move || mean_rating(&*store, &handles, difficulty));
        match mean.await {
            Ok(Ok(mean)) => {
                if let Ok(mut i) = info.lock() {
                    if matches!(
                        i.phase,
                        protocol::Phase::Countdown | protocol::Phase::Racing
                    ) {
                        i.rating = Some(mean);
                    }
                }
            }
            Ok(Err(e)) => tracing::warn!(error = %e, "the race's ratings could not be read"),
            Err(e) => tracing::error!(error = %e, "the ratings lookup panicked"),
        }
    });
}

/// The mean shown rating (μ − 3σ) at `difficulty` of `handles`; one never rated there counts
/// as a newcomer (0). Blocks: it reads the store.
fn mean_rating(
    store: &dyn Store,
    handles: &[String],
    difficulty: engine::Difficulty,
) -> Result<f64, crate::store::StoreError> {
    let mut sum = 0.0;
    for h in handles {
        let page = store.player(h)?;
        let rated = page.and_then(|p| {
            let r = p
                .ratings
                .into_iter()
                .find(|r| r.difficulty == difficulty.as_str());
            r.map(|r| r.stats.rating)
        });
        sum += rated.unwrap_or(0.0);
    }
    Ok(sum / handles.len().max(1) as f64)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // a test's own clock
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use protocol::Phase;
    use tokio::time::Instant;

    use super::*;
    use crate::outbox::ConnId;
    use crate::room::rules::tests::{cell, empty_cells, racing, settings, solution_digit};

    /// ARCHITECTURE.md's invariant: a placement (any command that leaves the listing as it
    /// was) takes no lock. With the listing's mutex held elsewhere, the task's update after a
    /// placement still returns; a change of seats still writes the listing.
    #[test]
    fn a_placement_takes_no_lock() {
        let t0 = Instant::now();
        let mut room = racing(2, settings(), t0);
        let info = Arc::new(Mutex::new(RoomInfo {
            phase: Phase::Lobby,
            players: 0,
            settings: Settings::default(),
            rating: None,
        }));
        let mut listing = Listing::new(info.clone());
        assert!(listing.changed(&room).is_some(), "the race is listed");
        let c = empty_cells()[0];
        room.place(ConnId(1), cell(c), solution_digit(c), None, t0);
        let held = info.lock().unwrap();
        let (tx, rx) = mpsc::channel();
        let update = std::thread::spawn(move || {
            let _ = tx.send(listing.changed(&room));
            (listing, room)
        });
        // A wait that only a lock taken by the placement's update outlasts.
        let got = rx.recv_timeout(Duration::from_secs(10));
        drop(held);
        assert_eq!(got, Ok(None), "the placement's update waited for the lock");
        let (mut listing, mut room) = update.join().unwrap();
        room.leave(ConnId(2), t0);
        let now = listing.changed(&room).expect("a seat left: listed anew");
        assert_eq!(now.players, 1);
        assert_eq!(info.lock().unwrap().players, 1);
    }
}
