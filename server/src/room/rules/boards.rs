//! Delayed boards for spectators (A8): a spectator that asked for `boards` sees every
//! player's board as it was `--spectator-delay-s` earlier, never newer while the race runs,
//! and every final board once it is over.
//!
//! The delayed boards are rebuilt from the race's own placement log (each record carries its
//! race time), so nothing extra is kept per placement: a cursor walks the log up to "now minus
//! the delay" on a periodic tick ([`BOARD_TICK`]), and each board that changed since the last
//! tick goes out as one `board` message, encoded once by the room task for every watcher. A
//! placement costs nothing here; the cost is per tick and per changed board.

use std::time::Duration;

use engine::{Cell, Digit, Grid};
use protocol::{PlayerId, ServerMsg};
use tokio::time::Instant;

use super::effect::Effects;
use super::race::Race;
use super::seats::Seats;
use super::Effect;
use crate::outbox::ConnId;
use crate::store::PlacementRecord;

/// How often a race sends the delayed boards that changed.
pub const BOARD_TICK: Duration = Duration::from_secs(1);

/// One player's board as the watchers last saw it (or are about to).
#[derive(Debug)]
struct Shown {
    player_id: PlayerId,
    board: Grid,
    /// Changed since the last tick sent it.
    changed: bool,
}

/// The delayed boards of the race under way.
#[derive(Debug)]
struct Delayed {
    delay_ms: u64,
    /// The next placement of the race's log not yet applied.
    cursor: usize,
    shown: Vec<Shown>,
    /// The race time the boards show.
    at_ms: u64,
    /// When the next tick is due.
    next_at: Instant,
}

impl Delayed {
    /// Every racer's board as the race starts at `now` (each seat's own puzzle).
    fn new(race: &Race, delay: Duration, now: Instant) -> Delayed {
        let shown = race.boards().map(|(id, board)| Shown {
            player_id: id.clone(),
            board: *board,
            changed: false,
        });
        Delayed {
            delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            cursor: 0,
            shown: shown.collect(),
            at_ms: 0,
            next_at: now + BOARD_TICK,
        }
    }

    /// Apply every accepted placement of `log` judged before race time `race_ms` minus the
    /// delay (a board "at" a moment is the board just before it: the starting board is at 0
    /// even when a digit lands in the race's first millisecond). The log is in the order judged, and race times only grow along it (a
    /// ghost's step may carry a slightly earlier time: it then waits for the one before it,
    /// so it shows late, never early).
    fn advance(&mut self, log: &[PlacementRecord], race_ms: u64) {
        self.at_ms = self.at_ms.max(race_ms.saturating_sub(self.delay_ms));
        while let Some(p) = log.get(self.cursor) {
            if p.at_ms >= self.at_ms {
                break;
            }
            self.cursor += 1;
            if p.outcome != "accepted" {
                continue;
            }
            let (Ok(cell), Ok(digit)) = (Cell::try_from(p.cell), Digit::try_from(p.digit)) else {
                continue;
            };
            let who = self
                .shown
                .iter_mut()
                .find(|s| s.player_id.as_str() == p.player_id);
            if let Some(s) = who {
                s.board.set(cell, Some(digit));
                s.changed = true;
            }
        }
    }

    fn message(&self, s: &Shown) -> ServerMsg {
        ServerMsg::Board {
            player_id: s.player_id.clone(),
            board: s.board,
            at_ms: self.at_ms,
        }
    }
}

/// What boards-spectators see of a room's races: the running race's boards, delayed.
#[derive(Debug)]
pub(super) struct Boards {
    /// How far behind the race they are shown (`--spectator-delay-s`).
    delay: Duration,
    /// The running race's boards as they are shown; `None` outside a race.
    delayed: Option<Delayed>,
}

impl Boards {
    /// Boards shown `delay` behind the race.
    pub(super) fn new(delay: Duration) -> Boards {
        Boards {
            delay,
            delayed: None,
        }
    }

    /// A new watcher's view of the running `race` at `now`: every board as it stands for
    /// watchers (delayed).
    pub(super) fn watch(&mut self, race: &Race, now: Instant) -> Vec<ServerMsg> {
        let Some(d) = self.delayed.as_mut() else {
            return Vec::new();
        };
        d.advance(race.log(), race.elapsed_ms(now));
        d.shown.iter().map(|s| d.message(s)).collect()
    }

    /// When the next board tick is due, while a race's boards are shown.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.delayed.as_ref().map(|d| d.next_at)
    }

    /// `race` began at `now`: its boards start delayed, and `watchers` see each starting board.
    pub(super) fn started(
        &mut self,
        race: &Race,
        watchers: Vec<ConnId>,
        now: Instant,
        fx: &mut Effects,
    ) {
        let d = Delayed::new(race, self.delay, now);
        if !watchers.is_empty() {
            for s in &d.shown {
                fx.push(Effect::Send(watchers.clone(), d.message(s)));
            }
        }
        self.delayed = Some(d);
    }

    /// The tick of the running `race`: each board that changed since the last one, to every
    /// watcher among `seats` (one message per board, which the room task encodes once).
    pub(super) fn tick(&mut self, race: &Race, seats: &Seats, now: Instant, fx: &mut Effects) {
        let Some(d) = self.delayed.as_mut() else {
            return;
        };
        if now < d.next_at {
            return;
        }
        d.next_at = now + BOARD_TICK;
        let watchers = seats.board_watchers();
        if watchers.is_empty() {
            // Nobody to tell: the cursor catches up when someone asks.
            return;
        }
        d.advance(race.log(), race.elapsed_ms(now));
        let mut msgs = Vec::new();
        for s in d.shown.iter_mut().filter(|s| s.changed) {
            s.changed = false;
            msgs.push(ServerMsg::Board {
                player_id: s.player_id.clone(),
                board: s.board,
                at_ms: d.at_ms,
            });
        }
        for msg in msgs {
            fx.push(Effect::Send(watchers.clone(), msg));
        }
    }

    /// The race is over: nothing is delayed any more.
    pub(super) fn ended(&mut self) {
        self.delayed = None;
    }
}

/// Every racer's final board of `race` to `to` (the race is over: nothing to hide any more).
pub(super) fn final_boards(race: &Race, to: Vec<ConnId>, now: Instant, fx: &mut Effects) {
    if to.is_empty() {
        return;
    }
    let at_ms = race.elapsed_ms(now);
    let msgs: Vec<ServerMsg> = race
        .boards()
        .map(|(id, board)| ServerMsg::Board {
            player_id: id.clone(),
            board: *board,
            at_ms,
        })
        .collect();
    for msg in msgs {
        fx.push(Effect::Send(to.clone(), msg));
    }
}
