//! Rooms: the registry that maps room codes (and resume tokens) to room tasks, and the
//! commands connections send them.
//!
//! - [`race`]: the rules as a pure state machine.
//! - [`task`]: the task that alone owns one room's state and carries out its effects.

pub mod race;
pub mod task;

use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use dashmap::mapref::entry::Entry;
use protocol::{ErrorCode, MsgId, Phase, Role, RoomCode, RoomSummary, Settings};
use rand::Rng;
use shared::engine::{Cell, Digit};
use tokio::sync::{mpsc, oneshot};

use crate::net::ConnHandle;
use crate::Server;
use race::{ConnId, Dealt};

/// Letters and digits that cannot be misread: no 0/O, 1/I/L.
pub const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// Length of new room codes (the contract allows 4 to 8).
pub const CODE_LEN: usize = 5;

/// A fresh random room code.
pub fn new_code() -> RoomCode {
    let mut rng = rand::thread_rng();
    let code: String = (0..CODE_LEN)
        .map(|_| char::from(CODE_ALPHABET[rng.gen_range(0..CODE_ALPHABET.len())]))
        .collect();
    RoomCode::try_from(code).expect("the alphabet and length make a valid room code")
}

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
    /// `chat`, length already checked.
    Chat(String),
}

/// A room's answer to a join, create or resume: `None` when refused (the error went to the
/// connection), else the seat's player id (`None` for a spectator).
pub type JoinReply = Option<Option<String>>;

/// What a room task receives.
#[derive(Debug)]
pub enum RoomCmd {
    /// Take a seat or watch; the reply says whether the connection is now in the room.
    Join {
        /// The connection.
        conn: ConnHandle,
        /// Requested name (None: a spectator's default).
        name: Option<String>,
        /// Player or spectator.
        role: Role,
        /// Joined or not.
        reply: oneshot::Sender<JoinReply>,
    },
    /// Take back a held seat.
    Resume {
        /// The new connection.
        conn: ConnHandle,
        /// The seat's token.
        token: String,
        /// Resumed or not.
        reply: oneshot::Sender<JoinReply>,
    },
    /// Leave on purpose.
    Leave {
        /// Who.
        conn: ConnId,
        /// Answered once the room has let the connection go.
        reply: oneshot::Sender<bool>,
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
    /// The puzzle for a race arrived from the pool.
    PuzzleReady {
        /// The race it is for.
        race_id: protocol::RaceId,
        /// The puzzle.
        dealt: Dealt,
    },
}

/// What `list_rooms` shows of a room, kept current by the room task.
#[derive(Clone, Debug)]
pub struct RoomInfo {
    /// Phase.
    pub phase: Phase,
    /// Seats, held ones included.
    pub players: u32,
    /// Settings.
    pub settings: Settings,
}

/// A way to reach a room task.
#[derive(Clone, Debug)]
pub struct RoomHandle {
    /// The room code.
    pub code: Arc<str>,
    /// Commands to the room.
    pub tx: mpsc::Sender<RoomCmd>,
    /// Summary for `list_rooms` (a std mutex: held only for a copy, never across an await).
    pub info: Arc<Mutex<RoomInfo>>,
}

/// Why a room could not be created.
#[derive(Debug)]
pub struct CreateError(pub ErrorCode, pub &'static str);

impl Server {
    /// The room with this code (upper-cased), if open.
    pub(crate) fn room(&self, code: &str) -> Option<RoomHandle> {
        self.rooms
            .get(&RoomCode::try_from(code).ok()?)
            .map(|r| r.value().clone())
    }

    /// The room a resume token belongs to.
    pub(crate) fn room_for_token(&self, token: &str) -> Option<RoomHandle> {
        let code = self.tokens.get(token)?.value().clone();
        self.room(&code)
    }

    /// Public rooms in the lobby.
    pub(crate) fn list_rooms(&self) -> Vec<RoomSummary> {
        let mut out: Vec<RoomSummary> = self
            .rooms
            .iter()
            .filter_map(|r| {
                let info = r.value().info.lock().ok()?.clone();
                (info.phase == Phase::Lobby && info.settings.public).then(|| RoomSummary {
                    room: r.key().clone(),
                    players: info.players,
                    max_players: info.settings.max_players,
                    difficulty: info.settings.difficulty,
                })
            })
            .collect();
        out.sort_by(|a, b| a.room.cmp(&b.room));
        out
    }

    /// Open a room with `creator` as its host; answers whether the creator got in.
    pub(crate) fn create_room(
        self: &Arc<Self>,
        ip: IpAddr,
        settings: Settings,
        creator: ConnHandle,
        name: String,
    ) -> Result<(RoomHandle, oneshot::Receiver<JoinReply>), CreateError> {
        if self.rooms.len() >= self.config.limits.max_rooms {
            return Err(CreateError(
                ErrorCode::ServerFull,
                "too many rooms on this server",
            ));
        }
        {
            let mut n = self.rooms_per_ip.entry(ip).or_insert(0);
            if *n >= self.config.limits.max_rooms_per_ip {
                return Err(CreateError(
                    ErrorCode::ServerFull,
                    "too many rooms from your address",
                ));
            }
            *n += 1;
        }
        for _ in 0..64 {
            let code = new_code();
            let Entry::Vacant(slot) = self.rooms.entry(code.clone()) else {
                continue;
            };
            let (tx, rx) = mpsc::channel(1024);
            let info = Arc::new(Mutex::new(RoomInfo {
                phase: Phase::Lobby,
                players: 1,
                settings: settings.clone(),
            }));
            let (reply, answer) = oneshot::channel();
            // The creator's join is queued before the room is visible to anyone else, so the
            // creator is always its first player and host. The channel is new: it has room.
            let _ = tx.try_send(RoomCmd::Join {
                conn: creator,
                name: Some(name),
                role: Role::Player,
                reply,
            });
            let handle = RoomHandle {
                code: Arc::from(code.as_str()),
                tx,
                info: info.clone(),
            };
            slot.insert(handle.clone());
            self.metrics.rooms.inc();
            task::spawn(
                self.clone(),
                code,
                settings,
                rx,
                handle.tx.downgrade(),
                info,
                ip,
            );
            return Ok((handle, answer));
        }
        self.release_ip(ip);
        Err(CreateError(ErrorCode::ServerFull, "no free room code"))
    }

    /// A room created from `ip` is gone.
    pub(crate) fn release_ip(&self, ip: IpAddr) {
        if let Entry::Occupied(mut e) = self.rooms_per_ip.entry(ip) {
            *e.get_mut() = e.get().saturating_sub(1);
            if *e.get() == 0 {
                e.remove();
            }
        }
    }
}
