//! A race's life in a room, from `start_race` to `race_over` and the next one: the countdown
//! and its deal, the start, placements and forfeits, everything a tick makes happen (the
//! ghost's steps, the spectators' boards, the time limit, expired seats, round-trip probes, a
//! drain's close), the end, and the room's own end when the server stops. Each part decides
//! its own share; this is the order they are asked in.

use std::time::Duration;

use engine::{Cell, Digit};
use protocol::{
    ClosedReason, ErrorCode, FinishStatus, MsgId, PlayerId, PlayerStatus, RaceId, ServerMsg,
};
use rand::Rng;
use tokio::time::Instant;

use super::boards::final_boards;
use super::isomorphs::announce_start;
use super::race::{ms, EndReason, Race};
use super::{Effect, Room, State};
use crate::outbox::ConnId;
use crate::puzzles::SolvedPuzzle;

impl Room {
    /// `start_race` from `conn`: the host starts the countdown.
    pub fn start_race(&mut self, conn: ConnId, now: Instant) {
        let Some(i) = self.seat_of(conn) else { return };
        if self.drain.refuse(conn, &mut self.fx) {
            return;
        }
        if self.fixed.is_daily() && matches!(self.state, State::Finished) {
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
        if !self.seats.pool_seating()
            || !matches!(self.state, State::Lobby)
            || self.seats.is_empty()
        {
            return;
        }
        self.seats.end_pool_seating();
        self.begin_countdown(now);
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
        self.probes.begin(now);
        if let Some(ghost) = self.fixed.ghost_mut() {
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
                let (race_id, seed, dealt) = (race_id.clone(), *seed, dealt.clone());
                self.begin_race(race_id, seed, dealt, now, unix_ms);
            }
        }
        self.ghost_tick(now);
        if let (State::Racing, Some(race)) = (&self.state, &self.race) {
            self.boards.tick(race, &self.seats, now, &mut self.fx);
        }
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
        if self.probes.due(now, self.probing()) {
            let to = self.seats.racing_conns();
            if !to.is_empty() {
                self.fx.push(Effect::Probe(to));
            }
        }
        if self.drain.due(now) {
            self.close_with(ClosedReason::Drain);
        }
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
            .with_daily(self.fixed.daily_date())
            .with_ghost_of(self.fixed.ghost().map(|g| g.of_race().to_owned()));
        if self.settings.isomorphs {
            race.deal_isomorphs(seed);
        }
        if let Some(ghost) = self.fixed.ghost_mut() {
            ghost.join_race(&mut race);
        }
        for (player, samples) in self.probes.take_early() {
            race.early_lag(&player, &samples);
        }
        self.state = State::Racing;
        self.fx.push(Effect::RaceStarted);
        tracing::info!(room = %self.code, %race_id, seed, rated, "race started");
        announce_start(&race, &self.settings, &self.seats, rated, &mut self.fx);
        let watchers = self.seats.board_watchers();
        self.boards.started(&race, watchers, now, &mut self.fx);
        self.race = Some(race);
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

    /// Replay every placement of the ghost due by `now`, each at its own race time.
    fn ghost_tick(&mut self, now: Instant) {
        while matches!(self.state, State::Racing) {
            let (Some(ghost), Some(race)) = (self.fixed.ghost_mut(), self.race.as_mut()) else {
                return;
            };
            let Some((id, p)) = ghost.play_due(race, &self.settings, now) else {
                return;
            };
            if let Some(progress) = p.progress {
                self.send_all(ServerMsg::Progress(progress));
            }
            if let Some((status, time_ms)) = p.finished {
                self.player_finished(id, status, time_ms);
                self.check_race_end(now);
            }
        }
    }

    pub(super) fn check_race_end(&mut self, now: Instant) {
        let (ghost, race) = (self.fixed.ghost_mut(), self.race.as_mut());
        if let Some((id, progress, status, time_ms)) =
            ghost.zip(race).and_then(|(g, r)| g.finish_early(r))
        {
            self.send_all(ServerMsg::Progress(progress));
            self.player_finished(id, status, time_ms);
        }
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
            if let Some(race) = &self.race {
                final_boards(race, self.seats.board_watchers(), now, &mut self.fx);
            }
        }
        self.boards.ended();
        self.drain.after_race(now);
    }

    /// The room stood still for `gap` while it was taken over (A9): a running race's clock
    /// does not charge it (its time limit moves on by `gap`, its times lose it), and a
    /// countdown ends `gap` later.
    pub fn pause_race(&mut self, gap: Duration) {
        if let State::Countdown { ends_at, .. } = &mut self.state {
            *ends_at += gap;
        }
        if matches!(self.state, State::Racing) {
            if let Some(race) = self.race.as_mut().filter(|r| r.ended_at.is_none()) {
                race.paused += gap;
            }
        }
    }

    /// The server drains (A9): a room between races closes now (`room_closed` `drain`, 1001);
    /// a race counting down or running goes on, and the room closes [`super::DRAIN_READ`]
    /// after its `race_over`. Nothing changes for a room already draining or closed.
    pub fn drain(&mut self) {
        if self.drain.start() && matches!(self.state, State::Lobby | State::Finished) {
            self.close_with(ClosedReason::Drain);
        }
    }

    /// The server is stopping: everyone connected gets `room_closed` (`shutdown`) and is
    /// closed with 1001 (A5: not a silent drop); a running race is stored (reason `shutdown`,
    /// still-racing players as `timed_out`) without announcement.
    pub fn shutdown(&mut self, now: Instant) {
        if self.is_closed() {
            return;
        }
        self.close_with(self.opts.shutdown_reason);
        if matches!(self.state, State::Racing) {
            self.end_race(EndReason::Shutdown, now);
        }
    }

    /// `room_closed` with `reason` to everyone connected, then each closed with 1001.
    fn close_with(&mut self, reason: ClosedReason) {
        let everyone = self.seats.audience();
        let room = self.code.clone();
        self.drain.close(room, everyone, reason, &mut self.fx);
    }
}
