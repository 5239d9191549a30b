//! Who is in a room: the seats (held ones included) with their names, tokens and ready
//! marks, the spectators, the host and its hand-over, and the checks a new seat must pass.
//! It knows nothing of races: a seat's status is only what the room last set on it.

use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

use protocol::{ErrorCode, Player, PlayerId, PlayerName, PlayerStatus, ResumeToken, Role, You};
use tokio::time::Instant;

use super::Identity;
use crate::outbox::ConnId;

/// Mints a registered resume token for a new seat (the directory's CSPRNG, never the room's
/// seeded RNG: a token is a secret).
pub struct MintToken(pub Box<dyn FnMut() -> ResumeToken + Send>);

impl fmt::Debug for MintToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MintToken")
    }
}

/// A token's SHA-256, in hex: how a room's log names it (A9).
pub fn token_hash(token: &str) -> String {
    use sha2::Digest;
    crate::hex::hex(&sha2::Sha256::digest(token.as_bytes()))
}

/// What a replayed seat holds in its token's place: `#` and the token's hash.
pub fn rebuilt_token(hash: &str) -> protocol::ResumeToken {
    protocol::ResumeToken::from(format!("#{hash}"))
}

/// Whether `offered` is the token a seat holds (`held`), or the one a replayed seat's
/// `#HASH` stands for.
pub fn token_matches(held: &str, offered: &str) -> bool {
    if held == offered {
        return true;
    }
    match held.strip_prefix('#') {
        Some(hash) => !offered.starts_with('#') && token_hash(offered) == hash,
        None => false,
    }
}

/// Why a connection cannot have what it asked for.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The error code sent.
    pub code: ErrorCode,
    /// The message sent.
    pub message: String,
}

impl Refusal {
    pub(super) fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }
}

/// One player's place in the room, kept while they are dropped.
#[derive(Debug)]
pub(super) struct Seat {
    pub(super) player_id: PlayerId,
    pub(super) name: PlayerName,
    pub(super) token: ResumeToken,
    pub(super) conn: Option<ConnId>,
    /// The address it joined from (barred with its name after a kick).
    pub(super) addr: Option<IpAddr>,
    pub(super) ready: bool,
    pub(super) status: PlayerStatus,
    pub(super) dropped_at: Option<Instant>,
    /// The identity that holds the seat (A6).
    pub(super) who: Identity,
}

impl Seat {
    /// The seat on the wire.
    pub(super) fn player(&self) -> Player {
        Player {
            player_id: self.player_id.clone(),
            name: self.name.clone(),
            ready: self.ready,
            connected: self.conn.is_some(),
            status: self.status,
            handle: self.who.handle.clone(),
            bot: self.who.bot,
            ghost: false,
        }
    }

    /// The seat's holder as `room_joined` tells them.
    pub(super) fn you(&self) -> You {
        You {
            player_id: Some(self.player_id.clone()),
            token: Some(self.token.clone()),
            role: Role::Player,
        }
    }
}

#[derive(Debug)]
struct Spectator {
    conn: ConnId,
    name: PlayerName,
    /// Asked for the players' delayed boards (A8).
    boards: bool,
}

/// What a connection is in the room.
pub(super) enum Membership {
    Seat(usize),
    Spectator(usize),
}

/// The seats and spectators of one room.
#[derive(Debug)]
pub(super) struct Seats {
    seats: Vec<Seat>,
    spectators: Vec<Spectator>,
    /// The host; none in a pool room (A7), or before the first seat.
    host: Option<PlayerId>,
    /// A pool room: nobody becomes host.
    hostless: bool,
    /// A pool room still taking the seats the pool formed it for (A7): until the pool starts
    /// it, its joins are the pool's; after, nobody takes a seat by `join_room`.
    pool_seating: bool,
    next_player: u32,
    mint: MintToken,
}

/// A name as sent (a spectator may send none, and is then `spectator`), checked by A3.
pub(super) fn parse_name(raw: Option<&str>) -> Result<PlayerName, Refusal> {
    PlayerName::try_from(raw.unwrap_or("spectator"))
        .map_err(|why| Refusal::new(ErrorCode::InvalidName, why.to_string()))
}

impl Seats {
    /// No seats yet; with `hostless`, nobody ever becomes host (a pool room).
    pub(super) fn new(mint: MintToken, hostless: bool) -> Seats {
        Seats {
            seats: Vec::new(),
            spectators: Vec::new(),
            host: None,
            hostless,
            pool_seating: hostless,
            next_player: 1,
            mint,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.seats.len()
    }

    /// The names of the seated players whose client cannot draw `variant` (A10).
    pub(super) fn names_not_drawing(&self, variant: engine::Variant) -> Vec<String> {
        self.seats
            .iter()
            .filter(|s| !s.who.draws.has(variant))
            .map(|s| s.name.to_string())
            .collect()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.seats.is_empty()
    }

    /// Whether a pool room is still taking the pool's seats.
    pub(super) fn pool_seating(&self) -> bool {
        self.pool_seating
    }

    /// The pool has seated everyone it formed the room for: no more seats are the pool's.
    pub(super) fn end_pool_seating(&mut self) {
        self.pool_seating = false;
    }

    pub(super) fn host(&self) -> Option<&PlayerId> {
        self.host.as_ref()
    }

    pub(super) fn seat(&self, i: usize) -> &Seat {
        &self.seats[i]
    }

    pub(super) fn seat_mut(&mut self, i: usize) -> &mut Seat {
        &mut self.seats[i]
    }

    /// Set the status of the seats whose player `which` picks; their ids and names.
    pub(super) fn set_status(
        &mut self,
        status: PlayerStatus,
        which: impl Fn(&PlayerId) -> bool,
    ) -> Vec<(PlayerId, PlayerName)> {
        self.seats
            .iter_mut()
            .filter(|s| which(&s.player_id))
            .map(|s| {
                s.status = status;
                (s.player_id.clone(), s.name.clone())
            })
            .collect()
    }

    /// Who holds each seat (A6).
    pub(super) fn identities(&self) -> Vec<(PlayerId, Identity)> {
        self.seats
            .iter()
            .map(|s| (s.player_id.clone(), s.who.clone()))
            .collect()
    }

    /// The handles of the seats held by identified humans.
    pub(super) fn rated_handles(&self) -> Vec<String> {
        let rated = self.seats.iter().filter(|s| s.who.rateable());
        rated.filter_map(|s| s.who.handle.clone()).collect()
    }

    /// Every seat on the wire.
    pub(super) fn players(&self) -> Vec<Player> {
        self.seats.iter().map(Seat::player).collect()
    }

    pub(super) fn member(&self, conn: ConnId) -> Option<Membership> {
        if let Some(i) = self.seats.iter().position(|s| s.conn == Some(conn)) {
            return Some(Membership::Seat(i));
        }
        self.spectators
            .iter()
            .position(|s| s.conn == conn)
            .map(Membership::Spectator)
    }

    /// The connection of player `player_id`'s seat, if it has one now.
    pub(super) fn conn_of(&self, player_id: &PlayerId) -> Option<ConnId> {
        self.seats
            .iter()
            .find(|s| s.player_id == *player_id)
            .and_then(|s| s.conn)
    }

    /// The seat `conn` holds, if any.
    pub(super) fn seat_of_conn(&self, conn: ConnId) -> Option<&Seat> {
        self.seats.iter().find(|s| s.conn == Some(conn))
    }

    /// The name a member chats under, and their player id if they hold a seat.
    pub(super) fn speaker(&self, conn: ConnId) -> Option<(Option<PlayerId>, PlayerName)> {
        match self.member(conn)? {
            Membership::Seat(i) => Some((
                Some(self.seats[i].player_id.clone()),
                self.seats[i].name.clone(),
            )),
            Membership::Spectator(i) => Some((None, self.spectators[i].name.clone())),
        }
    }

    /// Every connected member.
    pub(super) fn audience(&self) -> Vec<ConnId> {
        self.seats
            .iter()
            .filter_map(|s| s.conn)
            .chain(self.spectators.iter().map(|s| s.conn))
            .collect()
    }

    /// The connections of seats racing or about to (A8: whose round trips are measured).
    pub(super) fn racing_conns(&self) -> Vec<ConnId> {
        self.seats
            .iter()
            .filter(|s| matches!(s.status, PlayerStatus::Racing | PlayerStatus::Waiting))
            .filter_map(|s| s.conn)
            .collect()
    }

    pub(super) fn add_spectator(&mut self, conn: ConnId, name: PlayerName) {
        self.spectators.push(Spectator {
            conn,
            name,
            boards: false,
        });
    }

    /// The spectator on `conn` gets the delayed boards from now on (A8). Whether it is one.
    pub(super) fn watch_boards(&mut self, conn: ConnId) -> bool {
        let found = self.spectators.iter_mut().find(|s| s.conn == conn);
        found.map(|s| s.boards = true).is_some()
    }

    /// Whether any spectator asked for boards.
    pub(super) fn has_board_watchers(&self) -> bool {
        self.spectators.iter().any(|s| s.boards)
    }

    /// The spectators that asked for boards.
    pub(super) fn board_watchers(&self) -> Vec<ConnId> {
        let watching = self.spectators.iter().filter(|s| s.boards);
        watching.map(|s| s.conn).collect()
    }

    /// Whether a new seat named `name` fits among `max_players`.
    pub(super) fn check_seat(
        &self,
        name: &PlayerName,
        who: &Identity,
        max_players: u8,
    ) -> Result<(), Refusal> {
        if self.seats.len() >= usize::from(max_players) {
            return Err(Refusal::new(ErrorCode::RoomFull, "the room is full"));
        }
        // One identity, one seat: two seats under one key would race themselves for rating.
        if who.handle.is_some() && self.seats.iter().any(|s| s.who.handle == who.handle) {
            return Err(Refusal::new(
                ErrorCode::AlreadyInRoom,
                "this identity already has a seat in the room",
            ));
        }
        self.check_player_names(name)
    }

    /// Whether a spectator named `name` fits among `max_spectators`. Spectators may share a
    /// name with each other (many are just `spectator`), never with a seat.
    pub(super) fn check_spectator(
        &self,
        name: &PlayerName,
        max_spectators: usize,
    ) -> Result<(), Refusal> {
        if self.spectators.len() >= max_spectators {
            return Err(Refusal::new(
                ErrorCode::RoomFull,
                "the room has as many spectators as it takes",
            ));
        }
        self.check_player_names(name)
    }

    /// A name is taken when a seat (held ones included) has the same key: case-folded and
    /// confusable-skeleton equal (A3), so nobody can pass for a player.
    fn check_player_names(&self, name: &PlayerName) -> Result<(), Refusal> {
        let key = name.key();
        if self.seats.iter().any(|s| s.name.key() == key) {
            return Err(Refusal::new(
                ErrorCode::NameTaken,
                "that name is taken in this room",
            ));
        }
        Ok(())
    }

    /// Seat `conn` under `name` (checked by [`Seats::check_seat`]) with a fresh token; the
    /// first seat is host.
    pub(super) fn add_seat(
        &mut self,
        conn: ConnId,
        addr: IpAddr,
        name: PlayerName,
        who: Identity,
    ) -> &Seat {
        let token = (self.mint.0)();
        let player_id = PlayerId::from(format!("p{}", self.next_player));
        self.next_player += 1;
        if self.seats.is_empty() && !self.hostless {
            self.host = Some(player_id.clone());
        }
        self.seats.push(Seat {
            player_id,
            name,
            token,
            conn: Some(conn),
            addr: Some(addr),
            ready: false,
            status: PlayerStatus::Waiting,
            dropped_at: None,
            who,
        });
        &self.seats[self.seats.len() - 1]
    }

    /// The seat of player `player_id`.
    pub(super) fn by_player_id(&self, player_id: &str) -> Option<usize> {
        self.seats
            .iter()
            .position(|s| s.player_id.as_str() == player_id)
    }

    /// The seat `token` belongs to (a replayed seat's `#HASH` stands for its token, A9).
    pub(super) fn by_token(&self, token: &str) -> Option<usize> {
        self.seats
            .iter()
            .position(|s| token_matches(s.token.as_str(), token))
    }

    /// Every connection in the room, seats' and spectators'.
    pub(super) fn conns(&self) -> Vec<ConnId> {
        let seats = self.seats.iter().filter_map(|s| s.conn);
        seats
            .chain(self.spectators.iter().map(|s| s.conn))
            .collect()
    }

    /// The connection `from` is `to` from now on (a room taken over, A9).
    pub(super) fn rename(&mut self, from: ConnId, to: ConnId) {
        for s in &mut self.seats {
            if s.conn == Some(from) {
                s.conn = Some(to);
            }
        }
        for s in &mut self.spectators {
            if s.conn == from {
                s.conn = to;
            }
        }
    }

    /// Every seat's token (held ones included).
    pub(super) fn tokens(&self) -> Vec<ResumeToken> {
        self.seats.iter().map(|s| s.token.clone()).collect()
    }

    /// New seats' tokens come from `mint` from now on.
    pub(super) fn set_mint(&mut self, mint: MintToken) {
        self.mint = mint;
    }

    /// Seat `i`'s holder came back with `token`: a replayed seat holds it again in place of
    /// its hash, so its `room_joined` shows it.
    pub(super) fn token_back(&mut self, i: usize, token: &str) {
        let seat = &mut self.seats[i];
        if seat.token.as_str().starts_with('#') && !token.starts_with('#') {
            seat.token = ResumeToken::from(token.to_owned());
        }
    }

    /// Seat `i` is now on `conn`: the connection it had before, if any, and whether it was
    /// held (dropped).
    pub(super) fn reconnect(&mut self, i: usize, conn: ConnId) -> (Option<ConnId>, bool) {
        let old = self.seats[i].conn.replace(conn);
        let was_dropped = self.seats[i].dropped_at.take().is_some();
        (old, was_dropped)
    }

    /// The transport of `conn` dropped: a seat is held (its player returned), a spectator
    /// is gone.
    pub(super) fn drop_conn(&mut self, conn: ConnId, now: Instant) -> Option<Player> {
        match self.member(conn)? {
            Membership::Seat(i) => {
                let seat = &mut self.seats[i];
                seat.conn = None;
                seat.dropped_at = Some(now);
                Some(seat.player())
            }
            Membership::Spectator(i) => {
                self.spectators.remove(i);
                None
            }
        }
    }

    pub(super) fn remove_spectator(&mut self, i: usize) {
        self.spectators.remove(i);
    }

    /// Every spectator leaves; their connections.
    pub(super) fn drain_spectators(&mut self) -> Vec<ConnId> {
        self.spectators.drain(..).map(|s| s.conn).collect()
    }

    /// Remove seat `i`; when it was the host's and a seat remains, the new host.
    pub(super) fn remove_seat(&mut self, i: usize) -> (Seat, Option<PlayerId>) {
        let seat = self.seats.remove(i);
        let mut new_host = None;
        if self.host.as_ref() == Some(&seat.player_id) {
            if let Some(next) = self.seats.first() {
                self.host = Some(next.player_id.clone());
                new_host = self.host.clone();
            }
        }
        (seat, new_host)
    }

    /// A held seat whose grace ran out by `now`.
    pub(super) fn expired(&self, now: Instant, grace: Duration) -> Option<usize> {
        self.seats
            .iter()
            .position(|s| s.dropped_at.is_some_and(|d| now >= d + grace))
    }

    /// When the first held seat expires.
    pub(super) fn next_expiry(&self, grace: Duration) -> Option<Instant> {
        self.seats
            .iter()
            .filter_map(|s| s.dropped_at)
            .min()
            .map(|d| d + grace)
    }
}
