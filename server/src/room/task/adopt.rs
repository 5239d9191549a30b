//! A room taken over from a lost node (A9): rebuilt from its log, registered here, and run
//! by a task like any room from where its log ends.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::journaling::Journal;
use super::{now, run, Task};
use crate::clock::unix_ms;
use crate::room::endpoint::Endpoint;
use crate::room::handle::{Command, RoomHandle};
use crate::room::journal::{self, Entry, Replayed};
use crate::room::task::RoomEnv;

/// Rebuild a room from its `log` and run it here: `keep` gives each member on a live node
/// (by the node and connection the log names) its endpoint here, and every other member is
/// dropped (its seat is held for a resume on any node). `None`: the log does not replay, or
/// the room runs here already.
pub fn adopt(
    env: &Arc<RoomEnv>,
    log: Vec<journal::Logged>,
    mut keep: impl FnMut(&str, u64) -> Option<Endpoint>,
) -> Option<RoomHandle> {
    let start = now();
    let logged = log.len() as u64;
    let (r, gap) = match journal::rebuild(log, start, unix_ms(), env.opts.clone()) {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(error = %e, "a room's log does not replay");
            return None;
        }
    };
    let Replayed {
        mut room,
        seed,
        epoch,
        ip,
        remote,
        ..
    } = r;
    let code = room.code().clone();
    let opened = env
        .directory
        .adopt(ip, room.settings(), code.clone(), room.tokens())?;
    env.metrics.rooms.inc();
    let journal = Journal::new(env.directory.clone(), code.clone(), epoch).numbered_from(logged);
    room.set_mint(Journal::mint(
        Some(&journal),
        env.directory.clone(),
        code.clone(),
    ));
    let handle = opened.handle;
    let mut t = Task::new(env, room, &handle, ip, Some(journal));
    t.take_over(gap, &remote, &mut keep, start);
    let span = tracing::info_span!("room", room = %code);
    let gap_ms = gap.as_millis();
    tracing::info!(room = %code, gap_ms, "room taken over");
    let mut rx = opened.rx;
    let go = async move {
        // What the takeover said (the views, the dropped seats) goes out first.
        t.apply(&mut rx).await;
        run(t, rx, seed).await;
    };
    env.tasks.spawn(tracing::Instrument::instrument(go, span));
    Some(handle)
}

impl Task {
    /// The room goes on here: the gap is logged (the race paused for it already), members
    /// kept are renamed to their ids here and shown the room as it stands, the rest dropped.
    fn take_over(
        &mut self,
        gap: Duration,
        remote: &HashMap<u64, (String, u64)>,
        keep: &mut impl FnMut(&str, u64) -> Option<Endpoint>,
        now: tokio::time::Instant,
    ) {
        let gap_ms = u64::try_from(gap.as_millis()).unwrap_or(u64::MAX);
        self.log(now, Entry::Resumed { gap_ms });
        let mut kept = Vec::new();
        for old in self.room.conns() {
            let endpoint = remote
                .get(&old.0)
                .and_then(|(node, conn)| keep(node, *conn).map(|e| (e, node, *conn)));
            match endpoint {
                Some((e, node, conn)) => {
                    let to = e.id();
                    self.room.rename_conn(old, to);
                    let entry = Entry::Rename {
                        from: old.0,
                        to: to.0,
                        remote: Some((node.clone(), conn)),
                    };
                    self.log(now, entry);
                    self.conns.insert(to, e);
                    kept.push(to);
                }
                None => {
                    self.room.dropped(old, now);
                    let entry = Entry::Cmd {
                        conn: old.0,
                        remote: None,
                        tokens: Vec::new(),
                        cmd: Command::Dropped,
                    };
                    self.log(now, entry);
                }
            }
        }
        for c in kept {
            self.room.show_room(c, now);
        }
    }
}
