//! Solo practice, offline: the state and update of `sudoku-race play`. A timer, undo, pencil
//! marks, a conflict check, hints that name the technique and the cells, and a give-up that
//! reveals the solution, and a new puzzle on `n`. Like the online app, [`SoloApp::update`] does
//! no IO (a new puzzle comes from the [`Dealer`] the binary gives it: the generator).

use crossterm::event::KeyCode;
use engine::{validator, Cell, Difficulty, Digit, Geometry, Grid, Level, Variant};

use crate::app::board::{BoardState, Marks};
use crate::app::{digit_key, erase_key, is_ctrl_c, nav_key, Effect, Event, Notice, FLASH_MS};

/// A hint: what to say and which cells to highlight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    /// The technique and its deduction, e.g. `hidden single: r3c5 = 7 (box 2)`.
    pub text: String,
    /// The cells the step is about.
    pub cells: Vec<Cell>,
}

/// Finds the next logical step on a board of a geometry (the grader's step record in the
/// binary).
pub type Hinter = fn(&Geometry, &Grid) -> Option<Hint>;

/// Deals a fresh puzzle of a variant at a difficulty: its rules (regions, cages), the puzzle and
/// its solution (the generator in the binary).
pub type Dealer = fn(Variant, Difficulty) -> (Geometry, Grid, Grid);

/// The grader's next step on `board` by the rules of `geometry`, as a hint: its record (technique, cells, deduction)
/// as text, and the cells it names and places in highlighted.
pub fn grader_hint(geometry: &Geometry, board: &Grid) -> Option<Hint> {
    let step = engine::grader::hint_in(geometry, board)?;
    let mut cells = step.cells.clone();
    cells.extend(step.placements.iter().map(|&(c, _)| c));
    cells.extend(step.eliminations.iter().map(|&(c, _)| c));
    cells.sort();
    cells.dedup();
    Some(Hint {
        text: step.to_string(),
        cells,
    })
}

/// One undoable change to a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Change {
    cell: Cell,
    digit: Option<Digit>,
    marks: Marks,
}

/// How the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every cell right, in this time.
    Solved {
        /// Time taken.
        time_ms: u64,
    },
    /// Gave up: the solution is shown.
    GaveUp,
}

/// The solo game's whole state.
#[derive(Clone, Debug)]
pub struct SoloApp {
    /// Board, cursor, pencil marks.
    pub board: BoardState,
    /// The puzzle's solution.
    pub solution: Grid,
    /// The puzzle's level (`extreme` for a given puzzle the techniques cannot solve).
    pub level: Level,
    /// Local clock (ms).
    pub clock_ms: u64,
    /// Local clock at the first tick.
    pub started_at_ms: Option<u64>,
    /// Highlighted conflicting cells (after `c`).
    pub conflicts: Vec<Cell>,
    /// The last hint.
    pub hint: Option<Hint>,
    /// Set when the game is over.
    pub outcome: Option<Outcome>,
    /// Status line.
    pub notice: Option<Notice>,
    /// Waiting for a second `g` to give up.
    pub confirm_give_up: bool,
    /// Waiting for a second `n` to drop this game for a new puzzle.
    pub confirm_new: bool,
    undo: Vec<Change>,
    hinter: Hinter,
    dealer: Option<Dealer>,
}

impl SoloApp {
    /// A game of `puzzle` (whose solution is `solution`).
    pub fn new(puzzle: Grid, solution: Grid, level: Level, hinter: Hinter) -> SoloApp {
        SoloApp {
            board: BoardState::new(puzzle, puzzle),
            solution,
            level,
            clock_ms: 0,
            started_at_ms: None,
            conflicts: Vec::new(),
            hint: None,
            outcome: None,
            notice: None,
            confirm_give_up: false,
            confirm_new: false,
            undo: Vec::new(),
            hinter,
            dealer: None,
        }
    }

    /// The game played by the rules of `geometry` (a variant's: its houses and cages).
    pub fn in_geometry(mut self, geometry: Geometry) -> SoloApp {
        self.board = self.board.in_geometry(geometry);
        self
    }

    /// The variant played.
    pub fn variant(&self) -> Variant {
        self.board.geometry().variant()
    }

    /// Let `n` deal new puzzles with `dealer`.
    pub fn with_dealer(mut self, dealer: Dealer) -> SoloApp {
        self.dealer = Some(dealer);
        self
    }

    /// Start over on a fresh puzzle at this game's difficulty (expert for an extreme one).
    fn new_puzzle(&mut self) {
        let Some(deal) = self.dealer else {
            self.notify(
                "no new puzzles for a given puzzle: restart without --puzzle",
                true,
            );
            return;
        };
        let difficulty = self.level.difficulty().unwrap_or(Difficulty::Expert);
        let variant = self.variant();
        let (geometry, puzzle, solution) = deal(variant, difficulty);
        let (hinter, clock_ms) = (self.hinter, self.clock_ms);
        *self = SoloApp::new(puzzle, solution, Level::from(difficulty), hinter)
            .in_geometry(geometry)
            .with_dealer(deal);
        self.clock_ms = clock_ms;
        self.started_at_ms = Some(clock_ms);
        let kind = crate::app::variant_label(variant, difficulty);
        self.notify(format!("a new {kind} puzzle"), false);
    }

    /// Time shown on the clock.
    pub fn elapsed_ms(&self) -> u64 {
        match self.outcome {
            Some(Outcome::Solved { time_ms }) => time_ms,
            _ => self
                .started_at_ms
                .map_or(0, |s| self.clock_ms.saturating_sub(s)),
        }
    }

    /// Undo steps available.
    pub fn undo_depth(&self) -> usize {
        self.undo.len()
    }

    fn notify(&mut self, text: impl Into<String>, bad: bool) {
        self.notice = Some(Notice {
            text: text.into(),
            bad,
            until_ms: self.clock_ms + FLASH_MS,
        });
    }

    fn record(&mut self, cell: Cell) {
        self.undo.push(Change {
            cell,
            digit: self.board.board.get(cell),
            marks: self.board.pencil_cursor.pencil[cell.idx()],
        });
    }

    /// Apply one event.
    pub fn update(&mut self, event: Event) -> Vec<Effect> {
        match event {
            Event::Tick(now) => {
                self.clock_ms = self.clock_ms.max(now);
                self.started_at_ms.get_or_insert(self.clock_ms);
                if self.notice.as_ref().is_some_and(|n| n.until_ms <= now) {
                    self.notice = None;
                }
                Vec::new()
            }
            Event::Key(key) => {
                if is_ctrl_c(&key) {
                    return vec![Effect::Quit];
                }
                self.on_key(key.code)
            }
            Event::Net(_) | Event::Resize => Vec::new(),
        }
    }

    fn on_key(&mut self, code: KeyCode) -> Vec<Effect> {
        if self.answer_confirmation(code) {
            return Vec::new();
        }
        if code == KeyCode::Char('n') {
            self.ask_new_puzzle();
            return Vec::new();
        }
        if let Some((dr, dc)) = nav_key(code) {
            self.board.move_cursor(dr, dc);
            return Vec::new();
        }
        if matches!(code, KeyCode::Char('q') | KeyCode::Esc) {
            return vec![Effect::Quit];
        }
        if self.outcome.is_some() {
            return Vec::new();
        }
        if !self.edit_cell(code) {
            self.command(code);
        }
        Vec::new()
    }

    /// A key while a question waits: the question's own key answers it, any other key drops
    /// it. False when no question waits.
    fn answer_confirmation(&mut self, code: KeyCode) -> bool {
        if std::mem::take(&mut self.confirm_give_up) {
            if code == KeyCode::Char('g') {
                self.outcome = Some(Outcome::GaveUp);
                // The hint and highlights were about a board that is no longer played.
                self.hint = None;
                self.conflicts.clear();
                self.notify("the solution is shown in magenta", false);
            } else {
                self.notice = None;
            }
            return true;
        }
        if std::mem::take(&mut self.confirm_new) {
            if code == KeyCode::Char('n') {
                self.new_puzzle();
            } else {
                self.notice = None;
            }
            return true;
        }
        false
    }

    /// `n`: a new puzzle at once when nothing would be lost, else ask first.
    fn ask_new_puzzle(&mut self) {
        if self.outcome.is_some() || self.undo.is_empty() {
            self.new_puzzle();
        } else {
            self.confirm_new = true;
            self.notice = Some(Notice {
                text: "drop this game for a new puzzle? press n again".into(),
                bad: true,
                until_ms: u64::MAX,
            });
        }
    }

    /// A digit or erase key on the cell under the cursor. False for any other key.
    fn edit_cell(&mut self, code: KeyCode) -> bool {
        let cell = self.board.pencil_cursor.cursor;
        if let Some(d) = digit_key(code) {
            if self.board.is_given(cell) {
                self.notify("that cell is a given", true);
            } else if self.board.pencil_cursor.pencil_mode {
                if self.board.board.get(cell).is_none() {
                    self.record(cell);
                    self.board.toggle_pencil(cell, d);
                }
            } else {
                self.record(cell);
                self.board.place(cell, d);
                self.after_change();
            }
            return true;
        }
        if erase_key(code) {
            if !self.board.is_given(cell) {
                self.record(cell);
                if self.board.board.get(cell).is_some() {
                    self.board.board.set(cell, None);
                } else {
                    self.board.clear_pencil(cell);
                }
                self.after_change();
            }
            return true;
        }
        false
    }

    /// The letter commands of a game in play: pencil mode, undo, check, hint, give up.
    fn command(&mut self, code: KeyCode) {
        match code {
            KeyCode::Char('p') => {
                self.board.pencil_cursor.pencil_mode = !self.board.pencil_cursor.pencil_mode;
            }
            KeyCode::Char('u') => match self.undo.pop() {
                Some(ch) => {
                    self.board.board.set(ch.cell, ch.digit);
                    self.board.pencil_cursor.pencil[ch.cell.idx()] = ch.marks;
                    self.board.pencil_cursor.cursor = ch.cell;
                    self.after_change();
                }
                None => self.notify("nothing to undo", true),
            },
            KeyCode::Char('c') => {
                self.conflicts = validator::conflicts_in(self.board.geometry(), &self.board.board);
                if self.conflicts.is_empty() {
                    self.notify("no conflicts", false);
                } else {
                    let n = self.conflicts.len();
                    self.notify(format!("{n} cells clash (highlighted)"), true);
                }
            }
            KeyCode::Char('?') => self.show_hint(),
            KeyCode::Char('g') => {
                self.confirm_give_up = true;
                self.notice = Some(Notice {
                    text: "give up and see the solution? press g again".into(),
                    bad: true,
                    until_ms: u64::MAX,
                });
            }
            _ => {}
        }
    }

    /// `?`: the next logical step, or why there is none.
    fn show_hint(&mut self) {
        self.hint = (self.hinter)(self.board.geometry(), &self.board.board);
        if self.hint.is_none() {
            let board = &self.board;
            let msg = if validator::conflicts_in(board.geometry(), &board.board).is_empty() {
                "no logical step found from here: check your digits with c"
            } else {
                "the board has conflicts: press c to see them"
            };
            self.notify(msg, true);
        }
    }

    fn after_change(&mut self) {
        // Highlights, hints and warnings describe the old board; clear them when it changes.
        self.conflicts.clear();
        self.hint = None;
        if self.notice.as_ref().is_some_and(|n| n.bad) {
            self.notice = None;
        }
        if self.board.board == self.solution {
            let time_ms = self.elapsed_ms();
            self.outcome = Some(Outcome::Solved { time_ms });
            self.notice = Some(Notice {
                text: format!("solved in {}!", crate::app::clock(time_ms)),
                bad: false,
                until_ms: u64::MAX,
            });
        } else if self.board.board.is_full() {
            self.notify("the board is full but something is wrong: press c", true);
        }
    }
}

#[cfg(test)]
mod tests;
