//! `race_ghost` (A7): race one stored replay, your own best, today's daily winner or a race by
//! id, in a private room with you and the ghost. The store names the race and reads the ghost's
//! placements (off the async workers); the room replays them by its own clock
//! ([`crate::room::rules::ghost`]).

use std::sync::Arc;

use engine::Difficulty;
use protocol::{ErrorCode, IdentityKey, Settings};

use super::in_room::RoomLink;
use super::peer::Peer;
use super::rooms::open_room;
use crate::clock::unix_ms;
use crate::room::rules::GhostRun;
use crate::store::period::utc_date;
use crate::store::{GhostRef, Store};

/// The settings of a ghost room: one seat, private, unrated, long enough for the ghost.
fn ghost_settings(run: &GhostRun, difficulty: Difficulty) -> Settings {
    let d = Settings::default();
    let ghost_s = u32::try_from(run.time_ms / 1000).unwrap_or(u32::MAX);
    Settings {
        difficulty,
        max_players: 1,
        public: false,
        rated: false,
        // One puzzle for everyone (A8): the day's, or the ghost's own.
        isomorphs: false,
        time_limit_s: d.time_limit_s.max(ghost_s.saturating_add(60)).min(7200),
        ..d
    }
}

/// The stored ghost `ghost` names for `handle` (the key's player, if any).
async fn find(
    store: &Arc<dyn Store>,
    ghost: String,
    handle: Option<String>,
    difficulty: Difficulty,
) -> Result<Option<GhostRun>, ()> {
    let store = store.clone();
    let today = utc_date(unix_ms());
    let found = tokio::task::spawn_blocking(move || {
        match GhostRef::from_wire(&ghost, handle.as_deref(), difficulty, &today) {
            Some(r) => store.ghost_source(&r),
            None => Ok(None),
        }
    })
    .await;
    match found {
        Ok(Ok(src)) => Ok(src.and_then(GhostRun::from_source)),
        Ok(Err(e)) => {
            tracing::error!(error = %e, "reading a ghost failed");
            Err(())
        }
        Err(e) => {
            tracing::error!(error = %e, "reading a ghost panicked");
            Err(())
        }
    }
}

/// `race_ghost`: a private room with the sender and a stored race's ghost; whether the
/// connection is in it (the caller then starts the race at once).
pub(super) async fn race_ghost(
    peer: &mut Peer,
    link: &mut RoomLink,
    ghost: String,
    difficulty: Option<String>,
    name: String,
    key: Option<IdentityKey>,
) -> bool {
    let raw = difficulty.unwrap_or_else(|| "medium".to_owned());
    let Ok(difficulty) = raw.parse::<Difficulty>() else {
        let why = format!("difficulty: unknown {raw:?}");
        peer.error(ErrorCode::InvalidSettings, why);
        return false;
    };
    if let Err(why) = protocol::PlayerName::try_from(name.as_str()) {
        peer.error(ErrorCode::InvalidName, why.to_string());
        return false;
    }
    let Some(who) = peer.identify(key, false).await else {
        return false;
    };
    let store = peer.server.play.store();
    let run = match find(store, ghost.clone(), who.handle.clone(), difficulty).await {
        Ok(Some(run)) => run,
        Ok(None) => {
            let why = match ghost.as_str() {
                "best" if who.handle.is_none() => "\"best\" needs your key".to_owned(),
                "best" => format!("you have no solve at {difficulty} yet"),
                "daily" => format!("nobody has solved today's {difficulty} daily yet"),
                _ => "no finished race with a solver has that id".to_owned(),
            };
            peer.error(ErrorCode::UnknownRace, why);
            return false;
        }
        Err(()) => {
            peer.error(ErrorCode::ServerFull, "ghosts are unavailable now");
            return false;
        }
    };
    // A race id names its own difficulty.
    let settings = ghost_settings(&run, run.difficulty);
    let ghost = Some(Box::new(run));
    open_room(peer, link, name, settings, who, None, ghost).await
}
