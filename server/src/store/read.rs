//! The queries behind the read side of [`crate::store::Store`], written once for both
//! databases over [`Sql`]: each runs one statement of [`super::sql`] (an index range scan
//! bounded by its LIMIT, see the schemas' notes) and shapes its rows; none returns a key hash.
//! Every integer is read as `i64` and checked into its range ([`unsigned`]): a value the
//! schema does not promise is [`StoreError::Corrupt`], never a panic.

use engine::Difficulty;

use super::backend::{first, rows, Cells, Param, Sql};
use super::rows::{self as shape, opt_unsigned, unsigned};
use super::sql;
use super::{
    split_flags, BestSolve, DailyRow, DifficultyRating, HistoryRow, LeaderRow, Period, PlayerPage,
    PlayerRow, RaceRow, RatedEntry, RatedRace, RatingStats, Replay, SeatRow, StoreError,
    StoredPlacement, StoredRating, StoredStanding,
};
use Param::{Bytes, Int, Text};

/// Rating stats from the columns `mu, sigma, races, wins, best_time_ms` starting at `at`.
fn stats(r: &dyn Cells, at: usize) -> Result<RatingStats, StoreError> {
    shape::stats(
        r.real(at)?,
        r.real(at + 1)?,
        r.int(at + 2)?,
        r.int(at + 3)?,
        r.opt_int(at + 4)?,
    )
}

pub(super) fn player_by_key(
    c: &mut dyn Sql,
    key_hash: [u8; 32],
) -> Result<Option<PlayerRow>, StoreError> {
    first(c, sql::PLAYER_BY_KEY, &[Bytes(&key_hash)], |r| {
        Ok(PlayerRow {
            handle: r.text(0)?,
            name: r.text(1)?,
            banned: r.flag(2)?,
        })
    })
}

pub(super) fn leaderboard(
    c: &mut dyn Sql,
    difficulty: Difficulty,
    period: Period,
    now_unix_ms: i64,
    limit: u32,
    offset: u32,
) -> Result<Vec<LeaderRow>, StoreError> {
    let params = [
        Text(difficulty.as_str()),
        Text(period.as_str()),
        Int(period.start(now_unix_ms)),
        Int(limit.into()),
        Int(offset.into()),
    ];
    let mut n = 0;
    rows(c, sql::LEADERBOARD, &params, |r| {
        n += 1;
        Ok(LeaderRow {
            rank: shape::position(offset, n - 1),
            handle: r.text(0)?,
            name: r.text(1)?,
            stats: stats(r, 2)?,
        })
    })
}

pub(super) fn player(c: &mut dyn Sql, handle: &str) -> Result<Option<PlayerPage>, StoreError> {
    let head = first(c, sql::PLAYER, &[Text(handle)], |r| {
        Ok((r.text(0)?, r.text(1)?, r.int(2)?))
    })?;
    let Some((handle, name, created_unix_ms)) = head else {
        return Ok(None);
    };
    let mut ratings = rows(c, sql::PLAYER_RATINGS, &[Text(&handle)], |r| {
        Ok(DifficultyRating {
            difficulty: r.text(0)?,
            stats: stats(r, 1)?,
        })
    })?;
    shape::sort_by_difficulty(&mut ratings);
    let mut best = rows(c, sql::PLAYER_BEST, &[Text(&handle)], |r| {
        Ok(BestSolve {
            difficulty: r.text(0)?,
            time_ms: unsigned("time_ms", r.int(1)?)?,
            race_id: r.text(2)?,
        })
    })?;
    shape::sort_best(&mut best);
    Ok(Some(PlayerPage {
        handle,
        name,
        created_unix_ms,
        ratings,
        best,
    }))
}

pub(super) fn history(
    c: &mut dyn Sql,
    handle: &str,
    limit: u32,
    offset: u32,
) -> Result<Vec<HistoryRow>, StoreError> {
    let params = [Text(handle), Int(limit.into()), Int(offset.into())];
    rows(c, sql::HISTORY, &params, |r| {
        let change = |i: usize| -> Result<Option<f64>, StoreError> {
            Ok(shape::opt_conservative(r.opt_real(i)?, r.opt_real(i + 1)?))
        };
        Ok(HistoryRow {
            race_id: r.text(0)?,
            finished_unix_ms: r.int(1)?,
            difficulty: r.text(2)?,
            rated: r.flag(3)?,
            rank: unsigned("rank", r.int(4)?)?,
            players: unsigned("players", r.int(5)?)?,
            status: r.text(6)?,
            time_ms: opt_unsigned("time_ms", r.opt_int(7)?)?,
            mistakes: unsigned("mistakes", r.int(8)?)?,
            rating_before: change(9)?,
            rating_after: change(11)?,
            flags: split_flags(&r.text(13)?),
        })
    })
}

pub(super) fn replay(c: &mut dyn Sql, race_id: &str) -> Result<Option<Replay>, StoreError> {
    let race = first(c, sql::RACE, &[Text(race_id)], |r| {
        Ok(RaceRow {
            race_id: r.text(0)?,
            difficulty: r.text(1)?,
            puzzle: r.text(2)?,
            solution: r.text(3)?,
            started_unix_ms: r.int(4)?,
            duration_ms: unsigned("duration_ms", r.int(5)?)?,
            reason: r.text(6)?,
            rated: r.flag(7)?,
            daily: r.opt_text(8)?,
            ghost_of: r.opt_text(9)?,
        })
    })?;
    let Some(race) = race else {
        return Ok(None);
    };
    let players = rows(c, sql::RACE_SEATS, &[Text(race_id)], |r| {
        Ok(SeatRow {
            player_id: r.text(0)?,
            name: r.text(1)?,
            handle: r.opt_text(2)?,
            bot: r.flag(3)?,
            flags: split_flags(&r.text(4)?),
            puzzle: r.opt_text(5)?.unwrap_or_else(|| race.puzzle.clone()),
            solution: r.opt_text(6)?.unwrap_or_else(|| race.solution.clone()),
        })
    })?;
    let placements = rows(c, sql::PLACEMENTS, &[Text(race_id)], |r| {
        Ok(StoredPlacement {
            player_id: r.text(0)?,
            at_ms: unsigned("at_ms", r.int(1)?)?,
            cell: unsigned("cell", r.int(2)?)?,
            digit: unsigned("digit", r.int(3)?)?,
            outcome: r.text(4)?,
        })
    })?;
    Ok(Some(Replay {
        race,
        players,
        standings: standings(c, race_id)?,
        placements,
    }))
}

pub(super) fn daily_played(
    c: &mut dyn Sql,
    handle: &str,
    date: &str,
    difficulty: Difficulty,
) -> Result<bool, StoreError> {
    let params = [Text(handle), Text(date), Text(difficulty.as_str())];
    Ok(first(c, sql::DAILY_PLAYED, &params, |_| Ok(()))?.is_some())
}

pub(super) fn daily_board(
    c: &mut dyn Sql,
    date: &str,
    difficulty: Difficulty,
    limit: u32,
    offset: u32,
) -> Result<Vec<DailyRow>, StoreError> {
    let params = [
        Text(date),
        Text(difficulty.as_str()),
        Int(limit.into()),
        Int(offset.into()),
    ];
    let mut n = 0;
    rows(c, sql::DAILY_BOARD, &params, |r| {
        n += 1;
        Ok(DailyRow {
            rank: shape::position(offset, n - 1),
            handle: r.text(0)?,
            name: r.text(1)?,
            race_id: r.text(2)?,
            status: r.text(3)?,
            time_ms: opt_unsigned("time_ms", r.opt_int(4)?)?,
            mistakes: unsigned("mistakes", r.int(5)?)?,
        })
    })
}

fn rated_entry(r: &dyn Cells) -> Result<RatedEntry, StoreError> {
    Ok(RatedEntry {
        handle: r.text(2)?,
        rank: unsigned("rank", r.int(3)?)?,
        status: r.text(4)?,
        before: (r.real(5)?, r.real(6)?),
        after: (r.real(7)?, r.real(8)?),
    })
}

pub(super) fn for_each_rated_race(
    c: &mut dyn Sql,
    f: &mut dyn FnMut(RatedRace) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut races = shape::RatedRaces::new(f);
    c.scan(sql::RATED_RACES, &mut |r| {
        races.push(r.text(0)?, r.text(1)?, rated_entry(r)?)
    })?;
    races.finish()
}

pub(super) fn ratings(c: &mut dyn Sql) -> Result<Vec<StoredRating>, StoreError> {
    let mut out = Vec::new();
    c.scan(sql::RATINGS, &mut |r| {
        out.push(StoredRating {
            handle: r.text(0)?,
            difficulty: r.text(1)?,
            mu: r.real(2)?,
            sigma: r.real(3)?,
        });
        Ok(())
    })?;
    Ok(out)
}

pub(super) fn standings(c: &mut dyn Sql, race_id: &str) -> Result<Vec<StoredStanding>, StoreError> {
    rows(c, sql::STANDINGS, &[Text(race_id)], |r| {
        Ok(StoredStanding {
            rank: unsigned("rank", r.int(0)?)?,
            player_id: r.text(1)?,
            name: r.text(2)?,
            status: r.text(3)?,
            time_ms: opt_unsigned("time_ms", r.opt_int(4)?)?,
            filled: unsigned("filled", r.int(5)?)?,
            mistakes: unsigned("mistakes", r.int(6)?)?,
            time_ms_raw: opt_unsigned("time_ms_raw", r.opt_int(7)?)?,
            lag_ms: unsigned("lag_ms", r.int(8)?)?,
        })
    })
}

pub(super) fn race_reason(c: &mut dyn Sql, race_id: &str) -> Result<Option<String>, StoreError> {
    first(c, sql::RACE_REASON, &[Text(race_id)], |r| r.text(0))
}

pub(super) fn placement_count(c: &mut dyn Sql, race_id: &str) -> Result<u64, StoreError> {
    let n = first(c, sql::PLACEMENT_COUNT, &[Text(race_id)], |r| r.int(0))?;
    unsigned("placement count", n.unwrap_or(0))
}
