//! The rating update of a rated race, written once for both databases: who is rated
//! ([`rated_seats`]), their new ratings from the race's results and their current ratings
//! ([`rate_seats`], pure), and [`update_ratings`], which reads the current ratings and writes
//! `ratings`, `rating_changes` and `board` through [`Sql`]. A backend brings only what its
//! dialect spells differently ([`RatingSql`]) and what it must do first (the caller holds the
//! transaction, and in PostgreSQL the lock that serialises rating updates).

use std::collections::HashSet;

use protocol::{FinishStatus, Standing};

use super::backend::{first, Param, Sql};
use super::rows::{seat_of, signed};
use super::{moderation, rating_rank, sql, Period, RaceRecord, RatingChange, StoreError};
use crate::rating::{conservative, rate, Rating};
use Param::{Int, OptInt, Real, Text};

/// The two upserts whose best-time minimum each dialect spells its own way (it must skip
/// NULLs). Parameters: `ratings` takes handle, difficulty, μ, σ, won, best, updated; `board`
/// takes difficulty, period, period start, handle, μ, σ, rating, won, best.
pub(crate) struct RatingSql {
    /// Upsert into `ratings`: one more race, `won` added to the wins.
    pub put_rating: &'static str,
    /// Upsert into `board`: the same, for one period.
    pub put_board: &'static str,
}

/// Read the rated seats' ratings, compute the new ones, write ratings, changes and board rows;
/// returns the changes as `race_over` announces them (empty when fewer than two are rated).
pub(crate) fn update_ratings(
    c: &mut dyn Sql,
    dialect: &RatingSql,
    rec: &RaceRecord,
    finished: i64,
) -> Result<Vec<RatingChange>, StoreError> {
    let mut banned = HashSet::new();
    for handle in rec.seats.iter().filter_map(|s| s.handle.as_deref()) {
        if moderation::is_banned(c, handle)? {
            banned.insert(handle);
        }
    }
    let seats = rated_seats(rec, &banned);
    if seats.is_empty() {
        return Ok(Vec::new());
    }
    let mut before = Vec::with_capacity(seats.len());
    for (_, handle) in &seats {
        let r = first(c, sql::RATING, &[Text(handle), Text(rec.difficulty)], |r| {
            Ok(Rating {
                mu: r.real(0)?,
                sigma: r.real(1)?,
            })
        })?;
        before.push(r.unwrap_or_default());
    }
    let writes = rate_seats(&seats, &before);
    for w in &writes {
        let (new, old) = (w.after, w.before);
        let rating = [
            Text(w.handle),
            Text(rec.difficulty),
            Real(new.mu),
            Real(new.sigma),
            Int(w.won),
            OptInt(w.best),
            Int(finished),
        ];
        c.exec(dialect.put_rating, &rating)?;
        let change = [
            Text(&rec.race_id),
            Text(w.handle),
            Text(rec.difficulty),
            Real(old.mu),
            Real(old.sigma),
            Real(new.mu),
            Real(new.sigma),
        ];
        c.exec(sql::PUT_CHANGE, &change)?;
        for p in Period::ALL {
            let board = [
                Text(rec.difficulty),
                Text(p.as_str()),
                Int(p.start(finished)),
                Text(w.handle),
                Real(new.mu),
                Real(new.sigma),
                Real(conservative(new)),
                Int(w.won),
                OptInt(w.best),
            ];
            c.exec(dialect.put_board, &board)?;
        }
    }
    Ok(writes.into_iter().map(|w| w.change).collect())
}

/// Who is rated: seats with a handle, not bots, not flagged, not `banned` (A8), that placed
/// something (A8: a seat that placed nothing is left out, so an empty seat cannot climb by
/// tying other empty seats), each handle once (two seats with one key rate neither), paired
/// with their standing. Fewer than two is no rated race, and so is a race in which none of
/// them solved (A8: a draw between non-solvers only shrinks everyone's σ, which would raise
/// every μ − 3σ for nothing): empty.
pub(crate) fn rated_seats<'a>(
    rec: &'a RaceRecord,
    banned: &HashSet<&str>,
) -> Vec<(&'a Standing, &'a str)> {
    let mut seen = HashSet::new();
    let mut twice = HashSet::new();
    for h in rec.seats.iter().filter_map(|s| s.handle.as_deref()) {
        if !seen.insert(h) {
            twice.insert(h);
        }
    }
    let placed: HashSet<&str> = rec
        .placements
        .iter()
        .map(|p| p.player_id.as_str())
        .collect();
    let seats: Vec<_> = rec
        .standings
        .iter()
        .filter_map(|s| {
            let seat = seat_of(rec, s)?;
            let handle = seat.handle.as_deref()?;
            let rateable = !seat.bot
                && seat.flags.is_empty()
                && !twice.contains(handle)
                && !banned.contains(handle)
                && placed.contains(s.player_id.as_str());
            rateable.then_some((s, handle))
        })
        .collect();
    let solved = seats.iter().any(|(s, _)| s.status == FinishStatus::Solved);
    if seats.len() < 2 || !solved {
        Vec::new()
    } else {
        seats
    }
}

/// One rated seat's update: what goes into `ratings`, `rating_changes` and `board`.
struct RatedWrite<'a> {
    /// The persistent player.
    handle: &'a str,
    /// μ, σ before the race.
    before: Rating,
    /// μ, σ after it.
    after: Rating,
    /// 1 when won (rank 1 and solved), else 0: added to the win count.
    won: i64,
    /// The solved time, a candidate for the best time.
    best: Option<i64>,
    /// As `race_over` announces it.
    change: RatingChange,
}

/// The rating update of `seats` ([`rated_seats`]) from their ratings `before` (same order).
fn rate_seats<'a>(seats: &[(&Standing, &'a str)], before: &[Rating]) -> Vec<RatedWrite<'a>> {
    let racers: Vec<(Rating, u32)> = seats
        .iter()
        .zip(before)
        .map(|((s, _), b)| (*b, rating_rank(s.status.as_str(), s.rank)))
        .collect();
    let after = rate(&racers);
    seats
        .iter()
        .zip(&racers)
        .zip(after)
        .map(|(((s, handle), (before, _)), new)| {
            let solved = s.status == FinishStatus::Solved;
            RatedWrite {
                handle,
                before: *before,
                after: new,
                won: i64::from(solved && s.rank == 1),
                best: s.time_ms.filter(|_| solved).map(signed),
                change: RatingChange {
                    player_id: s.player_id.to_string(),
                    handle: (*handle).to_owned(),
                    before: conservative(*before),
                    after: conservative(new),
                },
            }
        })
        .collect()
}

/// The rating changes a stored race made, as `race_over` announced them, in the order they
/// were applied (empty when it was unrated).
pub(crate) fn stored_changes(
    c: &mut dyn Sql,
    race_id: &str,
) -> Result<Vec<RatingChange>, StoreError> {
    super::backend::rows(c, sql::STORED_CHANGES, &[Text(race_id)], |r| {
        let before = Rating {
            mu: r.real(2)?,
            sigma: r.real(3)?,
        };
        let after = Rating {
            mu: r.real(4)?,
            sigma: r.real(5)?,
        };
        Ok(RatingChange {
            player_id: r.text(0)?,
            handle: r.text(1)?,
            before: conservative(before),
            after: conservative(after),
        })
    })
}
