//! What the screen does with each server message, after the [`Mirror`](super::Mirror) has
//! taken what the server said: the glue that hands each message to the parts it concerns (our
//! side of the race, the notice, chat, the screen shown outside a room, the pool's queue, the
//! arena, the room host's tools), and the messages some answers call for (a seat after
//! watching, placements held while the room moved: A12). A server restarting (A9) replaces the
//! whole screen first.

use engine::Difficulty;
use protocol::{ErrorCode, FinishStatus, Phase, PlayerId, Role, ServerMsg};

use super::outside::{self, Outside};
use super::{clock, room_host, App, Arena, ChatLine, Effect};

impl App {
    /// Apply one server message: the mirror takes what the server said, then the screen's own
    /// state follows. Returns the messages the answer calls for.
    pub fn on_server(&mut self, msg: ServerMsg) -> Vec<Effect> {
        let now = self.clock_ms;
        // Read before the mirror forgets it: the leaving player's name, the race we were in,
        // the room a `kicked` takes us out of.
        // Not us: a player who requeues from a pool room (A7) hears of its own leaving.
        let left = match &msg {
            ServerMsg::PlayerLeft { player_id } => self
                .room()
                .filter(|r| !r.is_me(player_id))
                .and_then(|r| r.name_of(player_id))
                .map(str::to_owned),
            _ => None,
        };
        let prev_race = self.race().map(|r| r.race_id.clone());
        let prev_room = self.room().map(|r| r.code.to_string());
        // A9: the restart screen replaces the room, whatever the mirror would keep of it.
        if self.restarted(&msg, prev_room.clone()) {
            return Vec::new();
        }
        self.mirror.apply(&msg, now);
        if let ServerMsg::Reported { player_id } = &msg {
            self.on_reported(player_id);
        }
        let effects = self.update_screen(msg, left, prev_race, prev_room);
        // A tool open over a room that no longer allows it (we stopped being the room host, the
        // results screen went) closes.
        if !self
            .tool
            .as_ref()
            .is_some_and(|t| t.stays_open(self.room()))
        {
            self.tool = None;
        }
        effects
    }

    /// Whether `msg` is the server restarting; if so the restart screen replaces whatever was
    /// shown. `prev_room` is the room we were in, if any.
    fn restarted(&mut self, msg: &ServerMsg, prev_room: Option<String>) -> bool {
        if let ServerMsg::RoomJoined { .. }
        | ServerMsg::Queued { .. }
        | ServerMsg::ArenaJoined { .. } = msg
        {
            // In: nothing to ask again.
            self.redo = None;
        }
        let last = (self.last_difficulty(), self.last_variant());
        let Some(restart) = Outside::restart(msg, prev_room, last) else {
            return false;
        };
        if let ServerMsg::Error { retry_ms, .. } = msg {
            self.redo_later(*retry_ms);
        }
        self.tool = None;
        self.status.clear();
        self.seating.restarted();
        self.mirror.room = None;
        self.outside = restart;
        true
    }

    /// The difficulty we last raced or asked for (medium if none).
    fn last_difficulty(&self) -> Difficulty {
        match self.room() {
            Some(room) => room.settings.difficulty,
            None => self.seating.difficulty(),
        }
    }

    /// The variant we last raced or asked for (classic if none).
    fn last_variant(&self) -> engine::Variant {
        match self.room() {
            Some(room) => room.settings.variant,
            None => self.seating.variant(),
        }
    }

    /// `reported`: the server kept the report.
    fn on_reported(&mut self, player_id: &PlayerId) {
        let name = self
            .room()
            .and_then(|r| r.players.iter().find(|p| p.player_id == *player_id))
            .map_or_else(|| player_id.to_string(), |p| p.name.to_string());
        self.notify(format!("reported {name} to the moderators"), false);
    }

    /// `room_closed`: nothing of the room stays open on screen.
    fn room_closed(&mut self, room: protocol::RoomCode) {
        self.tool = None;
        self.status.clear();
        self.outside = Outside::Closed { room };
    }

    /// The screen's own state after the mirror took `msg` in: notices, the pencil marks and
    /// cursor, pending placements, chat, the screen outside a room. `left`, `prev_race` and
    /// `prev_room` were read before the mirror forgot them.
    fn update_screen(
        &mut self,
        msg: ServerMsg,
        left: Option<String>,
        prev_race: Option<protocol::RaceId>,
        prev_room: Option<String>,
    ) -> Vec<Effect> {
        match msg {
            ServerMsg::RoomJoined { .. } => return self.entered(prev_race),
            ServerMsg::PlayerJoined { player } => {
                if !self.room().is_some_and(|r| r.is_me(&player.player_id)) {
                    self.notify(format!("{} joined", player.name), false);
                }
            }
            ServerMsg::PlayerLeft { .. } => {
                if let Some(name) = left {
                    self.notify(format!("{name} left"), false);
                }
            }
            ServerMsg::SettingsChanged { settings } => {
                self.notify(
                    format!("settings changed: {}", room_host::summary(&settings)),
                    false,
                );
            }
            ServerMsg::Countdown { .. } => self.status.drop_confirm(),
            ServerMsg::RaceStarted { .. } => self.play.reset(),
            ServerMsg::Placement { .. } => return self.answered(msg),
            ServerMsg::PlayerFinished {
                player_id,
                status,
                time_ms,
            } => self.announce_finish(&player_id, status, time_ms),
            ServerMsg::RaceOver { .. } => return self.race_over(),
            ServerMsg::Chat {
                player_id,
                name,
                text,
            } => self.chat.heard(ChatLine {
                name,
                watching: player_id.is_none(),
                text,
            }),
            ServerMsg::RoomClosed { room, .. } => self.room_closed(room),
            ServerMsg::Error {
                code,
                message,
                retry_ms,
            } => {
                if code == ErrorCode::RoomMoving && self.room().is_some() {
                    self.room_moving(retry_ms);
                    return Vec::new();
                }
                return self.refused(code, message, prev_room);
            }
            ServerMsg::Welcome { .. }
            | ServerMsg::Pong { .. }
            | ServerMsg::Registered { .. }
            | ServerMsg::RoomList { .. }
            | ServerMsg::PlayerUpdated { .. }
            | ServerMsg::HostChanged { .. }
            | ServerMsg::Progress(_)
            | ServerMsg::Board { .. }
            | ServerMsg::Reported { .. }
            | ServerMsg::Ratings { .. } => {}
            // Nothing sends `solution` (Amendment A1: the solution comes with `race_over`).
            ServerMsg::Solution { .. } => {}
            ServerMsg::ArenaJoined { .. }
            | ServerMsg::ArenaStandings { .. }
            | ServerMsg::LeftArena { .. } => self.in_arena(&msg),
            ServerMsg::Queued { .. } | ServerMsg::PoolAlone { .. } | ServerMsg::LeftQueue => {
                self.in_pool(&msg)
            }
        }
        Vec::new()
    }

    /// `room_joined`: a fresh screen in the room, except that coming back to the same race (a
    /// resume, or the room shown again by its new server: A12) keeps the local pencil marks and
    /// cursor, and sends again the placements held meanwhile that the board does not show.
    fn entered(&mut self, prev_race: Option<protocol::RaceId>) -> Vec<Effect> {
        self.outside = Outside::Entering;
        self.seating.entered();
        let same_race = self
            .mirror
            .race()
            .filter(|r| prev_race.as_ref() == Some(&r.race_id));
        self.play
            .entered(same_race.map(|r| &r.board), self.clock_ms);
        let racing = self.room().is_some_and(|r| r.phase == Phase::Racing)
            && self.race().is_some_and(|r| r.finished.is_none());
        if !racing {
            self.play.race_over();
        }
        self.room_back()
    }

    /// `placement`: the answer to one of ours (the room answers again, if it was moving).
    fn answered(&mut self, msg: ServerMsg) -> Vec<Effect> {
        let ServerMsg::Placement {
            id,
            cell,
            digit,
            accepted,
            reason,
            conflicts,
            ..
        } = msg
        else {
            return Vec::new();
        };
        let Some(race) = self.mirror.race() else {
            return Vec::new();
        };
        let refusal = (!accepted).then_some((reason, conflicts));
        self.play.answered(
            &race.geometry,
            id.as_ref(),
            cell,
            digit,
            refusal,
            self.clock_ms,
        );
        self.room_back()
    }

    /// `queued` (the queue screen), `pool_alone` (nobody else waits: a ghost may be offered)
    /// or `left_queue`.
    fn in_pool(&mut self, msg: &ServerMsg) {
        match *msg {
            ServerMsg::Queued {
                difficulty,
                waiting,
            } => self.queued(difficulty, waiting),
            ServerMsg::PoolAlone { ref ghost } => self.outside.pool_alone(ghost),
            // We quit as we send `leave_queue`: a late answer changes nothing on screen.
            _ => {}
        }
    }

    /// `queued` for the pool of `difficulty` with `waiting` players: a new count in the same
    /// pool keeps the time we began waiting. An arena member's `queued` is between the arena's
    /// races: the arena's screen, not the open pool's.
    fn queued(&mut self, difficulty: Difficulty, waiting: u32) {
        if self.arena.is_some() {
            self.left_the_room(Outside::Arena);
            return;
        }
        if self.outside.queued_again(difficulty, waiting) {
            return;
        }
        let queue = Outside::queue(difficulty, waiting, self.clock_ms);
        self.left_the_room(queue);
    }

    /// `arena_joined` (we are a member: out of any room, its screen), `arena_standings` (its
    /// table) or `left_arena` (no longer a member).
    fn in_arena(&mut self, msg: &ServerMsg) {
        match msg {
            ServerMsg::ArenaJoined { arena } => {
                self.arena = Some(Arena::joined(arena, self.arena.take()));
                if self.room().is_none() {
                    self.left_the_room(Outside::Arena);
                }
            }
            ServerMsg::ArenaStandings {
                arena_id,
                standings,
            } => {
                if let Some(arena) = self.arena.as_mut().filter(|a| a.is(arena_id)) {
                    arena.standings.clone_from(standings);
                }
            }
            ServerMsg::LeftArena { arena_id }
                if self.arena.as_ref().is_some_and(|a| a.is(arena_id)) =>
            {
                let name = self.arena.take().map(|a| a.info.name).unwrap_or_default();
                self.notify(format!("you left the arena {name}"), false);
            }
            _ => {}
        }
    }

    /// A notice that a player finished, and how.
    fn announce_finish(&mut self, player_id: &str, status: FinishStatus, time_ms: Option<u64>) {
        let Some(room) = self.room() else {
            return;
        };
        let name = room.name_of(player_id).unwrap_or("someone").to_owned();
        let text = match (status, time_ms) {
            (FinishStatus::Solved, Some(t)) => format!("{name} solved it in {}", clock(t)),
            (FinishStatus::Solved, None) => format!("{name} solved it"),
            (FinishStatus::Forfeited, _) => format!("{name} gave up"),
            (FinishStatus::Eliminated, _) => format!("{name} is out: too many mistakes"),
            (FinishStatus::TimedOut, _) => format!("{name} ran out of time"),
        };
        self.notify(text, false);
    }

    /// `race_over`: nothing is pending or flashed any more; a spectator waiting for a seat
    /// takes one now.
    fn race_over(&mut self) -> Vec<Effect> {
        let Some(room) = self.room() else {
            return Vec::new();
        };
        let (watching, code) = (room.role == Role::Spectator, room.code.to_string());
        self.play.race_over();
        self.status.drop_confirm();
        let (now, unix_ms) = (self.clock_ms, self.unix_ms());
        if !watching && self.in_arena_room() {
            // While the arena runs, its next race is asked for by itself a moment later.
            if let Some(arena) = self.arena.as_mut() {
                arena.race_over(now, unix_ms);
            }
        }
        if !watching {
            return Vec::new();
        }
        let Some(asks) = self.seating.take_a_seat(code, &self.name) else {
            return Vec::new();
        };
        self.notify("the race is over: taking a seat…", false);
        asks.into_iter().map(Effect::Send).collect()
    }

    /// An `error`: a flash in a room; outside one, the screen that answers the ask.
    fn refused(
        &mut self,
        code: ErrorCode,
        message: String,
        prev_room: Option<String>,
    ) -> Vec<Effect> {
        if code == ErrorCode::RateLimited {
            self.play.forget_pending();
            self.notify("slow down: too many messages", true);
            return Vec::new();
        }
        if code == ErrorCode::Kicked {
            // The mirror has dropped the room; name the one we were in, or the one we asked for.
            let room = prev_room
                .or_else(|| self.seating.room().map(str::to_owned))
                .unwrap_or_else(|| "?".to_owned());
            self.tool = None;
            self.status.clear();
            self.outside = Outside::Kicked { room };
            return Vec::new();
        }
        if code == ErrorCode::InvalidToken && self.room().is_some() {
            self.status
                .alert("your seat expired while you were away: you are out of this race");
            return Vec::new();
        }
        if self.seating.left_for_a_seat() {
            // Our `leave` went through: the room on screen is no longer ours.
            self.mirror.room = None;
        }
        if self.room().is_some() {
            self.notify(format!("{}: {message}", code.as_str()), true);
            return Vec::new();
        }
        // Outside a room an error answers our ask, unless the session is over already.
        if !self.outside.is_final() {
            self.status.clear_notice();
            self.outside = outside::answer(self.seating.intent(), code, &message);
        }
        Vec::new()
    }
}
