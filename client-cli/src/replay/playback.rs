//! The playback of a [`Replay`]: a clock in race time that runs at ×1 to ×16, pauses, and
//! steps from placement to placement, and every player's state at that time.
//!
//! The position is a clock *and* a count of placements applied, because several placements
//! can share a millisecond and a step shows one at a time. The invariant: every placement
//! before the clock is applied, none after it is, and those at the clock's millisecond are
//! applied in order up to the count.

use engine::Grid;

use super::{Outcome, Placement, Replay};

/// The speeds, slowest first.
pub const SPEEDS: [u32; 5] = [1, 2, 4, 8, 16];

/// One player at the playback's time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerState {
    /// Cells filled (accepted placements).
    pub filled: u32,
    /// Wrong and conflicting placements.
    pub mistakes: u32,
    /// The givens and this player's accepted digits.
    pub board: Grid,
    /// Race time of the placement that completed the board, once it has been played.
    pub solved_at_ms: Option<u64>,
}

/// A replay and where its playback stands.
#[derive(Clone, Debug)]
pub struct Playback {
    replay: Replay,
    pos_ms: u64,
    applied: usize,
    speed: u32,
    paused: bool,
}

impl Playback {
    /// At the start, playing at ×1.
    pub fn new(replay: Replay) -> Playback {
        Playback {
            replay,
            pos_ms: 0,
            applied: 0,
            speed: SPEEDS[0],
            paused: false,
        }
    }

    /// The race played back.
    pub fn replay(&self) -> &Replay {
        &self.replay
    }

    /// The clock, in race milliseconds.
    pub fn pos_ms(&self) -> u64 {
        self.pos_ms
    }

    /// The end: the race's duration, or its last placement if a malformed answer put one later.
    pub fn end_ms(&self) -> u64 {
        let last = self.replay.placements.last().map_or(0, |p| p.at_ms);
        self.replay.duration_ms.max(last)
    }

    /// ×1, ×2, ×4, ×8 or ×16.
    pub fn speed(&self) -> u32 {
        self.speed
    }

    /// Whether the clock stands still (also true at the end).
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Whether everything has been played.
    pub fn at_end(&self) -> bool {
        self.pos_ms >= self.end_ms() && self.applied == self.replay.placements.len()
    }

    /// Placements applied so far.
    pub fn applied(&self) -> usize {
        self.applied
    }

    /// The placement played last, if any.
    pub fn last(&self) -> Option<&Placement> {
        self.applied
            .checked_sub(1)
            .map(|i| &self.replay.placements[i])
    }

    /// Let `dt_ms` of wall time pass: the clock moves `dt_ms × speed` (unless paused) and plays
    /// every placement it passes. Reaching the end pauses.
    pub fn advance(&mut self, dt_ms: u64) {
        if self.paused || dt_ms == 0 {
            return;
        }
        let end = self.end_ms();
        self.pos_ms = self
            .pos_ms
            .saturating_add(dt_ms.saturating_mul(u64::from(self.speed)))
            .min(end);
        let placements = &self.replay.placements;
        while placements
            .get(self.applied)
            .is_some_and(|p| p.at_ms <= self.pos_ms)
        {
            self.applied += 1;
        }
        if self.pos_ms == end {
            self.to_end();
        }
    }

    /// Pause, or play on; at the end, play again from the start.
    pub fn toggle_pause(&mut self) {
        if self.at_end() {
            self.restart();
        } else {
            self.paused = !self.paused;
        }
    }

    /// Twice as fast, up to ×16.
    pub fn faster(&mut self) {
        self.speed = (self.speed * 2).min(SPEEDS[SPEEDS.len() - 1]);
    }

    /// Half as fast, down to ×1.
    pub fn slower(&mut self) {
        self.speed = (self.speed / 2).max(SPEEDS[0]);
    }

    /// Pause and play the next placement, the clock at its time; after the last one, go to the
    /// end (where the standings are).
    pub fn step_forward(&mut self) {
        self.paused = true;
        match self.replay.placements.get(self.applied) {
            Some(p) => {
                self.pos_ms = p.at_ms;
                self.applied += 1;
            }
            None => self.to_end(),
        }
    }

    /// Pause and take back the last placement played, the clock at the time of the one before
    /// (or at 0). At the start, stays there.
    pub fn step_back(&mut self) {
        self.paused = true;
        self.applied = self.applied.saturating_sub(1);
        self.pos_ms = self.last().map_or(0, |p| p.at_ms);
    }

    /// Back to the start, playing.
    pub fn restart(&mut self) {
        self.pos_ms = 0;
        self.applied = 0;
        self.paused = false;
    }

    /// Everything played, the clock at the end, paused.
    pub fn to_end(&mut self) {
        self.pos_ms = self.end_ms();
        self.applied = self.replay.placements.len();
        self.paused = true;
    }

    /// Every player's state at the clock, in [`Replay::players`] order.
    pub fn players(&self) -> Vec<PlayerState> {
        let to_fill = self.replay.to_fill();
        // A8: each seat starts from its own puzzle (its own isomorph of the race's).
        let mut out: Vec<PlayerState> = self
            .replay
            .players
            .iter()
            .map(|seat| PlayerState {
                filled: 0,
                mistakes: 0,
                board: seat.puzzle,
                solved_at_ms: None,
            })
            .collect();
        for p in &self.replay.placements[..self.applied] {
            // `from_json` only lets in placements by seated players.
            let Some(s) = out.get_mut(p.player) else {
                continue;
            };
            match p.outcome {
                // A digit the server took goes on the board once; an answer that repeats a
                // cell cannot count it twice.
                Outcome::Accepted if s.board.get(p.cell).is_none() => {
                    s.board.set(p.cell, Some(p.digit));
                    s.filled += 1;
                    if s.filled == to_fill {
                        s.solved_at_ms = Some(p.at_ms);
                    }
                }
                o if o.is_mistake() => s.mistakes += 1,
                _ => {}
            }
        }
        out
    }
}
