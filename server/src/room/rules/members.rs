//! Who comes, goes and speaks: the checks a join must pass (A3 names, the seat and spectator
//! caps), joins, resumes, drops and leaves (with what a leaving seat does to a race and the
//! host), and chat within the room's budget (A4).

use std::net::IpAddr;

use protocol::{
    ClosedReason, ErrorCode, FinishStatus, OverReason, PlayerName, Role, ServerMsg, Standing, You,
};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::race::Race;
use super::seats::{parse_name, Membership, Refusal};
use super::{Effect, Room, State};
use crate::outbox::{CloseCode, ConnId};
use crate::rate::TokenBucket;

/// Who a connection is beyond its name (A6): the persistent player its key names, if any,
/// and whether it said it is a program. Resolved from the key before the room sees it; the
/// key itself never reaches a room. Serialized as the relay and the command log carry it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// The public handle; `None` is anonymous.
    pub handle: Option<String>,
    /// The client said `bot: true`.
    #[serde(default)]
    pub bot: bool,
    /// A moderator banned the player (A8): they play, unrated; absent from a node that
    /// predates bans: not banned.
    #[serde(default)]
    pub banned: bool,
}

impl Identity {
    /// Whether this seat can be rated: identified, human and not banned.
    pub fn rateable(&self) -> bool {
        self.handle.is_some() && !self.bot && !self.banned
    }
}

/// A player who left a finished pool room to queue again (A7).
#[derive(Clone, Debug)]
pub struct Requeued {
    /// The name they raced under.
    pub name: String,
    /// The identity behind them.
    pub who: Identity,
    /// The room's difficulty: the pool they go back to.
    pub difficulty: shared::engine::Difficulty,
    /// The room's arena: its members go back to the arena instead (A7).
    pub arena: Option<String>,
}

impl Room {
    /// The checks a join must pass, in the contract's order; the name it joins under.
    fn admit(
        &self,
        conn: ConnId,
        addr: IpAddr,
        raw_name: Option<&str>,
        role: Role,
        who: &Identity,
        now: Instant,
    ) -> Result<PlayerName, Refusal> {
        if self.has_conn(conn) {
            return Err(Refusal::new(
                ErrorCode::AlreadyInRoom,
                "already in this room",
            ));
        }
        let name = parse_name(raw_name)?;
        // A5: a kicked name or address may neither play nor watch until its bar ends.
        self.check_bars(&name, addr, now)?;
        if role == Role::Player {
            if self.draining() {
                return Err(Refusal::new(
                    ErrorCode::ServerDraining,
                    "the server is restarting for an update",
                ));
            }
            if self.settings.pool && !self.pool_seating() {
                return Err(Refusal::new(
                    ErrorCode::WrongPhase,
                    "a pool room is seated by the pool: send quick_race, or spectate",
                ));
            }
            if matches!(self.state, State::Countdown { .. } | State::Racing) {
                return Err(Refusal::new(
                    ErrorCode::RaceInProgress,
                    "a race is in progress; spectate instead",
                ));
            }
            self.seats
                .check_seat(&name, who, self.settings.max_players)?;
        } else {
            self.seats
                .check_spectator(&name, self.opts.max_spectators)?;
        }
        Ok(name)
    }

    /// A connection from `addr` joins as a player or spectator. Returns whether it is now in
    /// the room (errors are sent to it as effects).
    pub fn join(
        &mut self,
        conn: ConnId,
        addr: IpAddr,
        raw_name: Option<&str>,
        role: Role,
        who: Identity,
        now: Instant,
    ) -> bool {
        let name = match self.admit(conn, addr, raw_name, role, &who, now) {
            Ok(name) => name,
            Err(why) => return self.refuse(conn, why),
        };
        if role == Role::Spectator {
            self.seats.add_spectator(conn, name);
            let you = You {
                player_id: None,
                token: None,
                role: Role::Spectator,
            };
            let msg = self.room_joined(you, now);
            self.send(conn, msg);
            return true;
        }
        let seat = self.seats.add_seat(conn, addr, name, who);
        let (player, you) = (seat.player(), seat.you());
        let msg = self.room_joined(you, now);
        self.send(conn, msg);
        self.send_all_except(conn, ServerMsg::PlayerJoined { player });
        true
    }

    /// A connection takes back the seat `token` belongs to.
    pub fn resume(&mut self, conn: ConnId, token: &str, now: Instant) -> bool {
        if token.starts_with('#') {
            // A replayed seat's stand-in (A9), never a token a client holds.
            let why = Refusal::new(ErrorCode::InvalidToken, "unknown or expired token");
            return self.refuse(conn, why);
        }
        self.resume_seat(conn, token, now)
    }

    /// A logged resume replayed (A9): the seat named by `hash`, its token's SHA-256.
    pub fn resume_rebuilt(&mut self, conn: ConnId, hash: &str, now: Instant) -> bool {
        self.resume_seat(conn, &format!("#{hash}"), now)
    }

    fn resume_seat(&mut self, conn: ConnId, token: &str, now: Instant) -> bool {
        if self.has_conn(conn) {
            return self.refuse(
                conn,
                Refusal::new(ErrorCode::AlreadyInRoom, "already in this room"),
            );
        }
        let Some(i) = self.seats.by_token(token) else {
            return self.refuse(
                conn,
                Refusal::new(ErrorCode::InvalidToken, "unknown or expired token"),
            );
        };
        self.seats.token_back(i, token);
        let (old, was_dropped) = self.seats.reconnect(i, conn);
        if let Some(old) = old {
            self.fx.push(Effect::Close(old, CloseCode::Normal));
        }
        let seat = self.seats.seat(i);
        let (player, you) = (seat.player(), seat.you());
        let msg = self.room_joined(you, now);
        self.send(conn, msg);
        if was_dropped || old.is_none() {
            self.send_all_except(conn, ServerMsg::PlayerUpdated { player });
        }
        true
    }

    /// A member's node missed some of this room's messages to it (cluster relay gap): the
    /// member gets a fresh view, as `resume` sends, and after an announced race its
    /// `race_over` again, so no board, player list or standings stay stale.
    pub fn resync(&mut self, conn: ConnId, now: Instant) {
        let you = match self.seats.member(conn) {
            Some(Membership::Seat(i)) => self.seats.seat(i).you(),
            Some(Membership::Spectator(_)) => You {
                player_id: None,
                token: None,
                role: Role::Spectator,
            },
            None => return,
        };
        let msg = self.room_joined(you, now);
        self.send(conn, msg);
        if let Some((race, reason, standings)) = self.last_race_over() {
            let over = ServerMsg::RaceOver {
                race_id: race.race_id().clone(),
                reason,
                standings,
                solution: race.dealt().solution,
                // Ratings come in their own message once stored (A9).
                ratings: Vec::new(),
            };
            self.send(conn, over);
        }
    }

    /// Between races, what the last race's `race_over` announced: the race, why it ended, and
    /// its standings (rebuilt from the race, so a taken-over room has them too). Announced
    /// races only end so: with someone timed out at the limit, or all done.
    pub(super) fn last_race_over(&self) -> Option<(&Race, OverReason, Vec<Standing>)> {
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

    /// A connection's transport dropped: a player's seat is held, a spectator is gone.
    pub fn dropped(&mut self, conn: ConnId, now: Instant) {
        if let Some(player) = self.seats.drop_conn(conn, now) {
            self.send_all(ServerMsg::PlayerUpdated { player });
        }
    }

    /// A connection leaves on purpose. Returns whether it was in the room.
    pub fn leave(&mut self, conn: ConnId, now: Instant) -> bool {
        match self.seats.member(conn) {
            Some(Membership::Seat(i)) => {
                let player_id = self.seats.seat(i).player_id.clone();
                self.send(conn, ServerMsg::PlayerLeft { player_id });
                self.fx.push(Effect::Detach(conn));
                self.seats.seat_mut(i).conn = None;
                self.remove_seat(i, now);
                true
            }
            Some(Membership::Spectator(i)) => {
                self.seats.remove_spectator(i);
                self.fx.push(Effect::Detach(conn));
                true
            }
            None => false,
        }
    }

    /// Remove seat `i` (left or expired): forfeit its race, hand over the host, end the race
    /// or close the room when that follows.
    pub(super) fn remove_seat(&mut self, i: usize, now: Instant) {
        let (seat, new_host) = self.seats.remove_seat(i);
        self.fx.push(Effect::TokenRevoked(seat.token.clone()));
        if matches!(self.state, State::Racing)
            && self
                .race
                .as_mut()
                .is_some_and(|r| r.forfeit(&seat.player_id))
        {
            self.player_finished(seat.player_id.clone(), FinishStatus::Forfeited, None);
        }
        self.send_all(ServerMsg::PlayerLeft {
            player_id: seat.player_id.clone(),
        });
        if let Some(player_id) = new_host {
            self.send_all(ServerMsg::HostChanged { player_id });
        }
        self.check_race_end(now);
        if self.seats.is_empty() {
            if let State::Countdown { .. } = self.state {
                self.state = State::Lobby;
            }
            let room = self.code.clone();
            let specs = self.seats.drain_spectators();
            self.fx.push(Effect::Send(
                specs.clone(),
                ServerMsg::RoomClosed {
                    room,
                    reason: Some(ClosedReason::HostClosed),
                },
            ));
            for c in specs {
                self.fx.push(Effect::Detach(c));
            }
        }
    }

    /// `chat` from `conn` at `now`: checked by A3, then passed on within the room's chat
    /// budget (A4), which all members share so that many senders cannot multiply the fan-out.
    pub fn chat(&mut self, conn: ConnId, text: String, now: Instant) {
        let Some((player_id, name)) = self.seats.speaker(conn) else {
            self.fx.error(conn, ErrorCode::NotInRoom, "not in a room");
            return;
        };
        if let Err(why) = protocol::text::check_chat(&text) {
            self.fx.error(conn, ErrorCode::BadMessage, why.to_string());
            return;
        }
        let (rate, burst) = (self.opts.chat_rate, self.opts.chat_burst);
        let budget = self
            .chat_budget
            .get_or_insert_with(|| TokenBucket::new(rate, burst, now));
        if !budget.take(now) {
            self.fx.error(
                conn,
                ErrorCode::RateLimited,
                "the room's chat is busy; try again shortly",
            );
            return;
        }
        self.send_all(ServerMsg::Chat {
            player_id,
            name,
            text,
        });
    }
}
