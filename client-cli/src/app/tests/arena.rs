//! Ghosts and arenas (Amendment A7) on screen: a ghost seat is marked everywhere a player is
//! listed; the pool's offered ghost is raced with `g`; an arena's membership shows its screen
//! between races and its standings beside the race and on the results, its results ask for the
//! next race by themselves while it runs (and `r` at once), and quitting leaves the arena.

use protocol::{ArenaInfo, ArenaStanding, ArenaState};

use super::*;
use crate::app::AUTO_REQUEUE_MS;

/// The wall clock at local time 0 in these tests (UTC ms).
const WALL0: i64 = 1_700_000_000_000;

/// Arena "Blitz" (blitz-1, easy), from `starts` to `ends` local ms.
fn blitz(starts: i64, ends: i64) -> ArenaInfo {
    ArenaInfo {
        arena_id: "blitz-1".into(),
        name: "Blitz".into(),
        difficulty: Difficulty::Easy,
        starts_unix_ms: WALL0 + starts,
        ends_unix_ms: WALL0 + ends,
        state: ArenaState::Running,
        players: 2,
    }
}

fn standing(name: &str, points: u32, races: u32, wins: u32, streak: u32) -> ArenaStanding {
    ArenaStanding {
        handle: format!("h{name}"),
        name: name.try_into().unwrap(),
        points,
        races,
        wins,
        streak,
    }
}

/// ann, a member of Blitz (running from 0 to 10 minutes), with its standings, in no room.
fn member() -> App {
    let mut app = App::new("ann")
        .with_intent(&Intent::Arena {
            arena_id: "blitz-1".into(),
            name: "ann".into(),
        })
        .with_wall_clock(WALL0);
    app.update(Event::Net(NetEvent::Connected { reconnect: false }));
    app.update(Event::Tick(1000));
    app.update(net(ServerMsg::ArenaJoined {
        arena: blitz(0, 600_000),
    }));
    app.update(net(ServerMsg::ArenaStandings {
        arena_id: "blitz-1".into(),
        standings: vec![standing("bob", 6, 2, 2, 2), standing("ann", 1, 2, 0, 0)],
    }));
    app
}

/// A `room_joined` for one of Blitz's races: a pool room with `settings.arena` set.
fn arena_room(phase: Phase) -> ServerMsg {
    let ServerMsg::RoomJoined {
        room,
        you,
        players,
        race,
        ..
    } = joined("p1", None, phase)
    else {
        unreachable!("joined is a room_joined")
    };
    ServerMsg::RoomJoined {
        room,
        you,
        host: None,
        settings: Settings {
            difficulty: Difficulty::Easy,
            public: false,
            pool: true,
            arena: Some("blitz-1".into()),
            ..Settings::default()
        },
        phase,
        players,
        race,
    }
}

/// The race in the room starts, and at local time `over_at` ends.
fn race_to_the_end(app: &mut App, over_at: u64) {
    app.update(net(ServerMsg::Countdown { starts_in_ms: 0 }));
    app.update(net(ServerMsg::RaceStarted {
        race_id: "r1".into(),
        puzzle: PUZZLE.parse().unwrap(),
        difficulty: Difficulty::Easy,
        time_limit_s: 1800,
        rated: false,
        layout: Default::default(),
        variant: Default::default(),
    }));
    app.update(Event::Tick(over_at));
    app.update(net(ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::AllDone,
        standings: vec![],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }));
}

#[test]
fn a_ghost_is_marked_in_the_lobby_the_progress_panel_and_the_results() {
    let mut app = lobby();
    let mut ghost = player("p2", "ghost of bob");
    ghost.ghost = true;
    app.update(net(ServerMsg::PlayerUpdated { player: ghost }));
    check_shows(&render(&app, 120, 40), "ghost of bob [ghost]");
    app.update(net(ServerMsg::Countdown { starts_in_ms: 0 }));
    app.update(net(ServerMsg::RaceStarted {
        race_id: "r1".into(),
        puzzle: PUZZLE.parse().unwrap(),
        difficulty: Difficulty::Medium,
        time_limit_s: 1800,
        rated: false,
        layout: Default::default(),
        variant: Default::default(),
    }));
    check_shows(&render(&app, 120, 40), "ghost of bob [ghost]");
    app.update(net(ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::AllDone,
        standings: vec![Standing {
            rank: 1,
            player_id: "p2".into(),
            name: "ghost of bob".try_into().unwrap(),
            status: FinishStatus::Solved,
            time_ms: Some(61_000),
            filled: 51,
            mistakes: 0,
            time_ms_raw: None,
            lag_ms: 0,
            puzzle: None,
            solution: None,
            layout: Default::default(),
        }],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }));
    let buf = render(&app, 120, 40);
    check_shows(&buf, "ghost of bob [ghost]");
    assert!(find(&buf, "[bot]").is_none());
}

#[test]
fn the_queue_offers_the_ghost_of_pool_alone_and_g_leaves_the_queue_to_race_it() {
    let mut app = App::new("ann").with_intent(&Intent::Quick {
        variant: engine::Variant::Classic,
        difficulty: Difficulty::Hard,
        name: "ann".into(),
    });
    app.update(Event::Net(NetEvent::Connected { reconnect: false }));
    app.update(net(ServerMsg::Queued {
        difficulty: Difficulty::Hard,
        waiting: 1,
    }));
    check_effects(app.update(key('g')), &[]);
    app.update(net(ServerMsg::PoolAlone { ghost: None }));
    assert!(find(&render(&app, 80, 24), "race a ghost").is_none());
    check_effects(app.update(key('g')), &[]);
    app.update(net(ServerMsg::PoolAlone {
        ghost: Some("H-42".into()),
    }));
    let buf = render(&app, 80, 24);
    check_shows(&buf, "or press g to race a ghost instead (race H-42)");
    check_shows(&buf, "g race the ghost");
    check_effects(
        app.update(key('g')),
        &[
            ClientMsg::LeaveQueue,
            ClientMsg::RaceGhost {
                ghost: "H-42".into(),
                difficulty: None,
                name: "ann".into(),
                key: None,
                variant: None,
                variants: crate::net::drawn(),
            },
        ],
    );
    assert_eq!(app.outside, Outside::Entering);
    assert!(
        matches!(app.seating.intent(), Some(Intent::Ghost { ref ghost, .. }) if ghost == "H-42")
    );
    // The ghost's room comes: a room like any.
    app.update(net(joined("p1", None, Phase::Countdown)));
    assert!(app.room().is_some());
    // A refusal names the ghost.
    let mut refused = App::new("ann").with_intent(&Intent::Ghost {
        variant: engine::Variant::Classic,
        ghost: "best".into(),
        difficulty: Some(Difficulty::Easy),
        name: "ann".into(),
    });
    refused.update(Event::Net(NetEvent::Connected { reconnect: false }));
    refused.update(net(ServerMsg::Error {
        code: protocol::ErrorCode::UnknownRace,
        message: "nothing to race".into(),
        retry_ms: None,
    }));
    check_shows(
        &render(&refused, 100, 24),
        "could not race the ghost of best: nothing to race (unknown_race)",
    );
}

#[test]
fn a_member_between_races_sees_the_arena_its_standings_and_when_it_ends() {
    let mut app = member();
    assert_eq!(app.outside, Outside::Arena);
    let buf = render(&app, 100, 30);
    check_shows(&buf, "Arena Blitz · easy · ends in 9:59");
    check_shows(&buf, "arena Blitz  ·  easy  ·  member as ann");
    check_shows(&buf, " # name            pts races wins streak");
    check_shows(&buf, " 1 bob               6     2    2      2");
    check_shows(&buf, " 2 ann               1     2    0      0");
    check_shows(&buf, "q leaves the arena.");
    // Between its races the arena's pool says `queued`: still the arena's screen.
    app.update(net(ServerMsg::Queued {
        difficulty: Difficulty::Easy,
        waiting: 2,
    }));
    assert_eq!(app.outside, Outside::Arena);
    // Another arena's standings are not ours.
    app.update(net(ServerMsg::ArenaStandings {
        arena_id: "other".into(),
        standings: vec![],
    }));
    assert_eq!(app.arena.as_ref().map(|a| a.standings.len()), Some(2));
    // Before it starts it says when.
    let mut early = App::new("ann").with_wall_clock(WALL0);
    early.update(net(ServerMsg::ArenaJoined {
        arena: blitz(65_000, 600_000),
    }));
    check_shows(&render(&early, 100, 30), "starts in 1:05");
    check_shows(&render(&early, 100, 30), "no races yet");
}

#[test]
fn an_arena_race_shows_the_standings_and_its_results_ask_for_the_next_race_by_themselves() {
    let mut app = member();
    app.update(net(arena_room(Phase::Lobby)));
    assert!(app.in_arena_room());
    race_to_the_end(&mut app, 2000);
    let buf = render(&app, 120, 40);
    check_shows(&buf, "arena Blitz · ends in 9:58");
    check_shows(&buf, "next race in 5s (r: now)");
    check_shows(&buf, " # name            pts races wins streak");
    check_shows(&buf, " 1 bob               6     2    2      2");
    // Not before its time.
    check_effects(app.update(Event::Tick(2000 + AUTO_REQUEUE_MS - 1)), &[]);
    check_effects(
        app.update(Event::Tick(2000 + AUTO_REQUEUE_MS)),
        &[ClientMsg::Requeue],
    );
    check_effects(app.update(Event::Tick(9000)), &[]);
    // The arena's pool answers: its screen again, then the next race.
    app.update(net(ServerMsg::Queued {
        difficulty: Difficulty::Easy,
        waiting: 1,
    }));
    assert_eq!(app.outside, Outside::Arena);
    assert!(app.room().is_none());
    app.update(net(arena_room(Phase::Lobby)));
    race_to_the_end(&mut app, 20_000);
    // The side panel of a race shows the standings too.
    // `r` asks at once, and the tick after asks nothing more.
    check_effects(app.update(key('r')), &[ClientMsg::Requeue]);
    check_effects(app.update(Event::Tick(20_000 + AUTO_REQUEUE_MS)), &[]);
}

#[test]
fn the_side_panel_of_an_arena_race_shows_its_standings() {
    let mut app = member();
    app.update(net(arena_room(Phase::Lobby)));
    app.update(net(ServerMsg::Countdown { starts_in_ms: 0 }));
    app.update(net(ServerMsg::RaceStarted {
        race_id: "r1".into(),
        puzzle: PUZZLE.parse().unwrap(),
        difficulty: Difficulty::Easy,
        time_limit_s: 1800,
        rated: false,
        layout: Default::default(),
        variant: Default::default(),
    }));
    let buf = render(&app, 120, 40);
    check_shows(&buf, "arena Blitz");
    check_shows(&buf, " 1 bob               6     2    2      2");
}

#[test]
fn after_the_arena_ends_its_results_ask_for_nothing_and_a_plain_pool_race_neither() {
    let mut app = member();
    app.update(net(arena_room(Phase::Lobby)));
    race_to_the_end(&mut app, 600_000);
    check_effects(app.update(Event::Tick(600_000 + AUTO_REQUEUE_MS)), &[]);
    check_shows(&render(&app, 120, 40), "the arena is over: q leaves");

    let mut pool = member();
    let mut plain = arena_room(Phase::Lobby);
    if let ServerMsg::RoomJoined { settings, .. } = &mut plain {
        settings.arena = None;
    }
    pool.update(net(plain));
    assert!(!pool.in_arena_room());
    race_to_the_end(&mut pool, 3000);
    check_effects(pool.update(Event::Tick(3000 + AUTO_REQUEUE_MS)), &[]);
}

#[test]
fn quitting_leaves_the_arena_and_the_room_and_left_arena_ends_the_membership() {
    let mut app = member();
    assert_eq!(
        app.clone().update(key('q')),
        [Effect::Send(ClientMsg::LeaveArena), Effect::Quit]
    );
    app.update(net(arena_room(Phase::Lobby)));
    assert_eq!(
        app.clone().update(key('q')),
        [
            Effect::Send(ClientMsg::LeaveArena),
            Effect::Send(ClientMsg::Leave),
            Effect::Quit
        ]
    );
    app.update(net(ServerMsg::LeftArena {
        arena_id: "blitz-1".into(),
    }));
    assert_eq!(app.arena, None);
    assert!(!app.in_arena_room());
    assert_eq!(
        app.update(key('q')),
        [Effect::Send(ClientMsg::Leave), Effect::Quit]
    );
}
