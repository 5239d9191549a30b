//! Our side of the race on screen, beside the server's board ([`Play`]): the pencil marks and
//! cursor, the placements not yet answered (with the id the next one takes), and the last
//! refusal ([`Flash`]). It decides what a digit key sends, what an answer leaves on the board,
//! and what a resume keeps; the app composes it with the [`Mirror`](super::Mirror)'s board.
//!
//! A placement the server could not take yet (its socket dropped, or its room was moving to
//! another server: A12 `room_moving`) is *held*: it stays on the board as pending and goes again
//! once the room answers, unless the room's board then shows the cell filled.

use engine::{Cell, Digit, Geometry, Grid};
use protocol::{ClientMsg, MsgId, PlaceReason};

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
    /// Held under this id: the room cannot take it now (it goes once the room answers).
    Held(u64),
}

/// A placement not yet answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    id: u64,
    cell: Cell,
    digit: Digit,
    /// On its way; false while held for the room to answer again.
    sent: bool,
}

/// The `place` message for placement `id`.
pub(super) fn place_msg(id: u64, cell: Cell, digit: Digit) -> ClientMsg {
    ClientMsg::Place {
        cell: i64::from(cell.get()),
        digit: i64::from(digit.get()),
        id: Some(MsgId::Number(id.into())),
    }
}

/// Our side of the race on screen, beside the server's board: the pencil marks and cursor,
/// placements not yet answered, the last refusal.
#[derive(Clone, Debug, PartialEq)]
pub struct Play {
    /// Pencil marks, cursor and mode.
    pencil_cursor: PencilAndCursor,
    /// Placements not yet answered, oldest first.
    pending: Vec<Pending>,
    /// The last rejected placement.
    flash: Option<Flash>,
    /// The id the next placement takes (kept across races: ids stay unique per connection).
    next_id: u64,
    /// After the room's whole view mid-race: when to look again at the placements that were on
    /// their way then, and their ids.
    recheck: Option<(u64, Vec<u64>)>,
}

/// How long after the room's whole view a placement still unanswered goes again.
const UNANSWERED_MS: u64 = 1000;

impl Default for Play {
    fn default() -> Play {
        Play {
            pencil_cursor: PencilAndCursor::default(),
            pending: Vec::new(),
            flash: None,
            next_id: 1,
            recheck: None,
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
        self.pending.iter().map(|p| (p.cell, p.digit))
    }

    /// The placements held for the room to answer again, as (cell, digit), oldest first.
    pub fn held(&self) -> impl Iterator<Item = (Cell, Digit)> + '_ {
        self.pending
            .iter()
            .filter(|p| !p.sent)
            .map(|p| (p.cell, p.digit))
    }

    /// The last rejected placement, while it shows.
    pub fn flash(&self) -> Option<&Flash> {
        self.flash.as_ref()
    }

    /// The digit pending in `cell`, if a placement there is unanswered.
    pub fn pending_in(&self, cell: Cell) -> Option<Digit> {
        self.pending
            .iter()
            .find(|p| p.cell == cell)
            .map(|p| p.digit)
    }

    /// A fresh side for a new race or another room (the placement ids go on counting).
    pub(super) fn reset(&mut self) {
        *self = Play {
            next_id: self.next_id,
            ..Play::default()
        };
    }

    /// `room_joined`: a fresh side, except that coming back to the same race (a resume, or the
    /// room shown again by its new server: A12) keeps the pencil marks and cursor, less the
    /// marks of cells filled on `board` meanwhile, and the placements still unanswered in cells
    /// `board` leaves empty. Those on their way are looked at again [`UNANSWERED_MS`] after
    /// `now` ([`Play::recheck_due`]).
    pub(super) fn entered(&mut self, same_race_board: Option<&Grid>, now: u64) {
        let kept = std::mem::take(&mut self.pencil_cursor);
        let pending = std::mem::take(&mut self.pending);
        self.reset();
        if let Some(board) = same_race_board {
            self.pencil_cursor = kept;
            self.pencil_cursor.clear_filled(board);
            self.pending = pending;
            self.pending.retain(|p| board.get(p.cell).is_none());
            let waiting: Vec<u64> = self
                .pending
                .iter()
                .filter(|p| p.sent)
                .map(|p| p.id)
                .collect();
            if !waiting.is_empty() {
                self.recheck = Some((now + UNANSWERED_MS, waiting));
            }
        }
    }

    /// At local time `now`: a placement on its way when the room's whole view came and still
    /// unanswered a moment later was not taken (relayed to an owner in the moment it died, it
    /// is answered by nobody): it is held, to go again. One the room's new server has yet to
    /// answer is answered well within that time, and is not sent twice. Whether any was held.
    pub(super) fn recheck_due(&mut self, now: u64) -> bool {
        if self.recheck.as_ref().is_none_or(|(at, _)| *at > now) {
            return false;
        }
        let Some((_, ids)) = self.recheck.take() else {
            return false;
        };
        let mut held = false;
        for p in self.pending.iter_mut().filter(|p| ids.contains(&p.id)) {
            p.sent = false;
            held = true;
        }
        held
    }

    /// The room cannot answer now (the socket dropped, or the room is moving): every placement
    /// not yet answered is held, to go again once it can.
    pub(super) fn hold_pending(&mut self) {
        for p in &mut self.pending {
            p.sent = false;
        }
    }

    /// The held placements, to send again now (they are on their way from here).
    pub(super) fn send_held(&mut self) -> Vec<ClientMsg> {
        self.pending
            .iter_mut()
            .filter(|p| !p.sent)
            .map(|p| {
                p.sent = true;
                place_msg(p.id, p.cell, p.digit)
            })
            .collect()
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
    /// or a placement now pending under the id returned (held, if the room cannot take it now:
    /// `hold`).
    pub(super) fn place(
        &mut self,
        puzzle: &Grid,
        board: &Grid,
        digit: Digit,
        hold: bool,
    ) -> (Cell, Placing) {
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
        self.pending.push(Pending {
            id,
            cell,
            digit,
            sent: !hold,
        });
        if self.flash.as_ref().is_some_and(|f| f.cell == cell) {
            self.flash = None;
        }
        (
            cell,
            if hold {
                Placing::Held(id)
            } else {
                Placing::Send(id)
            },
        )
    }

    /// The server's answer to one of our placements, at local time `now`, in a race of
    /// `geometry`: no longer pending; placed (the digit leaves its peers' pencil marks), or
    /// flashed with the reason it was refused.
    pub(super) fn answered(
        &mut self,
        geometry: &Geometry,
        id: Option<&MsgId>,
        cell: Cell,
        digit: Digit,
        refusal: Option<(Option<PlaceReason>, Vec<Cell>)>,
        now: u64,
    ) {
        match id.and_then(MsgId::as_u64) {
            Some(n) => self.pending.retain(|p| p.id != n),
            None => self.pending.retain(|p| p.cell != cell),
        }
        match refusal {
            None => {
                self.pencil_cursor.placed(geometry, cell, digit);
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
