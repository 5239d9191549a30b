//! `/api/tv` (A8): the race a TV page should show now — the public or pool race running
//! with the highest mean rating of its identified human racers.
//!
//! It reads only this node's directory (each room task keeps its listing current, and looks up
//! its race's mean rating once, as the race starts), so an answer costs one pass over the
//! node's rooms and no store read. In a cluster a node names the strongest race it owns; every
//! node can still spectate it, since spectating finds a room on any node.

use protocol::{Phase, RoomCode};
use serde::Serialize;

use crate::room::handle::RoomInfo;

/// The answer.
#[derive(Debug, Serialize)]
pub struct Tv {
    /// The room to spectate.
    pub room: RoomCode,
}

/// The strongest race running among `rooms`: the highest mean rating (a race whose rating is
/// not known, e.g. with no identified human, ranks below every rated one), then the most
/// players, then the smallest code (so that every asker is sent to the same race).
pub fn strongest(rooms: Vec<(RoomCode, RoomInfo)>) -> Option<RoomCode> {
    let shown = rooms
        .into_iter()
        .filter(|(_, i)| i.phase == Phase::Racing && (i.settings.public || i.settings.pool));
    let best = shown.max_by(|(a_code, a), (b_code, b)| {
        let rating = |i: &RoomInfo| i.rating.unwrap_or(f64::NEG_INFINITY);
        rating(a)
            .total_cmp(&rating(b))
            .then(a.players.cmp(&b.players))
            .then(b_code.cmp(a_code))
    });
    best.map(|(code, _)| code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::Settings;

    fn room(code: &str, phase: Phase, public: bool, rating: Option<f64>) -> (RoomCode, RoomInfo) {
        let settings = Settings {
            public,
            ..Settings::default()
        };
        let info = RoomInfo {
            phase,
            players: 2,
            settings,
            rating,
        };
        (RoomCode::try_from(code).unwrap(), info)
    }

    #[track_caller]
    fn check(rooms: Vec<(RoomCode, RoomInfo)>, expected: Option<&str>) {
        assert_eq!(strongest(rooms).as_ref().map(RoomCode::as_str), expected);
    }

    #[test]
    fn the_strongest_public_race_running() {
        check(vec![], None);
        check(vec![room("AAAA", Phase::Lobby, true, None)], None);
        check(vec![room("AAAA", Phase::Racing, false, Some(9.0))], None);
        check(
            vec![
                room("AAAA", Phase::Racing, true, Some(3.0)),
                room("BBBB", Phase::Racing, true, Some(7.5)),
                room("CCCC", Phase::Racing, false, Some(20.0)),
                room("DDDD", Phase::Finished, true, Some(30.0)),
                room("EEEE", Phase::Racing, true, None),
            ],
            Some("BBBB"),
        );
        check(
            vec![
                room("EEEE", Phase::Racing, true, None),
                room("FFFF", Phase::Racing, true, None),
            ],
            Some("EEEE"),
        );
        let mut pool = room("GGGG", Phase::Racing, false, Some(1.0));
        pool.1.settings.pool = true;
        check(
            vec![pool, room("EEEE", Phase::Racing, true, None)],
            Some("GGGG"),
        );
    }
}
