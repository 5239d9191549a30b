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

/// A token's SHA-256, in hex: how a room's log names it.
pub fn token_hash(token: &str) -> String {
    use sha2::Digest;
    crate::hex::hex(&sha2::Sha256::digest(token.as_bytes()))
}

/// What a replayed seat holds in its token's place: `#` and the token's hash.
pub fn rebuilt_token(hash: &str) -> protocol::ResumeToken {
    protocol::ResumeToken::from(format!("#{hash}"))
}

/// Whether `offered` is the token a seat holds (`held`), or the one a replayed seat's
/// `#HASH` stands for.
pub fn token_matches(held: &str, offered: &str) -> bool {
    if held == offered {
        return true;
    }
    match held.strip_prefix('#') {
        Some(hash) => !offered.starts_with('#') && token_hash(offered) == hash,
        None => false,
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
            if let Some(race) = self.race.as_mut() {
                race.pause(gap);
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
        self.race.as_ref().map_or(Duration::ZERO, |r| r.paused())
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
