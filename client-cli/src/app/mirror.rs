//! What the server said: the room we are in, as the server's messages describe it.
//!
//! [`Mirror::apply`] folds one [`ServerMsg`] into the room (code, me, role, room host, players,
//! phase, settings) and its race (puzzle, board, progress, mistakes, penalty, the clock anchor,
//! the solution, the results; the race's variant and its rules, from the layout beside its
//! puzzle: `geometry`). It holds no UI state (no cursor, pencil marks, flashes or chat
//! input) and does no IO, so the online app and the bot's brain share it instead of each
//! tracking the room their own way.

use std::collections::HashMap;

use engine::{Difficulty, Geometry, Grid, Variant};
use protocol::variant::WireLayout;
use protocol::{
    ErrorCode, FinishStatus, OverReason, Phase, Player, PlayerId, PlayerStatus, Progress, RaceId,
    RaceView, Role, RoomCode, ServerMsg, Settings, Standing,
};

/// The race in progress (or just finished) in this room.
#[derive(Clone, Debug, PartialEq)]
pub struct Race {
    /// Opaque race id.
    pub race_id: RaceId,
    /// Difficulty dealt.
    pub difficulty: Difficulty,
    /// Time limit in seconds.
    pub time_limit_s: u32,
    /// The race's variant (A10).
    pub variant: Variant,
    /// Our puzzle's rules: its houses, and its cages (from the layout the server sent).
    pub geometry: Geometry,
    /// Local clock at race time 0: negative for a race that began before the local clock did
    /// (a spectator joining mid-race right after the program starts).
    pub started_at_ms: i64,
    /// Local clock when the clock stopped for us (our finish, or the race's end).
    pub stopped_at_ms: Option<u64>,
    /// The givens.
    pub puzzle: Grid,
    /// Givens plus our accepted digits (spectators see the puzzle only).
    pub board: Grid,
    /// Our mistakes.
    pub mistakes: u32,
    /// Our total penalty.
    pub penalty_ms: u64,
    /// Every player's progress, by player id.
    pub progress: HashMap<PlayerId, Progress>,
    /// The solution, once the race is over (it comes with `race_over`: Amendment A1 sends it to
    /// nobody earlier). Nothing draws it while the race runs.
    pub solution: Option<Grid>,
    /// Our final status and time, once we are out of the race.
    pub finished: Option<(FinishStatus, Option<u64>)>,
    /// Each player's delayed board (A8, when we watch with `--boards`): the first board we got
    /// of them (their givens), the latest, and the race time it shows.
    pub delayed: HashMap<PlayerId, Delayed>,
}

/// One player's board as a boards-spectator sees it (A8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delayed {
    /// The first board we got of the player this race: their givens (each seat may have its own
    /// isomorph of the puzzle).
    pub givens: Grid,
    /// The latest board.
    pub board: Grid,
    /// The race time it shows, ms from the start.
    pub at_ms: u64,
}

impl Race {
    /// The leader's delayed board: the most filled (ties: the smaller player id), if any came.
    pub fn leader_board(&self) -> Option<(&PlayerId, &Delayed)> {
        let filled = |d: &Delayed| 81 - d.board.n_empty();
        self.delayed
            .iter()
            .max_by(|(a_id, a), (b_id, b)| filled(a).cmp(&filled(b)).then(b_id.cmp(a_id)))
    }
}

/// The rules of a `variant` puzzle drawn with `layout`. A layout that does not describe one
/// (no server sends it) leaves the variant's houses without it: classic's, for jigsaw and
/// killer.
pub fn geometry_of(variant: Variant, layout: &WireLayout) -> Geometry {
    layout
        .geometry(variant)
        .or_else(|_| Geometry::of(variant, &Default::default()))
        .unwrap_or_else(|_| Geometry::classic().clone())
}

impl Race {
    fn new(
        race_id: RaceId,
        puzzle: Grid,
        board: Grid,
        difficulty: Difficulty,
        time_limit_s: u32,
        started_at_ms: i64,
    ) -> Race {
        Race {
            race_id,
            difficulty,
            time_limit_s,
            variant: Variant::Classic,
            geometry: Geometry::classic().clone(),
            started_at_ms,
            stopped_at_ms: None,
            puzzle,
            board,
            mistakes: 0,
            penalty_ms: 0,
            progress: HashMap::new(),
            solution: None,
            finished: None,
            delayed: HashMap::new(),
        }
    }

    /// The race a `room_joined` describes (of the room's `variant`), anchored at local time
    /// `now`; `prev` is the race we had before, kept where the server does not repeat it (a
    /// resume of the same race).
    fn from_view(rv: &RaceView, variant: Variant, prev: Option<&Race>, now: u64) -> Option<Race> {
        let puzzle = rv.puzzle?;
        let board = rv.board.unwrap_or(puzzle);
        let mut race = Race::new(
            rv.race_id.clone(),
            puzzle,
            board,
            rv.difficulty,
            rv.time_limit_s,
            // Not a saturating u64: the local clock may be younger than the race.
            local(now).saturating_sub(local(rv.elapsed_ms)),
        );
        race.variant = variant;
        race.geometry = geometry_of(variant, &rv.layout);
        race.mistakes = rv.mistakes;
        race.progress = rv
            .progress
            .iter()
            .map(|p| (p.player_id.clone(), p.clone()))
            .collect();
        if let Some(prev) = prev.filter(|p| p.race_id == race.race_id) {
            race.penalty_ms = prev.penalty_ms;
            race.solution = prev.solution;
            race.finished = prev.finished;
            race.stopped_at_ms = prev.stopped_at_ms;
        }
        Some(race)
    }

    /// Race time shown on the clock at local time `now` (stops at our finish or the time limit).
    pub fn elapsed_ms(&self, now: u64) -> u64 {
        let end = local(self.stopped_at_ms.unwrap_or(now));
        let elapsed = u64::try_from(end.saturating_sub(self.started_at_ms)).unwrap_or(0);
        elapsed.min(u64::from(self.time_limit_s) * 1000)
    }
}

/// A local clock reading (or a race time) as a signed number of ms, for the clock anchor.
fn local(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// The final results of the last race.
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    /// Which race.
    pub race_id: RaceId,
    /// Why it ended.
    pub reason: OverReason,
    /// Final standings.
    pub standings: Vec<Standing>,
    /// The solution; none for who joined after the race (it had no board of its own).
    pub solution: Option<Grid>,
    /// Rating changes of a rated race (A6); empty otherwise, or until they land late (A9
    /// `ratings`: the server stored the result after `race_over`).
    pub ratings: Vec<protocol::RatingChange>,
}

impl Results {
    /// The last race's results a `room_joined` between races carries (ours, additive), for
    /// a member who joined or came back after its `race_over`: a seat that raced gets its own
    /// solution from its standing (A8), anyone else none.
    fn from_view(rv: &RaceView, me: Option<&PlayerId>) -> Option<Results> {
        let standings = rv.standings.clone()?;
        let solution = standings
            .iter()
            .find(|s| Some(&s.player_id) == me)
            .and_then(|s| s.solution);
        Some(Results {
            race_id: rv.race_id.clone(),
            reason: rv.reason?,
            standings,
            solution,
            ratings: Vec::new(),
        })
    }

    /// The view's results, with what we already had of the same race (its solution, ratings
    /// that landed late); else the ones we had.
    fn newest(view: Option<Results>, kept: Option<Results>) -> Option<Results> {
        let Some(mut new) = view else { return kept };
        if let Some(k) = kept.filter(|k| k.race_id == new.race_id) {
            new.solution = new.solution.or(k.solution);
            new.ratings = k.ratings;
        }
        Some(new)
    }
}

/// The room we are in.
#[derive(Clone, Debug, PartialEq)]
pub struct Room {
    /// Room code.
    pub code: RoomCode,
    /// Our player id (None for a spectator).
    pub me: Option<PlayerId>,
    /// Player or spectator.
    pub role: Role,
    /// The room host's player id (the player who starts races and edits settings); none in a
    /// pool room (A7), which the server starts.
    pub room_host: Option<PlayerId>,
    /// Room settings.
    pub settings: Settings,
    /// Room phase.
    pub phase: Phase,
    /// Seated players, held seats included, in arrival order.
    pub players: Vec<Player>,
    /// Local clock when the countdown ends.
    pub countdown_until_ms: Option<u64>,
    /// The current or last race.
    pub race: Option<Race>,
    /// Results of the last race.
    pub results: Option<Results>,
}

impl Room {
    /// Whether we are the room host.
    pub fn am_room_host(&self) -> bool {
        self.me.is_some() && self.me == self.room_host
    }

    /// Whether `player_id` is us.
    pub fn is_me(&self, player_id: &str) -> bool {
        self.me.as_deref() == Some(player_id)
    }

    /// Our player record.
    pub fn me_player(&self) -> Option<&Player> {
        let me = self.me.as_deref()?;
        self.players.iter().find(|p| p.player_id == me)
    }

    /// The name of a player id, if seated.
    pub fn name_of(&self, player_id: &str) -> Option<&str> {
        self.players
            .iter()
            .find(|p| p.player_id == player_id)
            .map(|p| p.name.as_str())
    }

    fn player_mut(&mut self, player_id: &str) -> Option<&mut Player> {
        self.players.iter_mut().find(|p| p.player_id == player_id)
    }

    fn upsert(&mut self, player: &Player) {
        match self.player_mut(&player.player_id) {
            Some(p) => *p = player.clone(),
            None => self.players.push(player.clone()),
        }
    }
}

/// The room as the server described it, or nothing before `room_joined` (and after
/// `room_closed`, an `error` `kicked`, or `queued`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mirror {
    /// The room, once joined.
    pub room: Option<Room>,
}

impl Mirror {
    /// The current or last race, if any.
    pub fn race(&self) -> Option<&Race> {
        self.room.as_ref()?.race.as_ref()
    }

    /// Our player id, once seated.
    pub fn me(&self) -> Option<&PlayerId> {
        self.room.as_ref()?.me.as_ref()
    }

    /// Fold one server message in; `now_ms` is the local clock, the anchor of race time.
    pub fn apply(&mut self, msg: &ServerMsg, now_ms: u64) {
        let now = now_ms;
        if let ServerMsg::RoomJoined {
            room,
            you,
            host,
            settings,
            phase,
            players,
            race,
        } = msg
        {
            let old = self.room.take();
            let prev = old.as_ref().and_then(|o| o.race.as_ref());
            let kept = old.as_ref().and_then(|o| o.results.clone());
            let results = race
                .as_ref()
                .and_then(|rv| Results::from_view(rv, you.player_id.as_ref()));
            let race = race
                .as_ref()
                .and_then(|rv| Race::from_view(rv, settings.variant, prev, now));
            self.room = Some(Room {
                code: room.clone(),
                me: you.player_id.clone(),
                role: you.role,
                room_host: host.clone(),
                settings: settings.clone(),
                phase: *phase,
                players: players.clone(),
                countdown_until_ms: None,
                race,
                results: Results::newest(results, kept),
            });
            return;
        }
        // The room is gone for us: removed, the host removed us from it (A5), or we left a pool
        // room for the pool again (A7 `requeue`, answered with `queued`).
        if let ServerMsg::RoomClosed { .. }
        | ServerMsg::Queued { .. }
        | ServerMsg::Error {
            code: ErrorCode::Kicked,
            ..
        } = msg
        {
            self.room = None;
            return;
        }
        if let Some(room) = self.room.as_mut() {
            room.apply(msg, now);
        }
    }
}

impl Room {
    /// Fold in one message about the room we are in: who is in it and its settings
    /// ([`Room::apply_member`]), the race's start and end ([`Room::apply_race_phase`]), and
    /// what happens in the race ([`Room::apply_in_race`]).
    fn apply(&mut self, msg: &ServerMsg, now: u64) {
        match msg {
            ServerMsg::PlayerJoined { .. }
            | ServerMsg::PlayerUpdated { .. }
            | ServerMsg::PlayerLeft { .. }
            | ServerMsg::HostChanged { .. }
            | ServerMsg::SettingsChanged { .. } => self.apply_member(msg),
            ServerMsg::Countdown { .. }
            | ServerMsg::RaceStarted { .. }
            | ServerMsg::RaceOver { .. } => self.apply_race_phase(msg, now),
            ServerMsg::Ratings { race_id, ratings } => self.late_ratings(race_id, ratings),
            ServerMsg::Placement { .. }
            | ServerMsg::Progress(_)
            | ServerMsg::PlayerFinished { .. }
            | ServerMsg::Board { .. }
            | ServerMsg::Error { .. } => self.apply_in_race(msg, now),
            ServerMsg::Welcome { .. }
            | ServerMsg::Pong { .. }
            | ServerMsg::Registered { .. }
            | ServerMsg::RoomList { .. }
            | ServerMsg::RoomJoined { .. }
            | ServerMsg::RoomClosed { .. }
            | ServerMsg::Queued { .. }
            | ServerMsg::LeftQueue
            | ServerMsg::PoolAlone { .. }
            | ServerMsg::ArenaJoined { .. }
            | ServerMsg::ArenaStandings { .. }
            | ServerMsg::LeftArena { .. }
            | ServerMsg::Reported { .. }
            | ServerMsg::Chat { .. } => {}
            // Nothing sends `solution`: the solution comes with `race_over` (Amendment A1).
            ServerMsg::Solution { .. } => {}
        }
    }

    /// Players arriving, changing or leaving; a new room host; new settings.
    fn apply_member(&mut self, msg: &ServerMsg) {
        match msg {
            ServerMsg::PlayerJoined { player } | ServerMsg::PlayerUpdated { player } => {
                self.upsert(player);
            }
            ServerMsg::PlayerLeft { player_id } => {
                self.players.retain(|p| p.player_id != *player_id)
            }
            ServerMsg::HostChanged { player_id } => self.room_host = Some(player_id.clone()),
            ServerMsg::SettingsChanged { settings } => self.settings = settings.clone(),
            _ => {}
        }
    }

    /// The countdown, the race's start (a fresh board, everyone racing), and its end (the
    /// results, with the solution).
    fn apply_race_phase(&mut self, msg: &ServerMsg, now: u64) {
        match msg {
            ServerMsg::Countdown { starts_in_ms } => {
                self.phase = Phase::Countdown;
                self.countdown_until_ms = Some(now + starts_in_ms);
                self.race = None;
            }
            ServerMsg::RaceStarted {
                race_id,
                puzzle,
                difficulty,
                time_limit_s,
                variant,
                layout,
                ..
            } => {
                self.phase = Phase::Racing;
                self.countdown_until_ms = None;
                self.results = None;
                let mut race = Race::new(
                    race_id.clone(),
                    *puzzle,
                    *puzzle,
                    *difficulty,
                    *time_limit_s,
                    local(now),
                );
                race.variant = *variant;
                race.geometry = geometry_of(*variant, layout);
                let to_fill = puzzle.n_empty() as u32;
                for p in self.players.iter_mut() {
                    p.status = PlayerStatus::Racing;
                    race.progress.insert(
                        p.player_id.clone(),
                        Progress {
                            player_id: p.player_id.clone(),
                            filled: 0,
                            to_fill,
                            mistakes: 0,
                        },
                    );
                }
                self.race = Some(race);
            }
            ServerMsg::RaceOver {
                race_id,
                reason,
                standings,
                solution,
                ratings,
            } => self.race_over(race_id, *reason, standings, *solution, ratings, now),
            _ => {}
        }
    }

    /// The race's end: the results, our own isomorph's solution on the board (A8).
    fn race_over(
        &mut self,
        race_id: &RaceId,
        reason: OverReason,
        standings: &[Standing],
        solution: Grid,
        ratings: &[protocol::RatingChange],
        now: u64,
    ) {
        self.phase = Phase::Finished;
        // A8: a racer's board is its own isomorph; its solution is in its standing
        // (the top-level one is the race's, which a spectator's board shows).
        let solution = standings
            .iter()
            .find(|s| self.is_me(s.player_id.as_str()))
            .and_then(|s| s.solution)
            .unwrap_or(solution);
        if let Some(race) = self.race.as_mut() {
            race.stopped_at_ms.get_or_insert(now);
            race.solution = Some(solution);
        }
        for s in standings {
            if let Some(p) = self.player_mut(&s.player_id) {
                p.status = s.status.into();
                p.ready = false;
            }
        }
        self.results = Some(Results {
            race_id: race_id.clone(),
            reason,
            standings: standings.to_vec(),
            solution: Some(solution),
            ratings: ratings.to_vec(),
        });
    }

    /// The rating changes of the results shown, landed after `race_over` (A9 `ratings`); those
    /// of another race are not ours to show.
    fn late_ratings(&mut self, race_id: &RaceId, ratings: &[protocol::RatingChange]) {
        if let Some(r) = self.results.as_mut().filter(|r| r.race_id == *race_id) {
            r.ratings = ratings.to_vec();
        }
    }

    /// Our placements, everyone's progress, players finishing, and our seat lost mid-race.
    fn apply_in_race(&mut self, msg: &ServerMsg, now: u64) {
        match msg {
            ServerMsg::Placement {
                cell,
                digit,
                accepted,
                mistakes,
                penalty_ms,
                ..
            } => {
                if let Some(race) = self.race.as_mut() {
                    race.mistakes = *mistakes;
                    race.penalty_ms = *penalty_ms;
                    if *accepted {
                        race.board.set(*cell, Some(*digit));
                    }
                }
            }
            ServerMsg::Progress(p) => {
                if let Some(race) = self.race.as_mut() {
                    race.progress.insert(p.player_id.clone(), p.clone());
                }
            }
            ServerMsg::Board {
                player_id,
                board,
                at_ms,
            } => {
                if let Some(race) = self.race.as_mut() {
                    let givens = race.delayed.get(player_id).map_or(*board, |d| d.givens);
                    let shown = Delayed {
                        givens,
                        board: *board,
                        at_ms: *at_ms,
                    };
                    race.delayed.insert(player_id.clone(), shown);
                }
            }
            ServerMsg::PlayerFinished {
                player_id,
                status,
                time_ms,
            } => {
                if let Some(p) = self.player_mut(player_id) {
                    p.status = (*status).into();
                }
                if self.is_me(player_id) {
                    if let Some(race) = self.race.as_mut() {
                        race.finished = Some((*status, *time_ms));
                        race.stopped_at_ms = Some(now);
                    }
                }
            }
            // Our seat could not be taken back: its grace ran out, and a seat removed mid-race
            // counts as forfeited (Resume). Our panel stops saying `racing`.
            ServerMsg::Error {
                code: ErrorCode::InvalidToken,
                ..
            } => {
                let Some(me) = self.me.clone() else {
                    return;
                };
                if let Some(p) = self.player_mut(&me) {
                    if p.status == PlayerStatus::Racing {
                        p.status = PlayerStatus::Forfeited;
                    }
                }
                if let Some(race) = self.race.as_mut() {
                    race.finished.get_or_insert((FinishStatus::Forfeited, None));
                    race.stopped_at_ms.get_or_insert(now);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
