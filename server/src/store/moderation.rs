//! What moderators and names need of the store (A8), written once for both databases over
//! [`Sql`]: bans, the list of flagged results, players' reports, finding a handle by name,
//! and keeping each identity's name the one it last raced under.
//!
//! A ban is a mark on the player, not a deletion: their races, seats and rating rows stay, the
//! rating update skips them ([`super::rated`]) and the boards leave them out, so an unban
//! brings back exactly what they had.

use super::backend::{first, rows, Param, Sql};
use super::rows::opt_unsigned;
use super::{split_flags, sql, RaceRecord, StoreError};
use Param::{Int, OptText, Text};

/// A flagged result, for `/api/admin/flags`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlaggedResult {
    /// The race.
    pub race_id: String,
    /// Its room.
    pub room: String,
    /// `easy` .. `expert`.
    pub difficulty: String,
    /// The seat's player id in the race.
    pub player_id: String,
    /// The persistent player, if identified.
    pub handle: Option<String>,
    /// The name raced under.
    pub name: String,
    /// The flags raised (`crate::fairplay`).
    pub flags: Vec<String>,
    /// `solved`, `forfeited`, `eliminated` or `timed_out`.
    pub status: String,
    /// The time, when solved.
    pub time_ms: Option<u64>,
    /// When the race ended, Unix milliseconds.
    pub finished_unix_ms: i64,
}

/// A player's report of another player in a race (A8 `report`), as stored and listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportRecord {
    /// The race the target raced in (the room's current or last race).
    pub race_id: String,
    /// The room.
    pub room: String,
    /// The reporter's handle, if identified.
    pub reporter_handle: Option<String>,
    /// The reporter's name in the room.
    pub reporter_name: String,
    /// The target's player id in the race.
    pub target: String,
    /// The target's handle, if identified.
    pub target_handle: Option<String>,
    /// The target's name in the race.
    pub target_name: String,
    /// Why, 1..=200 characters, checked before it gets here.
    pub reason: String,
    /// When it was made, Unix milliseconds.
    pub created_unix_ms: i64,
}

impl ReportRecord {
    /// Who reported, as the once-per-race rule counts them: the handle, or for an anonymous
    /// reporter `~` and the name (a handle never starts with `~`).
    pub fn reporter_key(&self) -> String {
        match &self.reporter_handle {
            Some(h) => h.clone(),
            None => format!("~{}", self.reporter_name),
        }
    }
}

/// Mark or unmark `handle` as banned; whether such a player exists.
pub(super) fn set_banned(c: &mut dyn Sql, handle: &str, banned: bool) -> Result<bool, StoreError> {
    if first(c, sql::HANDLE_TAKEN, &[Text(handle)], |_| Ok(()))?.is_none() {
        return Ok(false);
    }
    c.exec(if banned { sql::BAN } else { sql::UNBAN }, &[Text(handle)])?;
    Ok(true)
}

/// Whether `handle` is a banned player.
pub(super) fn is_banned(c: &mut dyn Sql, handle: &str) -> Result<bool, StoreError> {
    Ok(first(c, sql::BANNED, &[Text(handle)], |_| Ok(()))?.is_some())
}

/// A page of flagged results, newest first.
pub(super) fn flagged(
    c: &mut dyn Sql,
    limit: u32,
    offset: u32,
) -> Result<Vec<FlaggedResult>, StoreError> {
    rows(
        c,
        sql::FLAGGED,
        &[Int(limit.into()), Int(offset.into())],
        |r| {
            Ok(FlaggedResult {
                race_id: r.text(0)?,
                room: r.text(1)?,
                difficulty: r.text(2)?,
                player_id: r.text(3)?,
                handle: r.opt_text(4)?,
                name: r.text(5)?,
                flags: split_flags(&r.text(6)?),
                status: r.text(7)?,
                time_ms: opt_unsigned("time_ms", r.opt_int(8)?)?,
                finished_unix_ms: r.int(9)?,
            })
        },
    )
}

/// Keep a report; one already kept for the same reporter, target and race stays as it was.
pub(super) fn save_report(c: &mut dyn Sql, rec: &ReportRecord) -> Result<(), StoreError> {
    let reporter = rec.reporter_key();
    c.exec(
        sql::PUT_REPORT,
        &[
            Text(&rec.race_id),
            Text(&reporter),
            Text(&rec.target),
            Text(&rec.room),
            OptText(rec.reporter_handle.as_deref()),
            Text(&rec.reporter_name),
            OptText(rec.target_handle.as_deref()),
            Text(&rec.target_name),
            Text(&rec.reason),
            Int(rec.created_unix_ms),
        ],
    )
}

/// A page of reports, newest first.
pub(super) fn reports(
    c: &mut dyn Sql,
    limit: u32,
    offset: u32,
) -> Result<Vec<ReportRecord>, StoreError> {
    rows(
        c,
        sql::REPORTS,
        &[Int(limit.into()), Int(offset.into())],
        |r| {
            Ok(ReportRecord {
                race_id: r.text(0)?,
                room: r.text(1)?,
                reporter_handle: r.opt_text(2)?,
                reporter_name: r.text(3)?,
                target: r.text(4)?,
                target_handle: r.opt_text(5)?,
                target_name: r.text(6)?,
                reason: r.text(7)?,
                created_unix_ms: r.int(8)?,
            })
        },
    )
}

/// The handles of the players whose name is exactly `name` (at most 10, by handle).
pub(super) fn handles_named(c: &mut dyn Sql, name: &str) -> Result<Vec<String>, StoreError> {
    rows(c, sql::HANDLES_NAMED, &[Text(name)], |r| r.text(0))
}

/// Names (A8): each identified seat's name becomes its player's name, unless a race that
/// ended later already gave them one. One rule everywhere: the leaderboard, the player page,
/// the daily board and the races all show the name the identity last raced under. A handle
/// seated twice keeps the name of its first seat in the standings.
pub(crate) fn keep_names(
    c: &mut dyn Sql,
    rec: &RaceRecord,
    finished: i64,
) -> Result<(), StoreError> {
    let mut done: Vec<&str> = Vec::new();
    for s in &rec.standings {
        let Some(seat) = super::rows::seat_of(rec, s) else {
            continue;
        };
        let Some(handle) = seat.handle.as_deref() else {
            continue;
        };
        if done.contains(&handle) {
            continue;
        }
        done.push(handle);
        c.exec(
            sql::PUT_NAME,
            &[Text(s.name.as_str()), Int(finished), Text(handle)],
        )?;
    }
    Ok(())
}
