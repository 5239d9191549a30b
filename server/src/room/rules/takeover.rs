//! What the rules do for a room rebuilt from its command log on another node (A9): a seat
//! replayed holds its token's hash in the token's place (the log, like Redis, keeps no
//! token), the time the room stood still is charged to nobody, and a member still connected
//! gets the room as it stands, as `resume` sends it.

use std::time::Duration;

use protocol::{Role, ServerMsg, You};
use tokio::time::Instant;

use super::seats::Membership;
use super::{Room, State};
use crate::outbox::ConnId;

pub use super::seats::{rebuilt_token, token_hash, token_matches};

impl super::race::Race {
    /// Race time 0: the start, moved on by the time the race stood still.
    pub(super) fn origin(&self) -> Instant {
        self.started_at + self.paused
    }
}

impl Room {
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
    pub fn set_mint(&mut self, mint: super::MintToken) {
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
}
