//! `Mirror::apply` on its own: what each server message leaves in the room and the race.

use super::*;
use protocol::You;

const PUZZLE: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

fn player(id: &str, name: &str) -> Player {
    Player {
        player_id: id.into(),
        name: name.try_into().expect("name"),
        ready: false,
        connected: true,
        status: PlayerStatus::Waiting,
        bot: false,
        handle: None,
        ghost: false,
    }
}

fn joined(race: Option<RaceView>) -> ServerMsg {
    ServerMsg::RoomJoined {
        room: "K7QX".try_into().expect("code"),
        you: You {
            player_id: Some("p2".into()),
            token: Some("t".into()),
            role: Role::Player,
        },
        host: Some("p1".into()),
        settings: Settings::default(),
        phase: if race.is_some() {
            Phase::Racing
        } else {
            Phase::Lobby
        },
        players: vec![player("p1", "ann"), player("p2", "bob")],
        race,
    }
}

fn started(race_id: &str) -> ServerMsg {
    ServerMsg::RaceStarted {
        race_id: race_id.into(),
        puzzle: PUZZLE.parse().expect("grid"),
        difficulty: Difficulty::Easy,
        time_limit_s: 600,
        rated: false,
        layout: Default::default(),
        variant: Default::default(),
    }
}

fn view(race_id: &str, elapsed_ms: u64) -> RaceView {
    RaceView {
        race_id: race_id.into(),
        puzzle: PUZZLE.parse().ok(),
        difficulty: Difficulty::Easy,
        time_limit_s: 600,
        elapsed_ms,
        board: None,
        mistakes: 2,
        progress: vec![],
        standings: None,
        reason: None,
        layout: Default::default(),
    }
}

#[test]
fn nothing_is_mirrored_before_room_joined() {
    let mut m = Mirror::default();
    m.apply(&started("r1"), 5);
    assert_eq!(m, Mirror::default());
}

#[test]
fn the_room_follows_players_host_and_phase() {
    let mut m = Mirror::default();
    m.apply(&joined(None), 0);
    let room = m.room.as_ref().expect("room");
    assert!(!room.am_room_host());
    assert_eq!(m.me().map(|p| p.as_str()), Some("p2"));
    m.apply(
        &ServerMsg::HostChanged {
            player_id: "p2".into(),
        },
        0,
    );
    m.apply(
        &ServerMsg::PlayerLeft {
            player_id: "p1".into(),
        },
        0,
    );
    m.apply(&ServerMsg::Countdown { starts_in_ms: 3000 }, 100);
    let room = m.room.as_ref().expect("room");
    assert!(room.am_room_host());
    assert_eq!(room.players.len(), 1);
    assert_eq!(
        (room.phase, room.countdown_until_ms),
        (Phase::Countdown, Some(3100))
    );
    m.apply(
        &ServerMsg::RoomClosed {
            room: "K7QX".try_into().expect("code"),
            reason: None,
        },
        0,
    );
    assert_eq!(m.room, None);
}

#[test]
fn a_race_anchors_its_clock_and_takes_accepted_digits_only() {
    let mut m = Mirror::default();
    m.apply(&joined(None), 0);
    m.apply(&started("r1"), 1000);
    let cell = engine::Cell::at(0, 2).expect("cell");
    let digit = engine::Digit::new(4).expect("digit");
    let placement = |accepted| ServerMsg::Placement {
        id: None,
        cell,
        digit,
        accepted,
        reason: None,
        conflicts: vec![],
        mistakes: 1,
        penalty_ms: 10_000,
    };
    m.apply(&placement(false), 1500);
    let race = m.race().expect("race");
    assert_eq!(race.board.get(cell), None);
    assert_eq!((race.mistakes, race.penalty_ms), (1, 10_000));
    m.apply(&placement(true), 1600);
    let race = m.race().expect("race");
    assert_eq!(race.board.get(cell), Some(digit));
    assert_eq!(race.elapsed_ms(3000), 2000);
    assert_eq!(race.progress["p1"].to_fill, 51);
}

#[test]
fn a_resume_of_the_same_race_keeps_what_the_view_does_not_repeat() {
    let mut m = Mirror::default();
    m.apply(&joined(None), 0);
    m.apply(&started("r1"), 0);
    m.apply(
        &ServerMsg::PlayerFinished {
            player_id: "p2".into(),
            status: FinishStatus::Forfeited,
            time_ms: None,
        },
        4000,
    );
    m.apply(&joined(Some(view("r1", 9000))), 10_000);
    let race = m.race().expect("race");
    assert_eq!(race.started_at_ms, 1000_i64);
    assert_eq!(race.mistakes, 2);
    assert_eq!(race.finished, Some((FinishStatus::Forfeited, None)));
    assert_eq!(race.elapsed_ms(20_000), 3000, "stopped at our finish");
    m.apply(&joined(Some(view("r2", 0))), 10_000);
    assert_eq!(
        m.race().expect("race").finished,
        None,
        "another race starts afresh"
    );
}

#[test]
fn a_race_joined_mid_way_right_after_start_shows_the_servers_race_time() {
    // A spectator's program is 300 ms old when it hears the race is 54 s in.
    let mut m = Mirror::default();
    m.apply(&joined(Some(view("r1", 54_000))), 300);
    let race = m.race().expect("race");
    assert_eq!(race.elapsed_ms(300), 54_000);
    assert_eq!(race.elapsed_ms(1300), 55_000);
}

#[test]
fn settings_changed_replaces_the_rooms_settings() {
    let mut m = Mirror::default();
    m.apply(&joined(None), 0);
    let settings = Settings {
        difficulty: Difficulty::Hard,
        time_limit_s: 900,
        ..Settings::default()
    };
    m.apply(
        &ServerMsg::SettingsChanged {
            settings: settings.clone(),
        },
        10,
    );
    assert_eq!(m.room.as_ref().map(|r| &r.settings), Some(&settings));
}

#[test]
fn kicked_leaves_no_room_and_a_lost_seat_stops_racing() {
    let mut m = Mirror::default();
    m.apply(&joined(Some(view("r1", 1000))), 2000);
    let racing = |m: &Mirror| m.room.as_ref().and_then(Room::me_player).map(|p| p.status);
    if let Some(p) = m.room.as_mut().and_then(|r| r.player_mut("p2")) {
        p.status = PlayerStatus::Racing;
    }
    let lost = ServerMsg::Error {
        code: ErrorCode::InvalidToken,
        message: "no such seat".into(),
        retry_ms: None,
    };
    m.apply(&lost, 5000);
    assert_eq!(racing(&m), Some(PlayerStatus::Forfeited));
    let race = m.race().expect("race");
    assert_eq!(race.finished, Some((FinishStatus::Forfeited, None)));
    assert_eq!(race.elapsed_ms(9000), 4000, "the clock stopped");
    let kicked = ServerMsg::Error {
        code: ErrorCode::Kicked,
        message: "removed by the host".into(),
        retry_ms: None,
    };
    m.apply(&kicked, 6000);
    assert_eq!(m.room, None);
}
