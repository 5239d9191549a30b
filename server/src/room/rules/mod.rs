//! The room's rules as a plain state machine: phases (Lobby -> Countdown -> Racing ->
//! Finished -> Countdown for a rematch), timers, and the effects they produce. [`Room`]
//! composes parts that each own their state and decide about it: [`seats`] (who is in the
//! room, the host, a pool room's seating), [`race`] (one race's boards and verification),
//! `chat` (its budget, A4), `host` (the kicks' bars, A5), `boards` (the spectators' delayed
//! boards, A8), [`lag`] (the round-trip probes, A8), `fixed` (a daily or ghost room's puzzle
//! and [`ghost`]) and `drain` (the room's end, A9), with [`standings`] the ranking. `Room`
//! itself only orders them: here its construction, accessors and messages, `members` the
//! member commands, `lifecycle` a race's life from the countdown to `race_over`.
//!
//! It does no IO and reads no clock or global RNG: every method takes the current
//! `tokio::time::Instant` (and the wall clock where a race may start); race ids and race
//! seeds (which decide the deal's transform) come from the seeded RNG it is given, resume
//! tokens from the minting function it is given. It pushes [`Effect`]s (messages to send,
//! connections to close, results to store) that the room task carries out in order.

mod boards;
mod chat;
mod drain;
pub mod effect;
mod fixed;
pub mod ghost;
mod host;
mod isomorphs;
pub mod lag;
mod lifecycle;
mod members;
pub mod race;
mod report;
pub mod seats;
pub mod standings;
pub mod takeover;

use std::time::Duration;

use protocol::{
    ErrorCode, FinishStatus, OverReason, Phase, Player, PlayerId, RaceId, RaceView, Role, RoomCode,
    ServerMsg, Settings, Standing, You,
};
use rand_xoshiro::Xoshiro256PlusPlus;
use tokio::time::Instant;

use crate::outbox::ConnId;
use crate::puzzles::SolvedPuzzle;
use boards::Boards;
pub use boards::BOARD_TICK;
use chat::Chat;
use drain::Drain;
pub use drain::DRAIN_READ;
use effect::Effects;
pub use effect::{Effect, RoomOpts};
pub use ghost::{GhostRun, GhostStep};
use host::Bars;
use lag::Probes;
pub use members::{Identity, Requeued};
use race::Race;
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

/// One room's whole state: the parts, and what the room decides across them.
#[derive(Debug)]
pub struct Room {
    code: RoomCode,
    settings: Settings,
    opts: RoomOpts,
    rng: Xoshiro256PlusPlus,
    state: State,
    /// The running race, or the last one between races.
    race: Option<Race>,
    seats: Seats,
    fixed: fixed::Fixed,
    chat: Chat,
    bars: Bars,
    boards: Boards,
    probes: Probes,
    drain: Drain,
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
        Room {
            code,
            seats: Seats::new(mint, settings.pool),
            settings: isomorphs::forced(settings),
            chat: Chat::new(opts.chat_rate, opts.chat_burst),
            bars: Bars::new(opts.kick_bar),
            boards: Boards::new(opts.spectator_delay),
            opts,
            rng,
            state: State::Lobby,
            race: None,
            fixed: fixed::Fixed::default(),
            probes: Probes::default(),
            drain: Drain::default(),
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
        let probe = self.probes.deadline().filter(|_| self.probing());
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
        let racing = match (&self.state, &self.race) {
            (State::Racing, Some(race)) => Some(race),
            _ => None,
        };
        let ghost = racing.and_then(|r| self.fixed.ghost()?.deadline(r));
        // Board ticks only while a race runs and someone watches boards.
        let watched = racing.filter(|_| self.seats.has_board_watchers());
        let boards = watched.and_then(|_| self.boards.deadline());
        let drain = self.drain.deadline();
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

    /// Make this a daily challenge room: its races are on the day's puzzle and there is one.
    pub fn make_daily(&mut self, date: String, puzzle: SolvedPuzzle) {
        self.fixed.make_daily(date, puzzle);
        isomorphs::no_isomorphs(&mut self.settings);
    }

    /// Make this a ghost room: its races deal the run's puzzle, and the ghost races in them.
    pub fn race_ghost(&mut self, run: GhostRun) {
        self.fixed.race_ghost(run);
        isomorphs::no_isomorphs(&mut self.settings);
    }

    /// The puzzle every race here deals as it is: the day's (a daily room) or the replayed
    /// race's (a ghost room).
    pub fn fixed_puzzle(&self) -> Option<SolvedPuzzle> {
        self.fixed.puzzle()
    }

    /// Whether the room is draining (it takes no new race or seat).
    pub fn draining(&self) -> bool {
        self.drain.draining()
    }

    /// Whether the room has said `room_closed` to everyone and is over.
    pub fn is_closed(&self) -> bool {
        self.drain.is_closed()
    }

    /// Every connection in the room.
    pub fn conns(&self) -> Vec<ConnId> {
        self.seats.conns()
    }

    /// Every seat's token (a replayed seat's `#HASH`).
    pub fn tokens(&self) -> Vec<protocol::ResumeToken> {
        self.seats.tokens()
    }

    /// The connection the room knew as `from` is `to` from now on (a member kept across a
    /// takeover, known to the new owner by a new id).
    pub fn rename_conn(&mut self, from: ConnId, to: ConnId) {
        self.seats.rename(from, to);
    }

    /// New seats' tokens come from `mint` from now on (a replayed room goes live).
    pub fn set_mint(&mut self, mint: MintToken) {
        self.seats.set_mint(mint);
    }

    /// Send `conn` the room as it stands ([`Room::view_of`]).
    pub fn show_room(&mut self, conn: ConnId, now: Instant) {
        if let Some(msg) = self.view_of(conn, now) {
            self.send(conn, msg);
        }
    }

    /// How long the race stood still in takeovers.
    pub fn race_paused(&self) -> Duration {
        self.race.as_ref().map_or(Duration::ZERO, |r| r.paused)
    }

    /// The room as `conn` sees it now, as `resume` sends it (`room_joined`), without its
    /// token (a member kept its own): for a member still connected when the room was
    /// taken over. `None`: `conn` is not in the room.
    pub fn view_of(&self, conn: ConnId, now: Instant) -> Option<ServerMsg> {
        let you = match self.seats.member(conn)? {
            Membership::Seat(i) => {
                let mut you = self.seats.seat(i).you();
                you.token = None;
                you
            }
            Membership::Spectator(_) => You {
                player_id: None,
                token: None,
                role: Role::Spectator,
            },
        };
        Some(self.room_joined(you, now))
    }

    /// Whether racing seats are measured now: while the room counts down or races.
    fn probing(&self) -> bool {
        matches!(self.state, State::Countdown { .. } | State::Racing)
    }

    /// Every seat on the wire, the ghost's last.
    fn players(&self) -> Vec<Player> {
        let mut players = self.seats.players();
        players.extend(self.fixed.ghost().map(ghost::Ghost::player));
        players
    }

    /// Between races, what the last race's `race_over` announced: the race, why it ended, and
    /// its standings (rebuilt from the race, so a taken-over room has them too). Announced
    /// races only end so: with someone timed out at the limit, or all done.
    fn last_race_over(&self) -> Option<(&Race, OverReason, Vec<Standing>)> {
        let (State::Finished, Some(race)) = (&self.state, &self.race) else {
            return None;
        };
        let standings = race.standings();
        let timed_out = standings.iter().any(|s| s.status == FinishStatus::TimedOut);
        let reason = if timed_out {
            OverReason::TimeLimit
        } else {
            OverReason::AllDone
        };
        Some((race, reason, standings))
    }
}

#[cfg(test)]
pub(crate) mod tests;
