//! The PostgreSQL queries behind the read side of [`crate::store::Store`]: the SQLite store's
//! queries in PostgreSQL's dialect, row for row and in the same order (texts compare byte by
//! byte, see `v1.sql`), each an index range scan bounded by its LIMIT; none returns a key hash.
//! Every column is read with `try_get`: a type the schema does not promise is an error, never
//! a panic.

use r2d2_postgres::postgres::fallible_iterator::FallibleIterator;
use r2d2_postgres::postgres::{Client, Row};
use shared::engine::Difficulty;

use crate::store::rows::{self, opt_unsigned, unsigned};
use crate::store::sql;
use crate::store::{
    split_flags, DailyRow, DifficultyRating, HistoryRow, LeaderRow, Period, PlayerPage, PlayerRow,
    RaceRow, RatedEntry, RatedRace, RatingStats, Replay, SeatRow, StoreError, StoredPlacement,
    StoredRating, StoredStanding,
};

/// Rating stats from the columns `mu, sigma, races, wins, best_time_ms` starting at `at`.
fn stats(r: &Row, at: usize) -> Result<RatingStats, StoreError> {
    rows::stats(
        r.try_get(at)?,
        r.try_get(at + 1)?,
        r.try_get(at + 2)?,
        r.try_get(at + 3)?,
        r.try_get(at + 4)?,
    )
}

pub(super) fn player_by_key(
    conn: &mut Client,
    key_hash: [u8; 32],
) -> Result<Option<PlayerRow>, StoreError> {
    let row = conn.query_opt(sql::PLAYER_BY_KEY, &[&&key_hash[..]])?;
    row.map(|r| {
        Ok(PlayerRow {
            handle: r.try_get(0)?,
            name: r.try_get(1)?,
        })
    })
    .transpose()
}

pub(super) fn leaderboard(
    conn: &mut Client,
    difficulty: Difficulty,
    period: Period,
    now_unix_ms: i64,
    limit: u32,
    offset: u32,
) -> Result<Vec<LeaderRow>, StoreError> {
    let found = conn.query(
        sql::LEADERBOARD,
        &[
            &difficulty.as_str(),
            &period.as_str(),
            &period.start(now_unix_ms),
            &i64::from(limit),
            &i64::from(offset),
        ],
    )?;
    let mut out = Vec::with_capacity(found.len());
    for r in &found {
        out.push(LeaderRow {
            rank: rows::position(offset, out.len()),
            handle: r.try_get(0)?,
            name: r.try_get(1)?,
            stats: stats(r, 2)?,
        });
    }
    Ok(out)
}

pub(super) fn player(conn: &mut Client, handle: &str) -> Result<Option<PlayerPage>, StoreError> {
    let Some(head) = conn.query_opt(sql::PLAYER, &[&handle])? else {
        return Ok(None);
    };
    let handle: String = head.try_get(0)?;
    let found = conn.query(sql::PLAYER_RATINGS, &[&handle])?;
    let mut ratings = Vec::with_capacity(found.len());
    for r in &found {
        ratings.push(DifficultyRating {
            difficulty: r.try_get(0)?,
            stats: stats(r, 1)?,
        });
    }
    rows::sort_by_difficulty(&mut ratings);
    Ok(Some(PlayerPage {
        handle,
        name: head.try_get(1)?,
        created_unix_ms: head.try_get(2)?,
        ratings,
    }))
}

pub(super) fn history(
    conn: &mut Client,
    handle: &str,
    limit: u32,
    offset: u32,
) -> Result<Vec<HistoryRow>, StoreError> {
    let found = conn.query(
        sql::HISTORY,
        &[&handle, &i64::from(limit), &i64::from(offset)],
    )?;
    let mut out = Vec::with_capacity(found.len());
    for r in &found {
        let change = |i: usize| -> Result<Option<f64>, StoreError> {
            Ok(rows::opt_conservative(r.try_get(i)?, r.try_get(i + 1)?))
        };
        out.push(HistoryRow {
            race_id: r.try_get(0)?,
            finished_unix_ms: r.try_get(1)?,
            difficulty: r.try_get(2)?,
            rated: r.try_get(3)?,
            rank: unsigned("rank", r.try_get(4)?)?,
            players: unsigned("players", r.try_get(5)?)?,
            status: r.try_get(6)?,
            time_ms: opt_unsigned("time_ms", r.try_get(7)?)?,
            mistakes: unsigned("mistakes", r.try_get(8)?)?,
            rating_before: change(9)?,
            rating_after: change(11)?,
            flags: split_flags(r.try_get(13)?),
        });
    }
    Ok(out)
}

pub(super) fn replay(conn: &mut Client, race_id: &str) -> Result<Option<Replay>, StoreError> {
    let Some(r) = conn.query_opt(sql::RACE, &[&race_id])? else {
        return Ok(None);
    };
    let race = RaceRow {
        race_id: r.try_get(0)?,
        difficulty: r.try_get(1)?,
        puzzle: r.try_get(2)?,
        solution: r.try_get(3)?,
        started_unix_ms: r.try_get(4)?,
        duration_ms: unsigned("duration_ms", r.try_get(5)?)?,
        reason: r.try_get(6)?,
        rated: r.try_get(7)?,
        daily: r.try_get(8)?,
    };
    let mut players = Vec::new();
    for r in &conn.query(sql::RACE_SEATS, &[&race_id])? {
        players.push(SeatRow {
            player_id: r.try_get(0)?,
            name: r.try_get(1)?,
            handle: r.try_get(2)?,
            bot: r.try_get(3)?,
            flags: split_flags(r.try_get(4)?),
        });
    }
    let mut placements = Vec::new();
    for r in &conn.query(sql::PLACEMENTS, &[&race_id])? {
        placements.push(StoredPlacement {
            player_id: r.try_get(0)?,
            at_ms: unsigned("at_ms", r.try_get(1)?)?,
            cell: small("cell", r.try_get(2)?)?,
            digit: small("digit", r.try_get(3)?)?,
            outcome: r.try_get(4)?,
        });
    }
    Ok(Some(Replay {
        race,
        players,
        standings: standings(conn, race_id)?,
        placements,
    }))
}

/// A SMALLINT column as u8.
fn small(what: &'static str, v: i16) -> Result<u8, StoreError> {
    unsigned(what, i64::from(v))
}

pub(super) fn daily_played(
    conn: &mut Client,
    handle: &str,
    date: &str,
    difficulty: Difficulty,
) -> Result<bool, StoreError> {
    let hit = conn.query_opt(sql::DAILY_PLAYED, &[&handle, &date, &difficulty.as_str()])?;
    Ok(hit.is_some())
}

pub(super) fn daily_board(
    conn: &mut Client,
    date: &str,
    difficulty: Difficulty,
    limit: u32,
    offset: u32,
) -> Result<Vec<DailyRow>, StoreError> {
    let found = conn.query(
        sql::DAILY_BOARD,
        &[
            &date,
            &difficulty.as_str(),
            &i64::from(limit),
            &i64::from(offset),
        ],
    )?;
    let mut out = Vec::with_capacity(found.len());
    for r in &found {
        out.push(DailyRow {
            rank: rows::position(offset, out.len()),
            handle: r.try_get(0)?,
            name: r.try_get(1)?,
            race_id: r.try_get(2)?,
            status: r.try_get(3)?,
            time_ms: opt_unsigned("time_ms", r.try_get(4)?)?,
            mistakes: unsigned("mistakes", r.try_get(5)?)?,
        });
    }
    Ok(out)
}

fn rated_entry(r: &Row) -> Result<RatedEntry, StoreError> {
    Ok(RatedEntry {
        handle: r.try_get(2)?,
        rank: unsigned("rank", r.try_get(3)?)?,
        status: r.try_get(4)?,
        before: (r.try_get(5)?, r.try_get(6)?),
        after: (r.try_get(7)?, r.try_get(8)?),
    })
}

pub(super) fn for_each_rated_race(
    conn: &mut Client,
    f: &mut dyn FnMut(RatedRace) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    // Streamed row by row: the whole history need not fit in memory.
    let mut found = conn.query_raw(sql::RATED_RACES, std::iter::empty::<i64>())?;
    let mut races = rows::RatedRaces::new(f);
    while let Some(r) = found.next()? {
        races.push(r.try_get(0)?, r.try_get(1)?, rated_entry(&r)?)?;
    }
    races.finish()
}

pub(super) fn ratings(conn: &mut Client) -> Result<Vec<StoredRating>, StoreError> {
    let found = conn.query(sql::RATINGS, &[])?;
    found
        .iter()
        .map(|r| {
            Ok(StoredRating {
                handle: r.try_get(0)?,
                difficulty: r.try_get(1)?,
                mu: r.try_get(2)?,
                sigma: r.try_get(3)?,
            })
        })
        .collect()
}

pub(super) fn standings(
    conn: &mut Client,
    race_id: &str,
) -> Result<Vec<StoredStanding>, StoreError> {
    let found = conn.query(sql::STANDINGS, &[&race_id])?;
    found
        .iter()
        .map(|r| {
            Ok(StoredStanding {
                rank: unsigned("rank", r.try_get(0)?)?,
                player_id: r.try_get(1)?,
                name: r.try_get(2)?,
                status: r.try_get(3)?,
                time_ms: opt_unsigned("time_ms", r.try_get(4)?)?,
                filled: unsigned("filled", r.try_get(5)?)?,
                mistakes: unsigned("mistakes", r.try_get(6)?)?,
            })
        })
        .collect()
}

pub(super) fn race_reason(conn: &mut Client, race_id: &str) -> Result<Option<String>, StoreError> {
    let row = conn.query_opt(sql::RACE_REASON, &[&race_id])?;
    Ok(row.map(|r| r.try_get(0)).transpose()?)
}

pub(super) fn placement_count(conn: &mut Client, race_id: &str) -> Result<u64, StoreError> {
    let n: i64 = conn
        .query_one(sql::PLACEMENT_COUNT, &[&race_id])?
        .try_get(0)?;
    unsigned("placement count", n)
}
