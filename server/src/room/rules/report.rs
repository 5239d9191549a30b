//! `report` (A8): a member of the room (player or spectator) reports a player of the room's
//! current or last race to the moderators. The room checks who is who and answers `reported`;
//! the room task keeps the report ([`Effect::Report`]) before that answer goes out. The store
//! keeps one per reporter, target and race, so a repeat is answered `reported` again and kept
//! once. The reason's text was checked before it got here (`crate::net::cmd`).

use protocol::{ErrorCode, PlayerId, ServerMsg};

use super::{Effect, Room};
use crate::outbox::ConnId;
use crate::store::ReportRecord;

impl Room {
    /// `report` {`player_id`, `reason`} from `conn`, at `unix_ms` on the wall clock. A target
    /// that did not race in the room's current or last race (or a ghost) is `bad_message`,
    /// as is reporting yourself (your own seat, or another seat of your own identity).
    pub fn report(&mut self, conn: ConnId, player_id: &str, reason: String, unix_ms: i64) {
        let Some((own_id, reporter_name)) = self.seats.speaker(conn) else {
            return self.fx.error(conn, ErrorCode::NotInRoom, "not in a room");
        };
        let reporter_handle = self
            .seats
            .seat_of_conn(conn)
            .and_then(|s| s.who.handle.clone());
        let Some(race) = &self.race else {
            let why = "no race has been run here: nobody to report";
            return self.fx.error(conn, ErrorCode::BadMessage, why);
        };
        let Some((target_name, target)) = race.seated(player_id) else {
            let why = "no such player in this room's race";
            return self.fx.error(conn, ErrorCode::BadMessage, why);
        };
        let same_seat = own_id.as_ref().is_some_and(|id| id.as_str() == player_id);
        let same_identity = reporter_handle.is_some() && reporter_handle == target.handle;
        if same_seat || same_identity {
            let why = "you cannot report yourself";
            return self.fx.error(conn, ErrorCode::BadMessage, why);
        }
        let report = ReportRecord {
            race_id: race.race_id().to_string(),
            room: self.code.to_string(),
            reporter_handle,
            reporter_name: reporter_name.to_string(),
            target: player_id.to_owned(),
            target_handle: target.handle.clone(),
            target_name: target_name.to_string(),
            reason,
            created_unix_ms: unix_ms,
        };
        tracing::info!(room = %self.code, race_id = report.race_id, target = player_id, "report");
        self.fx.push(Effect::Report(Box::new(report)));
        let player_id = PlayerId::from(player_id.to_owned());
        self.send(conn, ServerMsg::Reported { player_id });
    }
}
