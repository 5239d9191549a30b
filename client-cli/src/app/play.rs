//! Our side of the race on screen, beside the server's board ([`Play`]): the pencil marks and
//! cursor, the placements sent and not yet answered (with the id the next one takes), and the
//! last refusal ([`Flash`]). It decides what a digit key sends, what an answer leaves on the
//! board, and what a resume keeps; the app composes it with the [`Mirror`](super::Mirror)'s board.

use engine::{Cell, Digit, Geometry, Grid};
use protocol::{MsgId, PlaceReason};

use super::board::PencilAndCursor;
use super::FLASH_MS;

/// A rejected placement, flashed on the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flash {
    /// Where.
    pub cell: Cell,
    /// What was tried.
    pub digit: Digit,
    /// Why the server refused it.
    pub reason: PlaceReason,
    /// The clashing cells (for `conflict`).
    pub conflicts: Vec<Cell>,
    /// Local clock when it fades.
    pub until_ms: u64,
}

/// What a digit key does in a cell: a pencil mark, a placement to send, or nothing to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Placing {
    /// A pencil mark was toggled (or the cell took none).
    Pencilled,
    /// The cell holds a given.
    Given,
    /// The cell is filled already.
    Filled,
    /// A placement in the cell is still unanswered.
    Pending,
    /// Send this placement id.
    Send(u64),
}

/// Our side of the race on screen, beside the server's board: the pencil marks and cursor,
/// placements not yet answered, the last refusal.
#[derive(Clone, Debug, PartialEq)]
pub struct Play {
    /// Pencil marks, cursor and mode.
    pencil_cursor: PencilAndCursor,
    /// Placements sent and not yet answered: (id, cell, digit).
    pending: Vec<(u64, Cell, Digit)>,
    /// The last rejected placement.
    flash: Option<Flash>,
    /// The id the next placement takes (kept across races: ids stay unique per connection).
    next_id: u64,
}

impl Default for Play {
    fn default() -> Play {
        Play {
            pencil_cursor: PencilAndCursor::default(),
            pending: Vec::new(),
            flash: None,
            next_id: 1,
        }
    }
}

impl Play {
    /// Pencil marks, cursor and mode.
    pub fn pencil_cursor(&self) -> &PencilAndCursor {
        &self.pencil_cursor
    }

    /// The placements sent and not yet answered, as (cell, digit), oldest first.
    pub fn pending(&self) -> impl Iterator<Item = (Cell, Digit)> + '_ {
        self.pending.iter().map(|&(_, c, d)| (c, d))
    }

    /// The last rejected placement, while it shows.
    pub fn flash(&self) -> Option<&Flash> {
        self.flash.as_ref()
    }

    /// The digit pending in `cell`, if a placement there is unanswered.
    pub fn pending_in(&self, cell: Cell) -> Option<Digit> {
        self.pending
            .iter()
            .find(|(_, c, _)| *c == cell)
            .map(|&(_, _, d)| d)
    }

    /// A fresh side for a new race or another room (the placement ids go on counting).
    pub(super) fn reset(&mut self) {
        *self = Play {
            next_id: self.next_id,
            ..Play::default()
        };
    }

    /// `room_joined`: a fresh side, except that coming back to the same race (a resume) keeps
    /// the pencil marks and cursor, less the marks of cells filled on `board` meanwhile.
    pub(super) fn entered(&mut self, same_race_board: Option<&Grid>) {
        let kept = std::mem::take(&mut self.pencil_cursor);
        self.reset();
        if let Some(board) = same_race_board {
            self.pencil_cursor = kept;
            self.pencil_cursor.clear_filled(board);
        }
    }

    /// The flash fades at local time `now`.
    pub(super) fn expire(&mut self, now: u64) {
        if self.flash.as_ref().is_some_and(|f| f.until_ms <= now) {
            self.flash = None;
        }
    }

    /// Answers to the placements pending may be lost (a dropped socket, a rate limit): stop
    /// showing them as pending.
    pub(super) fn forget_pending(&mut self) {
        self.pending.clear();
    }

    /// `race_over`: nothing is pending or flashed any more.
    pub(super) fn race_over(&mut self) {
        self.pending.clear();
        self.flash = None;
    }

    /// Move the cursor by rows and columns.
    pub(super) fn move_cursor(&mut self, dr: i8, dc: i8) {
        self.pencil_cursor.move_cursor(dr, dc);
    }

    /// Erase the pencil marks of the cursor's cell.
    pub(super) fn erase(&mut self) {
        let cursor = self.pencil_cursor.cursor;
        self.pencil_cursor.clear_pencil(cursor);
    }

    /// `p`: digits toggle pencil marks instead of being placed, or back. True for pencil.
    pub(super) fn toggle_pencil_mode(&mut self) -> bool {
        let local = &mut self.pencil_cursor;
        local.pencil_mode = !local.pencil_mode;
        local.pencil_mode
    }

    /// A digit key in the cursor's cell, on a race of `puzzle` with our `board`: a pencil mark,
    /// or a placement now pending under the id returned.
    pub(super) fn place(&mut self, puzzle: &Grid, board: &Grid, digit: Digit) -> (Cell, Placing) {
        let cell = self.pencil_cursor.cursor;
        if self.pencil_cursor.pencil_mode {
            self.pencil_cursor.toggle_pencil(board, cell, digit);
            return (cell, Placing::Pencilled);
        }
        if puzzle.get(cell).is_some() {
            return (cell, Placing::Given);
        }
        if board.get(cell).is_some() {
            return (cell, Placing::Filled);
        }
        if self.pending_in(cell).is_some() {
            return (cell, Placing::Pending);
        }
        let id = self.next_id;
        self.next_id += 1;
        self.pending.push((id, cell, digit));
        if self.flash.as_ref().is_some_and(|f| f.cell == cell) {
            self.flash = None;
        }
        (cell, Placing::Send(id))
    }

    /// The server's answer to one of our placements, at local time `now`: no longer pending;
    /// placed, or flashed with the reason it was refused.
    pub(super) fn answered(
        &mut self,
        id: Option<&MsgId>,
        cell: Cell,
        digit: Digit,
        refusal: Option<(Option<PlaceReason>, Vec<Cell>)>,
        now: u64,
    ) {
        match id.and_then(MsgId::as_u64) {
            Some(n) => self.pending.retain(|(i, _, _)| *i != n),
            None => self.pending.retain(|(_, pc, _)| *pc != cell),
        }
        match refusal {
            None => {
                // A race is classic Sudoku until race_started names a variant.
                self.pencil_cursor.placed(Geometry::classic(), cell, digit);
                if self.flash.as_ref().is_some_and(|f| f.cell == cell) {
                    self.flash = None;
                }
            }
            Some((reason, conflicts)) => {
                self.flash = Some(Flash {
                    cell,
                    digit,
                    reason: reason.unwrap_or(PlaceReason::Wrong),
                    conflicts,
                    until_ms: now + FLASH_MS,
                });
            }
        }
    }
}
