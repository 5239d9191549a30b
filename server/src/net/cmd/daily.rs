//! `start_daily` on the connection (Amendment A6): the checks before a daily room opens (a
//! known key, no attempt yet today at that difficulty) and the day's puzzle, all off the async
//! workers. The room itself is an ordinary private one-seat room made daily
//! ([`crate::room::rules::Room::make_daily`]).

use std::sync::Arc;

use engine::Difficulty;
use protocol::{ErrorCode, IdentityKey, Settings};

use super::identity::{lookup, Refused};
use super::in_room::RoomLink;
use super::peer::Peer;
use super::rooms::open_room;
use crate::clock::unix_ms;
use crate::puzzles::SolvedPuzzle;
use crate::room::task::RoomEnv;
use crate::store::period::utc_date;

/// What a daily room opens with.
pub struct Entry {
    /// The UTC date.
    pub date: String,
    /// The day's puzzle.
    pub puzzle: SolvedPuzzle,
    /// A private room for one.
    pub settings: Settings,
}

/// Check that `handle` may play the daily of `difficulty` today and fetch its puzzle. The
/// attempt counts from here: a second `start_daily` is `already_played`, even before the
/// first race is stored.
pub async fn prepare(
    env: &Arc<RoomEnv>,
    raw_difficulty: &str,
    handle: &str,
    now_unix_ms: i64,
) -> Result<Entry, Refused> {
    let difficulty: Difficulty = raw_difficulty.parse().map_err(|_| {
        (
            ErrorCode::InvalidSettings,
            format!("difficulty: unknown {raw_difficulty:?}"),
        )
    })?;
    let date = utc_date(now_unix_ms);
    let (store, h, d) = (env.store.clone(), handle.to_owned(), date.clone());
    let played = tokio::task::spawn_blocking(move || store.daily_played(&h, &d, difficulty)).await;
    match played {
        Ok(Ok(false)) => {}
        Ok(Ok(true)) => return Err(already_played()),
        Ok(Err(e)) => {
            tracing::error!(error = %e, "checking a daily attempt failed");
            return Err((
                ErrorCode::ServerFull,
                "the daily is unavailable right now".into(),
            ));
        }
        Err(e) => {
            tracing::error!(error = %e, "the daily check panicked");
            return Err((
                ErrorCode::ServerFull,
                "the daily is unavailable right now".into(),
            ));
        }
    }
    if !env.daily.begin(handle, &date, difficulty) {
        return Err(already_played());
    }
    let (daily, d) = (env.daily.clone(), date.clone());
    let puzzle = tokio::task::spawn_blocking(move || daily.puzzle(&d, difficulty))
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "generating the daily puzzle panicked");
            (
                ErrorCode::ServerFull,
                "the daily is unavailable right now".to_owned(),
            )
        })?;
    let settings = Settings {
        difficulty,
        max_players: 1,
        public: false,
        rated: false,
        // One puzzle for everyone (A8): the day's, or the ghost's own.
        isomorphs: false,
        ..Settings::default()
    };
    Ok(Entry {
        date,
        puzzle,
        settings,
    })
}

fn already_played() -> Refused {
    (
        ErrorCode::AlreadyPlayed,
        "one attempt per day and difficulty: come back tomorrow".into(),
    )
}

/// `start_daily`: a private one-seat room on the day's puzzle (A6); whether the connection is
/// in it (the caller then starts the race at once).
pub(super) async fn start_daily(
    peer: &mut Peer,
    link: &mut RoomLink,
    difficulty: String,
    key: IdentityKey,
) -> bool {
    let (who, name) = match lookup(peer.server.play.store(), Some(key), false).await {
        Ok(found) => found,
        Err((code, message)) => {
            peer.error(code, message);
            return false;
        }
    };
    // A known key always names a handle and a name; the room and its one seat take the name
    // the player registered under, as any room takes its creator's.
    let (Some(handle), Some(name)) = (who.handle.clone(), name) else {
        return false;
    };
    match prepare(peer.server.play.env(), &difficulty, &handle, unix_ms()).await {
        Ok(entry) => {
            let day = Some((entry.date, entry.puzzle));
            open_room(peer, link, name, entry.settings, who, day, None).await
        }
        Err((code, message)) => {
            peer.error(code, message);
            false
        }
    }
}
