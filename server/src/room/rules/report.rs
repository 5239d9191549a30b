//! `report` (A8): a member of the room (player or spectator) reports a player of the room's
//! current or last race to the moderators. The room checks who is who and answers `reported`;
//! the room task keeps the report ([`super::Effect::Report`]) before that answer goes out. The
//! store keeps one per reporter, target and race, so a repeat is answered `reported` again and
//! kept once. The reason's text was checked before it got here (`crate::net::cmd`).

use protocol::{ErrorCode, RoomCode};

use super::race::Race;
use super::seats::{Refusal, Seats};
use crate::outbox::ConnId;
use crate::store::ReportRecord;

/// The report of `player_id` that `conn` makes in `room`, whose current or last race is `race`,
/// at `unix_ms` on the wall clock. A target that did not race there (or a ghost) is
/// `bad_message`, as is reporting yourself (your own seat, or another seat of your own
/// identity).
pub(super) fn check(
    room: &RoomCode,
    seats: &Seats,
    race: Option<&Race>,
    conn: ConnId,
    player_id: &str,
    reason: String,
    unix_ms: i64,
) -> Result<ReportRecord, Refusal> {
    let Some((own_id, reporter_name)) = seats.speaker(conn) else {
        return Err(Refusal::new(ErrorCode::NotInRoom, "not in a room"));
    };
    let reporter_handle = seats.seat_of_conn(conn).and_then(|s| s.who.handle.clone());
    let bad = |why: &str| Err(Refusal::new(ErrorCode::BadMessage, why));
    let Some(race) = race else {
        return bad("no race has been run here: nobody to report");
    };
    let Some((target_name, target)) = race.seated(player_id) else {
        return bad("no such player in this room's race");
    };
    let same_seat = own_id.as_ref().is_some_and(|id| id.as_str() == player_id);
    let same_identity = reporter_handle.is_some() && reporter_handle == target.handle;
    if same_seat || same_identity {
        return bad("you cannot report yourself");
    }
    Ok(ReportRecord {
        race_id: race.race_id().to_string(),
        room: room.to_string(),
        reporter_handle,
        reporter_name: reporter_name.to_string(),
        target: player_id.to_owned(),
        target_handle: target.handle.clone(),
        target_name: target_name.to_string(),
        reason,
        created_unix_ms: unix_ms,
    })
}
