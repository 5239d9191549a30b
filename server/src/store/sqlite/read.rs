//! The SQLite queries behind the read side of [`crate::store::Store`]. Each is an index range
//! scan bounded by its LIMIT (see the schema's notes); none returns a key hash.

use rusqlite::{params, Connection, OptionalExtension, Row};
use shared::engine::Difficulty;

use crate::store::rows::{self, opt_unsigned, unsigned};
use crate::store::sql;
use crate::store::{
    split_flags, DailyRow, DifficultyRating, HistoryRow, LeaderRow, Period, PlayerPage, PlayerRow,
    RaceRow, RatedEntry, RatedRace, RatingStats, Replay, SeatRow, StoreError, StoredPlacement,
    StoredRating, StoredStanding,
};

/// Rating stats from the columns `mu, sigma, races, wins, best_time_ms` starting at `at`.
fn stats(r: &Row<'_>, at: usize) -> Result<RatingStats, StoreError> {
    rows::stats(
        r.get(at)?,
        r.get(at + 1)?,
        r.get(at + 2)?,
        r.get(at + 3)?,
        r.get(at + 4)?,
    )
}

pub(super) fn player_by_key(
    conn: &Connection,
    key_hash: [u8; 32],
) -> Result<Option<PlayerRow>, StoreError> {
    let mut st = conn.prepare_cached(sql::PLAYER_BY_KEY)?;
    Ok(st
        .query_row([&key_hash[..]], |r| {
            Ok(PlayerRow {
                handle: r.get(0)?,
                name: r.get(1)?,
            })
        })
        .optional()?)
}

pub(super) fn leaderboard(
    conn: &Connection,
    difficulty: Difficulty,
    period: Period,
    now_unix_ms: i64,
    limit: u32,
    offset: u32,
) -> Result<Vec<LeaderRow>, StoreError> {
    let mut st = conn.prepare_cached(sql::LEADERBOARD)?;
    let mut rows = st.query(params![
        difficulty.as_str(),
        period.as_str(),
        period.start(now_unix_ms),
        limit,
        offset
    ])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(LeaderRow {
            rank: rows::position(offset, out.len()),
            handle: r.get(0)?,
            name: r.get(1)?,
            stats: stats(r, 2)?,
        });
    }
    Ok(out)
}

pub(super) fn player(conn: &Connection, handle: &str) -> Result<Option<PlayerPage>, StoreError> {
    let head = conn
        .prepare_cached(sql::PLAYER)?
        .query_row([handle], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    let Some((handle, name, created_unix_ms)) = head else {
        return Ok(None);
    };
    let mut st = conn.prepare_cached(sql::PLAYER_RATINGS)?;
    let mut rows = st.query([&handle])?;
    let mut ratings = Vec::new();
    while let Some(r) = rows.next()? {
        ratings.push(DifficultyRating {
            difficulty: r.get(0)?,
            stats: stats(r, 1)?,
        });
    }
    rows::sort_by_difficulty(&mut ratings);
    Ok(Some(PlayerPage {
        handle,
        name,
        created_unix_ms,
        ratings,
    }))
}

pub(super) fn history(
    conn: &Connection,
    handle: &str,
    limit: u32,
    offset: u32,
) -> Result<Vec<HistoryRow>, StoreError> {
    let mut st = conn.prepare_cached(sql::HISTORY)?;
    let mut rows = st.query(params![handle, limit, offset])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let change = |i: usize| -> rusqlite::Result<Option<f64>> {
            Ok(rows::opt_conservative(r.get(i)?, r.get(i + 1)?))
        };
        out.push(HistoryRow {
            race_id: r.get(0)?,
            finished_unix_ms: r.get(1)?,
            difficulty: r.get(2)?,
            rated: r.get(3)?,
            rank: r.get(4)?,
            players: r.get(5)?,
            status: r.get(6)?,
            time_ms: opt_unsigned("time_ms", r.get(7)?)?,
            mistakes: r.get(8)?,
            rating_before: change(9)?,
            rating_after: change(11)?,
            flags: split_flags(&r.get::<_, String>(13)?),
        });
    }
    Ok(out)
}

pub(super) fn replay(conn: &Connection, race_id: &str) -> Result<Option<Replay>, StoreError> {
    let race = conn
        .prepare_cached(sql::RACE)?
        .query_row([race_id], |r| {
            Ok((
                RaceRow {
                    race_id: r.get(0)?,
                    difficulty: r.get(1)?,
                    puzzle: r.get(2)?,
                    solution: r.get(3)?,
                    started_unix_ms: r.get(4)?,
                    duration_ms: 0,
                    reason: r.get(6)?,
                    rated: r.get(7)?,
                    daily: r.get(8)?,
                },
                r.get::<_, i64>(5)?,
            ))
        })
        .optional()?;
    let Some((mut race, duration)) = race else {
        return Ok(None);
    };
    race.duration_ms = unsigned("duration_ms", duration)?;
    let mut st = conn.prepare_cached(sql::RACE_SEATS)?;
    let players = st
        .query_map([race_id], |r| {
            Ok(SeatRow {
                player_id: r.get(0)?,
                name: r.get(1)?,
                handle: r.get(2)?,
                bot: r.get(3)?,
                flags: split_flags(&r.get::<_, String>(4)?),
            })
        })?
        .collect::<Result<_, _>>()?;
    let mut st = conn.prepare_cached(sql::PLACEMENTS)?;
    let mut rows = st.query([race_id])?;
    let mut placements = Vec::new();
    while let Some(r) = rows.next()? {
        placements.push(StoredPlacement {
            player_id: r.get(0)?,
            at_ms: unsigned("at_ms", r.get(1)?)?,
            cell: r.get(2)?,
            digit: r.get(3)?,
            outcome: r.get(4)?,
        });
    }
    Ok(Some(Replay {
        race,
        players,
        standings: standings(conn, race_id)?,
        placements,
    }))
}

pub(super) fn daily_played(
    conn: &Connection,
    handle: &str,
    date: &str,
    difficulty: Difficulty,
) -> Result<bool, StoreError> {
    let hit: Option<i64> = conn
        .prepare_cached(sql::DAILY_PLAYED)?
        .query_row(params![handle, date, difficulty.as_str()], |r| r.get(0))
        .optional()?;
    Ok(hit.is_some())
}

pub(super) fn daily_board(
    conn: &Connection,
    date: &str,
    difficulty: Difficulty,
    limit: u32,
    offset: u32,
) -> Result<Vec<DailyRow>, StoreError> {
    let mut st = conn.prepare_cached(sql::DAILY_BOARD)?;
    let mut rows = st.query(params![date, difficulty.as_str(), limit, offset])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(DailyRow {
            rank: rows::position(offset, out.len()),
            handle: r.get(0)?,
            name: r.get(1)?,
            race_id: r.get(2)?,
            status: r.get(3)?,
            time_ms: opt_unsigned("time_ms", r.get(4)?)?,
            mistakes: r.get(5)?,
        });
    }
    Ok(out)
}

fn rated_entry(r: &Row<'_>) -> rusqlite::Result<RatedEntry> {
    Ok(RatedEntry {
        handle: r.get(2)?,
        rank: r.get(3)?,
        status: r.get(4)?,
        before: (r.get(5)?, r.get(6)?),
        after: (r.get(7)?, r.get(8)?),
    })
}

pub(super) fn for_each_rated_race(
    conn: &Connection,
    f: &mut dyn FnMut(RatedRace) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut st = conn.prepare(sql::RATED_RACES)?;
    let mut rows = st.query([])?;
    let mut races = rows::RatedRaces::new(f);
    while let Some(r) = rows.next()? {
        races.push(r.get(0)?, r.get(1)?, rated_entry(r)?)?;
    }
    races.finish()
}

pub(super) fn ratings(conn: &Connection) -> Result<Vec<StoredRating>, StoreError> {
    let mut st = conn.prepare(sql::RATINGS)?;
    let rows = st.query_map([], |r| {
        Ok(StoredRating {
            handle: r.get(0)?,
            difficulty: r.get(1)?,
            mu: r.get(2)?,
            sigma: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(super) fn standings(
    conn: &Connection,
    race_id: &str,
) -> Result<Vec<StoredStanding>, StoreError> {
    let mut st = conn.prepare_cached(sql::STANDINGS)?;
    let mut rows = st.query([race_id])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(StoredStanding {
            rank: r.get(0)?,
            player_id: r.get(1)?,
            name: r.get(2)?,
            status: r.get(3)?,
            time_ms: opt_unsigned("time_ms", r.get(4)?)?,
            filled: r.get(5)?,
            mistakes: r.get(6)?,
        });
    }
    Ok(out)
}

pub(super) fn race_reason(conn: &Connection, race_id: &str) -> Result<Option<String>, StoreError> {
    Ok(conn
        .prepare_cached(sql::RACE_REASON)?
        .query_row([race_id], |r| r.get(0))
        .optional()?)
}

pub(super) fn placement_count(conn: &Connection, race_id: &str) -> Result<u64, StoreError> {
    let n: i64 = conn.query_row(sql::PLACEMENT_COUNT, [race_id], |r| r.get(0))?;
    unsigned("placement count", n)
}
