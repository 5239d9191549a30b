//! One race: every racer's board, the verification of a placement (rule 2, then rules 3 and
//! 4) into a [`Placed`] outcome, finishing, timing out, the wire view, and the record the
//! store keeps. It knows nothing of seats or connections: racers are player ids.

use std::time::Duration;

use engine::validator::placement_conflicts_in;
use engine::{Cell, Digit, Grid};
use protocol::{
    FinishStatus, MsgId, OverReason, PlaceReason, PlayerId, PlayerName, PlayerStatus, Progress,
    RaceId, RaceView, ServerMsg, Settings, Standing,
};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use tokio::time::Instant;

use super::lag::{compensate, Samples};
use super::standings::{finish_status, standings};
use super::Identity;
use crate::puzzles::SolvedPuzzle;
use crate::store::{PlacementRecord, RaceRecord, SeatRecord};
use protocol::variant::WireLayout;

/// Why a race ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// Every racer solved, forfeited, was eliminated or left.
    AllDone,
    /// The race clock reached the time limit.
    TimeLimit,
    /// The server stopped mid-race (stored, never announced).
    Shutdown,
}

impl EndReason {
    /// The name the store keeps.
    pub const fn as_str(self) -> &'static str {
        match self.announced() {
            Some(over) => over.as_str(),
            None => "shutdown",
        }
    }

    /// The reason announced in `race_over` (none at shutdown).
    pub const fn announced(self) -> Option<OverReason> {
        match self {
            EndReason::AllDone => Some(OverReason::AllDone),
            EndReason::TimeLimit => Some(OverReason::TimeLimit),
            EndReason::Shutdown => None,
        }
    }
}

/// Mixed into the race's seed for the seats' transforms, so they are not the stream that drew
/// the race's own transform from the same seed.
const ISOMORPH_SALT: u64 = 0x6973_6f6d_6f72_7068; // "isomorph"

pub(super) fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[derive(Debug)]
struct Entry {
    player_id: PlayerId,
    name: PlayerName,
    /// The seat's own puzzle and solution (A8): the race's, or its own isomorph of it.
    dealt: SolvedPuzzle,
    board: Grid,
    filled: u32,
    mistakes: u32,
    status: PlayerStatus,
    /// The solve time by the server's clock, penalties included (A8's `time_ms_raw`).
    time_ms: Option<u64>,
    /// Added to the finish time: a ghost's penalties, carried as one sum (else 0).
    handicap_ms: u64,
    /// The round trips measured to the seat in this race (A8).
    samples: Samples,
    /// The lag its time is compensated by, fixed when it finishes (so `player_finished` and
    /// `race_over` agree) or from the start for a ghost (its stored figure).
    lag_ms: Option<u32>,
}

impl Entry {
    /// The seat's progress message, out of `to_fill` cells.
    fn progress(&self, to_fill: u32) -> Progress {
        Progress {
            player_id: self.player_id.clone(),
            filled: self.filled,
            to_fill,
            mistakes: self.mistakes,
        }
    }

    fn new(player_id: PlayerId, name: PlayerName, dealt: SolvedPuzzle) -> Entry {
        Entry {
            player_id,
            name,
            board: dealt.puzzle,
            dealt,
            filled: 0,
            mistakes: 0,
            status: PlayerStatus::Racing,
            time_ms: None,
            handicap_ms: 0,
            samples: Samples::default(),
            lag_ms: None,
        }
    }

    /// Its lag: fixed once it finished, else the median so far.
    fn lag_ms(&self, cap_ms: u32) -> u32 {
        self.lag_ms.unwrap_or_else(|| self.samples.lag_ms(cap_ms))
    }

    /// It solved with `raw_ms` on the server's clock: its lag is fixed now. Its compensated
    /// time.
    fn solved(&mut self, raw_ms: u64, cap_ms: u32) -> u64 {
        let lag = self.lag_ms(cap_ms);
        self.status = PlayerStatus::Solved;
        self.time_ms = Some(raw_ms);
        self.lag_ms = Some(lag);
        compensate(raw_ms, lag)
    }
}

/// `player`'s entry while it still races.
fn racing<'a>(entries: &'a mut [Entry], player: &PlayerId) -> Option<&'a mut Entry> {
    entries
        .iter_mut()
        .find(|e| e.player_id == *player && e.status == PlayerStatus::Racing)
}

/// What a placement came to.
#[derive(Debug)]
pub(super) struct Placed {
    /// `None`: accepted.
    pub(super) reason: Option<PlaceReason>,
    /// The `placement` answer to the placer.
    pub(super) reply: ServerMsg,
    /// Their progress, when the placement changed it.
    pub(super) progress: Option<Progress>,
    /// When it ended their race: how, and their time.
    pub(super) finished: Option<(FinishStatus, Option<u64>)>,
}

/// A race under way or just finished.
#[derive(Debug)]
pub(super) struct Race {
    race_id: RaceId,
    dealt: SolvedPuzzle,
    pub(super) started_at: Instant,
    /// Time it stood still while its room was taken over (A9): race time runs from here.
    pub(super) paused: Duration,
    started_unix_ms: i64,
    pub(super) ended_at: Option<Instant>,
    to_fill: u32,
    entries: Vec<Entry>,
    log: Vec<PlacementRecord>,
    /// Whether it changes ratings (A6): decided at the start, never after.
    rated: bool,
    /// Who held each racing seat at the start.
    who: Vec<(PlayerId, Identity)>,
    /// The daily challenge's date, for a daily race.
    daily: Option<String>,
    /// The stored race a ghost race replays (A7).
    ghost_of: Option<String>,
    /// The most lag a time is compensated by (`--lag-cap-ms`, A8).
    lag_cap_ms: u32,
}

impl Race {
    /// A race on `dealt` between `racers`, started at `now` (`unix_ms` on the wall clock).
    pub(super) fn new(
        race_id: RaceId,
        dealt: SolvedPuzzle,
        racers: impl IntoIterator<Item = (PlayerId, PlayerName)>,
        now: Instant,
        unix_ms: i64,
    ) -> Race {
        let entries = racers
            .into_iter()
            .map(|(player_id, name)| Entry::new(player_id, name, dealt.clone()))
            .collect();
        Race {
            race_id,
            to_fill: dealt.puzzle.n_empty() as u32,
            dealt,
            started_at: now,
            paused: Duration::ZERO,
            started_unix_ms: unix_ms,
            ended_at: None,
            entries,
            log: Vec::new(),
            rated: false,
            who: Vec::new(),
            daily: None,
            ghost_of: None,
            lag_cap_ms: 0,
        }
    }

    /// Compensate times by at most `cap_ms` of lag (A8).
    pub(super) fn with_lag_cap(mut self, cap_ms: u32) -> Race {
        self.lag_cap_ms = cap_ms;
        self
    }

    /// A round trip of `rtt_ms` measured to `player`'s connection: kept while it races.
    pub(super) fn lag_sample(&mut self, player: &PlayerId, rtt_ms: u32) {
        if let Some(e) = self.racing_mut(player) {
            e.samples.push(rtt_ms);
        }
    }

    /// Round trips measured to `player` before the start (the countdown's).
    pub(super) fn early_lag(&mut self, player: &PlayerId, samples: &Samples) {
        if let Some(e) = self.racing_mut(player) {
            e.samples.extend(samples);
        }
    }

    fn racing_mut(&mut self, player: &PlayerId) -> Option<&mut Entry> {
        racing(&mut self.entries, player)
    }

    /// Mark the race as the daily challenge of `date`.
    pub(super) fn with_daily(mut self, date: Option<String>) -> Race {
        self.daily = date;
        self
    }

    /// Mark the race as a ghost race of the stored race `of`.
    pub(super) fn with_ghost_of(mut self, of: Option<String>) -> Race {
        self.ghost_of = of;
        self
    }

    /// One more racer, not a seat's: a ghost, whose finish times carry `handicap_ms` and are
    /// compensated by its stored `lag_ms`, whatever is measured here (nothing is: no
    /// connection holds it).
    pub(super) fn add_racer(
        &mut self,
        player_id: PlayerId,
        name: PlayerName,
        handicap_ms: u64,
        lag_ms: u32,
    ) {
        let mut e = Entry::new(player_id, name, self.dealt.clone());
        e.handicap_ms = handicap_ms;
        e.lag_ms = Some(lag_ms);
        self.entries.push(e);
    }

    /// The moment `race_ms` into the race.
    pub(super) fn at(&self, race_ms: u64) -> Instant {
        self.origin() + Duration::from_millis(race_ms)
    }

    /// Nobody but `but` races any more.
    pub(super) fn all_done_but(&self, but: &PlayerId) -> bool {
        self.entries
            .iter()
            .all(|e| e.player_id == *but || e.status != PlayerStatus::Racing)
    }

    /// `player` (racing) is done: solved in `raw_ms` (on the server's clock), every cell
    /// filled. Its last progress, and its compensated time.
    pub(super) fn finish_as_solved(
        &mut self,
        player: &PlayerId,
        raw_ms: u64,
    ) -> Option<(Progress, FinishStatus, Option<u64>)> {
        let (to_fill, cap) = (self.to_fill, self.lag_cap_ms);
        let e = self.racing_mut(player)?;
        let time_ms = e.solved(raw_ms, cap);
        e.filled = to_fill;
        e.board = e.dealt.solution;
        Some((e.progress(to_fill), FinishStatus::Solved, Some(time_ms)))
    }

    /// Record who races and whether the race is rated (A6).
    pub(super) fn with_identities(mut self, who: Vec<(PlayerId, Identity)>, rated: bool) -> Race {
        self.who = who;
        self.rated = rated;
        self
    }

    /// A racer who held a seat at the start (a ghost did not): its name and identity.
    pub(super) fn seated(&self, player_id: &str) -> Option<(&PlayerName, &Identity)> {
        let (_, who) = self.who.iter().find(|(id, _)| id.as_str() == player_id)?;
        let entry = self
            .entries
            .iter()
            .find(|e| e.player_id.as_str() == player_id)?;
        Some((&entry.name, who))
    }

    /// What a race counting down shows: no puzzle yet.
    pub(super) fn countdown_view(race_id: &RaceId, settings: &Settings) -> RaceView {
        RaceView {
            race_id: race_id.clone(),
            puzzle: None,
            difficulty: settings.difficulty,
            time_limit_s: settings.time_limit_s,
            elapsed_ms: 0,
            board: None,
            mistakes: 0,
            progress: Vec::new(),
            standings: None,
            reason: None,
            layout: WireLayout::default(),
        }
    }

    pub(super) fn race_id(&self) -> &RaceId {
        &self.race_id
    }

    pub(super) fn dealt(&self) -> &SolvedPuzzle {
        &self.dealt
    }

    /// Deal every racer its own isomorph of the race's puzzle (A8), drawn from `seed` in
    /// entry order, so replaying the same commands deals the same boards. Each differs from
    /// the race's puzzle and from every other racer's (a draw that repeats one is drawn
    /// again), so no two seats can pass each other digits. Only transforms that keep the
    /// puzzle's geometry are drawn. Call before anyone places.
    pub(super) fn deal_isomorphs(&mut self, seed: u64) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ ISOMORPH_SALT);
        let mut taken = vec![self.dealt.puzzle];
        for e in &mut self.entries {
            let mut own = self.dealt.isomorph(&mut rng);
            // A repeat needs a transform that fixes the puzzle: so rare that a few draws
            // always end it; the bound only keeps a pathological grid from looping.
            for _ in 0..16 {
                if !taken.contains(&own.puzzle) {
                    break;
                }
                own = self.dealt.isomorph(&mut rng);
            }
            taken.push(own.puzzle);
            e.board = own.puzzle;
            e.dealt = own;
        }
    }

    /// Each racer's own puzzle (A8), in entry order.
    pub(super) fn seat_puzzles(&self) -> impl Iterator<Item = (&PlayerId, &SolvedPuzzle)> {
        self.entries.iter().map(|e| (&e.player_id, &e.dealt))
    }

    /// Race time at `now`, or at the end once it ended.
    pub(super) fn elapsed_ms(&self, now: Instant) -> u64 {
        let end = self.ended_at.unwrap_or(now);
        ms(end.saturating_duration_since(self.origin()))
    }

    /// Every racer's board as it is now (each seat's own: givens plus accepted digits).
    pub(super) fn boards(&self) -> impl Iterator<Item = (&PlayerId, &Grid)> {
        self.entries.iter().map(|e| (&e.player_id, &e.board))
    }

    /// Every placement judged so far, in the order judged (empty once the record took it).
    pub(super) fn log(&self) -> &[PlacementRecord] {
        &self.log
    }

    /// When the time limit ends it.
    pub(super) fn deadline(&self, limit: Duration) -> Instant {
        self.origin() + limit
    }

    /// Whether `player` is still racing.
    pub(super) fn is_racing(&self, player: &PlayerId) -> bool {
        self.entries
            .iter()
            .any(|e| e.player_id == *player && e.status == PlayerStatus::Racing)
    }

    /// Nobody races any more.
    pub(super) fn all_done(&self) -> bool {
        self.entries
            .iter()
            .all(|e| e.status != PlayerStatus::Racing)
    }

    /// `player` (racing) gives up or leaves.
    pub(super) fn forfeit(&mut self, player: &PlayerId) -> bool {
        match self.racing_mut(player) {
            Some(e) => {
                e.status = PlayerStatus::Forfeited;
                true
            }
            None => false,
        }
    }

    /// `player` (racing) places `digit` in `cell` at `now` (`id` is echoed in the reply),
    /// judged on its own board and solution (A8), never the race's.
    pub(super) fn place(
        &mut self,
        player: &PlayerId,
        cell: Cell,
        digit: Digit,
        id: Option<MsgId>,
        settings: &Settings,
        now: Instant,
    ) -> Option<Placed> {
        let penalty_ms_each = u64::from(settings.penalty_s) * 1000;
        let max_mistakes = u32::from(settings.max_mistakes);
        let at_ms = ms(now.saturating_duration_since(self.origin()));
        let cap = self.lag_cap_ms;
        // The entries alone are borrowed: the log and `to_fill` are read beside `e` below.
        let e = racing(&mut self.entries, player)?;
        let mut conflicts = Vec::new();
        let reason = if e.dealt.puzzle.get(cell).is_some() {
            Some(PlaceReason::Given)
        } else if e.board.get(cell).is_some() {
            Some(PlaceReason::Filled)
        } else {
            conflicts = placement_conflicts_in(e.dealt.geometry(), &e.board, cell, digit);
            if !conflicts.is_empty() {
                Some(PlaceReason::Conflict)
            } else if e.dealt.solution.get(cell) != Some(digit) {
                Some(PlaceReason::Wrong)
            } else {
                None
            }
        };
        match reason {
            None => {
                e.board.set(cell, Some(digit));
                e.filled += 1;
            }
            Some(PlaceReason::Wrong | PlaceReason::Conflict) => e.mistakes += 1,
            Some(_) => {}
        }
        self.log.push(PlacementRecord {
            player_id: e.player_id.to_string(),
            at_ms,
            cell: cell.get(),
            digit: digit.get(),
            outcome: reason.map_or("accepted", PlaceReason::as_str),
        });
        let penalty_ms = u64::from(e.mistakes) * penalty_ms_each;
        let changed = !matches!(reason, Some(PlaceReason::Given | PlaceReason::Filled));
        let mut finished = None;
        if reason.is_none() && e.filled == self.to_fill {
            let time_ms = e.solved(at_ms + penalty_ms + e.handicap_ms, cap);
            finished = Some((FinishStatus::Solved, Some(time_ms)));
        } else if changed && reason.is_some() && max_mistakes > 0 && e.mistakes >= max_mistakes {
            e.status = PlayerStatus::Eliminated;
            finished = Some((FinishStatus::Eliminated, None));
        }
        let progress = changed.then(|| e.progress(self.to_fill));
        let reply = ServerMsg::Placement {
            id,
            cell,
            digit,
            accepted: reason.is_none(),
            reason,
            conflicts,
            mistakes: e.mistakes,
            penalty_ms,
        };
        Some(Placed {
            reason,
            reply,
            progress,
            finished,
        })
    }

    /// End the race at `now` for `reason`: who was timed out (in entry order), the
    /// standings, and the record to store.
    pub(super) fn end(
        &mut self,
        room: &str,
        settings: &Settings,
        reason: EndReason,
        now: Instant,
    ) -> (Vec<PlayerId>, Vec<Standing>, RaceRecord) {
        let timed_out = self.finish(now);
        let table = self.standings();
        let record = self.record(room, settings, reason, table.clone(), now);
        (timed_out, table, record)
    }

    /// Whoever still races is timed out (returned, in entry order).
    fn finish(&mut self, now: Instant) -> Vec<PlayerId> {
        let mut timed_out = Vec::new();
        for e in self.entries.iter_mut() {
            if e.status == PlayerStatus::Racing {
                e.status = PlayerStatus::TimedOut;
                timed_out.push(e.player_id.clone());
            }
        }
        self.ended_at = Some(now);
        timed_out
    }

    /// The ranking, as it stands.
    pub(super) fn standings(&self) -> Vec<Standing> {
        let rows = self
            .entries
            .iter()
            .map(|e| {
                let lag_ms = e.lag_ms(self.lag_cap_ms);
                Standing {
                    rank: 0,
                    player_id: e.player_id.clone(),
                    name: e.name.clone(),
                    status: finish_status(e.status),
                    time_ms: e.time_ms.map(|raw| compensate(raw, lag_ms)),
                    filled: e.filled,
                    mistakes: e.mistakes,
                    time_ms_raw: e.time_ms,
                    lag_ms,
                    puzzle: Some(e.dealt.puzzle),
                    solution: Some(e.dealt.solution),
                    layout: WireLayout::of(e.dealt.geometry()),
                }
            })
            .collect();
        standings(rows)
    }

    /// What the store keeps of the finished race (its placement log moves into it).
    fn record(
        &mut self,
        room: &str,
        settings: &Settings,
        reason: EndReason,
        standings: Vec<Standing>,
        now: Instant,
    ) -> RaceRecord {
        RaceRecord {
            race_id: self.race_id.to_string(),
            room: room.to_owned(),
            difficulty: settings.difficulty.as_str(),
            puzzle: self.dealt.puzzle.to_line(),
            solution: self.dealt.solution.to_line(),
            started_unix_ms: self.started_unix_ms,
            duration_ms: ms(now.saturating_duration_since(self.origin())),
            reason: reason.as_str(),
            rated: self.rated,
            daily: self.daily.clone(),
            ghost_of: self.ghost_of.clone(),
            // Flags are the room task's to compute, off the async workers (`crate::fairplay`).
            seats: standings
                .iter()
                .map(|s| {
                    let who = self
                        .who
                        .iter()
                        .find(|(id, _)| *id == s.player_id)
                        .map(|(_, w)| w.clone())
                        .unwrap_or_default();
                    SeatRecord {
                        player_id: s.player_id.to_string(),
                        handle: who.handle,
                        bot: who.bot,
                        flags: Vec::new(),
                    }
                })
                .collect(),
            standings,
            placements: std::mem::take(&mut self.log),
        }
    }

    /// The race as `viewer` (a player, or nobody) sees it at `now`.
    pub(super) fn view(
        &self,
        viewer: Option<&PlayerId>,
        settings: &Settings,
        now: Instant,
    ) -> RaceView {
        let entry = viewer.and_then(|id| self.entries.iter().find(|e| e.player_id == *id));
        RaceView {
            race_id: self.race_id.clone(),
            // A8: a racer sees its own puzzle; anyone else (a spectator, a player who joined
            // after the start) the race's.
            puzzle: Some(entry.map_or(self.dealt.puzzle, |e| e.dealt.puzzle)),
            difficulty: settings.difficulty,
            time_limit_s: settings.time_limit_s,
            elapsed_ms: self.elapsed_ms(now),
            board: entry.map(|e| e.board),
            mistakes: entry.map_or(0, |e| e.mistakes),
            progress: self
                .entries
                .iter()
                .map(|e| e.progress(self.to_fill))
                .collect(),
            standings: None,
            reason: None,
            layout: WireLayout::of(entry.map_or(self.dealt.geometry(), |e| e.dealt.geometry())),
        }
    }
}
