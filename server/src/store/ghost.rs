//! What a ghost race (A7 `race_ghost`) needs of the race it replays: which stored race and
//! seat a ghost names ([`GhostRef`]: a handle's best, a day's daily winner, or a race id), and
//! that seat's puzzle, accepted placements and finish ([`GhostSource`]), read over
//! [`Sql`] like the rest of [`super::read`]. The room that races the ghost is not here.

use engine::Difficulty;

use super::backend::Param::Text;
use super::backend::{first, rows, Sql};
use super::rows::{opt_unsigned, unsigned};
use super::{sql, StoreError};

/// Which stored race, and whose seat in it, a ghost race replays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GhostRef<'a> {
    /// The player's best solve at a difficulty ([`super::BestSolve`]).
    Best {
        /// The player.
        handle: &'a str,
        /// Which best.
        difficulty: Difficulty,
    },
    /// The winner of a daily challenge: its fastest solver.
    Daily {
        /// The day, UTC `YYYY-MM-DD` (today's, for `race_ghost`).
        date: &'a str,
        /// Which of the day's boards.
        difficulty: Difficulty,
    },
    /// A race by id: its best-ranked solver.
    Race(&'a str),
}

impl<'a> GhostRef<'a> {
    /// The ghost `race_ghost` names: `"best"` is the best of `handle` (the key's player, if
    /// the key is known) at `difficulty`, `"daily"` the winner of the daily of `today` at
    /// `difficulty`, anything else a race id. `None`: `best` without a known player.
    pub fn from_wire(
        ghost: &'a str,
        handle: Option<&'a str>,
        difficulty: Difficulty,
        today: &'a str,
    ) -> Option<GhostRef<'a>> {
        match ghost {
            "best" => handle.map(|handle| GhostRef::Best { handle, difficulty }),
            "daily" => Some(GhostRef::Daily {
                date: today,
                difficulty,
            }),
            race_id => Some(GhostRef::Race(race_id)),
        }
    }
}

/// One accepted placement of the ghost, at its race time from the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GhostMove {
    /// Race time of the placement (penalties do not move it).
    pub at_ms: u64,
    /// Cell 0..=80.
    pub cell: u8,
    /// Digit 1..=9.
    pub digit: u8,
}

/// Everything a ghost race deals and replays: the stored race's puzzle and the ghost seat's
/// accepted placements and finish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GhostSource {
    /// The race replayed (what the ghost race's `ghost_of` names).
    pub race_id: String,
    /// Its difficulty.
    pub difficulty: Difficulty,
    /// The puzzle the ghost's seat was dealt (its own isomorph of the race's, A8).
    pub puzzle: String,
    /// Its solution.
    pub solution: String,
    /// The ghost's player id in that race.
    pub player_id: String,
    /// The name the ghost raced under.
    pub name: String,
    /// The ghost's persistent player, if it had one.
    pub handle: Option<String>,
    /// The ghost's finish: its solve time by the server's clock, penalties included (A8's
    /// `time_ms_raw`; a row stored before A8 has its `time_ms`).
    pub time_ms: u64,
    /// The lag that time was compensated by (A8).
    pub lag_ms: u32,
    /// The ghost's accepted placements, in order.
    pub moves: Vec<GhostMove>,
}

/// [`super::Store::ghost_source`]: find the race and seat, then read what the ghost replays.
pub(super) fn ghost_source(
    c: &mut dyn Sql,
    ghost: &GhostRef<'_>,
) -> Result<Option<GhostSource>, StoreError> {
    let seat = |r: &dyn super::backend::Cells| Ok((r.text(0)?, r.text(1)?));
    let found = match *ghost {
        GhostRef::Best { handle, difficulty } => {
            let params = [Text(handle), Text(difficulty.as_str())];
            first(c, sql::GHOST_BEST, &params, seat)?
        }
        GhostRef::Daily { date, difficulty } => {
            let params = [Text(date), Text(difficulty.as_str())];
            first(c, sql::GHOST_DAILY, &params, seat)?
        }
        GhostRef::Race(race_id) => first(c, sql::GHOST_WINNER, &[Text(race_id)], seat)?,
    };
    match found {
        Some((race_id, player_id)) => replay_seat(c, race_id, player_id),
        None => Ok(None),
    }
}

/// The ghost of seat `player_id` in race `race_id`; `None` unless it solved.
fn replay_seat(
    c: &mut dyn Sql,
    race_id: String,
    player_id: String,
) -> Result<Option<GhostSource>, StoreError> {
    let race = first(c, sql::RACE, &[Text(&race_id)], |r| {
        Ok((r.text(1)?, r.text(2)?, r.text(3)?))
    })?;
    let params = [Text(&race_id), Text(&player_id)];
    let seat = first(c, sql::GHOST_SEAT, &params, |r| {
        Ok((
            r.text(0)?,
            opt_unsigned("time_ms", r.opt_int(1)?)?,
            r.opt_text(2)?,
            opt_unsigned("time_ms_raw", r.opt_int(3)?)?,
            unsigned("lag_ms", r.int(4)?)?,
            r.opt_text(5)?.zip(r.opt_text(6)?),
        ))
    })?;
    let (
        Some((difficulty, race_puzzle, race_solution)),
        Some((name, Some(time_ms), handle, time_ms_raw, lag_ms, own)),
    ) = (race, seat)
    else {
        return Ok(None);
    };
    let time_ms = time_ms_raw.unwrap_or(time_ms);
    // A8: the ghost placed on its own isomorph when it was dealt one; the human must race that.
    let (puzzle, solution) = own.unwrap_or((race_puzzle, race_solution));
    let difficulty = difficulty.parse().map_err(|_| StoreError::Corrupt {
        what: "difficulty",
        value: difficulty,
    })?;
    let moves = rows(c, sql::GHOST_MOVES, &params, |r| {
        Ok(GhostMove {
            at_ms: unsigned("at_ms", r.int(0)?)?,
            cell: unsigned("cell", r.int(1)?)?,
            digit: unsigned("digit", r.int(2)?)?,
        })
    })?;
    Ok(Some(GhostSource {
        race_id,
        difficulty,
        puzzle,
        solution,
        player_id,
        name,
        handle,
        time_ms,
        lag_ms,
        moves,
    }))
}
