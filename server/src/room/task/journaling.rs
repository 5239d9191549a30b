//! The room task's side of its command log (A9, [`crate::room::journal`]): each command the
//! rules are given that can change their state goes to the directory's feed with the time
//! the task gave it, so another node can rebuild the room if this one is lost.

use std::sync::{Arc, Mutex};

use protocol::RoomCode;
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::outbox::ConnId;
use crate::puzzles::SolvedPuzzle;
use crate::room::directory::{Directory, LogError};
use crate::room::endpoint::Endpoint;
use crate::room::handle::{Command, Link};
use crate::room::journal::{self, Entry, Logged};
use crate::room::rules::MintToken;

/// A journaling room's log: where it goes, its epoch, and the hashes of the tokens its seats
/// were minted.
#[derive(Debug)]
pub(super) struct Journal {
    /// The moment the room opened: logged times count from it.
    epoch: Instant,
    /// The SHA-256 of each token minted since the last join was logged.
    minted: Arc<Mutex<Vec<String>>>,
    /// Where the log goes.
    directory: Arc<Directory>,
    /// The room.
    code: RoomCode,
    /// The entries given to the log and not yet known to be kept.
    unsynced: Mutex<Unsynced>,
}

/// A log's entries not yet known to be kept, and the last entry's number.
#[derive(Debug, Default)]
struct Unsynced {
    seq: u64,
    entries: Vec<(u64, Vec<u8>)>,
}

impl Journal {
    /// Room `code`'s log, counting from `epoch`.
    pub(super) fn new(directory: Arc<Directory>, code: RoomCode, epoch: Instant) -> Journal {
        Journal {
            epoch,
            minted: Arc::default(),
            directory,
            code,
            unsynced: Mutex::default(),
        }
    }

    /// A journal that goes on from entry `seq` (a room rebuilt from its log).
    pub(super) fn numbered_from(self, seq: u64) -> Journal {
        if let Ok(mut u) = self.unsynced.lock() {
            u.seq = seq;
        }
        self
    }

    /// How room `code` mints its seats' tokens: from the directory, and in a journaling room
    /// with each token's hash noted for the join that minted it.
    pub(super) fn mint(
        journal: Option<&Journal>,
        directory: Arc<Directory>,
        code: RoomCode,
    ) -> MintToken {
        let minted = journal.map(|j| j.minted.clone());
        MintToken(Box::new(move || {
            let token = directory.issue_token(&code);
            if let Some(Ok(mut m)) = minted.as_ref().map(|m| m.lock()) {
                m.push(journal::token_hash(token.as_str()));
            }
            token
        }))
    }

    /// The moment the room opened.
    pub(super) fn epoch(&self) -> Instant {
        self.epoch
    }

    /// Log `entry` as given to the rules at `now`.
    pub(super) fn log(&self, now: Instant, entry: Entry) {
        let at = journal::since(self.epoch, now);
        let bytes = Logged { at, entry }.encode();
        let Ok(mut u) = self.unsynced.lock() else {
            return;
        };
        u.seq += 1;
        let seq = u.seq;
        u.entries.push((seq, bytes.clone()));
        self.directory.log(&self.code, seq, bytes);
    }

    /// Whether some entries are not yet known to be kept.
    pub(super) fn pending(&self) -> bool {
        self.unsynced.lock().is_ok_and(|u| !u.entries.is_empty())
    }

    /// Ask the log whether it keeps every entry given so far (`None`: nothing to wait for).
    pub(super) fn sync(&self) -> Option<oneshot::Receiver<Result<(), LogError>>> {
        self.directory.sync(&self.code)
    }

    /// The log keeps every entry given so far.
    pub(super) fn synced(&self) {
        if let Ok(mut u) = self.unsynced.lock() {
            u.entries.clear();
        }
    }

    /// Give the entries not yet known to be kept again (each is kept once, by its number).
    pub(super) fn resend(&self) {
        let again = self.unsynced.lock().map(|u| u.entries.clone());
        for (seq, bytes) in again.unwrap_or_default() {
            self.directory.log(&self.code, seq, bytes);
        }
    }

    /// Log `entry`, given to the rules at `now` (a join with the tokens it minted).
    pub(super) fn log_entry(&self, now: Instant, entry: Option<Entry>) {
        let Some(mut entry) = entry else { return };
        if let Entry::Cmd {
            tokens,
            cmd: Command::Join { .. },
            ..
        } = &mut entry
        {
            if let Ok(mut minted) = self.minted.lock() {
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
        let entry = Entry::Puzzle {
            race_id: race_id.clone(),
            puzzle: dealt.puzzle.to_line(),
            solution: dealt.solution.to_line(),
            unix_ms,
            variant: dealt.variant(),
            layout: protocol::variant::WireLayout::of(dealt.geometry()),
        };
        self.log(now, entry);
    }
}

/// What the log keeps of member `conn`'s command `cmd`, reached through `link`.
pub(super) fn entry(conn: ConnId, cmd: &Command, link: &Link) -> Option<Entry> {
    let remote = match link {
        Link::Enter(Endpoint::Remote(r), _) => Some((r.node.to_string(), r.conn)),
        _ => None,
    };
    Some(Entry::Cmd {
        conn: conn.0,
        remote,
        tokens: Vec::new(),
        cmd: cmd.logged()?,
    })
}
