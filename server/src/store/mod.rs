//! The store: what the server keeps of finished races and of the players who persist (A6).
//! This module owns the [`Store`] trait, the records written and the rows read back, and
//! [`StoreError`]. It has two implementations that answer alike: [`sqlite`] (one node, one
//! file) and [`postgres`] (a database that several nodes share); nothing here names a SQL
//! type. What both do alike is written once: `backend` is the seam (each database runs
//! statements and writes a race its own way; one `Store` front serves both), `read` the
//! queries, `rated` the rating update, `rows` what both decide without SQL, `ghost` what a
//! ghost race replays. [`period`] turns a clock reading into leaderboard periods and
//! [`recompute`] replays every stored rating change to check it against the stored ratings.
//!
//! Stores are synchronous: callers run them on blocking threads (`spawn_blocking`), never on
//! the async workers. A player's key never reaches the store: only its SHA-256 ([`key_hash`]),
//! and no query returns that hash.

mod arena;
mod backend;
mod fault;
mod front;
mod ghost;
mod moderation;
pub mod period;
pub mod postgres;
mod rated;
mod read;
pub mod recompute;
mod rows;
pub mod spool;
mod sql;
pub mod sqlite;

use std::path::PathBuf;

use engine::Difficulty;
use protocol::Standing;

pub use arena::ArenaRecord;
pub use ghost::{GhostMove, GhostRef, GhostSource};
pub use moderation::{FlaggedResult, ReportRecord};
pub use period::Period;
pub use postgres::PgStore;
pub use sqlite::SqliteStore;

/// A store failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database directory could not be created.
    #[error("cannot create directory {path}: {source}")]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The database itself failed (the implementation's own error inside).
    #[error("database: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The schema could not be brought up to date.
    #[error("schema migration: {0}")]
    Migration(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// `register` with a handle that is already someone's: mint another and retry.
    #[error("handle {handle} is taken")]
    HandleTaken {
        /// The handle asked for.
        handle: String,
    },
    /// `register` with a key whose hash is already registered.
    #[error("key is already registered")]
    KeyTaken,
    /// A stored value is out of its range (the database was edited by hand, or is damaged).
    #[error("stored {what} is invalid: {value}")]
    Corrupt {
        /// Which column.
        what: &'static str,
        /// What was found.
        value: String,
    },
    /// The connection mutex was poisoned by a panic elsewhere.
    #[error("results store lock poisoned")]
    Poisoned,
}

/// The SHA-256 of a player's secret key: the only form of it the store sees.
pub fn key_hash(key: &str) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(key.as_bytes()).into()
}

/// One placement, for replays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacementRecord {
    /// Who placed.
    pub player_id: String,
    /// Race time of the placement (without penalties).
    pub at_ms: u64,
    /// Cell 0..=80.
    pub cell: u8,
    /// Digit 1..=9.
    pub digit: u8,
    /// `accepted`, `wrong`, `conflict`, `given` or `filled`.
    pub outcome: &'static str,
}

/// Who sat in a seat of a race, beyond its standing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRecord {
    /// The race's player id (as in the standings).
    pub player_id: String,
    /// The persistent player, if the seat was linked to a key; `None` is anonymous.
    pub handle: Option<String>,
    /// The client said it is a bot.
    pub bot: bool,
    /// Anti-cheat flags raised for this seat (`crate::fairplay`); empty is clean.
    pub flags: Vec<String>,
}

/// Everything stored about one finished race.
#[derive(Clone, Debug)]
pub struct RaceRecord {
    /// Opaque race id.
    pub race_id: String,
    /// Room code.
    pub room: String,
    /// `easy` .. `expert`.
    pub difficulty: &'static str,
    /// The puzzle dealt.
    pub puzzle: String,
    /// Its solution.
    pub solution: String,
    /// Wall-clock start, Unix milliseconds.
    pub started_unix_ms: i64,
    /// Race clock at the end.
    pub duration_ms: u64,
    /// `all_done`, `time_limit` or `shutdown` (the server stopped mid-race).
    pub reason: &'static str,
    /// The race counts for ratings (`settings.rated` and enough identified humans at the start).
    pub rated: bool,
    /// The daily challenge's UTC date (`YYYY-MM-DD`), if this race was one.
    pub daily: Option<String>,
    /// The race this one raced as a ghost (A7 `race_ghost`), if it was a ghost race.
    pub ghost_of: Option<String>,
    /// Final standings.
    pub standings: Vec<Standing>,
    /// Who sat where; a standing without a seat here is anonymous, human and clean.
    pub seats: Vec<SeatRecord>,
    /// Every placement, in order.
    pub placements: Vec<PlacementRecord>,
}

impl RaceRecord {
    /// Seat `player_id`'s own puzzle and solution (A8), when it was dealt an isomorph of the
    /// race's (its standing carries them); `None` when it raced the race's.
    pub fn own_grids(&self, player_id: &str) -> Option<(String, String)> {
        let s = self
            .standings
            .iter()
            .find(|s| s.player_id.as_str() == player_id)?;
        let (puzzle, solution) = (s.puzzle?.to_line(), s.solution?.to_line());
        (puzzle != self.puzzle).then_some((puzzle, solution))
    }

    /// When the race ended, Unix milliseconds.
    pub fn finished_unix_ms(&self) -> i64 {
        self.started_unix_ms
            .saturating_add(i64::try_from(self.duration_ms).unwrap_or(i64::MAX))
    }
}

/// A rating change of one player in one rated race, as `race_over` announces it.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingChange {
    /// The race's player id.
    pub player_id: String,
    /// The persistent player.
    pub handle: String,
    /// Conservative rating (μ − 3σ) before the race.
    pub before: f64,
    /// Conservative rating after it.
    pub after: f64,
}

/// A standings row read back from the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredStanding {
    /// Rank.
    pub rank: u32,
    /// Player id.
    pub player_id: String,
    /// Name.
    pub name: String,
    /// `solved`, `forfeited`, `eliminated` or `timed_out`.
    pub status: String,
    /// Time with penalties less lag (A8: the time ranks use), when solved.
    pub time_ms: Option<u64>,
    /// Correct cells filled.
    pub filled: u32,
    /// Mistakes.
    pub mistakes: u32,
    /// Time with penalties by the server's clock, when solved (A8).
    pub time_ms_raw: Option<u64>,
    /// The lag `time_ms` was compensated by (A8).
    pub lag_ms: u32,
}

/// A registered player, found by key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerRow {
    /// Public id.
    pub handle: String,
    /// The player's name: the one they last raced under, else the one they registered.
    pub name: String,
    /// Banned (A8): plays unrated, left out of the boards.
    pub banned: bool,
}

/// A player's rating at one difficulty over a span (a leaderboard period, or all time):
/// the rating after their last rated race in it, and counts of its rated races.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingStats {
    /// Conservative rating μ − 3σ.
    pub rating: f64,
    /// μ.
    pub mu: f64,
    /// σ.
    pub sigma: f64,
    /// Rated races.
    pub races: u32,
    /// Of them, won (rank 1 and solved).
    pub wins: u32,
    /// Best solved time.
    pub best_time_ms: Option<u64>,
}

/// One leaderboard line.
#[derive(Clone, Debug, PartialEq)]
pub struct LeaderRow {
    /// 1-based position (offset included); equal ratings are ordered by handle.
    pub rank: u64,
    /// Public id.
    pub handle: String,
    /// Registered name.
    pub name: String,
    /// Within the period.
    pub stats: RatingStats,
}

/// A player's rating at one difficulty, all time.
#[derive(Clone, Debug, PartialEq)]
pub struct DifficultyRating {
    /// `easy` .. `expert`.
    pub difficulty: String,
    /// All time.
    pub stats: RatingStats,
}

/// A player's public page.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerPage {
    /// Public id.
    pub handle: String,
    /// Registered name.
    pub name: String,
    /// Registration time, Unix milliseconds.
    pub created_unix_ms: i64,
    /// One entry per difficulty played rated, easy first.
    pub ratings: Vec<DifficultyRating>,
    /// The fastest solve at each difficulty solved at all, easy first.
    pub best: Vec<BestSolve>,
}

/// A player's fastest solve at one difficulty: of every stored race in which one of the
/// player's seats solved, rated or not, daily or not, but not a ghost race (it replays a
/// puzzle its racer may have seen), the smallest standings `time_ms` (penalties included); a
/// seat with fair-play flags does not count. Equal times keep the earlier race. Kept at write time, one row per
/// player and difficulty, so a page reads it without walking the player's history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestSolve {
    /// `easy` .. `expert`.
    pub difficulty: String,
    /// The solve time, penalties included.
    pub time_ms: u64,
    /// The race it was solved in.
    pub race_id: String,
}

/// One race in a player's history.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryRow {
    /// The race.
    pub race_id: String,
    /// When it ended, Unix milliseconds.
    pub finished_unix_ms: i64,
    /// `easy` .. `expert`.
    pub difficulty: String,
    /// It counted for ratings.
    pub rated: bool,
    /// The player's rank.
    pub rank: u32,
    /// Players in the race.
    pub players: u32,
    /// `solved`, `forfeited`, `eliminated` or `timed_out`.
    pub status: String,
    /// Time with penalties, when solved.
    pub time_ms: Option<u64>,
    /// Mistakes.
    pub mistakes: u32,
    /// Conservative rating before the race, if it changed the player's rating.
    pub rating_before: Option<f64>,
    /// Conservative rating after it.
    pub rating_after: Option<f64>,
    /// Anti-cheat flags of the player's seat.
    pub flags: Vec<String>,
}

/// One line of a daily challenge's board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DailyRow {
    /// 1-based position (offset included): solvers by time, then everyone else.
    pub rank: u64,
    /// Public id.
    pub handle: String,
    /// Registered name.
    pub name: String,
    /// The attempt's race.
    pub race_id: String,
    /// `solved`, `forfeited`, `eliminated` or `timed_out`.
    pub status: String,
    /// Time with penalties, when solved.
    pub time_ms: Option<u64>,
    /// Mistakes.
    pub mistakes: u32,
}

/// A race as stored, without its rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceRow {
    /// Opaque race id.
    pub race_id: String,
    /// `easy` .. `expert`.
    pub difficulty: String,
    /// The puzzle dealt.
    pub puzzle: String,
    /// Its solution.
    pub solution: String,
    /// Wall-clock start, Unix milliseconds.
    pub started_unix_ms: i64,
    /// Race clock at the end.
    pub duration_ms: u64,
    /// Why it ended.
    pub reason: String,
    /// It counted for ratings.
    pub rated: bool,
    /// The daily challenge's date, if it was one.
    pub daily: Option<String>,
    /// The race this one raced as a ghost, if it was a ghost race.
    pub ghost_of: Option<String>,
}

/// A seat of a stored race.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRow {
    /// The race's player id.
    pub player_id: String,
    /// The name raced under.
    pub name: String,
    /// The persistent player, if any.
    pub handle: Option<String>,
    /// A declared bot.
    pub bot: bool,
    /// Anti-cheat flags.
    pub flags: Vec<String>,
    /// The seat's own puzzle (A8): an isomorph of the race's, or the race's.
    pub puzzle: String,
    /// Its solution.
    pub solution: String,
}

/// A placement read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredPlacement {
    /// Who placed.
    pub player_id: String,
    /// Race time of the placement.
    pub at_ms: u64,
    /// Cell 0..=80.
    pub cell: u8,
    /// Digit 1..=9.
    pub digit: u8,
    /// `accepted`, `wrong`, `conflict`, `given` or `filled`.
    pub outcome: String,
}

/// Everything needed to replay a finished race.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// The race.
    pub race: RaceRow,
    /// Its seats, in standings order.
    pub players: Vec<SeatRow>,
    /// Final standings.
    pub standings: Vec<StoredStanding>,
    /// Every placement, in order.
    pub placements: Vec<StoredPlacement>,
}

/// One player's part in a rated race, as stored: enough to redo the rating update.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedEntry {
    /// The persistent player.
    pub handle: String,
    /// The standings rank.
    pub rank: u32,
    /// The standings status.
    pub status: String,
    /// μ, σ before the race, as stored.
    pub before: (f64, f64),
    /// μ, σ after it, as stored.
    pub after: (f64, f64),
}

/// A rated race's rating changes, for [`recompute`].
#[derive(Clone, Debug, PartialEq)]
pub struct RatedRace {
    /// The race.
    pub race_id: String,
    /// Its difficulty.
    pub difficulty: String,
    /// Every rated seat.
    pub entries: Vec<RatedEntry>,
}

/// A stored current rating, for [`recompute`].
#[derive(Clone, Debug, PartialEq)]
pub struct StoredRating {
    /// The persistent player.
    pub handle: String,
    /// The difficulty.
    pub difficulty: String,
    /// μ.
    pub mu: f64,
    /// σ.
    pub sigma: f64,
}

/// What the server keeps: races, players, ratings. Object-safe (the server holds an
/// `Arc<dyn Store>`); every method blocks.
pub trait Store: Send + Sync + std::fmt::Debug {
    /// Write a finished race (race, standings, placements, seats) in one transaction; for a
    /// rated race also update the ratings of its rated seats (identified, not bots, not
    /// flagged, not banned, each placed something; at least two of them, one of whom solved)
    /// and return their changes, else an empty list. A daily race records each identified
    /// seat's attempt; each identified seat's name becomes its player's name.
    fn save_race(&self, rec: &RaceRecord) -> Result<Vec<RatingChange>, StoreError>;

    /// Ban (`true`) or unban `handle` (A8); whether such a player exists.
    fn set_banned(&self, handle: &str, banned: bool) -> Result<bool, StoreError>;

    /// Flagged results, newest first (A8 `/api/admin/flags`).
    fn flagged(&self, limit: u32, offset: u32) -> Result<Vec<FlaggedResult>, StoreError>;

    /// Keep a report (A8); the same reporter, target and race again keeps the first.
    fn save_report(&self, report: &ReportRecord) -> Result<(), StoreError>;

    /// Reports, newest first (A8 `/api/admin/reports`).
    fn reports(&self, limit: u32, offset: u32) -> Result<Vec<ReportRecord>, StoreError>;

    /// The handles of the players named exactly `name`, by handle (at most 10).
    fn handles_named(&self, name: &str) -> Result<Vec<String>, StoreError>;

    /// Keep an arena's standings (A7), replacing what was kept of it.
    fn save_arena(&self, arena: &ArenaRecord) -> Result<(), StoreError>;

    /// A kept arena.
    fn arena(&self, arena_id: &str) -> Result<Option<ArenaRecord>, StoreError>;

    /// The last `limit` kept arenas, the latest to end first.
    fn recent_arenas(&self, limit: u32) -> Result<Vec<ArenaRecord>, StoreError>;

    /// Register a player. A taken handle is [`StoreError::HandleTaken`] (retry with another).
    fn register(
        &self,
        handle: &str,
        key_hash: [u8; 32],
        name: &str,
        now_unix_ms: i64,
    ) -> Result<(), StoreError>;

    /// The player whose key hashes to `key_hash`.
    fn player_by_key(&self, key_hash: [u8; 32]) -> Result<Option<PlayerRow>, StoreError>;

    /// The leaderboard of `difficulty` for the UTC `period` containing `now_unix_ms`.
    fn leaderboard(
        &self,
        difficulty: Difficulty,
        period: Period,
        now_unix_ms: i64,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<LeaderRow>, StoreError>;

    /// A player's public page.
    fn player(&self, handle: &str) -> Result<Option<PlayerPage>, StoreError>;

    /// A player's races, newest first.
    fn history(&self, handle: &str, limit: u32, offset: u32)
        -> Result<Vec<HistoryRow>, StoreError>;

    /// A finished race with everything needed to replay it.
    fn replay(&self, race_id: &str) -> Result<Option<Replay>, StoreError>;

    /// Whether `handle` already made its attempt at the daily of `date` (`YYYY-MM-DD`).
    fn daily_played(
        &self,
        handle: &str,
        date: &str,
        difficulty: Difficulty,
    ) -> Result<bool, StoreError>;

    /// The board of the daily of `date` at `difficulty`: each player's first attempt.
    fn daily_board(
        &self,
        date: &str,
        difficulty: Difficulty,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<DailyRow>, StoreError>;

    /// What a ghost race needs of the race it replays (A7 `race_ghost`): `None` when there
    /// is nothing to race (no such race, no solve, no daily winner yet).
    fn ghost_source(&self, ghost: &GhostRef<'_>) -> Result<Option<GhostSource>, StoreError>;

    /// Every rated race in the order its ratings were applied, one at a time.
    fn for_each_rated_race(
        &self,
        f: &mut dyn FnMut(RatedRace) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;

    /// Every current rating.
    fn ratings(&self) -> Result<Vec<StoredRating>, StoreError>;

    /// The stored standings of a race, by rank (empty if the race is unknown).
    fn standings(&self, race_id: &str) -> Result<Vec<StoredStanding>, StoreError>;

    /// The stored reason of a race (`all_done`, `time_limit`, `shutdown`), if stored.
    fn race_reason(&self, race_id: &str) -> Result<Option<String>, StoreError>;

    /// Number of placements stored for a race (all outcomes).
    fn placement_count(&self, race_id: &str) -> Result<u64, StoreError>;

    /// The database answers: tells an outage (retry later) from a record it refuses.
    fn ping(&self) -> Result<(), StoreError>;
}

/// The rank a standing counts as for ratings: a solver keeps its standings rank; everyone
/// who did not solve (forfeited, eliminated, timed out, left) ties for last, behind every
/// solver, so not finishing never beats finishing and is never split by cells filled.
/// (Weng-Lin only compares ranks, so "last" can be the largest rank there is.)
pub fn rating_rank(status: &str, rank: u32) -> u32 {
    if status == "solved" {
        rank
    } else {
        u32::MAX
    }
}

/// Flags as stored: comma-separated names, empty when clean.
pub(crate) fn join_flags(flags: &[String]) -> String {
    flags.join(",")
}

/// Flags read back.
pub(crate) fn split_flags(text: &str) -> Vec<String> {
    text.split(',')
        .filter(|f| !f.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests;
