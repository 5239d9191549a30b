//! A room's command log (A9 takeover): every command its task hands the rules that can change
//! their state, with the monotonic time the task gave them (nanoseconds since the room's
//! epoch, the moment it opened), the wall clock where a race may start, and the seed its
//! rules' RNG was made from. The rules are a pure, seeded state machine, so [`replay`] turns
//! the log back into the same [`Room`] on any node: "a room is its command log".
//!
//! The room layer only writes entries ([`Entry::encode`]) and reads them back; where they
//! are kept is the [`super::directory::DirectoryFeed`]'s business (a Redis stream in a
//! cluster, files on one node: [`super::local_journal`]). Left out, as they change nothing a
//! race depends on: chat (its text stays out of the log) and reports (kept by the store on
//! their own).
//!
//! A seat's resume token is logged as its SHA-256 only, like every key in Redis: a replayed
//! seat holds `#HASH` in its place, which the token it was issued matches and replaces at
//! its first resume (`rules::takeover`).

use std::net::IpAddr;
use std::time::Duration;

use engine::{Grid, Variant};
use protocol::variant::WireLayout;
use protocol::{RaceId, RoomCode, Settings};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::command::Command;
use super::rules::takeover::rebuilt_token;
pub use super::rules::takeover::token_hash;
use super::rules::{MintToken, Room, RoomOpts};
use crate::outbox::ConnId;
use crate::puzzles::SolvedPuzzle;

/// One logged command, at `at` nanoseconds after the room's epoch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Logged {
    /// Nanoseconds since the room opened (its epoch), by the task's monotonic clock.
    pub at: u64,
    /// What the rules were told.
    #[serde(flatten)]
    pub entry: Entry,
}

/// A command the rules were given. `conn` is the connection id the room knew its sender by.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Entry {
    /// The room opened: its settings, the seed of its rules' RNG, a daily room's date and
    /// puzzle (`puzzle` + `solution` lines), and for a pool room the seats it waits for.
    Open {
        /// The room's code.
        code: RoomCode,
        /// Its settings.
        settings: Settings,
        /// The rules' RNG seed.
        seed: u64,
        /// The wall clock at the epoch (how long a lost owner was away is told by it).
        unix_ms: i64,
        /// The address that created it (its rooms-per-address count).
        ip: IpAddr,
        /// A daily room: date, puzzle line, solution line.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        daily: Option<(String, String, String)>,
    },
    /// A member's command, as the task handed it to the rules ([`Command::logged`]: a
    /// resume by its token's hash). A join brings the hashes (hex) of the tokens it minted,
    /// in order.
    Cmd {
        /// The connection.
        conn: u64,
        /// A member on another node: that node and its connection id there.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        remote: Option<(String, u64)>,
        /// The hashes of the tokens a join minted.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tokens: Vec<String>,
        /// The command.
        cmd: Command,
    },
    /// The room was taken over: the member known as `from` is `to` on the new owner.
    Rename {
        /// The old id.
        from: u64,
        /// The new id.
        to: u64,
        /// Its node and connection id there.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        remote: Option<(String, u64)>,
    },
    /// A pool room's race starts (its seats are taken, or its wait ran out).
    PoolStart,
    /// A race's puzzle was dealt (`unix_ms`: the wall clock then).
    Puzzle {
        /// The race.
        race_id: RaceId,
        /// The puzzle line.
        puzzle: String,
        /// The solution line.
        solution: String,
        /// The wall clock.
        unix_ms: i64,
        /// Its variant (A10); absent for classic, as before variants.
        #[serde(
            default,
            with = "protocol::convert::variant",
            skip_serializing_if = "protocol::convert::variant::is_classic"
        )]
        variant: Variant,
        /// A jigsaw's regions or a killer's cages, as the wire carries them.
        #[serde(flatten)]
        layout: WireLayout,
    },
    /// A timer fired (`unix_ms`: the wall clock then).
    Tick {
        /// The wall clock.
        unix_ms: i64,
    },
    /// The room was taken over (A9): the time between the last logged command and this one
    /// does not count against the race.
    Resumed {
        /// How long the room was away, in milliseconds.
        gap_ms: u64,
    },
}

impl Logged {
    /// The entry as one stream field's value (JSON).
    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// An entry read back.
    pub fn decode(bytes: &[u8]) -> Result<Logged, serde_json::Error> {
        serde_json::from_slice(bytes)
    }
}

/// The time `now` as logged: nanoseconds since `epoch`.
pub fn since(epoch: Instant, now: Instant) -> u64 {
    u64::try_from(now.saturating_duration_since(epoch).as_nanos()).unwrap_or(u64::MAX)
}

/// Why a log does not replay.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// It does not begin with the room's opening.
    #[error("the log does not begin with the room's opening")]
    NoOpen,
    /// A logged puzzle is not a grid.
    #[error("a logged puzzle is not a grid")]
    BadGrid,
    /// A logged puzzle's layout does not fit its variant.
    #[error("a logged puzzle's layout does not fit its variant")]
    BadLayout,
}

/// A room rebuilt from its log, and what the room task needs to go on running it.
#[derive(Debug)]
pub struct Replayed {
    /// The rules' state.
    pub room: Room,
    /// The seed its RNG was made from.
    pub seed: u64,
    /// The time of the last entry (nanoseconds since the epoch).
    pub last: u64,
    /// The wall clock at the epoch.
    pub unix_ms: i64,
    /// The epoch it was replayed from.
    pub epoch: Instant,
    /// The address that created the room.
    pub ip: IpAddr,
    /// Members on other nodes, by the id the room knows them by: their node and connection.
    pub remote: std::collections::HashMap<u64, (String, u64)>,
    /// Connection ids the log names, in the order they first appear.
    pub conns: Vec<u64>,
}

fn grid(line: &str) -> Result<Grid, ReplayError> {
    Grid::parse(line).map_err(|_| ReplayError::BadGrid)
}

/// A logged puzzle of `variant` with `layout`.
fn solved_in(
    puzzle: &str,
    solution: &str,
    variant: Variant,
    layout: &WireLayout,
) -> Result<SolvedPuzzle, ReplayError> {
    let mut dealt = solved(puzzle, solution)?;
    if variant != Variant::Classic {
        let geometry = layout
            .geometry(variant)
            .map_err(|_| ReplayError::BadLayout)?;
        dealt.geometry = std::sync::Arc::new(geometry);
    }
    Ok(dealt)
}

fn solved(puzzle: &str, solution: &str) -> Result<SolvedPuzzle, ReplayError> {
    Ok(SolvedPuzzle::classic(grid(puzzle)?, grid(solution)?))
}

/// Rebuild a room by giving its rules every logged command at `epoch` plus its logged time.
/// The effects they push are dropped: everyone heard them when the room first ran.
pub fn replay(
    log: impl IntoIterator<Item = Logged>,
    epoch: Instant,
    opts: RoomOpts,
) -> Result<Replayed, ReplayError> {
    let mut log = log.into_iter();
    let Some(Logged {
        entry:
            Entry::Open {
                code,
                settings,
                seed,
                daily,
                unix_ms,
                ip,
            },
        ..
    }) = log.next()
    else {
        return Err(ReplayError::NoOpen);
    };
    let minted = std::sync::Arc::new(std::sync::Mutex::new(
        std::collections::VecDeque::<String>::new(),
    ));
    let from_log = minted.clone();
    let mint = MintToken(Box::new(move || {
        let next = from_log.lock().ok().and_then(|mut q| q.pop_front());
        rebuilt_token(&next.unwrap_or_default())
    }));
    let rng = <Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(seed);
    let mut room = Room::new(code, settings, opts, rng, mint);
    if let Some((date, puzzle, solution)) = daily {
        room.make_daily(date, solved(&puzzle, &solution)?);
    }
    let mut out = Replayed {
        room,
        seed,
        last: 0,
        unix_ms,
        epoch,
        ip,
        remote: Default::default(),
        conns: Vec::new(),
    };
    for Logged { at, entry } in log {
        let now = epoch + Duration::from_nanos(at);
        if let Entry::Cmd { tokens, .. } = &entry {
            if let Ok(mut q) = minted.lock() {
                q.extend(tokens.iter().cloned());
            }
        }
        remember_remote(&mut out.remote, &entry);
        if let Some(c) = entry.conn() {
            if !out.conns.contains(&c) {
                out.conns.push(c);
            }
        }
        apply(&mut out.room, entry, now)?;
        let _ = out.room.take_effects();
        out.last = at;
    }
    Ok(out)
}

/// A room rebuilt on a new owner at `now` (`unix_ms` on the wall clock) from its whole log:
/// replayed on a timeline that puts the last logged command as long ago as it was (by the
/// wall clock, from the room's opening), then paused for that gap: the time the room was
/// away counts against nobody. Also the gap.
pub fn rebuild(
    log: Vec<Logged>,
    now: Instant,
    unix_ms: i64,
    opts: RoomOpts,
) -> Result<(Replayed, Duration), ReplayError> {
    let Some(Logged {
        entry: Entry::Open {
            unix_ms: opened, ..
        },
        ..
    }) = log.first()
    else {
        return Err(ReplayError::NoOpen);
    };
    let last = log.last().map_or(0, |l| l.at);
    let last_wall = opened.saturating_add(i64::try_from(last / 1_000_000).unwrap_or(i64::MAX));
    let gap = Duration::from_millis(u64::try_from(unix_ms.saturating_sub(last_wall)).unwrap_or(0));
    let away = Duration::from_nanos(last) + gap;
    // A monotonic clock younger than the room (a host booted since) cannot place its
    // epoch: the room then runs as if its last command were now.
    let epoch = now
        .checked_sub(away)
        .or_else(|| now.checked_sub(Duration::from_nanos(last)))
        .unwrap_or(now);
    let mut r = replay(log, epoch, opts)?;
    r.epoch = epoch;
    r.room.pause_race(gap);
    Ok((r, gap))
}

/// A member on another node, as `entry` names it: kept by the id the room knows it by.
fn remember_remote(remote: &mut std::collections::HashMap<u64, (String, u64)>, entry: &Entry) {
    match &entry {
        Entry::Cmd {
            conn,
            remote: Some(r),
            ..
        }
        | Entry::Rename {
            to: conn,
            remote: Some(r),
            ..
        } => {
            remote.insert(*conn, r.clone());
        }
        _ => {}
    }
}

impl Entry {
    /// The connection the entry names, if any.
    pub fn conn(&self) -> Option<u64> {
        match self {
            Entry::Cmd { conn, .. } => Some(*conn),
            _ => None,
        }
    }
}

/// Give the rules one logged command at `now`.
fn apply(room: &mut Room, entry: Entry, now: Instant) -> Result<(), ReplayError> {
    match entry {
        Entry::Open { .. } => {}
        Entry::Cmd { conn, cmd, .. } => cmd.replay(room, ConnId(conn), now),
        Entry::Rename { from, to, .. } => room.rename_conn(ConnId(from), ConnId(to)),
        Entry::PoolStart => room.start_pool_race(now),
        Entry::Puzzle {
            race_id,
            puzzle,
            solution,
            unix_ms,
            variant,
            layout,
        } => {
            let dealt = solved_in(&puzzle, &solution, variant, &layout)?;
            room.puzzle_ready(&race_id, dealt, now, unix_ms);
        }
        Entry::Tick { unix_ms } => room.tick(now, unix_ms),
        Entry::Resumed { gap_ms } => room.pause_race(Duration::from_millis(gap_ms)),
    }
    Ok(())
}

#[cfg(test)]
mod tests;
