//! The room task's side of its command log (A9, [`crate::room::journal`]): each command the
//! rules are given that can change their state goes to the directory's feed with the time
//! the task gave it, so another node can rebuild the room if this one is lost.

use std::sync::{Arc, Mutex};

use tokio::time::Instant;

use super::Task;
use crate::outbox::ConnId;
use crate::puzzles::SolvedPuzzle;
use crate::room::endpoint::Endpoint;
use crate::room::handle::{Command, Link};
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

    /// What the log keeps of member `conn`'s command `cmd` (reached through `link`), if the
    /// room keeps a log.
    pub(super) fn entry(&self, conn: ConnId, cmd: &Command, link: &Link) -> Option<Entry> {
        self.journal.as_ref()?;
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

    /// Log `entry`, given to the rules at `now` (a join with the tokens it minted).
    pub(super) fn log_entry(&self, now: Instant, entry: Option<Entry>) {
        let (Some(j), Some(mut entry)) = (&self.journal, entry) else {
            return;
        };
        if let Entry::Cmd {
            tokens,
            cmd: Command::Join { .. },
            ..
        } = &mut entry
        {
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
