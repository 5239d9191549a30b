//! Properties of the room rules, checked by the fuzz target `room_rules` (`fuzz/`) and by its
//! proptest twin in the normal suite: one statement, two drivers. [`room_rules`] decodes bytes
//! into a sequence of commands (join, spectate, leave, drop, resume, ready, start, puzzle ready,
//! place, forfeit, chat, set settings, kick, tick with advancing time), drives them into a [`Room`], and checks every
//! effect: no panic; no `solution` message, and no solution grid in any message, before
//! `race_over` (A1; a player's own solved board in `room_joined` apart), neither the race's nor,
//! when the room deals isomorphs (A8), any seat's own; seat names distinct by
//! key (A3); every chat passed on is valid chat; standings consistent (ranks from 1, ties share
//! a rank and the next skips, each racer exactly once, solved first by time); never more seats
//! than `max_players`, whatever the host sets (A5).
//!
//! It panics when a property fails, so it is for test harnesses only.

use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use engine::solver::solve_unique;
use engine::{Cell, Digit, Grid};
use protocol::{
    FinishStatus, PlayerId, PlayerStatus, RaceId, ResumeToken, Role, ServerMsg, Settings, Standing,
};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use tokio::time::Instant;

use crate::outbox::ConnId;
use crate::puzzles::SolvedPuzzle;
use crate::room::handle::Identity;
use crate::room::rules::{Effect, MintToken, Room, RoomOpts};

/// Where connection `x` comes from: two connections share each address.
fn addr(x: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(10, 0, 0, x % 3))
}

const PUZZLE: &str =
    "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..";
const SOLUTION: &str =
    "483921657967345821251876493548132976729564138136798245372689514814253769695417382";

const NAMES: &[&str] = &[
    "ann",
    "Ann",
    "host",
    "h\u{043e}st",
    "spectator",
    "bob ",
    "\u{202E}x",
    "x\u{200B}",
    "",
];

const CHATS: &[&str] = &["hi", "", "\u{1b}[2J", "a\u{2066}b", "gg"];

/// What one run reached, so a driver can tell that its inputs go somewhere.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reached {
    /// Races started.
    pub races: usize,
    /// `race_over`s announced.
    pub races_over: usize,
}

/// Bytes read one at a time; the input ends when they do.
struct Bytes<'a>(std::slice::Iter<'a, u8>);

impl Bytes<'_> {
    fn next(&mut self) -> Option<u8> {
        self.0.next().copied()
    }
}

struct Harness {
    room: Room,
    now: Instant,
    unix_ms: i64,
    pending: Option<(RaceId, u64)>,
    /// The deal given to the room and not yet revealed by `race_over`.
    secret: Option<SolvedPuzzle>,
    /// The deal of the race under way or last run (for placing right digits).
    dealt: Option<SolvedPuzzle>,
    /// Each connection's own deal, from its `race_started` or resumed race view (A8: its
    /// isomorph in a room that deals them; else the race's).
    own: BTreeMap<ConnId, SolvedPuzzle>,
    /// Every seat's own solution dealt this race and not yet revealed by `race_over`.
    seat_secrets: Vec<Grid>,
    /// The race whose `race_started` was last seen (one per seat with isomorphs).
    started: Option<RaceId>,
    tokens: Vec<ResumeToken>,
    seats: BTreeSet<PlayerId>,
    racers: BTreeSet<PlayerId>,
    reached: Reached,
}

/// Drive the commands `data` decodes to into one room, checking every property above.
#[allow(clippy::disallowed_methods)] // a harness picks its own start instant
pub fn room_rules(data: &[u8]) -> Reached {
    let mut b = Bytes(data.iter());
    let (Some(s0), Some(s1)) = (b.next(), b.next()) else {
        return Reached::default();
    };
    let settings = Settings {
        max_players: 1 + s0 % 4,
        max_mistakes: s0 / 4 % 3,
        penalty_s: u32::from(s1 % 2) * 10,
        time_limit_s: 60,
        isomorphs: s1 / 2 % 2 == 1,
        ..Settings::default()
    };
    let mut n = 0u128;
    let mint = MintToken(Box::new(move || {
        n += 1;
        ResumeToken::from(format!("{n:032x}"))
    }));
    let opts = RoomOpts {
        countdown: Duration::from_millis(100),
        resume_grace: Duration::from_secs(5),
        max_spectators: 3,
        chat_rate: 5,
        chat_burst: 10,
        kick_bar: Duration::from_secs(600),
        fair_play: true,
        lag_cap_ms: 500,
        spectator_delay: Duration::from_secs(30),
        shutdown_reason: protocol::ClosedReason::Shutdown,
    };
    let room = Room::new(
        "FUZZ".try_into().expect("a valid code"),
        settings,
        opts,
        Xoshiro256PlusPlus::seed_from_u64(u64::from(s1)),
        mint,
    );
    let mut h = Harness {
        room,
        now: Instant::now(),
        unix_ms: 0,
        pending: None,
        secret: None,
        dealt: None,
        own: BTreeMap::new(),
        seat_secrets: Vec::new(),
        started: None,
        tokens: Vec::new(),
        seats: BTreeSet::new(),
        racers: BTreeSet::new(),
        reached: Reached::default(),
    };
    let mut opened = false;
    while let (Some(op), Some(x), Some(y)) = (b.next(), b.next(), b.next()) {
        h.step(op, x, y);
        h.check_effects();
        assert!(
            h.room.n_players() <= usize::from(h.room.settings().max_players),
            "A5: more seats than max_players"
        );
        opened |= h.room.n_players() > 0;
        if opened && h.room.is_empty() {
            // The room task removes an empty room: nothing more can happen to it.
            break;
        }
    }
    h.reached
}

impl Harness {
    fn step(&mut self, op: u8, x: u8, y: u8) {
        let conn = ConnId(u64::from(1 + x % 6));
        let now = self.now;
        let name = |y: u8| NAMES[usize::from(y) % NAMES.len()];
        match op % 15 {
            0 => {
                // Some seats identified, some bots: one identity may not take two seats.
                let who = Identity {
                    handle: y.is_multiple_of(3).then(|| format!("h{}", y % 4)),
                    bot: y.is_multiple_of(5),
                    banned: false,
                    draws: Default::default(),
                };
                self.room
                    .join(conn, addr(x), Some(name(y)), Role::Player, who, now);
            }
            1 => {
                let n = (!y.is_multiple_of(4)).then(|| name(y));
                self.room
                    .join(conn, addr(x), n, Role::Spectator, Identity::default(), now);
            }
            2 => {
                self.room.leave(conn, now);
            }
            3 => self.room.dropped(conn, now),
            4 => {
                let token = match self.tokens.len() {
                    0 => ResumeToken::from("0".repeat(32)),
                    n => self.tokens[usize::from(y) % n].clone(),
                };
                self.room.resume(conn, &token, Default::default(), now);
            }
            5 => self.room.set_ready(conn, y.is_multiple_of(2)),
            6 => self.room.start_race(conn, now),
            7 => {
                if let Some((race_id, seed)) = self.pending.take() {
                    let dealt = base().transformed(seed);
                    self.secret = Some(dealt.clone());
                    self.dealt = Some(dealt.clone());
                    self.room
                        .puzzle_ready(&race_id, dealt, self.now, self.unix_ms);
                }
            }
            8 => {
                if let (Some(c), Some(d)) = (Cell::new(y % 81), Digit::new(1 + x / 6 % 9)) {
                    self.room.place(conn, c, d, None, now);
                }
            }
            9 => self.place_run(conn, y),
            10 => self.room.forfeit(conn, now),
            11 => {
                let text = CHATS[usize::from(y) % CHATS.len()].to_owned();
                self.room.chat(conn, text, now);
            }
            13 => {
                let settings = Settings {
                    max_players: 1 + y % 4,
                    ..self.room.settings().clone()
                };
                self.room.set_settings(conn, settings);
            }
            14 => self.room.kick(conn, &format!("p{}", 1 + y % 6), now),
            _ => {
                let dt = u64::from(y) * 250;
                self.now += Duration::from_millis(dt);
                self.unix_ms += dt as i64;
                self.room.tick(self.now, self.unix_ms);
            }
        }
    }

    /// Right digits on the first `n` empty cells from an offset: solves happen.
    fn place_run(&mut self, conn: ConnId, y: u8) {
        let Some(dealt) = self.own.get(&conn).cloned().or(self.dealt.clone()) else {
            return;
        };
        let empty: Vec<Cell> = Cell::all()
            .filter(|&c| dealt.puzzle.get(c).is_none())
            .collect();
        let start = usize::from(y % 8);
        for &c in empty.iter().skip(start).take(usize::from(y)) {
            if let Some(d) = dealt.solution.get(c) {
                self.room.place(conn, c, d, None, self.now);
            }
        }
    }

    fn check_effects(&mut self) {
        for fx in self.room.take_effects() {
            match fx {
                Effect::Send(to, msg) => self.check_msg(&to, &msg),
                Effect::NeedPuzzle { race_id, seed } => self.pending = Some((race_id, seed)),
                _ => {}
            }
        }
    }

    fn check_msg(&mut self, to: &[ConnId], msg: &ServerMsg) {
        assert!(
            !matches!(msg, ServerMsg::Solution { .. }),
            "A1: no `solution` message, ever before race_over: {msg:?}"
        );
        let race = self.secret.as_ref().map(|s| s.solution);
        for secret in race.iter().chain(&self.seat_secrets) {
            let line = secret.to_line();
            let leaks = serde_json::to_string(msg).is_ok_and(|j| j.contains(&line));
            let own_solved_board = matches!(msg, ServerMsg::RoomJoined { you, players, race: Some(r), .. }
                if r.board == Some(*secret)
                    && players.iter().any(|p| Some(&p.player_id) == you.player_id.as_ref()
                        && p.status == PlayerStatus::Solved));
            let over = matches!(msg, ServerMsg::RaceOver { .. });
            assert!(
                !leaks || own_solved_board || over,
                "a solution leaked before race_over to {to:?}: {msg:?}"
            );
        }
        match msg {
            ServerMsg::RoomJoined {
                you, players, race, ..
            } => {
                self.tokens.extend(you.token.clone());
                // A resumed seat plays on its own board, whatever connection it is on now.
                let puzzle = race.as_ref().and_then(|r| r.puzzle);
                if let (Some(puzzle), Some(_), [conn]) = (puzzle, &you.player_id, to) {
                    self.deal_own(*conn, puzzle);
                }
                self.seats = players.iter().map(|p| p.player_id.clone()).collect();
                let keys: BTreeSet<String> = players.iter().map(|p| p.name.key()).collect();
                assert_eq!(
                    keys.len(),
                    players.len(),
                    "A3: seat names by key: {players:?}"
                );
            }
            ServerMsg::PlayerJoined { player } => {
                self.seats.insert(player.player_id.clone());
            }
            ServerMsg::PlayerLeft { player_id } => {
                self.seats.remove(player_id);
            }
            ServerMsg::RaceStarted {
                race_id, puzzle, ..
            } => {
                let dealt = self.dealt.clone().expect("race_started after a deal");
                if self.room.settings().isomorphs {
                    // A8: a seat's own isomorph, or the race's for everyone else.
                    assert_eq!(puzzle.n_empty(), dealt.puzzle.n_empty(), "same clue count");
                } else {
                    assert_eq!(dealt.puzzle, *puzzle);
                }
                for &conn in to {
                    self.deal_own(conn, *puzzle);
                }
                if self.started.as_ref() != Some(race_id) {
                    self.started = Some(race_id.clone());
                    self.racers = self.seats.clone();
                    self.reached.races += 1;
                }
            }
            ServerMsg::Chat { text, .. } => {
                assert!(protocol::text::check_chat(text).is_ok(), "{text:?}");
            }
            ServerMsg::Progress(p) => assert!(p.filled <= p.to_fill, "{p:?}"),
            ServerMsg::RaceOver {
                standings,
                solution,
                ..
            } => {
                assert_eq!(self.secret.as_ref().map(|d| d.solution), Some(*solution));
                self.secret = None;
                self.seat_secrets.clear();
                check_standings(standings, &self.racers);
                self.reached.races_over += 1;
            }
            _ => {}
        }
    }
}

impl Harness {
    /// `conn` races `puzzle` (the race's or its own isomorph): its solution is a secret until
    /// `race_over`.
    fn deal_own(&mut self, conn: ConnId, puzzle: Grid) {
        let solution = solve_unique(&puzzle).expect("every deal has one solution");
        if !self.seat_secrets.contains(&solution) && self.secret.is_some() {
            self.seat_secrets.push(solution);
        }
        self.own
            .insert(conn, SolvedPuzzle::classic(puzzle, solution));
    }
}

fn base() -> SolvedPuzzle {
    SolvedPuzzle::classic(
        Grid::parse(PUZZLE).expect("a valid puzzle"),
        Grid::parse(SOLUTION).expect("a valid solution"),
    )
}

/// The contract's standings: each racer once; solved first by time, the rest by more `filled`
/// then fewer `mistakes`; ranks from 1, equal rows share a rank and the next rank skips.
pub fn check_standings(rows: &[Standing], racers: &BTreeSet<PlayerId>) {
    let ids: BTreeSet<PlayerId> = rows.iter().map(|r| r.player_id.clone()).collect();
    assert_eq!(ids.len(), rows.len(), "a racer twice: {rows:?}");
    assert_eq!(&ids, racers, "standings against racers: {rows:?}");
    let solved = |r: &Standing| r.status == FinishStatus::Solved;
    for r in rows {
        assert_eq!(
            solved(r),
            r.time_ms.is_some(),
            "time_ms only when solved: {r:?}"
        );
    }
    for (i, pair) in rows.windows(2).enumerate() {
        let (a, b) = (&pair[0], &pair[1]);
        let tie = match (solved(a), solved(b)) {
            (true, true) => {
                assert!(a.time_ms <= b.time_ms, "solved by time: {rows:?}");
                a.time_ms == b.time_ms
            }
            (true, false) => false,
            (false, true) => panic!("solved players rank first: {rows:?}"),
            (false, false) => {
                assert!(
                    (b.filled, a.mistakes) <= (a.filled, b.mistakes),
                    "more filled, then fewer mistakes: {rows:?}"
                );
                (a.filled, a.mistakes) == (b.filled, b.mistakes)
            }
        };
        let expected = if tie { a.rank } else { i as u32 + 2 };
        assert_eq!(b.rank, expected, "rank of row {}: {rows:?}", i + 1);
    }
    if let Some(first) = rows.first() {
        assert_eq!(first.rank, 1);
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Two players in a race (join, join, start, puzzle, tick), so generated tails start where
    /// the rules have the most to get wrong.
    const RACING: &[u8] = &[
        0, 0, 0, // p1 "ann" on conn 1
        0, 1, 2, // "host" on conn 2
        1, 2, 4, // a spectator on conn 3
        6, 0, 0, // conn 1 starts
        7, 0, 0, // the puzzle
        12, 0, 1, // 250 ms later: racing
    ];

    #[test]
    fn a_script_reaches_race_over() {
        let mut data = vec![3, 0];
        data.extend_from_slice(RACING);
        // conn 1 solves in runs; conn 2 forfeits.
        data.extend_from_slice(&[9, 0, 64, 9, 0, 64, 9, 0, 0, 10, 1, 0]);
        data.extend_from_slice(&[12, 0, 4, 2, 0, 0]);
        let reached = room_rules(&data);
        assert_eq!(
            reached,
            Reached {
                races: 1,
                races_over: 1
            }
        );
    }

    #[test]
    fn a_script_with_isomorphs_reaches_race_over_on_each_seats_own_board() {
        // s1 = 2: the room deals each seat its own isomorph.
        let mut data = vec![3, 2];
        data.extend_from_slice(RACING);
        // Both seats solve their own boards in runs.
        data.extend_from_slice(&[9, 0, 64, 9, 0, 64, 9, 1, 64, 9, 1, 64]);
        data.extend_from_slice(&[12, 0, 4, 2, 0, 0]);
        let reached = room_rules(&data);
        assert_eq!(
            reached,
            Reached {
                races: 1,
                races_over: 1
            }
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// The twin of the `room_rules` fuzz target, from a lobby and from a race under way.
        #[test]
        fn room_rules_hold(racing in any::<bool>(), head in any::<[u8; 2]>(),
                           tail in proptest::collection::vec(any::<u8>(), 0..600)) {
            let mut data = head.to_vec();
            if racing {
                data.extend_from_slice(RACING);
            }
            data.extend(tail);
            room_rules(&data);
        }
    }
}
