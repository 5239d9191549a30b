//! A room's listing (what `list_rooms`, a shared directory and `/api/tv` see of it), kept
//! current by its task: the phase, seats and settings after every command, and the running
//! race's mean rating (A8), looked up once as it starts.

use std::sync::{Arc, Mutex};

use super::handle::RoomInfo;
use super::rules::Room;
use crate::store::Store;

/// Bring the room's listing up to date; the new listing if it changed. Compared field by
/// field first, so a placement (the common command) copies nothing.
pub(super) fn changed(info: &Mutex<RoomInfo>, room: &Room) -> Option<RoomInfo> {
    let (phase, players) = (room.phase(), room.n_players() as u32);
    let mut i = info.lock().ok()?;
    if i.phase == phase && i.players == players && i.settings == *room.settings() {
        return None;
    }
    if phase != protocol::Phase::Racing {
        // A race's rating is looked up as it starts (`rate_race`), and may land before
        // the listing says `racing`.
        i.rating = None;
    }
    i.phase = phase;
    i.players = players;
    i.settings = room.settings().clone();
    Some(i.clone())
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
    difficulty: shared::engine::Difficulty,
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
