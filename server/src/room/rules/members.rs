//! What members ask of the room, and what their coming and going does to it: the checks a
//! join must pass (A3 names, the seat and spectator caps, the kicks' bars), joins, resumes,
//! drops and leaves (with what a leaving seat does to a race and the host), ready marks, chat
//! (A4), a pool room's requeue (A7), the host's settings and kicks (A5), reports and the
//! spectators' boards (A8), and the round trips measured to seats (A8).

use std::net::IpAddr;

use protocol::variant::Draws;
use protocol::{
    ClosedReason, ErrorCode, FinishStatus, PlayerId, PlayerName, Role, ServerMsg, Settings, You,
};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::seats::{parse_name, Membership, Refusal};
use super::{boards, isomorphs, report, Effect, Room, State};
use crate::outbox::{CloseCode, ConnId};

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
    /// The variants its client draws (A10): a room of another refuses it. Absent from a
    /// node or a log that predates variants: classic only, all such a room could be (and
    /// left out when so, as it was before).
    #[serde(default, skip_serializing_if = "Draws::is_classic_only")]
    pub draws: Draws,
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
    pub difficulty: engine::Difficulty,
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
        self.bars.check(&name, addr, now)?;
        self.check_draws(who.draws)?;
        if role == Role::Player {
            if self.draining() {
                return Err(Refusal::new(
                    ErrorCode::ServerDraining,
                    "the server is restarting for an update",
                ));
            }
            if self.settings.pool && !self.seats.pool_seating() {
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

    /// A connection whose client draws `draws` takes back the seat `token` belongs to.
    pub fn resume(&mut self, conn: ConnId, token: &str, draws: Draws, now: Instant) -> bool {
        if token.starts_with('#') {
            // A replayed seat's stand-in (A9), never a token a client holds.
            let why = Refusal::new(ErrorCode::InvalidToken, "unknown or expired token");
            return self.refuse(conn, why);
        }
        if let Err(why) = self.check_draws(draws) {
            return self.refuse(conn, why);
        }
        // The seat draws what the client it is back on draws (a player may come back on
        // another client).
        if let Some(i) = self.seats.by_token(token) {
            self.seats.seat_mut(i).who.draws = draws;
        }
        self.resume_seat(conn, token, now)
    }

    /// A10: a client that cannot draw the room's variant is never let in (nor dealt a grid
    /// it cannot show).
    fn check_draws(&self, draws: Draws) -> Result<(), Refusal> {
        let variant = self.settings.variant;
        if draws.has(variant) {
            return Ok(());
        }
        Err(Refusal::new(
            ErrorCode::UnsupportedVariant,
            format!("this room races {variant} sudoku, which your client cannot draw"),
        ))
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
        if let Err(why) = self.chat.pass(&text, now) {
            self.refuse(conn, why);
            return;
        }
        self.send_all(ServerMsg::Chat {
            player_id,
            name,
            text,
        });
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

    /// Whether `conn` is the host and the room is between races; else the error is sent.
    fn host_between_races(&mut self, conn: ConnId, what: &str) -> bool {
        let Some(i) = self.seat_of(conn) else {
            return false;
        };
        if self.seats.host() != Some(&self.seats.seat(i).player_id) {
            self.fx.error(
                conn,
                ErrorCode::NotHost,
                format!("only the host can {what}"),
            );
            return false;
        }
        if !matches!(self.state, State::Lobby | State::Finished) {
            self.fx.error(
                conn,
                ErrorCode::WrongPhase,
                format!("the host can {what} only between races"),
            );
            return false;
        }
        true
    }

    /// `set_settings` from `conn` (already resolved, so in range): they apply from the next
    /// race (A5). Fewer `max_players` than seats taken (held ones included) is
    /// `invalid_settings`: nobody is unseated by a setting.
    pub fn set_settings(&mut self, conn: ConnId, settings: Settings) {
        if !self.host_between_races(conn, "change the settings") {
            return;
        }
        if usize::from(settings.max_players) < self.seats.len() {
            self.fx.error(
                conn,
                ErrorCode::InvalidSettings,
                format!(
                    "max_players {} is below the {} players seated",
                    settings.max_players,
                    self.seats.len()
                ),
            );
            return;
        }
        if let Some(why) = self.variant_change_refused(&settings) {
            return self.fx.error(conn, why.code, why.message);
        }
        let settings = isomorphs::kept(settings, self.fixed.puzzle().is_some());
        tracing::info!(room = %self.code, ?settings, "settings changed");
        self.settings = settings.clone();
        self.send_all(ServerMsg::SettingsChanged { settings });
    }

    /// Why the host may not race `settings.variant` here (A10): a daily's or a ghost's
    /// puzzle has its own variant, and every seated player must draw it.
    fn variant_change_refused(&self, settings: &Settings) -> Option<Refusal> {
        let variant = settings.variant;
        if variant == self.settings.variant {
            return None;
        }
        if self.fixed.puzzle().is_some() {
            return Some(Refusal::new(
                ErrorCode::InvalidSettings,
                "variant: a daily or ghost room races its puzzle's variant",
            ));
        }
        let cannot = self.seats.names_not_drawing(variant);
        (!cannot.is_empty()).then(|| {
            Refusal::new(
                ErrorCode::UnsupportedVariant,
                format!("{} cannot draw {variant} sudoku", cannot.join(", ")),
            )
        })
    }

    /// `kick` from `conn` (A5): the player `player_id` (connected or held) gets `kicked` and
    /// leaves, its name and address barred for a while; the others get `player_left`. An
    /// unknown id, or the host's own, is `bad_message`.
    pub fn kick(&mut self, conn: ConnId, player_id: &str, now: Instant) {
        if !self.host_between_races(conn, "kick a player") {
            return;
        }
        let Some(i) = self.seats.by_player_id(player_id) else {
            self.fx
                .error(conn, ErrorCode::BadMessage, "no such player in this room");
            return;
        };
        if self.seats.seat(i).conn == Some(conn) {
            self.fx.error(
                conn,
                ErrorCode::BadMessage,
                "you cannot kick yourself; leave instead",
            );
            return;
        }
        let seat = self.seats.seat_mut(i);
        self.bars.bar(&seat.name, seat.addr, now);
        tracing::info!(room = %self.code, player_id, "kicked");
        if let Some(kicked) = seat.conn.take() {
            self.fx.error(
                kicked,
                ErrorCode::Kicked,
                "the host removed you from the room",
            );
            self.fx.push(Effect::Detach(kicked));
        }
        self.remove_seat(i, now);
    }

    /// `report` {`player_id`, `reason`} from `conn`, at `unix_ms` on the wall clock (A8):
    /// checked by [`report::check`], kept ([`Effect::Report`]), then answered `reported`.
    pub fn report(&mut self, conn: ConnId, player_id: &str, reason: String, unix_ms: i64) {
        let (room, race) = (&self.code, self.race.as_ref());
        let checked = report::check(room, &self.seats, race, conn, player_id, reason, unix_ms);
        let report = match checked {
            Ok(report) => report,
            Err(why) => return self.fx.error(conn, why.code, why.message),
        };
        tracing::info!(room = %self.code, race_id = report.race_id, target = player_id, "report");
        self.fx.push(Effect::Report(Box::new(report)));
        let player_id = PlayerId::from(player_id.to_owned());
        self.send(conn, ServerMsg::Reported { player_id });
    }

    /// The spectator on `conn` asked for boards (A8): from now on it gets them, and at once
    /// every player's board as it stands for watchers (delayed while racing, final after).
    pub fn watch_boards(&mut self, conn: ConnId, now: Instant) {
        if !self.seats.watch_boards(conn) {
            return;
        }
        let Some(race) = self.race.as_ref() else {
            return;
        };
        match self.state {
            State::Racing => {
                for msg in self.boards.watch(race, now) {
                    self.fx.push(Effect::Send(vec![conn], msg));
                }
            }
            State::Finished => boards::final_boards(race, vec![conn], now, &mut self.fx),
            State::Lobby | State::Countdown { .. } => {}
        }
    }

    /// A round trip of `rtt_ms` measured to `conn` (A8): kept for its seat while the room
    /// counts down or the seat races; ignored otherwise (a pong that arrives late, or from a
    /// spectator). It is the server's measurement, not client input: nothing is answered.
    pub fn lag_sample(&mut self, conn: ConnId, rtt_ms: u32) {
        let Some(seat) = self.seats.seat_of_conn(conn) else {
            return;
        };
        let player = seat.player_id.clone();
        match &self.state {
            State::Countdown { .. } => self.probes.early_sample(player, rtt_ms),
            State::Racing => {
                if let Some(race) = self.race.as_mut() {
                    race.lag_sample(&player, rtt_ms);
                }
            }
            State::Lobby | State::Finished => {}
        }
    }
}
