//! The PostgreSQL writes: a finished race with its rating update, and registration. A race is
//! written inside the caller's transaction, so it is stored whole or not at all, and an
//! insert of a row already there replaces it, as SQLite's `INSERT OR REPLACE` does.
//!
//! SQLite has one writer; here several connections (and nodes) write at once, so a rated race
//! takes a transaction-scoped advisory lock before it reads the ratings it updates: two races
//! of one player cannot both start from the same rating, and `rating_changes.seq` follows the
//! order the updates were committed in, which is what [`crate::store::recompute`] replays.

use r2d2_postgres::postgres::error::SqlState;
use r2d2_postgres::postgres::types::ToSql;
use r2d2_postgres::postgres::{Client, Transaction};

use super::dialect::Pg;
use crate::store::moderation;
use crate::store::rated::{self, RatingSql};
use crate::store::rows::{self, signed};
use crate::store::sql;
use crate::store::{RaceRecord, RatingChange, StoreError};

/// A query parameter (a row mixes types, so it is written out as an array of these).
type Param<'a> = &'a (dyn ToSql + Sync);

/// The advisory lock key that serialises rating updates ("rating" in ASCII).
const RATING_LOCK: i64 = 0x7261_7469_6e67;

/// Write `rec` (race, standings, placements, seats, daily attempts, best solves) and, when
/// rated, the rating update; returns the rating changes.
pub(super) fn save_race(
    tx: &mut Transaction<'_>,
    rec: &RaceRecord,
) -> Result<Vec<RatingChange>, StoreError> {
    let finished = rec.finished_unix_ms();
    tx.execute(
        sql::PUT_RACE,
        &[
            &rec.race_id,
            &rec.room,
            &rec.difficulty,
            &rec.puzzle,
            &rec.solution,
            &rec.started_unix_ms,
            &signed(rec.duration_ms),
            &rec.reason,
            &rec.rated,
            &rec.daily,
            &rec.ghost_of,
        ],
    )?;
    let st = tx.prepare(sql::PUT_STANDING)?;
    for s in &rec.standings {
        tx.execute(
            &st,
            &[
                &rec.race_id,
                &i64::from(s.rank),
                &s.player_id.as_str(),
                &s.name.as_str(),
                &s.status.as_str(),
                &s.time_ms.map(signed),
                &i64::from(s.filled),
                &i64::from(s.mistakes),
                &s.time_ms_raw.map(signed),
                &i64::from(s.lag_ms),
            ],
        )?;
    }
    save_placements(tx, rec)?;
    let seat = tx.prepare(sql::PUT_SEAT)?;
    for w in rows::seat_writes(rec) {
        let row: [Param<'_>; 8] = [
            &rec.race_id,
            &w.player_id,
            &w.handle,
            &w.bot,
            &w.flags,
            &finished,
            &w.puzzle,
            &w.solution,
        ];
        tx.execute(&seat, &row)?;
    }
    if let Some(date) = &rec.daily {
        let daily = tx.prepare(sql::PUT_DAILY)?;
        for (handle, sort_ms) in rows::daily_writes(rec) {
            tx.execute(
                &daily,
                &[&handle, date, &rec.difficulty, &rec.race_id, &sort_ms],
            )?;
        }
    }
    let best = tx.prepare(sql::PUT_BEST)?;
    for (handle, time_ms) in rows::best_writes(rec) {
        tx.execute(&best, &[&handle, &rec.difficulty, &time_ms, &rec.race_id])?;
    }
    moderation::keep_names(&mut Pg::new(tx), rec, finished)?;
    if !rec.rated {
        return Ok(Vec::new());
    }
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&RATING_LOCK])?;
    let already = tx.query_opt(sql::RATED_ALREADY, &[&rec.race_id])?;
    if already.is_some() {
        // A race stored twice counts once: its ratings were applied the first time.
        return Ok(Vec::new());
    }
    rated::update_ratings(&mut Pg::new(tx), &RATING_SQL, rec, finished)
}

/// Every placement in one statement: a race has hundreds, and one round trip each would be
/// most of the time it takes to store it.
fn save_placements(tx: &mut Transaction<'_>, rec: &RaceRecord) -> Result<(), StoreError> {
    let n = rec.placements.len();
    let (mut seq, mut player, mut at, mut cell, mut digit, mut outcome) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for (i, p) in rec.placements.iter().enumerate() {
        seq.push(i64::try_from(i).unwrap_or(i64::MAX));
        player.push(p.player_id.as_str());
        at.push(signed(p.at_ms));
        cell.push(i16::from(p.cell));
        digit.push(i16::from(p.digit));
        outcome.push(p.outcome);
    }
    // `seq` numbers the rows, so no two rows of this statement hit the same key.
    tx.execute(
        "INSERT INTO placements (race_id, seq, player_id, at_ms, cell, digit, outcome)
         SELECT $1, * FROM UNNEST($2::BIGINT[], $3::TEXT[], $4::BIGINT[], $5::SMALLINT[],
             $6::SMALLINT[], $7::TEXT[])
         ON CONFLICT (race_id, seq) DO UPDATE SET player_id = excluded.player_id,
             at_ms = excluded.at_ms, cell = excluded.cell, digit = excluded.digit,
             outcome = excluded.outcome",
        &[&rec.race_id, &seq, &player, &at, &cell, &digit, &outcome],
    )?;
    Ok(())
}

/// The rating upserts in PostgreSQL's words: LEAST skips NULLs, as SQLite's min over the two
/// coalesces does: the best time is the smaller of the two that exist.
const RATING_SQL: RatingSql = RatingSql {
    put_rating: "INSERT INTO ratings (handle, difficulty, mu, sigma, races, wins, best_time_ms,
             updated_unix_ms)
         VALUES ($1, $2, $3, $4, 1, $5, $6, $7)
         ON CONFLICT (handle, difficulty) DO UPDATE SET
             mu = excluded.mu, sigma = excluded.sigma, races = ratings.races + 1,
             wins = ratings.wins + excluded.wins,
             best_time_ms = LEAST(ratings.best_time_ms, excluded.best_time_ms),
             updated_unix_ms = excluded.updated_unix_ms",
    put_board:
        "INSERT INTO board (difficulty, period, period_start, handle, mu, sigma, rating, races,
             wins, best_time_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8, $9)
         ON CONFLICT (difficulty, period, period_start, handle) DO UPDATE SET
             mu = excluded.mu, sigma = excluded.sigma, rating = excluded.rating,
             races = board.races + 1, wins = board.wins + excluded.wins,
             best_time_ms = LEAST(board.best_time_ms, excluded.best_time_ms)",
};

/// Insert a player; a collision says which key collided.
pub(super) fn register(
    conn: &mut Client,
    handle: &str,
    key_hash: [u8; 32],
    name: &str,
    now_unix_ms: i64,
) -> Result<(), StoreError> {
    let res = conn.execute(
        sql::PUT_PLAYER,
        &[&handle, &&key_hash[..], &name, &now_unix_ms],
    );
    match res {
        Ok(_) => Ok(()),
        // Two constraints can fail; asking which (handle first, as the SQLite store does) is
        // plainer than reading constraint names.
        Err(e) if e.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
            let taken = conn.query_opt(sql::HANDLE_TAKEN, &[&handle])?;
            Err(rows::collision(handle, taken.is_some()))
        }
        Err(e) => Err(e.into()),
    }
}
