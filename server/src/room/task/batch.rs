//! A journaling room takes what queued while its log kept the last commands all at once:
//! the rules are given them one by one, in order, each at its own time, and their effects
//! wait for one `sync` together instead of one each (a room's commands would otherwise go no
//! faster than one per `fdatasync` of the log).

use tokio::sync::mpsc;

use super::Task;
use crate::room::handle::RoomCmd;

/// Commands taken at once after the first, at most.
const MORE: usize = 64;

/// Hand the rules what is queued already for room `t`, while it keeps a log and stays open.
pub(super) fn more(t: &mut Task, rx: &mut mpsc::Receiver<RoomCmd>) {
    if t.journal.is_none() {
        return;
    }
    for _ in 0..MORE {
        if t.room.is_closed() || (t.room.is_empty() && t.expect.is_none()) {
            return;
        }
        match rx.try_recv() {
            Ok(cmd) => t.command(cmd),
            Err(_) => return,
        }
    }
}
