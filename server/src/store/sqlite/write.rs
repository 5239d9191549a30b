//! The SQLite writes: a finished race with its rating update, and registration. Each runs
//! inside the caller's transaction or statement, so a race is stored whole or not at all.

use rusqlite::{params, OptionalExtension, Transaction};

use super::dialect::Db;
use crate::store::moderation;
use crate::store::rated::{self, RatingSql};
use crate::store::{rows, sql, RaceRecord, RatingChange, StoreError};

fn save_standings(tx: &Transaction<'_>, rec: &RaceRecord) -> Result<(), StoreError> {
    let mut st = tx.prepare_cached(sql::PUT_STANDING)?;
    for s in &rec.standings {
        st.execute(params![
            rec.race_id,
            s.rank,
            s.player_id.as_str(),
            s.name.as_str(),
            s.status.as_str(),
            s.time_ms.map(rows::signed),
            s.filled,
            s.mistakes,
            s.time_ms_raw.map(rows::signed),
            s.lag_ms
        ])?;
    }
    Ok(())
}

/// The race's seats, each with its own puzzle when it had one (A8).
fn put_seats(tx: &Transaction<'_>, rec: &RaceRecord, finished: i64) -> Result<(), StoreError> {
    let mut seat = tx.prepare_cached(sql::PUT_SEAT)?;
    for w in rows::seat_writes(rec) {
        seat.execute(params![
            rec.race_id,
            w.player_id,
            w.handle,
            w.bot,
            w.flags,
            finished,
            w.puzzle,
            w.solution
        ])?;
    }
    Ok(())
}

/// Write `rec` (race, standings, placements, seats, daily attempts, best solves) and, when
/// rated, the rating update; returns the rating changes.
pub(super) fn save_race(
    tx: &Transaction<'_>,
    rec: &RaceRecord,
) -> Result<Vec<RatingChange>, StoreError> {
    let finished = rec.finished_unix_ms();
    tx.execute(
        sql::PUT_RACE,
        params![
            rec.race_id,
            rec.room,
            rec.difficulty,
            rec.puzzle,
            rec.solution,
            rec.started_unix_ms,
            rows::signed(rec.duration_ms),
            rec.reason,
            rec.rated,
            rec.daily,
            rec.ghost_of,
        ],
    )?;
    save_standings(tx, rec)?;
    let mut pl =
        tx.prepare_cached("INSERT OR REPLACE INTO placements VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?;
    for (seq, p) in rec.placements.iter().enumerate() {
        pl.execute(params![
            rec.race_id,
            seq as i64,
            p.player_id,
            rows::signed(p.at_ms),
            p.cell,
            p.digit,
            p.outcome
        ])?;
    }
    put_seats(tx, rec, finished)?;
    if let Some(date) = &rec.daily {
        let mut daily = tx.prepare_cached(sql::PUT_DAILY)?;
        for (handle, sort_ms) in rows::daily_writes(rec) {
            daily.execute(params![handle, date, rec.difficulty, rec.race_id, sort_ms])?;
        }
    }
    let mut best = tx.prepare_cached(sql::PUT_BEST)?;
    for (handle, time_ms) in rows::best_writes(rec) {
        best.execute(params![handle, rec.difficulty, time_ms, rec.race_id])?;
    }
    moderation::keep_names(&mut Db(tx), rec, finished)?;
    if !rec.rated {
        return Ok(Vec::new());
    }
    // A race stored twice counts once: its ratings were applied the first time.
    let already = tx.query_row(sql::RATED_ALREADY, [&rec.race_id], |r| r.get::<_, i64>(0));
    if already.optional()?.is_some() {
        return Ok(Vec::new());
    }
    rated::update_ratings(&mut Db(tx), &RATING_SQL, rec, finished)
}

/// The rating upserts in SQLite's words: `min` of two values is NULL if either is, so each
/// side falls back on the other.
const RATING_SQL: RatingSql = RatingSql {
    put_rating: "INSERT INTO ratings (handle, difficulty, mu, sigma, races, wins, best_time_ms,
             updated_unix_ms)
         VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7)
         ON CONFLICT (handle, difficulty) DO UPDATE SET
             mu = excluded.mu, sigma = excluded.sigma, races = races + 1,
             wins = wins + excluded.wins,
             best_time_ms = min(coalesce(best_time_ms, excluded.best_time_ms),
                                coalesce(excluded.best_time_ms, best_time_ms)),
             updated_unix_ms = excluded.updated_unix_ms",
    put_board:
        "INSERT INTO board (difficulty, period, period_start, handle, mu, sigma, rating, races,
             wins, best_time_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 1, ?8, ?9)
         ON CONFLICT (difficulty, period, period_start, handle) DO UPDATE SET
             mu = excluded.mu, sigma = excluded.sigma, rating = excluded.rating,
             races = races + 1, wins = wins + excluded.wins,
             best_time_ms = min(coalesce(best_time_ms, excluded.best_time_ms),
                                coalesce(excluded.best_time_ms, best_time_ms))",
};

/// Insert a player; a collision says which key collided.
pub(super) fn register(
    conn: &rusqlite::Connection,
    handle: &str,
    key_hash: [u8; 32],
    name: &str,
    now_unix_ms: i64,
) -> Result<(), StoreError> {
    let res = conn.execute(
        sql::PUT_PLAYER,
        params![handle, &key_hash[..], name, now_unix_ms],
    );
    match res {
        Ok(_) => Ok(()),
        // Two constraints can fail; asking which is plainer than parsing SQLite's message.
        Err(rusqlite::Error::SqliteFailure(e, _))
            if e.code == rusqlite::ErrorCode::ConstraintViolation =>
        {
            let taken: Option<i64> = conn
                .query_row(sql::HANDLE_TAKEN, [handle], |r| r.get(0))
                .optional()?;
            Err(rows::collision(handle, taken.is_some()))
        }
        Err(e) => Err(e.into()),
    }
}
