//! The room's rules as a plain state machine: phases (Lobby -> Countdown -> Racing ->
//! Finished -> Countdown for a rematch), timers, and the effects they produce, composed from
//! [`seats`] (who is in the room), `members` (joins, leaves and chat), `host` (settings and
//! kicks between races, A5), [`race`] (one race's boards and verification), [`lag`] (the
//! round trips a race's times are compensated by, A8) and [`standings`] (the ranking).
//!
//! It does no IO and reads no clock or global RNG: every method takes the current
//! `tokio::time::Instant` (and the wall clock where a race may start); race ids and race
//! seeds (which decide the deal's transform) come from the seeded RNG it is given, resume
//! tokens from the minting function it is given. It pushes [`Effect`]s (messages to send,
//! connections to close, results to store) that the room task carries out in order.

mod boards;
mod drain;
pub mod effect;
pub mod ghost;
mod host;
mod isomorphs;
pub mod lag;
mod members;
pub mod race;
mod report;
pub mod seats;
pub mod standings;
pub mod takeover;

use std::time::Duration;

use protocol::{
    ErrorCode, FinishStatus, MsgId, Phase, PlayerId, PlayerStatus, RaceId, RaceView, RoomCode,
    ServerMsg, Settings, You,
};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use shared::engine::{Cell, Digit};
use tokio::time::Instant;

use crate::outbox::ConnId;
use crate::puzzles::SolvedPuzzle;
use crate::rate::TokenBucket;
pub use boards::BOARD_TICK;
pub use drain::DRAIN_READ;
use effect::Effects;
pub use effect::{Effect, RoomOpts};
use ghost::Ghost;
pub use ghost::{GhostRun, GhostStep};
use host::Bar;
use lag::Samples;
pub use members::{Identity, Requeued};
use race::{ms, EndReason, Race};
pub use seats::MintToken;
use seats::{Membership, Refusal, Seats};

// One room has one state; its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
enum State {
    Lobby,
    Countdown {
        race_id: RaceId,
        /// Drew the deal's transform: the race can be replayed from it.
        seed: u64,
        ends_at: Instant,
        dealt: Option<SolvedPuzzle>,
    },
    Racing,
    Finished,
}

/// One room's whole state.
#[derive(Debug)]
pub struct Room {
    code: RoomCode,
    settings: Settings,
    opts: RoomOpts,
    rng: Xoshiro256PlusPlus,
    seats: Seats,
    /// A daily challenge room (A6): its date and the day's puzzle, dealt as it is.
    daily: Option<(String, SolvedPuzzle)>,
    state: State,
    race: Option<Race>,
    /// The running race's boards as boards-spectators see them (A8).
    delayed: Option<boards::Delayed>,
    /// The room's chat budget, made full at the first chat.
    chat_budget: Option<TokenBucket>,
    /// Kicked names and addresses, barred for a while (A5).
    bars: Vec<Bar>,
    /// A pool room still taking the seats the pool formed it for (A7): until the pool starts
    /// it, its joins are the pool's; after, nobody takes a seat by `join_room`.
    pool_seating: bool,
    /// A ghost room's ghost (A7 `race_ghost`).
    ghost: Option<Ghost>,
    /// Round trips measured during the countdown, carried into the race (A8).
    early_lag: Vec<(PlayerId, Samples)>,
    /// When the racing seats' connections are next asked for a round trip (A8); `None`
    /// outside a countdown or race, so an idle room has no timer for it.
    next_probe: Option<Instant>,
    /// Whether the server is ending the room (a drain, A9) or has closed it.
    ending: drain::Ending,
    fx: Effects,
}

impl Room {
    /// An empty room; the first player to join becomes its host. `rng` draws race ids and
    /// seeds; `mint` makes seats' resume tokens.
    pub fn new(
        code: RoomCode,
        settings: Settings,
        opts: RoomOpts,
        rng: Xoshiro256PlusPlus,
        mint: MintToken,
    ) -> Room {
        let pool = settings.pool;
        Room {
            code,
            settings: isomorphs::forced(settings),
            opts,
            rng,
            pool_seating: pool,
            seats: Seats::new(mint, pool),
            daily: None,
            state: State::Lobby,
            race: None,
            delayed: None,
            chat_budget: None,
            bars: Vec::new(),
            ghost: None,
            early_lag: Vec::new(),
            next_probe: None,
            ending: drain::Ending::No,
            fx: Effects::default(),
        }
    }

    /// The effects pushed since the last call, in order.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        self.fx.take()
    }

    /// The room code.
    pub fn code(&self) -> &RoomCode {
        &self.code
    }

    /// The room's settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The phase on the wire.
    pub fn phase(&self) -> Phase {
        match self.state {
            State::Lobby => Phase::Lobby,
            State::Countdown { .. } => Phase::Countdown,
            State::Racing => Phase::Racing,
            State::Finished => Phase::Finished,
        }
    }

    /// Seats, held ones included.
    pub fn n_players(&self) -> usize {
        self.seats.len()
    }

    /// No seats left (held ones included): the room is to be removed.
    pub fn is_empty(&self) -> bool {
        self.seats.is_empty()
    }

    /// Whether `conn` is in this room.
    pub fn has_conn(&self, conn: ConnId) -> bool {
        self.seats.member(conn).is_some()
    }

    /// The handles of the seats held by identified humans (A6), for the race's rating (A8).
    pub fn rated_handles(&self) -> Vec<String> {
        self.seats.rated_handles()
    }

    /// The player id of the seat `conn` holds, if any.
    pub fn player_id_of(&self, conn: ConnId) -> Option<&PlayerId> {
        self.seats.seat_of_conn(conn).map(|s| &s.player_id)
    }

    /// The next moment [`Room::tick`] has something to do.
    pub fn next_deadline(&self) -> Option<Instant> {
        let probe = self.next_probe.filter(|_| self.probing());
        self.next_deadline_but_probes()
            .into_iter()
            .chain(probe)
            .min()
    }

    /// The next moment something other than a round-trip probe is due.
    fn next_deadline_but_probes(&self) -> Option<Instant> {
        let phase = match &self.state {
            State::Countdown {
                ends_at,
                dealt: Some(_),
                ..
            } => Some(*ends_at),
            State::Racing => self.race.as_ref().map(|r| r.deadline(self.time_limit())),
            _ => None,
        };
        let expiry = self.seats.next_expiry(self.opts.resume_grace);
        let ghost = self.ghost_deadline();
        let boards = self.boards_deadline();
        let drain = self.drain_deadline();
        let timers = expiry.into_iter().chain(ghost).chain(boards).chain(drain);
        phase.into_iter().chain(timers).min()
    }

    fn time_limit(&self) -> Duration {
        Duration::from_secs(u64::from(self.settings.time_limit_s))
    }

    fn send_all(&mut self, msg: ServerMsg) {
        let to = self.seats.audience();
        self.fx.push(Effect::Send(to, msg));
    }

    fn send_all_except(&mut self, conn: ConnId, msg: ServerMsg) {
        let mut to = self.seats.audience();
        to.retain(|&c| c != conn);
        self.fx.push(Effect::Send(to, msg));
    }

    fn send(&mut self, conn: ConnId, msg: ServerMsg) {
        self.fx.push(Effect::Send(vec![conn], msg));
    }

    fn player_finished(&mut self, player_id: PlayerId, status: FinishStatus, time_ms: Option<u64>) {
        self.send_all(ServerMsg::PlayerFinished {
            player_id,
            status,
            time_ms,
        });
    }

    fn refuse(&mut self, conn: ConnId, why: Refusal) -> bool {
        self.fx.error(conn, why.code, why.message);
        false
    }

    fn race_view(&self, viewer: Option<&PlayerId>, now: Instant) -> Option<RaceView> {
        match &self.state {
            State::Lobby => None,
            State::Countdown { race_id, .. } => Some(Race::countdown_view(race_id, &self.settings)),
            State::Racing => Some(self.race.as_ref()?.view(viewer, &self.settings, now)),
            // Whoever comes between races sees the last one as its players did (ours,
            // additive): the standings and reason of its `race_over`.
            State::Finished => {
                let (race, reason, standings) = self.last_race_over()?;
                Some(RaceView {
                    standings: Some(standings),
                    reason: Some(reason),
                    ..race.view(viewer, &self.settings, now)
                })
            }
        }
    }

    fn room_joined(&self, you: You, now: Instant) -> ServerMsg {
        let viewer = you.player_id.clone();
        ServerMsg::RoomJoined {
            room: self.code.clone(),
            you,
            host: self.seats.host().cloned(),
            settings: self.settings.clone(),
            phase: self.phase(),
            players: self.players(),
            race: self.race_view(viewer.as_ref(), now),
        }
    }

    fn seat_of(&mut self, conn: ConnId) -> Option<usize> {
        match self.seats.member(conn) {
            Some(Membership::Seat(i)) => Some(i),
            Some(Membership::Spectator(_)) => {
                self.fx
                    .error(conn, ErrorCode::NotPlayer, "spectators cannot do that");
                None
            }
            None => {
                self.fx.error(conn, ErrorCode::NotInRoom, "not in a room");
                None
            }
        }
    }

    /// `set_ready` from `conn`.
    pub fn set_ready(&mut self, conn: ConnId, ready: bool) {
        let Some(i) = self.seat_of(conn) else { return };
        if !matches!(self.state, State::Lobby) {
            self.fx
                .error(conn, ErrorCode::WrongPhase, "ready marks are for the lobby");
            return;
        }
        self.seats.seat_mut(i).ready = ready;
        let player = self.seats.seat(i).player();
        self.send_all(ServerMsg::PlayerUpdated { player });
    }

    /// Make this a daily challenge room: its races are on the day's puzzle and there is one.
    pub fn make_daily(&mut self, date: String, puzzle: SolvedPuzzle) {
        self.daily = Some((date, puzzle));
        self.no_isomorphs();
    }

    /// The puzzle every race here deals as it is: the day's (a daily room) or the replayed
    /// race's (a ghost room).
    pub fn fixed_puzzle(&self) -> Option<SolvedPuzzle> {
        let ghost = self.ghost.as_ref().map(Ghost::puzzle);
        self.daily.as_ref().map(|(_, d)| *d).or(ghost)
    }

    /// `start_race` from `conn`: the host starts the countdown.
    pub fn start_race(&mut self, conn: ConnId, now: Instant) {
        let Some(i) = self.seat_of(conn) else { return };
        if self.refuse_draining(conn) {
            return;
        }
        if self.daily.is_some() && matches!(self.state, State::Finished) {
            self.fx.error(
                conn,
                ErrorCode::AlreadyPlayed,
                "the daily challenge is one attempt",
            );
            return;
        }
        if self.seats.host() != Some(&self.seats.seat(i).player_id) {
            let why = if self.settings.pool {
                "a pool room starts by itself"
            } else {
                "only the host can start the race"
            };
            self.fx.error(conn, ErrorCode::NotHost, why);
            return;
        }
        if !matches!(self.state, State::Lobby | State::Finished) {
            self.fx
                .error(conn, ErrorCode::WrongPhase, "a race is already under way");
            return;
        }
        self.begin_countdown(now);
    }

    /// The pool has seated everyone it formed this room for (A7): the countdown starts, and
    /// nobody else takes a seat. Ignored in any other room, or once started.
    pub fn start_pool_race(&mut self, now: Instant) {
        if !self.pool_seating || !matches!(self.state, State::Lobby) || self.seats.is_empty() {
            return;
        }
        self.pool_seating = false;
        self.begin_countdown(now);
    }

    /// Whether a pool room is still taking the pool's seats.
    pub(super) fn pool_seating(&self) -> bool {
        self.pool_seating
    }

    /// `requeue` from `conn` (A7): a player of a finished pool room leaves it for the pool.
    /// Who left (else the error is sent).
    pub fn requeue(&mut self, conn: ConnId, now: Instant) -> Option<Requeued> {
        let i = self.seat_of(conn)?;
        if !self.settings.pool || !matches!(self.state, State::Finished) {
            let why = "requeue is for a pool room whose race is over";
            self.fx.error(conn, ErrorCode::WrongPhase, why);
            return None;
        }
        let seat = self.seats.seat(i);
        let left = Requeued {
            name: seat.name.to_string(),
            who: seat.who.clone(),
            difficulty: self.settings.difficulty,
            arena: self.settings.arena.clone(),
        };
        self.leave(conn, now).then_some(left)
    }

    fn begin_countdown(&mut self, now: Instant) {
        let race_id = RaceId::from(format!("{}-{:016x}", self.code, self.rng.gen::<u64>()));
        let seed = self.rng.gen();
        self.state = State::Countdown {
            race_id: race_id.clone(),
            seed,
            ends_at: now + self.opts.countdown,
            dealt: None,
        };
        self.seats.set_status(PlayerStatus::Waiting, |_| true);
        self.early_lag.clear();
        self.next_probe = Some(now);
        if let Some(ghost) = &mut self.ghost {
            ghost.restart(PlayerStatus::Waiting);
        }
        self.send_all(ServerMsg::Countdown {
            starts_in_ms: ms(self.opts.countdown),
        });
        self.fx.push(Effect::NeedPuzzle { race_id, seed });
    }

    /// The puzzle for `race_id` is dealt (under its seed's transform). `unix_ms` is the wall
    /// clock at `now`, recorded if the race starts.
    pub fn puzzle_ready(
        &mut self,
        race_id: &RaceId,
        puzzle: SolvedPuzzle,
        now: Instant,
        unix_ms: i64,
    ) {
        if let State::Countdown {
            race_id: id, dealt, ..
        } = &mut self.state
        {
            if id == race_id {
                *dealt = Some(puzzle);
            }
        }
        self.tick(now, unix_ms);
    }

    /// Carry out whatever is due at `now` (`unix_ms` on the wall clock): race start, time
    /// limit, expired seats.
    pub fn tick(&mut self, now: Instant, unix_ms: i64) {
        if let State::Countdown {
            race_id,
            seed,
            ends_at,
            dealt: Some(dealt),
        } = &self.state
        {
            if now >= *ends_at {
                let (race_id, seed, dealt) = (race_id.clone(), *seed, *dealt);
                self.begin_race(race_id, seed, dealt, now, unix_ms);
            }
        }
        self.ghost_tick(now);
        self.board_tick(now);
        if matches!(self.state, State::Racing)
            && self
                .race
                .as_ref()
                .is_some_and(|r| now >= r.deadline(self.time_limit()))
        {
            self.end_race(EndReason::TimeLimit, now);
        }
        while let Some(i) = self.seats.expired(now, self.opts.resume_grace) {
            self.remove_seat(i, now);
        }
        self.probe(now);
        self.drain_tick(now);
    }

    fn begin_race(
        &mut self,
        race_id: RaceId,
        seed: u64,
        dealt: SolvedPuzzle,
        now: Instant,
        unix_ms: i64,
    ) {
        let racers = self.seats.set_status(PlayerStatus::Racing, |_| true);
        let who = self.seats.identities();
        // A6: rated only with two identified humans at the start; a bot or an anonymous
        // seat races, but is never rated.
        let rated = self.settings.rated && who.iter().filter(|(_, w)| w.rateable()).count() >= 2;
        let mut race = Race::new(race_id.clone(), dealt, racers, now, unix_ms)
            .with_lag_cap(self.opts.lag_cap_ms)
            .with_identities(who, rated)
            .with_daily(self.daily.as_ref().map(|(date, _)| date.clone()))
            .with_ghost_of(self.ghost.as_ref().map(|g| g.of_race().to_owned()));
        if self.settings.isomorphs {
            race.deal_isomorphs(seed);
        }
        if let Some(ghost) = &mut self.ghost {
            ghost::join_race(ghost, &mut race);
        }
        for (player, samples) in self.early_lag.drain(..) {
            race.early_lag(&player, &samples);
        }
        self.race = Some(race);
        self.state = State::Racing;
        self.fx.push(Effect::RaceStarted);
        tracing::info!(room = %self.code, %race_id, seed, rated, "race started");
        self.announce_start(race_id, rated);
        self.boards_started(now);
    }

    /// The seat of `conn` if it is racing (else the error is sent).
    fn racer(&mut self, conn: ConnId) -> Option<(usize, PlayerId)> {
        let i = self.seat_of(conn)?;
        if !matches!(self.state, State::Racing) {
            self.fx
                .error(conn, ErrorCode::WrongPhase, "no race is running");
            return None;
        }
        let id = self.seats.seat(i).player_id.clone();
        if !self.race.as_ref().is_some_and(|r| r.is_racing(&id)) {
            self.fx
                .error(conn, ErrorCode::WrongPhase, "you are not racing");
            return None;
        }
        Some((i, id))
    }

    /// `place` from `conn`: rule 2, then rules 3 and 4.
    pub fn place(
        &mut self,
        conn: ConnId,
        cell: Cell,
        digit: Digit,
        id: Option<MsgId>,
        now: Instant,
    ) {
        let Some((seat, player)) = self.racer(conn) else {
            return;
        };
        let Some(race) = self.race.as_mut() else {
            return;
        };
        let Some(p) = race.place(&player, cell, digit, id, &self.settings, now) else {
            return;
        };
        self.fx.push(Effect::Placed(p.reason));
        self.send(conn, p.reply);
        if let Some(progress) = p.progress {
            self.send_all(ServerMsg::Progress(progress));
        }
        if let Some((status, time_ms)) = p.finished {
            self.seats.seat_mut(seat).status = status.into();
            // A1: an eliminated player sees the solution in `race_over`, like everyone.
            self.player_finished(player, status, time_ms);
            self.check_race_end(now);
        }
    }

    /// `forfeit` from `conn`.
    pub fn forfeit(&mut self, conn: ConnId, now: Instant) {
        let Some((seat, player_id)) = self.racer(conn) else {
            return;
        };
        let Some(race) = self.race.as_mut() else {
            return;
        };
        race.forfeit(&player_id);
        self.seats.seat_mut(seat).status = PlayerStatus::Forfeited;
        // A1: no `solution` now: one person with two seats would pass it to the other.
        self.player_finished(player_id, FinishStatus::Forfeited, None);
        self.check_race_end(now);
    }

    fn check_race_end(&mut self, now: Instant) {
        self.ghost_finish_early();
        if matches!(self.state, State::Racing) && self.race.as_ref().is_some_and(Race::all_done) {
            self.end_race(EndReason::AllDone, now);
        }
    }

    /// End the race: time out whoever still races, store the result, then announce it
    /// (unless the server is stopping).
    fn end_race(&mut self, reason: EndReason, now: Instant) {
        let Some(race) = self.race.as_mut() else {
            return;
        };
        let (timed_out, table, record) = race.end(&self.code, &self.settings, reason, now);
        let race_id = race.race_id().clone();
        let solution = race.dealt().solution;
        self.seats
            .set_status(PlayerStatus::TimedOut, |id| timed_out.contains(id));
        self.state = State::Finished;
        tracing::info!(room = %self.code, %race_id, reason = reason.as_str(), "race over");
        let announced = reason.announced();
        if announced.is_some() {
            for player_id in timed_out {
                self.player_finished(player_id, FinishStatus::TimedOut, None);
            }
        }
        self.fx.push(Effect::Store(Box::new(record)));
        if let Some(reason) = announced {
            self.send_all(ServerMsg::RaceOver {
                race_id,
                reason,
                standings: table,
                solution,
                ratings: Vec::new(),
            });
            self.final_boards(self.seats.board_watchers(), now);
        }
        self.delayed = None;
        self.drain_after_race(now);
    }
}

#[cfg(test)]
pub(crate) mod tests;
