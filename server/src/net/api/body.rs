//! The API's answer bodies: one serde struct per JSON object, mapped from the store's rows in
//! one place. The store's types stay free of serde, so a column can change without changing
//! the wire, and nothing reaches an answer that is not named here (no key hash can: no field
//! holds one). `openapi.json` beside this file documents the same shapes; the integration
//! tests hold the two together.

use engine::Difficulty;
use serde::Serialize;

use crate::store::{
    BestSolve, DailyRow, DifficultyRating, HistoryRow, LeaderRow, PlayerPage, RatingStats, Replay,
    SeatRow, StoredPlacement, StoredStanding,
};

/// `GET /api/leaderboard`.
#[derive(Debug, Serialize)]
pub struct Leaderboard {
    /// As asked (or the default).
    pub difficulty: &'static str,
    /// As asked (or the default).
    pub period: &'static str,
    /// Best first.
    pub rows: Vec<LeaderLine>,
}

/// One leaderboard line.
#[derive(Debug, Serialize)]
pub struct LeaderLine {
    rank: u64,
    handle: String,
    name: String,
    #[serde(flatten)]
    stats: Stats,
}

impl From<LeaderRow> for LeaderLine {
    fn from(r: LeaderRow) -> Self {
        LeaderLine {
            rank: r.rank,
            handle: r.handle,
            name: r.name,
            stats: r.stats.into(),
        }
    }
}

/// A rating and its counts, flattened into the objects that carry them.
#[derive(Debug, Serialize)]
struct Stats {
    rating: f64,
    mu: f64,
    sigma: f64,
    races: u32,
    wins: u32,
    best_time_ms: Option<u64>,
}

impl From<RatingStats> for Stats {
    fn from(s: RatingStats) -> Self {
        Stats {
            rating: s.rating,
            mu: s.mu,
            sigma: s.sigma,
            races: s.races,
            wins: s.wins,
            best_time_ms: s.best_time_ms,
        }
    }
}

/// `GET /api/players/HANDLE`.
#[derive(Debug, Serialize)]
pub struct Player {
    handle: String,
    name: String,
    created_unix_ms: i64,
    ratings: Vec<Rating>,
    best: BestSolves,
}

/// A player's fastest solve per difficulty (A7), only the difficulties solved: a struct, not
/// a map, so the keys come easy first.
#[derive(Debug, Default, Serialize)]
struct BestSolves {
    #[serde(skip_serializing_if = "Option::is_none")]
    easy: Option<Best>,
    #[serde(skip_serializing_if = "Option::is_none")]
    medium: Option<Best>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hard: Option<Best>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expert: Option<Best>,
}

#[derive(Debug, Serialize)]
struct Best {
    time_ms: u64,
    race_id: String,
}

impl From<Vec<BestSolve>> for BestSolves {
    fn from(rows: Vec<BestSolve>) -> Self {
        let mut out = BestSolves::default();
        for b in rows {
            let slot = match b.difficulty.parse() {
                Ok(Difficulty::Easy) => &mut out.easy,
                Ok(Difficulty::Medium) => &mut out.medium,
                Ok(Difficulty::Hard) => &mut out.hard,
                Ok(Difficulty::Expert) => &mut out.expert,
                // A difficulty this server does not know has no key to go under.
                Err(_) => continue,
            };
            *slot = Some(Best {
                time_ms: b.time_ms,
                race_id: b.race_id,
            });
        }
        out
    }
}

#[derive(Debug, Serialize)]
struct Rating {
    difficulty: String,
    #[serde(flatten)]
    stats: Stats,
}

impl From<DifficultyRating> for Rating {
    fn from(r: DifficultyRating) -> Self {
        Rating {
            difficulty: r.difficulty,
            stats: r.stats.into(),
        }
    }
}

impl From<PlayerPage> for Player {
    fn from(p: PlayerPage) -> Self {
        Player {
            handle: p.handle,
            name: p.name,
            created_unix_ms: p.created_unix_ms,
            ratings: p.ratings.into_iter().map(Rating::from).collect(),
            best: p.best.into(),
        }
    }
}

/// `GET /api/players/HANDLE/races`.
#[derive(Debug, Serialize)]
pub struct History {
    /// Whose.
    pub handle: String,
    /// Newest first.
    pub races: Vec<HistoryLine>,
}

/// One race of a player's history.
#[derive(Debug, Serialize)]
pub struct HistoryLine {
    race_id: String,
    finished_unix_ms: i64,
    difficulty: String,
    rated: bool,
    rank: u32,
    players: u32,
    status: String,
    time_ms: Option<u64>,
    mistakes: u32,
    rating_before: Option<f64>,
    rating_after: Option<f64>,
    flags: Vec<String>,
}

impl From<HistoryRow> for HistoryLine {
    fn from(h: HistoryRow) -> Self {
        HistoryLine {
            race_id: h.race_id,
            finished_unix_ms: h.finished_unix_ms,
            difficulty: h.difficulty,
            rated: h.rated,
            rank: h.rank,
            players: h.players,
            status: h.status,
            time_ms: h.time_ms,
            mistakes: h.mistakes,
            rating_before: h.rating_before,
            rating_after: h.rating_after,
            flags: h.flags,
        }
    }
}

/// `GET /api/races/RACE_ID`: a finished race, whole.
#[derive(Debug, Serialize)]
pub struct Race {
    race_id: String,
    difficulty: String,
    puzzle: String,
    solution: String,
    started_unix_ms: i64,
    duration_ms: u64,
    reason: String,
    rated: bool,
    daily: Option<String>,
    players: Vec<Seat>,
    standings: Vec<Standing>,
    placements: Vec<Placement>,
}

#[derive(Debug, Serialize)]
struct Seat {
    player_id: String,
    name: String,
    handle: Option<String>,
    bot: bool,
    /// The seat's own puzzle (A8): its placements are on it.
    puzzle: String,
    solution: String,
}

impl From<SeatRow> for Seat {
    // A seat's fair-play flags are the player's own business: they show in that player's
    // history, not on a replay anyone can open.
    fn from(s: SeatRow) -> Self {
        Seat {
            player_id: s.player_id,
            name: s.name,
            handle: s.handle,
            bot: s.bot,
            puzzle: s.puzzle,
            solution: s.solution,
        }
    }
}

#[derive(Debug, Serialize)]
struct Standing {
    rank: u32,
    player_id: String,
    name: String,
    status: String,
    time_ms: Option<u64>,
    filled: u32,
    mistakes: u32,
    time_ms_raw: Option<u64>,
    lag_ms: u32,
}

impl From<StoredStanding> for Standing {
    fn from(s: StoredStanding) -> Self {
        Standing {
            rank: s.rank,
            player_id: s.player_id,
            name: s.name,
            status: s.status,
            time_ms: s.time_ms,
            filled: s.filled,
            mistakes: s.mistakes,
            time_ms_raw: s.time_ms_raw,
            lag_ms: s.lag_ms,
        }
    }
}

#[derive(Debug, Serialize)]
struct Placement {
    player_id: String,
    at_ms: u64,
    cell: u8,
    digit: u8,
    outcome: String,
}

impl From<StoredPlacement> for Placement {
    fn from(p: StoredPlacement) -> Self {
        Placement {
            player_id: p.player_id,
            at_ms: p.at_ms,
            cell: p.cell,
            digit: p.digit,
            outcome: p.outcome,
        }
    }
}

impl From<Replay> for Race {
    fn from(r: Replay) -> Self {
        let race = r.race;
        Race {
            race_id: race.race_id,
            difficulty: race.difficulty,
            puzzle: race.puzzle,
            solution: race.solution,
            started_unix_ms: race.started_unix_ms,
            duration_ms: race.duration_ms,
            reason: race.reason,
            rated: race.rated,
            daily: race.daily,
            players: r.players.into_iter().map(Seat::from).collect(),
            standings: r.standings.into_iter().map(Standing::from).collect(),
            placements: r.placements.into_iter().map(Placement::from).collect(),
        }
    }
}

/// `GET /api/daily`: today's boards, one per difficulty (a struct, not a map, so the four
/// keys are always there and in order).
#[derive(Debug, Serialize)]
pub struct Daily {
    /// Today, UTC, `YYYY-MM-DD`.
    pub date: String,
    /// Per difficulty.
    pub boards: DailyBoards,
}

/// The four boards of a day.
#[derive(Debug, Default, Serialize)]
#[allow(missing_docs)] // the difficulties' names say it
pub struct DailyBoards {
    pub easy: Vec<DailyLine>,
    pub medium: Vec<DailyLine>,
    pub hard: Vec<DailyLine>,
    pub expert: Vec<DailyLine>,
}

/// One line of a daily board.
#[derive(Debug, Serialize)]
pub struct DailyLine {
    rank: u64,
    handle: String,
    name: String,
    race_id: String,
    status: String,
    time_ms: Option<u64>,
    mistakes: u32,
}

impl From<DailyRow> for DailyLine {
    fn from(d: DailyRow) -> Self {
        DailyLine {
            rank: d.rank,
            handle: d.handle,
            name: d.name,
            race_id: d.race_id,
            status: d.status,
            time_ms: d.time_ms,
            mistakes: d.mistakes,
        }
    }
}

/// Every error answer: `{"error": "..."}`.
#[derive(Debug, Serialize)]
pub struct Error<'a> {
    /// What was wrong, for a person.
    pub error: &'a str,
}

/// `/api/arenas` (A7): every arena this node knows of, by start.
#[derive(Debug, Serialize)]
pub struct Arenas {
    /// Upcoming, running and recently finished arenas.
    pub arenas: Vec<protocol::ArenaInfo>,
}

/// `/api/arenas/ARENA_ID` (A7): the arena and its standings, best first.
#[derive(Debug, Serialize)]
pub struct Arena {
    /// The arena.
    #[serde(flatten)]
    pub arena: protocol::ArenaInfo,
    /// Its standings (final once it is over).
    pub standings: Vec<protocol::ArenaStanding>,
}

/// 409 on a player path whose name several players go by (A8).
#[derive(Debug, Serialize)]
pub struct Ambiguous {
    /// What went wrong, the handles included (a client that shows only `error` shows them).
    pub error: String,
    /// The handles going by that name.
    pub handles: Vec<String>,
}
