//! Arenas' standings (A7), kept so `/api/arenas/ID` answers after a restart: one row per arena
//! with its schedule and its standings as JSON (a table the API serves whole, never queried
//! by member). Written when an arena ends and again if a race still under way then finishes.

use protocol::{ArenaInfo, ArenaStanding, ArenaState};

use super::backend::Param::{Int, Text};
use super::backend::{first, rows, Cells, Sql};
use super::StoreError;

/// One arena's schedule and standings, as kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArenaRecord {
    /// The arena (its `state` is what it was when written; `players` its members).
    pub info: ArenaInfo,
    /// Best first.
    pub standings: Vec<ArenaStanding>,
}

const PUT: &str =
    "INSERT INTO arenas (arena_id, name, difficulty, starts_unix_ms, ends_unix_ms, standings)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (arena_id) DO UPDATE SET standings = excluded.standings";
const GET: &str = "SELECT arena_id, name, difficulty, starts_unix_ms, ends_unix_ms, standings
     FROM arenas WHERE arena_id = $1";
const RECENT: &str = "SELECT arena_id, name, difficulty, starts_unix_ms, ends_unix_ms, standings
     FROM arenas ORDER BY ends_unix_ms DESC, arena_id LIMIT $1";

fn corrupt(what: &'static str, value: String) -> StoreError {
    StoreError::Corrupt { what, value }
}

/// [`super::Store::save_arena`].
pub(super) fn save(c: &mut dyn Sql, rec: &ArenaRecord) -> Result<(), StoreError> {
    let standings = serde_json::to_string(&rec.standings)
        .map_err(|e| corrupt("arena standings", e.to_string()))?;
    let i = &rec.info;
    let params = [
        Text(&i.arena_id),
        Text(&i.name),
        Text(i.difficulty.as_str()),
        Int(i.starts_unix_ms),
        Int(i.ends_unix_ms),
        Text(&standings),
    ];
    c.exec(PUT, &params)
}

fn record(r: &dyn Cells) -> Result<ArenaRecord, StoreError> {
    let difficulty = r.text(2)?;
    let difficulty = difficulty
        .parse()
        .map_err(|_| corrupt("difficulty", difficulty))?;
    let text = r.text(5)?;
    let standings: Vec<ArenaStanding> =
        serde_json::from_str(&text).map_err(|_| corrupt("arena standings", text))?;
    Ok(ArenaRecord {
        info: ArenaInfo {
            arena_id: r.text(0)?,
            name: r.text(1)?,
            difficulty,
            starts_unix_ms: r.int(3)?,
            ends_unix_ms: r.int(4)?,
            state: ArenaState::Finished,
            players: u32::try_from(standings.len()).unwrap_or(u32::MAX),
        },
        standings,
    })
}

/// [`super::Store::arena`].
pub(super) fn get(c: &mut dyn Sql, arena_id: &str) -> Result<Option<ArenaRecord>, StoreError> {
    first(c, GET, &[Text(arena_id)], record)
}

/// [`super::Store::recent_arenas`].
pub(super) fn recent(c: &mut dyn Sql, limit: u32) -> Result<Vec<ArenaRecord>, StoreError> {
    rows(c, RECENT, &[Int(i64::from(limit))], record)
}
