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

use protocol::{PlayerId, ServerMsg};
use shared::engine::{Cell, Digit, Grid};
use tokio::time::Instant;

use super::race::Race;
use super::{Effect, Room, State};
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
pub(super) struct Delayed {
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
    pub(super) fn new(race: &Race, delay: Duration, now: Instant) -> Delayed {
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

impl Room {
    /// The spectator on `conn` asked for boards (A8): from now on it gets them, and at once
    /// every player's board as it stands for watchers (delayed while racing, final after).
    pub fn watch_boards(&mut self, conn: ConnId, now: Instant) {
        if !self.seats.watch_boards(conn) {
            return;
        }
        match self.state {
            State::Racing => {
                let (Some(race), Some(d)) = (self.race.as_ref(), self.delayed.as_mut()) else {
                    return;
                };
                d.advance(race.log(), race.elapsed_ms(now));
                let msgs: Vec<ServerMsg> = d.shown.iter().map(|s| d.message(s)).collect();
                for msg in msgs {
                    self.send(conn, msg);
                }
            }
            State::Finished => self.final_boards(vec![conn], now),
            State::Lobby | State::Countdown { .. } => {}
        }
    }

    /// When the next board tick is due: only while a race runs and someone watches boards.
    pub(super) fn boards_deadline(&self) -> Option<Instant> {
        let running = matches!(self.state, State::Racing) && self.seats.has_board_watchers();
        running.then(|| self.delayed.as_ref().map(|d| d.next_at))?
    }

    /// A race began at `now`: its boards start delayed, and watchers see each starting board.
    pub(super) fn boards_started(&mut self, now: Instant) {
        let Some(race) = self.race.as_ref() else {
            return;
        };
        let d = Delayed::new(race, self.opts.spectator_delay, now);
        let watchers = self.seats.board_watchers();
        if !watchers.is_empty() {
            for s in &d.shown {
                self.fx.push(Effect::Send(watchers.clone(), d.message(s)));
            }
        }
        self.delayed = Some(d);
    }

    /// The tick: each board that changed since the last one, to every watcher (one message
    /// per board, which the room task encodes once).
    pub(super) fn board_tick(&mut self, now: Instant) {
        if !matches!(self.state, State::Racing) {
            return;
        }
        let (Some(race), Some(d)) = (self.race.as_ref(), self.delayed.as_mut()) else {
            return;
        };
        if now < d.next_at {
            return;
        }
        d.next_at = now + BOARD_TICK;
        let watchers = self.seats.board_watchers();
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
            self.fx.push(Effect::Send(watchers.clone(), msg));
        }
    }

    /// Every racer's final board to `to` (the race is over: nothing to hide any more).
    pub(super) fn final_boards(&mut self, to: Vec<ConnId>, now: Instant) {
        if to.is_empty() {
            return;
        }
        let Some(race) = self.race.as_ref() else {
            return;
        };
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
            self.fx.push(Effect::Send(to.clone(), msg));
        }
    }
}
