//! What every backend writes and reads the same way, with no SQL in it: the rows a race
//! becomes (seats, daily attempts), and the shaping of rows read back (integers into range,
//! rating stats, the difficulty order, rated races grouped). The backends only move these
//! values in and out of their own SQL, so SQLite and PostgreSQL cannot drift apart in what
//! they decide; who is rated and how is [`super::rated`].

use engine::Difficulty;
use protocol::{FinishStatus, Standing};

use super::{
    join_flags, BestSolve, DifficultyRating, RaceRecord, RatedEntry, RatedRace, RatingStats,
    SeatRecord, StoreError,
};
use crate::rating::{conservative, Rating};

/// A stored integer column as an unsigned value (negative or too large means a damaged
/// database).
pub(crate) fn unsigned<T: TryFrom<i64>>(what: &'static str, v: i64) -> Result<T, StoreError> {
    T::try_from(v).map_err(|_| StoreError::Corrupt {
        what,
        value: v.to_string(),
    })
}

/// [`unsigned`] of a nullable column.
pub(crate) fn opt_unsigned<T: TryFrom<i64>>(
    what: &'static str,
    v: Option<i64>,
) -> Result<Option<T>, StoreError> {
    v.map(|v| unsigned(what, v)).transpose()
}

/// A time or count as stored: both databases keep signed 64-bit integers. Nothing the server
/// measures comes near `i64::MAX`; past it the value saturates instead of wrapping negative.
pub(crate) fn signed(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// The seat record of a standing, if the room gave one.
pub(super) fn seat_of<'a>(rec: &'a RaceRecord, s: &Standing) -> Option<&'a SeatRecord> {
    rec.seats
        .iter()
        .find(|r| r.player_id == s.player_id.as_str())
}

/// One `seats` row.
pub(crate) struct SeatWrite<'a> {
    /// The race's player id.
    pub player_id: &'a str,
    /// The persistent player.
    pub handle: Option<&'a str>,
    /// A declared bot.
    pub bot: bool,
    /// Flags as stored ([`join_flags`]).
    pub flags: String,
    /// Its own puzzle, when it was dealt an isomorph (A8); `None` is the race's.
    pub puzzle: Option<String>,
    /// Its own solution, likewise.
    pub solution: Option<String>,
}

/// A seat row per standing: the room's seat record, else an anonymous clean human.
pub(crate) fn seat_writes(rec: &RaceRecord) -> Vec<SeatWrite<'_>> {
    rec.standings
        .iter()
        .map(|s| {
            let (puzzle, solution) = rec.own_grids(s.player_id.as_str()).unzip();
            match seat_of(rec, s) {
                Some(r) => SeatWrite {
                    player_id: &r.player_id,
                    handle: r.handle.as_deref(),
                    bot: r.bot,
                    flags: join_flags(&r.flags),
                    puzzle,
                    solution,
                },
                None => SeatWrite {
                    player_id: s.player_id.as_str(),
                    handle: None,
                    bot: false,
                    flags: String::new(),
                    puzzle,
                    solution,
                },
            }
        })
        .collect()
}

/// The daily attempts a daily race records: each identified seat's handle and its board order
/// (`sort_ms`: the solve time, the largest integer when unsolved). Empty for other races.
pub(crate) fn daily_writes(rec: &RaceRecord) -> Vec<(&str, i64)> {
    if rec.daily.is_none() {
        return Vec::new();
    }
    rec.standings
        .iter()
        .filter_map(|s| {
            let handle = seat_of(rec, s).and_then(|r| r.handle.as_deref())?;
            let sort_ms = match (s.status, s.time_ms) {
                (FinishStatus::Solved, Some(t)) => signed(t),
                _ => i64::MAX,
            };
            Some((handle, sort_ms))
        })
        .collect()
}

/// The solves a race offers as its players' best times (`PUT_BEST`): each identified seat
/// without fair-play flags that solved, with its time. Daily and unrated races count alike:
/// the player solved the puzzle in that time. A seat with flags does not: its time is in
/// doubt, and a best time is what others race as a ghost. Nor does a ghost race: it replays a
/// puzzle its racer may have seen (their own best, say).
pub(crate) fn best_writes(rec: &RaceRecord) -> Vec<(&str, i64)> {
    if rec.ghost_of.is_some() {
        return Vec::new();
    }
    rec.standings
        .iter()
        .filter_map(|s| {
            let seat = seat_of(rec, s)?;
            let handle = seat.handle.as_deref().filter(|_| seat.flags.is_empty())?;
            match (s.status, s.time_ms) {
                (FinishStatus::Solved, Some(t)) => Some((handle, signed(t))),
                _ => None,
            }
        })
        .collect()
}

/// Easy first, as [`sort_by_difficulty`] orders ratings.
pub(crate) fn sort_best(best: &mut [BestSolve]) {
    best.sort_by_key(|b| difficulty_order(&b.difficulty));
}

/// Rating stats from the stored `mu, sigma, races, wins, best_time_ms`.
pub(crate) fn stats(
    mu: f64,
    sigma: f64,
    races: i64,
    wins: i64,
    best_time_ms: Option<i64>,
) -> Result<RatingStats, StoreError> {
    Ok(RatingStats {
        rating: conservative(Rating { mu, sigma }),
        mu,
        sigma,
        races: unsigned("races", races)?,
        wins: unsigned("wins", wins)?,
        best_time_ms: opt_unsigned("best_time_ms", best_time_ms)?,
    })
}

/// The conservative rating of a stored (μ, σ) pair, when the row had one.
pub(crate) fn opt_conservative(mu: Option<f64>, sigma: Option<f64>) -> Option<f64> {
    mu.zip(sigma)
        .map(|(mu, sigma)| conservative(Rating { mu, sigma }))
}

/// Which collision a refused `register` was, once the store has asked whether the handle is
/// taken: the handle if so (mint another and retry), else the key's hash.
pub(crate) fn collision(handle: &str, handle_taken: bool) -> StoreError {
    if handle_taken {
        StoreError::HandleTaken {
            handle: handle.to_owned(),
        }
    } else {
        StoreError::KeyTaken
    }
}

/// A 1-based position in a paged list: the page's offset plus the rows before it on the page.
pub(crate) fn position(offset: u32, before: usize) -> u64 {
    u64::from(offset) + before as u64 + 1
}

/// Easy first: the order of the difficulties, not of their names.
pub(crate) fn sort_by_difficulty(ratings: &mut [DifficultyRating]) {
    ratings.sort_by_key(|d| difficulty_order(&d.difficulty));
}

/// A difficulty's place among [`Difficulty::ALL`]; an unknown name goes last.
fn difficulty_order(name: &str) -> usize {
    Difficulty::ALL
        .iter()
        .position(|x| x.as_str() == name)
        .unwrap_or(usize::MAX)
}

/// Gathers rating-change rows, read in `seq` order, into one [`RatedRace`] per race and hands
/// each to `f` when the next race begins. A race's changes are written together, so they are
/// contiguous in `seq`.
pub(crate) struct RatedRaces<'f> {
    cur: Option<RatedRace>,
    f: &'f mut dyn FnMut(RatedRace) -> Result<(), StoreError>,
}

impl<'f> RatedRaces<'f> {
    /// Hand finished races to `f`.
    pub(crate) fn new(f: &'f mut dyn FnMut(RatedRace) -> Result<(), StoreError>) -> Self {
        RatedRaces { cur: None, f }
    }

    /// The next row: a seat's entry of race `race_id` at `difficulty`.
    pub(crate) fn push(
        &mut self,
        race_id: String,
        difficulty: String,
        entry: RatedEntry,
    ) -> Result<(), StoreError> {
        match &mut self.cur {
            Some(c) if c.race_id == race_id => c.entries.push(entry),
            _ => {
                let next = RatedRace {
                    race_id,
                    difficulty,
                    entries: vec![entry],
                };
                if let Some(done) = self.cur.replace(next) {
                    (self.f)(done)?;
                }
            }
        }
        Ok(())
    }

    /// No more rows: hand over the last race.
    pub(crate) fn finish(mut self) -> Result<(), StoreError> {
        match self.cur.take() {
            Some(done) => (self.f)(done),
            None => Ok(()),
        }
    }
}
