//! Replaying a room's log gives the room its live task ran: the same seats, boards, clocks
//! and standings, and the same end when both go on.
// Tests pick their own instants.
#![allow(clippy::disallowed_methods)]

use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use engine::{Cell, Digit, Grid};
use proptest::prelude::*;
use protocol::{Phase, ResumeToken, Role, ServerMsg, Settings};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use tokio::time::Instant;

use super::{replay, since, token_hash, Entry, Logged};
use crate::outbox::ConnId;
use crate::puzzles::SolvedPuzzle;
use crate::room::command::{Command, RoomMsg};
use crate::room::rules::{Effect, MintToken, Room, RoomOpts};

const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);
const PUZZLE: &str =
    "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..";
const SOLUTION: &str =
    "483921657967345821251876493548132976729564138136798245372689514814253769695417382";

fn opts() -> RoomOpts {
    RoomOpts {
        countdown: Duration::from_millis(100),
        resume_grace: Duration::from_secs(5),
        max_spectators: 2,
        chat_rate: 5,
        chat_burst: 10,
        kick_bar: Duration::from_secs(600),
        fair_play: true,
        lag_cap_ms: 500,
        spectator_delay: Duration::from_secs(30),
        shutdown_reason: protocol::ClosedReason::Shutdown,
    }
}

fn settings() -> Settings {
    Settings {
        max_players: 4,
        penalty_s: 1,
        max_mistakes: 3,
        time_limit_s: 60,
        ..Settings::default()
    }
}

/// A room driven as its task drives it, logging what the task logs.
struct Live {
    room: Room,
    epoch: Instant,
    log: Vec<Logged>,
    minted: Arc<Mutex<Vec<String>>>,
    tokens: Vec<(u64, ResumeToken)>,
    last_fx: Vec<Effect>,
}

impl Live {
    fn new(settings: Settings, seed: u64, epoch: Instant) -> Live {
        let minted: Arc<Mutex<Vec<String>>> = Arc::default();
        let m = minted.clone();
        let mut n = 0u128;
        let mint = MintToken(Box::new(move || {
            n += 1;
            let t = ResumeToken::from(format!("{:032x}", n * 7919));
            m.lock().unwrap().push(token_hash(t.as_str()));
            t
        }));
        let rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let room = Room::new(
            "ABCDE".try_into().unwrap(),
            settings.clone(),
            opts(),
            rng,
            mint,
        );
        let open = Entry::Open {
            code: "ABCDE".try_into().unwrap(),
            settings,
            seed,
            unix_ms: 1_000,
            ip: LOCAL,
            daily: None,
        };
        Live {
            room,
            epoch,
            log: vec![Logged { at: 0, entry: open }],
            minted,
            tokens: Vec::new(),
            last_fx: Vec::new(),
        }
    }

    fn push(&mut self, t: Instant, entry: Entry) {
        let at = since(self.epoch, t);
        // Through the bytes, as Redis keeps it.
        let back = Logged::decode(&Logged { at, entry }.encode()).unwrap();
        self.log.push(back);
        self.last_fx = self.room.take_effects();
        for fx in &self.last_fx {
            if let Effect::Send(to, ServerMsg::RoomJoined { you, .. }) = fx {
                if let Some(token) = &you.token {
                    self.tokens.push((to[0].0, token.clone()));
                }
            }
        }
    }

    fn join(&mut self, c: u64, t: Instant) {
        let name = format!("p{c}");
        self.room.join(
            ConnId(c),
            LOCAL,
            Some(&name),
            Role::Player,
            Default::default(),
            t,
        );
        let tokens = std::mem::take(&mut *self.minted.lock().unwrap());
        let cmd = Command::Join {
            addr: LOCAL,
            name: Some(name),
            role: Role::Player,
            who: Default::default(),
        };
        let entry = Entry::Cmd {
            conn: c,
            remote: None,
            tokens,
            cmd,
        };
        self.push(t, entry);
    }

    fn start(&mut self, c: u64, t: Instant) {
        self.room.start_race(ConnId(c), t);
        self.push(t, msg(c, RoomMsg::StartRace));
        let race_id = self
            .last_fx
            .iter()
            .find_map(|f| match f {
                Effect::NeedPuzzle { race_id, .. } => Some(race_id.clone()),
                _ => None,
            })
            .unwrap();
        let dealt =
            SolvedPuzzle::classic(Grid::parse(PUZZLE).unwrap(), Grid::parse(SOLUTION).unwrap());
        self.room.puzzle_ready(&race_id, dealt, t, 5_000);
        let entry = Entry::Puzzle {
            race_id,
            puzzle: PUZZLE.into(),
            solution: SOLUTION.into(),
            unix_ms: 5_000,
            variant: Default::default(),
            layout: Default::default(),
        };
        self.push(t, entry);
    }

    fn tick(&mut self, t: Instant) {
        self.room.tick(t, 9_000);
        self.push(t, Entry::Tick { unix_ms: 9_000 });
    }

    fn place(&mut self, c: u64, cell: u8, digit: u8, t: Instant) {
        let (Some(x), Some(d)) = (Cell::new(cell), Digit::new(digit)) else {
            return;
        };
        self.room.place(ConnId(c), x, d, None, t);
        let place = RoomMsg::Place {
            cell: x,
            digit: d,
            id: None,
        };
        self.push(t, msg(c, place));
    }

    fn forfeit(&mut self, c: u64, t: Instant) {
        self.room.forfeit(ConnId(c), t);
        self.push(t, msg(c, RoomMsg::Forfeit));
    }

    fn dropped(&mut self, c: u64, t: Instant) {
        self.room.dropped(ConnId(c), t);
        self.push(t, cmd(c, Command::Dropped));
    }

    fn resume(&mut self, c: u64, token: &ResumeToken, t: Instant) {
        self.room
            .resume(ConnId(c), token.as_str(), Default::default(), t);
        let hash = token_hash(token.as_str());
        let resume = Command::Resume {
            token: ResumeToken::from(hash),
            draws: Default::default(),
        };
        self.push(t, cmd(c, resume));
    }

    fn lag(&mut self, c: u64, rtt: u32, t: Instant) {
        self.room.lag_sample(ConnId(c), rtt);
        self.push(t, msg(c, RoomMsg::Lag { ms: rtt }));
    }
}

/// Connection `c`'s command, as logged.
fn cmd(c: u64, cmd: Command) -> Entry {
    Entry::Cmd {
        conn: c,
        remote: None,
        tokens: Vec::new(),
        cmd,
    }
}

/// Connection `c`'s message, as logged.
fn msg(c: u64, msg: RoomMsg) -> Entry {
    cmd(c, Command::Msg { msg })
}

/// What each of `conns` would be shown now, and the phase: the room as its members know it.
fn picture(room: &Room, conns: &[u64], t: Instant) -> String {
    let views: Vec<_> = conns
        .iter()
        .map(|c| {
            room.view_of(ConnId(*c), t)
                .map(|m| serde_json::to_string(&m).unwrap())
        })
        .collect();
    format!("{:?} {:?} {views:?}", room.phase(), room.next_deadline())
}

/// Replay `live`'s log with the same epoch, and check it shows everyone the same room.
fn rebuilt(live: &Live, conns: &[u64], t: Instant) -> Room {
    let r = replay(live.log.clone(), live.epoch, opts()).unwrap();
    assert_eq!(picture(&r.room, conns, t), picture(&live.room, conns, t));
    r.room
}

fn empty_cells() -> Vec<u8> {
    (0u8..81)
        .filter(|&i| PUZZLE.as_bytes()[usize::from(i)] == b'.')
        .collect()
}

fn right(i: u8) -> u8 {
    SOLUTION.as_bytes()[usize::from(i)] - b'0'
}

/// The standings `race_over` carried in `fx`.
fn race_over(fx: &[Effect]) -> Option<String> {
    fx.iter().find_map(|f| match f {
        Effect::Send(_, m @ ServerMsg::RaceOver { .. }) => Some(serde_json::to_string(m).unwrap()),
        _ => None,
    })
}

#[test]
fn a_scripted_race_replays_to_the_same_room_and_ends_the_same() {
    let t0 = Instant::now();
    let ms = |n: u64| t0 + Duration::from_millis(n);
    let mut live = Live::new(settings(), 42, t0);
    live.join(1, ms(1));
    live.join(2, ms(2));
    live.join(3, ms(3));
    live.start(1, ms(10));
    live.tick(ms(110));
    assert_eq!(live.room.phase(), Phase::Racing);
    let cells = empty_cells();
    live.place(1, cells[0], right(cells[0]), ms(500));
    live.place(2, cells[0], right(cells[0]) % 9 + 1, ms(600)); // wrong: a mistake
    live.lag(2, 80, ms(700));
    live.place(2, cells[1], right(cells[1]), ms(1_100));
    live.dropped(3, ms(1_200));
    live.forfeit(1, ms(1_300));
    let conns = [1, 2, 3];
    let mut again = rebuilt(&live, &conns, ms(1_400));
    // Both go on the same way and end the same: player 2 solves.
    for (k, &c) in cells.iter().enumerate().skip(2) {
        let t = ms(2_000 + k as u64 * 10);
        live.place(2, c, right(c), t);
        again.place(
            ConnId(2),
            Cell::new(c).unwrap(),
            Digit::new(right(c)).unwrap(),
            None,
            t,
        );
    }
    let _ = again.take_effects();
    // Player 3 is still away: the time limit ends it, for both alike.
    live.tick(ms(70_000));
    again.tick(ms(70_000), 9_000);
    let ended = race_over(&live.last_fx);
    assert!(ended.is_some(), "the live race ended");
    assert_eq!(race_over(&again.take_effects()), ended);
    // Taken over between races, the room shows the last race as `race_over` did: the view's
    // standings (ours, additive) are rebuilt from the log too.
    let after = rebuilt(&live, &conns, ms(70_100));
    let over: serde_json::Value = serde_json::from_str(&ended.unwrap_or_default()).unwrap();
    let Some(ServerMsg::RoomJoined { race: Some(v), .. }) = after.view_of(ConnId(2), ms(70_100))
    else {
        panic!("a room view with the race");
    };
    assert_eq!(
        serde_json::to_value(&v.standings).unwrap(),
        over["standings"]
    );
    assert_eq!(serde_json::to_value(v.reason).unwrap(), over["reason"]);
}

#[test]
fn a_replayed_seat_takes_its_token_back_and_the_gap_is_charged_to_nobody() {
    let t0 = Instant::now();
    let ms = |n: u64| t0 + Duration::from_millis(n);
    let mut live = Live::new(settings(), 7, t0);
    live.join(1, ms(1));
    live.join(2, ms(2));
    live.start(1, ms(10));
    live.tick(ms(110));
    let cells = empty_cells();
    live.place(1, cells[0], right(cells[0]), ms(1_110));
    let token = live.tokens.iter().find(|(c, _)| *c == 2).unwrap().1.clone();
    live.dropped(2, ms(1_200));
    live.resume(9, &token, ms(1_300));
    let mut r = replay(live.log.clone(), t0, opts()).unwrap().room;
    // The rebuilt seat is held under its hash: the token it was issued still takes it.
    r.dropped(ConnId(9), ms(1_400));
    assert!(!r.resume(
        ConnId(10),
        &format!("#{}", token_hash(token.as_str())),
        Default::default(),
        ms(1_500)
    ));
    assert!(r.resume(ConnId(10), token.as_str(), Default::default(), ms(1_500)));
    let fx = r.take_effects();
    let shown = fx.iter().find_map(|f| match f {
        Effect::Send(_, ServerMsg::RoomJoined { you, .. }) if you.token.is_some() => {
            you.token.clone()
        }
        _ => None,
    });
    assert_eq!(
        shown.as_ref().map(ResumeToken::as_str),
        Some(token.as_str())
    );
    // Ten seconds away: the deadline moves on by as much, and a placement's time loses it.
    let before = r.next_deadline();
    r.pause_race(Duration::from_secs(10));
    assert_eq!(r.race_paused(), Duration::from_secs(10));
    assert!(r.next_deadline() >= before);
    r.place(
        ConnId(10),
        Cell::new(cells[1]).unwrap(),
        Digit::new(right(cells[1])).unwrap(),
        None,
        ms(12_110),
    );
    assert_eq!(r.phase(), Phase::Racing, "60 s limit, 2 s of race time");
}

#[derive(Clone, Debug)]
enum Op {
    Place { c: u64, k: usize, wrong: bool },
    Forfeit(u64),
    Drop(u64),
    Back(u64),
    Lag(u64, u32),
    Wait(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (1u64..=3, 0usize..51, prop::bool::weighted(0.2))
            .prop_map(|(c, k, wrong)| Op::Place { c, k, wrong }),
        1 => (1u64..=3).prop_map(Op::Forfeit),
        1 => (1u64..=3).prop_map(Op::Drop),
        1 => (1u64..=3).prop_map(Op::Back),
        1 => (1u64..=3, 10u32..900).prop_map(|(c, r)| Op::Lag(c, r)),
        2 => (1u64..20_000).prop_map(Op::Wait),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn any_race_replays_to_the_room_that_ran_it(ops in prop::collection::vec(op(), 1..60), cut in 0usize..60) {
        let t0 = Instant::now();
        let mut t = t0 + Duration::from_millis(200);
        let mut live = Live::new(settings(), 3, t0);
        for c in 1..=3 {
            live.join(c, t0 + Duration::from_millis(c));
        }
        live.start(1, t0 + Duration::from_millis(10));
        live.tick(t0 + Duration::from_millis(110));
        let cells = empty_cells();
        // Connections that came back take new ids, as on a real server.
        let mut conn_of = [0u64, 1, 2, 3];
        let mut next_conn = 10;
        let mut known = vec![1, 2, 3];
        for (i, o) in ops.iter().enumerate() {
            t += Duration::from_millis(37);
            match o.clone() {
                Op::Place { c, k, wrong } => {
                    let cell = cells[k % cells.len()];
                    let d = if wrong { right(cell) % 9 + 1 } else { right(cell) };
                    live.place(conn_of[c as usize], cell, d, t);
                }
                Op::Forfeit(c) => live.forfeit(conn_of[c as usize], t),
                Op::Drop(c) => live.dropped(conn_of[c as usize], t),
                Op::Back(c) => {
                    let token = live.tokens.iter().find(|(_, tk)| tk.as_str().ends_with(&format!("{:x}", c as u128 * 7919))).map(|(_, tk)| tk.clone());
                    if let Some(token) = token {
                        next_conn += 1;
                        live.resume(next_conn, &token, t);
                        conn_of[c as usize] = next_conn;
                        known.push(next_conn);
                    }
                }
                Op::Lag(c, r) => live.lag(conn_of[c as usize], r, t),
                Op::Wait(d) => {
                    t += Duration::from_millis(d);
                    live.tick(t);
                }
            }
            if i == cut {
                rebuilt(&live, &known, t);
            }
        }
        rebuilt(&live, &known, t);
    }
}
