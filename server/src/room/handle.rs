//! How a connection reaches a room task: the [`RoomHandle`] the directory hands out, the
//! [`RoomCmd`]s it carries (a member's [`Command`] with its [`Link`]), and the
//! [`JoinOutcome`] a room answers a join with.

use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use protocol::{Phase, PlayerId, RaceId, ResumeToken, Role, RoomCode, Settings};
use tokio::sync::{mpsc, oneshot};

pub use super::command::{Command, RoomMsg};
use super::endpoint::Endpoint;
pub use super::rules::{Identity, Requeued};
use crate::outbox::ConnId;
use crate::puzzles::SolvedPuzzle;

/// A room's answer to a join, create or resume.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JoinOutcome {
    /// Not let in; the error went to the connection.
    Refused,
    /// In the room, holding this seat.
    Player(PlayerId),
    /// In the room, watching.
    Spectator,
    /// Not answered: the room is moving to another server (its owner was lost, or this
    /// server gave it up); try again shortly (A12).
    Moving,
}

/// What a room task receives.
#[derive(Debug)]
pub enum RoomCmd {
    /// A member's [`Command`], from connection `conn` (here, or on another node).
    Member {
        /// The connection the room knows the member by.
        conn: ConnId,
        /// What it asks.
        cmd: Command,
        /// How the room reaches it (a join or resume) and where the answer goes.
        link: Link,
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
    /// A result that waited for the database landed and moved ratings (A9): tell the room's
    /// members (`ratings`). Only the results backlog sends it, on the room's own node.
    Ratings {
        /// The race.
        race_id: RaceId,
        /// Its rating changes, as `race_over` would have carried them.
        ratings: Vec<protocol::RatingChange>,
    },
    /// The puzzle for a race arrived from the stock.
    PuzzleReady {
        /// The race it is for.
        race_id: RaceId,
        /// The puzzle, dealt under the race's seed.
        dealt: SolvedPuzzle,
    },
}

/// What travels beside a member's command in this process: the way to the member and the
/// channel its answer goes back on.
#[derive(Debug)]
pub enum Link {
    /// Nothing to answer (a message, a dropped connection).
    None,
    /// A join or resume: the connection's way out, and whether it got in.
    Enter(Endpoint, oneshot::Sender<JoinOutcome>),
    /// A leave: answered once the room has let the connection go.
    Leave(oneshot::Sender<bool>),
    /// A requeue (A7): answered once the room has let the connection go (`None`: refused,
    /// the error sent).
    Requeue(oneshot::Sender<Option<Requeued>>),
}

impl RoomCmd {
    /// Take a seat or watch; `reply` says whether the connection is now in the room.
    pub fn join(
        conn: Endpoint,
        addr: IpAddr,
        name: Option<String>,
        role: Role,
        who: Identity,
        reply: oneshot::Sender<JoinOutcome>,
    ) -> RoomCmd {
        let cmd = Command::Join {
            addr,
            name,
            role,
            who,
        };
        RoomCmd::Member {
            conn: conn.id(),
            cmd,
            link: Link::Enter(conn, reply),
        }
    }

    /// Take back a held seat with its `token`, from a client that draws `draws` (A10).
    pub fn resume(
        conn: Endpoint,
        token: ResumeToken,
        draws: protocol::variant::Draws,
        reply: oneshot::Sender<JoinOutcome>,
    ) -> RoomCmd {
        RoomCmd::Member {
            conn: conn.id(),
            cmd: Command::Resume { token, draws },
            link: Link::Enter(conn, reply),
        }
    }

    /// Leave on purpose.
    pub fn leave(conn: ConnId, reply: oneshot::Sender<bool>) -> RoomCmd {
        RoomCmd::Member {
            conn,
            cmd: Command::Leave,
            link: Link::Leave(reply),
        }
    }

    /// Leave a finished pool room for the pool (A7).
    pub fn requeue(conn: ConnId, reply: oneshot::Sender<Option<Requeued>>) -> RoomCmd {
        RoomCmd::Member {
            conn,
            cmd: Command::Requeue,
            link: Link::Requeue(reply),
        }
    }

    /// The connection's transport is gone.
    pub fn dropped(conn: ConnId) -> RoomCmd {
        RoomCmd::Member {
            conn,
            cmd: Command::Dropped,
            link: Link::None,
        }
    }

    /// A message from a member.
    pub fn msg(conn: ConnId, msg: RoomMsg) -> RoomCmd {
        RoomCmd::Member {
            conn,
            cmd: Command::Msg { msg },
            link: Link::None,
        }
    }
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
