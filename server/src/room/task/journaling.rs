//! The room task's side of its command log (A9, [`crate::room::journal`]): each command the
//! rules are given that can change their state goes to the directory's feed with the time
//! the task gave it, so another node can rebuild the room if this one is lost.

use std::sync::{Arc, Mutex};

use tokio::time::Instant;

use super::Task;
use crate::puzzles::SolvedPuzzle;
use crate::room::endpoint::Endpoint;
use crate::room::handle::{RoomCmd, RoomMsg};
use crate::room::journal::{self, Entry, Logged};

/// A journaling room's epoch and the hashes of the tokens its seats were minted.
#[derive(Debug)]
pub(super) struct Journal {
    /// The moment the room opened: logged times count from it.
    pub(super) epoch: Instant,
    /// The SHA-256 of each token minted since the last join was logged.
    pub(super) minted: Arc<Mutex<Vec<String>>>,
}

impl Task {
    /// Log `entry` as given to the rules at `now` (nothing when the room keeps no log).
    pub(super) fn log(&self, now: Instant, entry: Entry) {
        let Some(j) = &self.journal else { return };
        let at = journal::since(j.epoch, now);
        let bytes = Logged { at, entry }.encode();
        self.env.directory.log(self.room.code(), bytes);
    }

    /// What the log keeps of `cmd`, if the room keeps a log.
    pub(super) fn entry(&self, cmd: &RoomCmd) -> Option<Entry> {
        self.journal.as_ref().and_then(|_| entry_of(cmd))
    }

    /// Log `entry`, given to the rules at `now` (a join with the tokens it minted).
    pub(super) fn log_entry(&self, now: Instant, entry: Option<Entry>) {
        let (Some(j), Some(mut entry)) = (&self.journal, entry) else {
            return;
        };
        if let Entry::Join { tokens, .. } = &mut entry {
            if let Ok(mut minted) = j.minted.lock() {
                *tokens = std::mem::take(&mut *minted);
            }
        }
        self.log(now, entry);
    }

    /// Log a dealt puzzle.
    pub(super) fn log_puzzle(
        &self,
        now: Instant,
        race_id: &protocol::RaceId,
        dealt: &SolvedPuzzle,
        unix_ms: i64,
    ) {
        if self.journal.is_none() {
            return;
        }
        let entry = Entry::Puzzle {
            race_id: race_id.clone(),
            puzzle: dealt.puzzle.to_line(),
            solution: dealt.solution.to_line(),
            unix_ms,
        };
        self.log(now, entry);
    }
}

/// What the log keeps of a command (`None`: nothing the rules' state depends on).
fn entry_of(cmd: &RoomCmd) -> Option<Entry> {
    Some(match cmd {
        RoomCmd::Join {
            conn,
            addr,
            name,
            role,
            who,
            ..
        } => Entry::Join {
            conn: conn.id().0,
            addr: *addr,
            name: name.clone(),
            role: *role,
            who: who.into(),
            remote: remote(conn),
            tokens: Vec::new(),
        },
        RoomCmd::Resume { conn, token, .. } => Entry::Resume {
            conn: conn.id().0,
            token: journal::token_hash(token.as_str()),
            remote: remote(conn),
        },
        RoomCmd::Leave { conn, .. } => Entry::Leave { conn: conn.0 },
        RoomCmd::Requeue { conn, .. } => Entry::Requeue { conn: conn.0 },
        RoomCmd::Dropped { conn } => Entry::Dropped { conn: conn.0 },
        RoomCmd::PoolStart => Entry::PoolStart,
        RoomCmd::Msg { conn, msg } => msg_entry(conn.0, msg)?,
        // A late result's ratings are told, not kept: the rules never see them.
        RoomCmd::PoolExpect { .. } | RoomCmd::PuzzleReady { .. } | RoomCmd::Ratings { .. } => {
            return None
        }
    })
}

/// A member on another node: its node and its connection there.
pub(super) fn remote(conn: &Endpoint) -> Option<(String, u64)> {
    match conn {
        Endpoint::Local(_) => None,
        Endpoint::Remote(r) => Some((r.node.to_string(), r.conn)),
    }
}

fn msg_entry(conn: u64, msg: &RoomMsg) -> Option<Entry> {
    Some(match msg {
        RoomMsg::SetReady(ready) => Entry::Ready {
            conn,
            ready: *ready,
        },
        RoomMsg::StartRace => Entry::Start { conn },
        RoomMsg::Place { cell, digit, .. } => Entry::Place {
            conn,
            cell: cell.get(),
            digit: digit.get(),
        },
        RoomMsg::Forfeit => Entry::Forfeit { conn },
        RoomMsg::SetSettings(settings) => Entry::Settings {
            conn,
            settings: settings.clone(),
        },
        RoomMsg::Kick(player) => Entry::Kick {
            conn,
            player: player.clone(),
        },
        RoomMsg::Lag(rtt) => Entry::Lag { conn, rtt: *rtt },
        RoomMsg::WatchBoards => Entry::Boards { conn },
        // Chat changes nothing a race depends on, and its text stays out of Redis; a report
        // is kept by the store on its own; a resync only sends views again.
        RoomMsg::Chat(_) | RoomMsg::Report { .. } | RoomMsg::Resync => return None,
    })
}
