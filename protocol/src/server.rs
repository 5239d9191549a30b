//! What the server sends: [`ServerMsg`] and its payloads.

use engine::{Cell, Difficulty, Digit, Grid, Variant};
use serde::{Deserialize, Serialize};

use crate::error::ErrorCode;
use crate::ids::{IdentityKey, MsgId, PlayerId, PlayerName, RaceId, ResumeToken, RoomCode};
use crate::settings::Settings;
use crate::variant::WireLayout;

mod arena;
pub use arena::{ArenaInfo, ArenaStanding, ArenaState};

/// A connection's role in a room.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Races.
    Player,
    /// Watches.
    Spectator,
}

/// A room's phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Waiting for the host to start.
    Lobby,
    /// Counting down to the race start.
    Countdown,
    /// Racing.
    Racing,
    /// Between races: results are in.
    Finished,
}

/// A player's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlayerStatus {
    /// In the lobby, or waiting for the next race.
    Waiting,
    /// In the race.
    Racing,
    /// Filled every cell.
    Solved,
    /// Gave up, or left during the race.
    Forfeited,
    /// Reached the room's `max_mistakes`.
    Eliminated,
    /// Still racing when the time limit was reached.
    TimedOut,
}

/// A player as others see them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// Opaque id.
    pub player_id: PlayerId,
    /// Display name.
    pub name: PlayerName,
    /// Ready mark in the lobby.
    pub ready: bool,
    /// False while the seat is held after a drop.
    pub connected: bool,
    /// Race status.
    pub status: PlayerStatus,
    /// The player's public handle when identified (A6), else null.
    #[serde(default)]
    pub handle: Option<String>,
    /// Whether the player is a program (A6).
    #[serde(default)]
    pub bot: bool,
    /// Whether this seat is a ghost: a stored race replayed by the server (A7).
    #[serde(default)]
    pub ghost: bool,
}

/// Who you are in the room you joined.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct You {
    /// Your player id; null for a spectator.
    pub player_id: Option<PlayerId>,
    /// Your resume token; null for a spectator.
    pub token: Option<ResumeToken>,
    /// Player or spectator.
    pub role: Role,
}

/// A player's progress, as broadcast after each placement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// Whose.
    pub player_id: PlayerId,
    /// Correct non-given cells.
    pub filled: u32,
    /// Empty cells in the puzzle.
    pub to_fill: u32,
    /// Mistakes so far.
    pub mistakes: u32,
}

/// The race as seen by someone joining or resuming mid-race.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaceView {
    /// Opaque race id.
    pub race_id: RaceId,
    /// The puzzle; null during the countdown.
    #[serde(with = "crate::convert::opt_grid")]
    pub puzzle: Option<Grid>,
    /// The race's difficulty.
    #[serde(with = "crate::convert::difficulty")]
    pub difficulty: Difficulty,
    /// Time limit in seconds.
    pub time_limit_s: u32,
    /// Race time elapsed (0 during the countdown).
    pub elapsed_ms: u64,
    /// This player's board (givens plus accepted digits); null for spectators and during the countdown.
    #[serde(with = "crate::convert::opt_grid")]
    pub board: Option<Grid>,
    /// This player's mistakes (0 for spectators).
    pub mistakes: u32,
    /// Every player's progress.
    pub progress: Vec<Progress>,
    /// Phase `finished` only: the standings `race_over` announced (players who left
    /// included), so whoever joins or resumes between races sees the last race as its players
    /// did. Ours, additive: absent in any other phase, and from servers before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standings: Option<Vec<Standing>>,
    /// Phase `finished` only: why the race ended, as `race_over` said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<OverReason>,
    /// The viewer's regions or cages, beside its puzzle (A10; a spectator's: the race's own).
    #[serde(flatten)]
    pub layout: WireLayout,
}

/// One row of `room_list`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomSummary {
    /// Room code.
    pub room: RoomCode,
    /// Players present (held seats included).
    pub players: u32,
    /// The room's `max_players`.
    pub max_players: u8,
    /// `lobby` or `finished` (between races): the phases in which a room takes players (A5).
    pub phase: Phase,
    /// The room's difficulty.
    #[serde(with = "crate::convert::difficulty")]
    pub difficulty: Difficulty,
}

/// Why a placement was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlaceReason {
    /// Not the solution's digit (a mistake).
    Wrong,
    /// Clashes with a digit on the player's board (a mistake).
    Conflict,
    /// The cell holds a given.
    Given,
    /// The cell already holds an accepted digit.
    Filled,
}

/// How a player's race ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishStatus {
    /// Filled every cell.
    Solved,
    /// Gave up or left.
    Forfeited,
    /// Reached `max_mistakes`.
    Eliminated,
    /// Still racing at the time limit.
    TimedOut,
}

impl From<FinishStatus> for PlayerStatus {
    fn from(s: FinishStatus) -> PlayerStatus {
        match s {
            FinishStatus::Solved => PlayerStatus::Solved,
            FinishStatus::Forfeited => PlayerStatus::Forfeited,
            FinishStatus::Eliminated => PlayerStatus::Eliminated,
            FinishStatus::TimedOut => PlayerStatus::TimedOut,
        }
    }
}

/// Why a race ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverReason {
    /// Every player solved, forfeited, was eliminated or left.
    AllDone,
    /// The race clock reached the time limit.
    TimeLimit,
}

/// Why a room closed (A9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClosedReason {
    /// The host closed it, or it emptied (A5).
    HostClosed,
    /// The server shut down.
    Shutdown,
    /// The server is draining for a deploy: connect again for a new room or the pool.
    Drain,
    /// The node that ran it was lost and it could not be taken over.
    NodeLost,
}

/// A rated player's rating change in `race_over` (A6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingChange {
    /// Whose seat.
    pub player_id: PlayerId,
    /// Their public handle.
    pub handle: String,
    /// Conservative rating (μ − 3σ) before the race.
    pub before: f64,
    /// And after it.
    pub after: f64,
}

/// One row of the final standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    /// 1-based; equal standings share a rank and the next rank skips.
    pub rank: u32,
    /// Whose.
    pub player_id: PlayerId,
    /// Their name.
    pub name: PlayerName,
    /// How their race ended.
    pub status: FinishStatus,
    /// Time with penalties, less `lag_ms` (A8): ranks use it; null unless solved.
    pub time_ms: Option<u64>,
    /// Correct non-given cells.
    pub filled: u32,
    /// Mistakes.
    pub mistakes: u32,
    /// Time with penalties by the server's clock, before lag compensation (A8); null unless
    /// solved.
    #[serde(default)]
    pub time_ms_raw: Option<u64>,
    /// The player's median round trip in this race, at most `--lag-cap-ms` (A8).
    #[serde(default)]
    pub lag_ms: u32,
    /// The seat's own puzzle (A8: with `settings.isomorphs` each seat has its own isomorph).
    #[serde(default, with = "crate::convert::opt_grid")]
    pub puzzle: Option<Grid>,
    /// The seat's own solution.
    #[serde(default, with = "crate::convert::opt_grid")]
    pub solution: Option<Grid>,
    /// The seat's own regions or cages, beside its puzzle (A10).
    #[serde(flatten)]
    pub layout: WireLayout,
}

/// A message from the server to a client.
// Grids travel inline (81 bytes each): a message is built, serialized once and dropped, so boxing
// the large variants would add an allocation to every message to save stack space.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// An identity for the sender of `register` (A6). `key` is secret: the client keeps it
    /// and sends it with `create_room`/`join_room`/`spectate`/`start_daily`; `handle` is public.
    Registered {
        /// The bearer key (≥ 128 random bits); the server keeps only its hash.
        key: IdentityKey,
        /// The public, stable id.
        handle: String,
    },
    /// First message on every connection.
    Welcome {
        /// Protocol version ([`crate::PROTOCOL_VERSION`]).
        protocol: u32,
        /// `name/version` of the server.
        server: String,
    },
    /// You are in a room (after create, join, spectate or resume).
    RoomJoined {
        /// Room code.
        room: RoomCode,
        /// Your identity in the room.
        you: You,
        /// The host's player id; null in a pool room, which has no host (A7).
        host: Option<PlayerId>,
        /// The room's settings.
        settings: Settings,
        /// The room's phase.
        phase: Phase,
        /// Everyone seated (held seats included).
        players: Vec<Player>,
        /// The current or last race; null in the lobby before any race.
        race: Option<RaceView>,
    },
    /// Answer to `list_rooms`.
    RoomList {
        /// Public rooms in the lobby.
        rooms: Vec<RoomSummary>,
    },
    /// Someone took a seat.
    PlayerJoined {
        /// Who.
        player: Player,
    },
    /// A seat was given up or expired.
    PlayerLeft {
        /// Whose.
        player_id: PlayerId,
    },
    /// A player's ready mark or connection changed.
    PlayerUpdated {
        /// The player now.
        player: Player,
    },
    /// The host changed.
    HostChanged {
        /// The new host.
        player_id: PlayerId,
    },
    /// The host changed the room's settings for the next race (A5).
    SettingsChanged {
        /// The settings now.
        settings: Settings,
    },
    /// The race starts in this long.
    Countdown {
        /// Milliseconds to the start.
        starts_in_ms: u64,
    },
    /// The race has started: here is the puzzle.
    RaceStarted {
        /// Opaque race id.
        race_id: RaceId,
        /// The puzzle grid.
        #[serde(with = "crate::convert::grid")]
        puzzle: Grid,
        /// Its difficulty.
        #[serde(with = "crate::convert::difficulty")]
        difficulty: Difficulty,
        /// Time limit in seconds.
        time_limit_s: u32,
        /// Whether this race changes ratings (A6).
        #[serde(default)]
        rated: bool,
        /// The race's variant (A10); absent for classic.
        #[serde(
            default,
            with = "crate::convert::variant",
            skip_serializing_if = "crate::convert::variant::is_classic"
        )]
        variant: Variant,
        /// The seat's regions or cages, beside its puzzle (A10).
        #[serde(flatten)]
        layout: WireLayout,
    },
    /// The outcome of your `place`.
    Placement {
        /// Your id, echoed; null if you sent none.
        id: Option<MsgId>,
        /// The cell.
        #[serde(with = "crate::convert::cell")]
        cell: Cell,
        /// The digit.
        #[serde(with = "crate::convert::digit")]
        digit: Digit,
        /// Whether the digit is now on your board.
        accepted: bool,
        /// Why not, when not accepted.
        reason: Option<PlaceReason>,
        /// Cells on your board that clash (only with `conflict`).
        #[serde(with = "crate::convert::cells")]
        conflicts: Vec<Cell>,
        /// Your mistakes so far.
        mistakes: u32,
        /// Your total penalty so far.
        penalty_ms: u64,
    },
    /// A player's progress changed.
    Progress(Progress),
    /// A player is out of the race (or solved it).
    PlayerFinished {
        /// Who.
        player_id: PlayerId,
        /// How.
        status: FinishStatus,
        /// Time with penalties; null unless solved.
        time_ms: Option<u64>,
    },
    /// The race is over.
    RaceOver {
        /// Which race.
        race_id: RaceId,
        /// Why it ended.
        reason: OverReason,
        /// Final standings.
        standings: Vec<Standing>,
        /// The solution grid.
        #[serde(with = "crate::convert::grid")]
        solution: Grid,
        /// Each rated player's conservative rating (μ − 3σ) before and after (A6); empty when
        /// the race was not rated.
        #[serde(default)]
        ratings: Vec<RatingChange>,
    },
    /// The solution, for a player who is out of the race.
    Solution {
        /// The solution grid.
        #[serde(with = "crate::convert::grid")]
        solution: Grid,
    },
    /// A chat line.
    Chat {
        /// The speaker; null for a spectator.
        player_id: Option<PlayerId>,
        /// The speaker's name.
        name: PlayerName,
        /// What they said.
        text: String,
    },
    /// The room you are watching is gone.
    RoomClosed {
        /// Its code.
        room: RoomCode,
        /// Why (A9); absent from servers before A9.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<ClosedReason>,
    },
    /// You are in the pool of a difficulty (A7), sent on `quick_race` and again whenever the
    /// number waiting there changes.
    Queued {
        /// The pool's difficulty.
        #[serde(with = "crate::convert::difficulty")]
        difficulty: Difficulty,
        /// Players in that pool now (you included).
        waiting: u32,
    },
    /// Answer to `leave_queue` (A7).
    LeftQueue,
    /// Nobody has come to race you for `--pool-alone-ms` (A7); you stay queued.
    PoolAlone {
        /// A stored race you could race as a ghost instead (`race_ghost`), or null.
        ghost: Option<String>,
    },
    /// You joined an arena (A7); while it runs you race its other members back to back.
    ArenaJoined {
        /// The arena as `/api/arenas` lists it.
        arena: ArenaInfo,
    },
    /// An arena's standings, after each of its races and on joining (A7).
    ArenaStandings {
        /// Which arena.
        arena_id: String,
        /// Best first: points, then wins, then fewer races.
        standings: Vec<ArenaStanding>,
    },
    /// Answer to `leave_arena` (A7).
    LeftArena {
        /// Which arena.
        arena_id: String,
    },
    /// A player's board as it was `--spectator-delay-s` earlier, for a spectator that asked for
    /// `boards` (A8); at `race_over`, the final board.
    Board {
        /// Whose board.
        player_id: PlayerId,
        /// Givens plus accepted digits.
        #[serde(with = "crate::convert::grid")]
        board: Grid,
        /// Race time the board shows (ms since the start).
        at_ms: u64,
    },
    /// Answer to `report` (our addition to A8): the report is kept for the moderators (a
    /// repeated report of the same player in the same race is kept once).
    Reported {
        /// Whom you reported.
        player_id: PlayerId,
    },
    /// The rating changes of a race whose result landed after its `race_over` (our addition
    /// to A9: after a takeover or while the result waited in the spool, `race_over` has none).
    /// Sent to the room's members still there when the result is stored.
    Ratings {
        /// Which race.
        race_id: RaceId,
        /// As in `race_over`.
        ratings: Vec<RatingChange>,
    },
    /// Answer to `ping`.
    Pong {
        /// The ping's id, echoed.
        id: Option<MsgId>,
    },
    /// Your last message failed.
    Error {
        /// What kind of failure.
        code: ErrorCode,
        /// Human-readable detail.
        message: String,
        /// For `room_moving` (A12): when to try again, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_ms: Option<u64>,
    },
}

crate::wire_names!(Role {
    Player => "player",
    Spectator => "spectator",
});
crate::wire_names!(ArenaState {
    Upcoming => "upcoming",
    Running => "running",
    Finished => "finished",
});
crate::wire_names!(Phase {
    Lobby => "lobby",
    Countdown => "countdown",
    Racing => "racing",
    Finished => "finished",
});
crate::wire_names!(PlayerStatus {
    Waiting => "waiting",
    Racing => "racing",
    Solved => "solved",
    Forfeited => "forfeited",
    Eliminated => "eliminated",
    TimedOut => "timed_out",
});
crate::wire_names!(PlaceReason {
    Wrong => "wrong",
    Conflict => "conflict",
    Given => "given",
    Filled => "filled",
});
crate::wire_names!(FinishStatus {
    Solved => "solved",
    Forfeited => "forfeited",
    Eliminated => "eliminated",
    TimedOut => "timed_out",
});
crate::wire_names!(ClosedReason {
    HostClosed => "host_closed",
    Shutdown => "shutdown",
    Drain => "drain",
    NodeLost => "node_lost",
});
crate::wire_names!(OverReason {
    AllDone => "all_done",
    TimeLimit => "time_limit",
});
