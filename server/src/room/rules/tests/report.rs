//! `report` (A8): who may report whom, and what the room hands the task to keep.

use super::*;

fn kept(fx: &[Effect]) -> Vec<&crate::store::ReportRecord> {
    fx.iter()
        .filter_map(|f| match f {
            Effect::Report(r) => Some(&**r),
            _ => None,
        })
        .collect()
}

#[test]
fn players_and_spectators_report_racers_of_the_room() {
    let t0 = Instant::now();
    let mut r = racing(2, settings(), t0);
    assert!(join(&mut r, 9, Some("watcher"), Role::Spectator, t0));
    r.take_effects();
    let p2 = r.player_id_of(ConnId(2)).unwrap().to_string();

    r.report(ConnId(1), &p2, "too quick".into(), 1_000);
    let fx = r.take_effects();
    assert!(matches!(&to(&fx, 1)[..], [ServerMsg::Reported { player_id }] if *player_id == *p2));
    let got = kept(&fx);
    assert_eq!(got.len(), 1);
    assert_eq!(
        (
            got[0].reporter_name.as_str(),
            got[0].target_name.as_str(),
            got[0].target.as_str()
        ),
        ("p1", "p2", p2.as_str())
    );
    assert_eq!(
        (got[0].room.as_str(), got[0].created_unix_ms),
        (r.code().as_str(), 1_000)
    );
    assert!(got[0].race_id.starts_with(r.code().as_str()));

    r.report(ConnId(9), &p2, "spectators may report".into(), 2_000);
    let fx = r.take_effects();
    assert_eq!(kept(&fx)[0].reporter_name, "watcher");
    assert!(kept(&fx)[0].reporter_handle.is_none());
}

#[test]
fn yourself_strangers_and_rooms_without_a_race_are_refused() {
    let t0 = Instant::now();
    let mut lobby = room(settings());
    assert!(join(&mut lobby, 1, Some("ann"), Role::Player, t0));
    assert!(join(&mut lobby, 2, Some("bob"), Role::Player, t0));
    lobby.take_effects();
    let p2 = lobby.player_id_of(ConnId(2)).unwrap().to_string();
    lobby.report(ConnId(1), &p2, "no race yet".into(), 0);
    check_error(&lobby.take_effects(), 1, ErrorCode::BadMessage);

    let mut r = racing(2, settings(), t0);
    let p1 = r.player_id_of(ConnId(1)).unwrap().to_string();
    r.report(ConnId(1), &p1, "me".into(), 0);
    let fx = r.take_effects();
    check_error(&fx, 1, ErrorCode::BadMessage);
    assert!(kept(&fx).is_empty());
    r.report(ConnId(1), "nobody", "who".into(), 0);
    check_error(&r.take_effects(), 1, ErrorCode::BadMessage);
    r.report(ConnId(7), &p1, "not in the room".into(), 0);
    check_error(&r.take_effects(), 7, ErrorCode::NotInRoom);
}
