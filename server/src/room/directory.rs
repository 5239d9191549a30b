//! The room directory: the one owner of which rooms exist (code -> handle), which resume
//! token belongs to which room, how many open rooms each address created, and the public
//! summaries `list_rooms` shows. It mints room codes and resume tokens.
//!
//! In cluster mode a node's directory stays the one owner of the rooms it runs, and tells a
//! [`DirectoryFeed`] (Redis, `crate::cluster`) of every change, so that the other nodes find
//! them; finding and opening across nodes is [`super::rooms`]'s.

use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use dashmap::mapref::entry::Entry;
use dashmap::DashMap;
use protocol::{ErrorCode, Phase, ResumeToken, RoomCode, RoomSummary, Settings};
use rand::Rng;
use tokio::sync::{mpsc, oneshot};

use super::handle::{RoomCmd, RoomHandle, RoomInfo};

/// Letters and digits that cannot be misread: no 0/O, 1/I/L.
pub const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// Length of new room codes (the contract allows 4 to 8).
pub const CODE_LEN: usize = 5;

/// Commands queued to one room before senders wait.
const ROOM_QUEUE: usize = 1024;

/// Why a room could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    /// The server holds as many rooms as it may.
    #[error("too many rooms on this server")]
    ServerFull {
        /// The server's room limit.
        limit: usize,
    },
    /// The address has as many open rooms as it may.
    #[error("too many rooms from your address")]
    AddressFull {
        /// The creating address.
        ip: IpAddr,
        /// The per-address limit.
        limit: usize,
    },
    /// Every code tried was taken.
    #[error("no free room code")]
    NoFreeCode {
        /// How many codes were tried.
        tries: u32,
    },
    /// Cluster mode: the shared directory cannot be reached.
    #[error("rooms cannot be opened right now: try again")]
    Unavailable,
    /// The server is draining (A9): it opens no room before it restarts.
    #[error("the server is restarting for an update")]
    Draining,
}

impl OpenError {
    /// The error code the client gets.
    pub fn code(&self) -> ErrorCode {
        match self {
            OpenError::Draining => ErrorCode::ServerDraining,
            _ => ErrorCode::ServerFull,
        }
    }
}

/// What a directory shared by many nodes hears from this node's: each call is a fact that has
/// just become true here, queued in order and never waited for.
pub trait DirectoryFeed: Send + Sync + std::fmt::Debug {
    /// A room's listing changed (phase, players, settings).
    fn changed(&self, code: &RoomCode, info: &RoomInfo);
    /// A room closed; it had been created from `ip`.
    fn closed(&self, code: &RoomCode, ip: IpAddr);
    /// A seat's resume token now names room `code`.
    fn token_issued(&self, token: &ResumeToken, code: &RoomCode);
    /// The token no longer works.
    fn token_revoked(&self, token: &ResumeToken);
    /// Entry number `seq` (1, 2, … per room) of room `code`'s command log (A9,
    /// [`super::journal`]): kept where a replay reads it (another node, or this server after
    /// a crash), until the room closes. The same entry may be given again with its number
    /// after [`LogError::Unavailable`]: it is kept once.
    fn logged(&self, code: &RoomCode, seq: u64, entry: Vec<u8>) {
        let _ = (code, seq, entry);
    }
    /// Answered once every entry logged for room `code` so far is kept (`Ok`), or why it is
    /// not. The room sends nothing its log does not hold yet, so whatever a client was told
    /// survives a crash. `None`: nothing to wait for.
    fn sync(&self, code: &RoomCode) -> Option<oneshot::Receiver<Result<(), LogError>>> {
        let _ = code;
        None
    }
    /// This server no longer runs room `code` (another took it over, or this one cannot prove
    /// it still owns it): forget it here, leaving what the room keeps elsewhere to its owner.
    fn abandoned(&self, code: &RoomCode) {
        let _ = code;
    }
}

/// Why a room's log could not keep its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LogError {
    /// Not kept yet: where the log lives cannot be reached. Give the same entries again.
    #[error("the room's log cannot be reached")]
    Unavailable,
    /// Never: another server holds the room now, or this one can no longer prove it does.
    #[error("the room is owned elsewhere")]
    Fenced,
}

/// What `list_rooms` shows of a room, if it shows it at all (A5: rooms that take players now,
/// in the lobby or between races, public and not full).
pub fn summary(code: &RoomCode, info: &RoomInfo) -> Option<RoomSummary> {
    let open = matches!(info.phase, Phase::Lobby | Phase::Finished);
    let room_left = info.players < u32::from(info.settings.max_players);
    (open && room_left && info.settings.public).then(|| RoomSummary {
        room: code.clone(),
        players: info.players,
        max_players: info.settings.max_players,
        difficulty: info.settings.difficulty,
        phase: info.phase,
    })
}

/// A room just opened: its handle, and the receiving end of its commands for its task.
#[derive(Debug)]
pub struct Opened {
    /// How to reach the room.
    pub handle: RoomHandle,
    /// The commands, starting with the creator's.
    pub rx: mpsc::Receiver<RoomCmd>,
}

/// Every open room on this server.
#[derive(Debug)]
pub struct Directory {
    max_rooms: usize,
    max_rooms_per_ip: usize,
    /// Room code -> room.
    rooms: DashMap<RoomCode, RoomHandle>,
    /// Resume token -> room code.
    tokens: DashMap<ResumeToken, RoomCode>,
    /// Open rooms created from each address.
    rooms_per_ip: DashMap<IpAddr, usize>,
    /// The cluster's shared directory, told of every change (none on a single node).
    feed: Option<Arc<dyn DirectoryFeed>>,
}

/// What a seat rebuilt from its room's log holds in `token`'s place (A9).
fn rebuilt(token: &ResumeToken) -> ResumeToken {
    super::rules::takeover::rebuilt_token(&super::rules::takeover::token_hash(token.as_str()))
}

/// A fresh random room code.
#[allow(clippy::disallowed_methods)] // codes must not be guessable: the thread CSPRNG
pub fn new_code() -> RoomCode {
    let mut rng = rand::thread_rng();
    let code: String = (0..CODE_LEN)
        .map(|_| char::from(CODE_ALPHABET[rng.gen_range(0..CODE_ALPHABET.len())]))
        .collect();
    RoomCode::try_from(code).expect("the alphabet and length make a valid room code")
}

impl Directory {
    /// An empty directory that opens at most `max_rooms` rooms, `max_rooms_per_ip` of them
    /// from any one address.
    pub fn new(max_rooms: usize, max_rooms_per_ip: usize) -> Directory {
        Directory {
            max_rooms,
            max_rooms_per_ip,
            rooms: DashMap::new(),
            tokens: DashMap::new(),
            rooms_per_ip: DashMap::new(),
            feed: None,
        }
    }

    /// The same directory, telling `feed` of every change (cluster mode).
    pub fn with_feed(self, feed: Arc<dyn DirectoryFeed>) -> Directory {
        Directory {
            feed: Some(feed),
            ..self
        }
    }

    /// Every open room with its listing, for a shared directory's lease renewals.
    pub fn rooms(&self) -> Vec<(RoomCode, RoomInfo)> {
        self.rooms
            .iter()
            .filter_map(|r| Some((r.key().clone(), r.value().info.lock().ok()?.clone())))
            .collect()
    }

    /// Every live resume token with its room, for a shared directory's lease renewals.
    pub fn tokens(&self) -> Vec<(ResumeToken, RoomCode)> {
        self.tokens
            .iter()
            .map(|t| (t.key().clone(), t.value().clone()))
            .collect()
    }

    /// A room's listing changed: a shared directory hears of it.
    pub fn changed(&self, code: &RoomCode, info: &RoomInfo) {
        if let Some(s) = self.feed.as_ref() {
            s.changed(code, info);
        }
    }

    /// Whether rooms log their commands (A9): where another node could take them over, or this
    /// server's journal brings them back after a crash.
    pub fn journals(&self) -> bool {
        self.feed.is_some()
    }

    /// Entry `seq` of room `code`'s command log.
    pub fn log(&self, code: &RoomCode, seq: u64, entry: Vec<u8>) {
        if let Some(s) = self.feed.as_ref() {
            s.logged(code, seq, entry);
        }
    }

    /// Answered once room `code`'s log keeps every entry logged so far (see
    /// [`DirectoryFeed::sync`]).
    pub fn sync(&self, code: &RoomCode) -> Option<oneshot::Receiver<Result<(), LogError>>> {
        self.feed.as_ref()?.sync(code)
    }

    /// Room `code` runs elsewhere now: it is forgotten here, and nothing it left in a shared
    /// directory (its keys, its tokens, its log) is touched.
    pub fn abandon(&self, code: &RoomCode, ip: IpAddr) {
        self.rooms.remove(code);
        self.tokens.retain(|_, c| c != code);
        self.release_ip(ip);
        if let Some(s) = self.feed.as_ref() {
            s.abandoned(code);
        }
    }

    /// The per-address room limit.
    pub fn max_rooms_per_ip(&self) -> usize {
        self.max_rooms_per_ip
    }

    /// Open rooms.
    pub fn len(&self) -> usize {
        self.rooms.len()
    }

    /// No room is open.
    pub fn is_empty(&self) -> bool {
        self.rooms.is_empty()
    }

    /// The open room with this code.
    pub fn find(&self, code: &RoomCode) -> Option<RoomHandle> {
        self.rooms.get(code).map(|r| r.value().clone())
    }

    /// The room a resume token belongs to.
    pub fn find_by_token(&self, token: &ResumeToken) -> Option<RoomHandle> {
        let code = match self.tokens.get(token) {
            Some(c) => c.value().clone(),
            // A seat of a room rebuilt here from its log (A9) is known by its token's hash.
            None => self.tokens.get(&rebuilt(token))?.value().clone(),
        };
        self.find(&code)
    }

    /// Run room `code`, rebuilt from its log (A9), here from now on: registered under its
    /// code (claimed in Redis already) with no first command, whatever the limits (its
    /// players are in it already), and its seats' tokens known here.
    pub fn adopt(
        &self,
        ip: IpAddr,
        settings: &Settings,
        code: RoomCode,
        tokens: Vec<ResumeToken>,
    ) -> Option<Opened> {
        let Entry::Vacant(slot) = self.rooms.entry(code.clone()) else {
            return None;
        };
        *self.rooms_per_ip.entry(ip).or_insert(0) += 1;
        let (tx, rx) = mpsc::channel(ROOM_QUEUE);
        let handle = RoomHandle {
            code: code.clone(),
            tx,
            info: Arc::new(Mutex::new(RoomInfo {
                phase: Phase::Lobby,
                players: 0,
                settings: settings.clone(),
                rating: None,
            })),
        };
        slot.insert(handle.clone());
        for token in tokens {
            self.tokens.insert(token.clone(), code.clone());
            if let Some(s) = self.feed.as_ref() {
                s.token_issued(&token, &code);
            }
        }
        Some(Opened { handle, rx })
    }

    /// Open a room created from `ip`, under `code` or else a fresh code (one try: a taken code
    /// is [`OpenError::NoFreeCode`]; [`super::rooms::Rooms::open`] tries again). `first` is
    /// queued before the room can be found by anyone else, so the creator's join is always its
    /// first command.
    pub fn open(
        &self,
        ip: IpAddr,
        settings: &Settings,
        first: RoomCmd,
        code: Option<RoomCode>,
    ) -> Result<Opened, OpenError> {
        if self.rooms.len() >= self.max_rooms {
            return Err(OpenError::ServerFull {
                limit: self.max_rooms,
            });
        }
        {
            let mut n = self.rooms_per_ip.entry(ip).or_insert(0);
            if *n >= self.max_rooms_per_ip {
                return Err(OpenError::AddressFull {
                    ip,
                    limit: self.max_rooms_per_ip,
                });
            }
            *n += 1;
        }
        let code = code.unwrap_or_else(new_code);
        if let Entry::Vacant(slot) = self.rooms.entry(code.clone()) {
            let (tx, rx) = mpsc::channel(ROOM_QUEUE);
            // The channel is new: it has room.
            let _ = tx.try_send(first);
            let handle = RoomHandle {
                code,
                tx,
                info: Arc::new(Mutex::new(RoomInfo {
                    phase: Phase::Lobby,
                    players: 1,
                    settings: settings.clone(),
                    rating: None,
                })),
            };
            slot.insert(handle.clone());
            return Ok(Opened { handle, rx });
        }
        self.release_ip(ip);
        Err(OpenError::NoFreeCode { tries: 1 })
    }

    /// The room is gone: nobody can find it any more, and it no longer counts against the
    /// server's or its creator's (`ip`) room limits.
    pub fn close(&self, code: &RoomCode, ip: IpAddr) {
        self.rooms.remove(code);
        self.release_ip(ip);
        if let Some(s) = self.feed.as_ref() {
            s.closed(code, ip);
        }
    }

    fn release_ip(&self, ip: IpAddr) {
        if let Entry::Occupied(mut e) = self.rooms_per_ip.entry(ip) {
            *e.get_mut() = e.get().saturating_sub(1);
            if *e.get() == 0 {
                e.remove();
            }
        }
    }

    /// A fresh unguessable token for a seat in room `code`, already registered: 128 random
    /// bits from the OS's CSPRNG (as identity keys and the daily secret are), as 32 hex digits.
    pub fn issue_token(&self, code: &RoomCode) -> ResumeToken {
        let token = ResumeToken::from(format!("{:032x}", rand::rngs::OsRng.gen::<u128>()));
        self.tokens.insert(token.clone(), code.clone());
        if let Some(s) = self.feed.as_ref() {
            s.token_issued(&token, code);
        }
        token
    }

    /// The token no longer works.
    pub fn revoke_token(&self, token: &ResumeToken) {
        self.tokens.remove(token);
        self.tokens.remove(&rebuilt(token));
        if let Some(s) = self.feed.as_ref() {
            s.token_revoked(token);
        }
    }

    /// Public rooms in the lobby, by code.
    pub fn list_public(&self) -> Vec<RoomSummary> {
        let mut out: Vec<RoomSummary> = self
            .rooms
            .iter()
            .filter_map(|r| summary(r.key(), &r.value().info.lock().ok()?.clone()))
            .collect();
        out.sort_by(|a, b| a.room.cmp(&b.room));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::oneshot;

    fn cmd() -> RoomCmd {
        let (reply, _) = oneshot::channel();
        RoomCmd::leave(crate::outbox::ConnId(1), reply)
    }

    #[test]
    fn limits_codes_and_tokens() {
        let dir = Directory::new(2, 1);
        let (a, b): (IpAddr, IpAddr) = ([10, 0, 0, 1].into(), [10, 0, 0, 2].into());
        let s = Settings::default();
        let one = dir.open(a, &s, cmd(), None).unwrap();
        assert_eq!(one.handle.code.len(), CODE_LEN);
        assert_eq!(
            dir.open(a, &s, cmd(), None).unwrap_err(),
            OpenError::AddressFull { ip: a, limit: 1 }
        );
        let two = dir.open(b, &s, cmd(), None).unwrap();
        assert_eq!(
            dir.open(b, &s, cmd(), None).unwrap_err(),
            OpenError::ServerFull { limit: 2 }
        );
        let token = dir.issue_token(&two.handle.code);
        assert_eq!(token.len(), 32);
        let found = dir.find_by_token(&token).unwrap();
        assert_eq!(found.code, two.handle.code);
        dir.revoke_token(&token);
        assert!(dir.find_by_token(&token).is_none());
        assert_eq!(dir.list_public().len(), 2);
        dir.close(&one.handle.code, a);
        assert!(dir.find(&one.handle.code).is_none());
        assert_eq!(dir.len(), 1);
        assert!(
            dir.open(a, &s, cmd(), None).is_ok(),
            "the address's room was released"
        );
    }
}
