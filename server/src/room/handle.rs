//! How a connection reaches a room task: the [`RoomHandle`] the directory hands out, the
//! [`RoomCmd`]s it carries, and the [`JoinOutcome`] a room answers a join with.

use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use protocol::{MsgId, Phase, PlayerId, RaceId, ResumeToken, Role, RoomCode, Settings};
use shared::engine::{Cell, Digit};
use tokio::sync::{mpsc, oneshot};

use super::endpoint::Endpoint;
use crate::outbox::ConnId;
use crate::puzzles::SolvedPuzzle;

/// A player's message to the room they are in.
#[derive(Debug)]
pub enum RoomMsg {
    /// `set_ready`.
    SetReady(bool),
    /// `start_race`.
    StartRace,
    /// `place`, with cell and digit already checked.
    Place {
        /// The cell.
        cell: Cell,
        /// The digit.
        digit: Digit,
        /// Echoed back.
        id: Option<MsgId>,
    },
    /// `forfeit`.
    Forfeit,
    /// `chat` (checked again by the room).
    Chat(String),
    /// `set_settings`, already resolved (in range).
    SetSettings(Settings),
    /// `kick`.
    Kick(String),
    /// `report` (A8), its reason already checked.
    Report {
        /// Whom.
        player_id: String,
        /// Why.
        reason: String,
    },
    /// A round trip the connection's own node measured, in milliseconds (A8): no client
    /// message, the answer to the room's probe.
    Lag(u32),
    /// `spectate` with `boards` (A8): sent once the spectator is in; ignored from a player.
    WatchBoards,
    /// No client message: the member's node (cluster mode) missed some of the room's messages
    /// to it; the member gets a fresh view, as `resume` sends.
    Resync,
}

/// A room's answer to a join, create or resume.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JoinOutcome {
    /// Not let in; the error went to the connection.
    Refused,
    /// In the room, holding this seat.
    Player(PlayerId),
    /// In the room, watching.
    Spectator,
}

/// Who a connection is beyond its name (A6): the persistent player its key names, if any,
/// and whether it said it is a program. Resolved from the key before the room sees it; the
/// key itself never reaches a room.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identity {
    /// The public handle; `None` is anonymous.
    pub handle: Option<String>,
    /// The client said `bot: true`.
    pub bot: bool,
    /// A moderator banned the player (A8): they play, unrated.
    pub banned: bool,
}

impl Identity {
    /// Whether this seat can be rated: identified, human and not banned.
    pub fn rateable(&self) -> bool {
        self.handle.is_some() && !self.bot && !self.banned
    }
}

/// What a room task receives.
#[derive(Debug)]
pub enum RoomCmd {
    /// Take a seat or watch; the reply says whether the connection is now in the room.
    Join {
        /// The connection (here, or on another node).
        conn: Endpoint,
        /// The client's address (a kick bars it).
        addr: IpAddr,
        /// Requested name (None: a spectator's default).
        name: Option<String>,
        /// Player or spectator.
        role: Role,
        /// The identity behind the connection.
        who: Identity,
        /// Joined or not.
        reply: oneshot::Sender<JoinOutcome>,
    },
    /// Take back a held seat.
    Resume {
        /// The new connection (here, or on another node).
        conn: Endpoint,
        /// The seat's token.
        token: ResumeToken,
        /// Resumed or not.
        reply: oneshot::Sender<JoinOutcome>,
    },
    /// Leave on purpose.
    Leave {
        /// Who.
        conn: ConnId,
        /// Answered once the room has let the connection go.
        reply: oneshot::Sender<bool>,
    },
    /// A pool room's seats are all taken: start (A7). Only the pool sends it.
    PoolStart,
    /// A cluster-wide pool room's first command (A7): its `seats` players join from their own
    /// nodes; it starts by itself once that many are seated, or at `by` with whoever is (and
    /// closes if nobody is). Only [`crate::room::task::open_pool`] sends it.
    PoolExpect {
        /// Seats the pool formed the race for.
        seats: usize,
        /// When it starts with whoever is seated.
        by: tokio::time::Instant,
    },
    /// Leave a finished pool room for the pool (A7); answered once the room has let the
    /// connection go (`None`: refused, the error sent).
    Requeue {
        /// Who.
        conn: ConnId,
        /// Who left, to queue again.
        reply: oneshot::Sender<Option<Requeued>>,
    },
    /// The connection's transport is gone.
    Dropped {
        /// Who.
        conn: ConnId,
    },
    /// A message from a member.
    Msg {
        /// Who.
        conn: ConnId,
        /// What.
        msg: RoomMsg,
    },
    /// A result that waited for the database landed and moved ratings (A9): tell the room's
    /// members (`ratings`). Only the results backlog sends it, on the room's own node.
    Ratings {
        /// The race.
        race_id: RaceId,
        /// Its rating changes, as `race_over` would have carried them.
        ratings: Vec<protocol::RatingChange>,
    },
    /// The puzzle for a race arrived from the pool.
    PuzzleReady {
        /// The race it is for.
        race_id: RaceId,
        /// The puzzle, dealt under the race's seed.
        dealt: SolvedPuzzle,
    },
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

/// A finished race of an arena room (A7), as the arenas hear of it.
#[derive(Clone, Debug)]
pub struct ArenaRace {
    /// The room's `settings.arena`.
    pub arena_id: String,
    /// Each seat: its handle (if identified), its rank and whether it solved.
    pub finishes: Vec<(Option<String>, u32, bool)>,
}

/// What `list_rooms` shows of a room, kept current by the room task.
#[derive(Clone, Debug, PartialEq)]
pub struct RoomInfo {
    /// Phase.
    pub phase: Phase,
    /// Seats, held ones included.
    pub players: u32,
    /// Settings.
    pub settings: Settings,
    /// While a race runs: the mean rating (μ − 3σ at the room's difficulty) of its identified
    /// human racers, once looked up; what `/api/tv` ranks races by (A8).
    pub rating: Option<f64>,
}

/// A way to reach a room task.
#[derive(Clone, Debug)]
pub struct RoomHandle {
    /// The room code.
    pub code: RoomCode,
    /// Commands to the room.
    pub tx: mpsc::Sender<RoomCmd>,
    /// Summary for `list_rooms` (a std mutex: held only for a copy, never across an await).
    pub info: Arc<Mutex<RoomInfo>>,
}
