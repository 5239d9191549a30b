//! A board being played: the puzzle, the digits on it, and the [`PencilAndCursor`] (local
//! pencil marks, the cursor, pen or pencil). The race screen keeps a `PencilAndCursor` beside
//! the server's board; solo keeps a whole [`BoardState`]. No IO, no protocol.

use engine::{Cell, Digit, Geometry, Grid};

/// Pencil marks of one cell: bit `d - 1` set for each candidate `d`.
pub type Marks = u16;

/// The local part of a board being played: pencil marks, the cursor, pen or pencil. Never sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PencilAndCursor {
    /// Pencil marks per cell.
    pub pencil: [Marks; 81],
    /// The cell under the cursor (starts top-left).
    pub cursor: Cell,
    /// Whether digit keys write pencil marks instead of digits.
    pub pencil_mode: bool,
}

impl Default for PencilAndCursor {
    fn default() -> PencilAndCursor {
        PencilAndCursor {
            pencil: [0; 81],
            cursor: Cell::at(0, 0).expect("0,0 is a cell"),
            pencil_mode: false,
        }
    }
}

impl PencilAndCursor {
    /// Move the cursor by `dr` rows and `dc` columns, wrapping around the edges.
    pub fn move_cursor(&mut self, dr: i8, dc: i8) {
        let row = (self.cursor.row() as i16 + i16::from(dr)).rem_euclid(9) as u8;
        let col = (self.cursor.col() as i16 + i16::from(dc)).rem_euclid(9) as u8;
        if let Some(c) = Cell::at(row, col) {
            self.cursor = c;
        }
    }

    /// Toggle pencil mark `digit` in `cell` (only where `board` is empty). True if it changed.
    pub fn toggle_pencil(&mut self, board: &Grid, cell: Cell, digit: Digit) -> bool {
        if board.get(cell).is_some() {
            return false;
        }
        self.pencil[cell.idx()] ^= digit.bit();
        true
    }

    /// Clear the pencil marks of `cell`.
    pub fn clear_pencil(&mut self, cell: Cell) {
        self.pencil[cell.idx()] = 0;
    }

    /// `digit` went into `cell`: the cell's marks go, and so does `digit` from the marks of its
    /// peers in `geometry` (the cells that may not hold it now).
    pub fn placed(&mut self, geometry: &Geometry, cell: Cell, digit: Digit) {
        self.pencil[cell.idx()] = 0;
        for p in geometry.peers(cell) {
            self.pencil[p.idx()] &= !digit.bit();
        }
    }

    /// Drop the marks of every cell filled on `board`.
    pub fn clear_filled(&mut self, board: &Grid) {
        for (cell, d) in board.as_bytes().iter().enumerate() {
            if *d != 0 {
                self.pencil[cell] = 0;
            }
        }
    }
}

/// The player's working board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardState {
    /// The givens.
    pub puzzle: Grid,
    /// Givens plus the player's digits.
    pub board: Grid,
    /// Pencil marks, cursor and mode.
    pub pencil_cursor: PencilAndCursor,
    /// The rules the board is played by: its houses and cages (classic unless set).
    geometry: Geometry,
}

impl BoardState {
    /// A fresh classic board for `puzzle`, with `board` (givens plus digits already placed).
    pub fn new(puzzle: Grid, board: Grid) -> BoardState {
        BoardState {
            puzzle,
            board,
            pencil_cursor: PencilAndCursor::default(),
            geometry: Geometry::classic().clone(),
        }
    }

    /// The board played by the rules of `geometry` (a variant's).
    pub fn in_geometry(mut self, geometry: Geometry) -> BoardState {
        self.geometry = geometry;
        self
    }

    /// Move the cursor by `dr` rows and `dc` columns, wrapping around the edges.
    pub fn move_cursor(&mut self, dr: i8, dc: i8) {
        self.pencil_cursor.move_cursor(dr, dc);
    }

    /// The rules the board is played by (its houses and cages, for peers and conflicts).
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// Whether `cell` holds a given.
    pub fn is_given(&self, cell: Cell) -> bool {
        self.puzzle.get(cell).is_some()
    }

    /// Toggle pencil mark `digit` in `cell` (only on empty cells). True if it changed.
    pub fn toggle_pencil(&mut self, cell: Cell, digit: Digit) -> bool {
        self.pencil_cursor.toggle_pencil(&self.board, cell, digit)
    }

    /// Clear the pencil marks of `cell`.
    pub fn clear_pencil(&mut self, cell: Cell) {
        self.pencil_cursor.clear_pencil(cell);
    }

    /// Put `digit` on the board: the cell's marks go, and so does `digit` from its peers' marks.
    pub fn place(&mut self, cell: Cell, digit: Digit) {
        self.board.set(cell, Some(digit));
        self.pencil_cursor.placed(&self.geometry, cell, digit);
    }

    /// How many times `digit` is on the board.
    pub fn count(&self, digit: Digit) -> usize {
        self.board
            .as_bytes()
            .iter()
            .filter(|&&b| b == digit.get())
            .count()
    }

    /// Whether all nine of `digit` are on the board (the digit bar dims it).
    pub fn digit_complete(&self, digit: Digit) -> bool {
        self.count(digit) >= 9
    }

    /// Non-given cells filled on the board.
    pub fn n_placed(&self) -> usize {
        self.board.n_filled() - self.puzzle.n_filled()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUZZLE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

    fn cell(r: u8, c: u8) -> Cell {
        Cell::at(r, c).unwrap()
    }

    fn d(n: u8) -> Digit {
        Digit::new(n).unwrap()
    }

    #[track_caller]
    fn check_cursor(moves: &[(i8, i8)], expected: (u8, u8)) {
        let g = Grid::parse(PUZZLE).unwrap();
        let mut b = BoardState::new(g, g);
        for &(dr, dc) in moves {
            b.move_cursor(dr, dc);
        }
        assert_eq!(b.pencil_cursor.cursor, cell(expected.0, expected.1));
    }

    #[test]
    fn cursor_starts_top_left_and_wraps() {
        check_cursor(&[], (0, 0));
        check_cursor(&[(0, -1)], (0, 8));
        check_cursor(&[(-1, 0)], (8, 0));
        check_cursor(&[(1, 1), (1, 0)], (2, 1));
        check_cursor(&[(0, 1); 10], (0, 1));
    }

    #[test]
    fn placing_clears_marks_in_cell_and_peers() {
        let g = Grid::parse(PUZZLE).unwrap();
        let mut b = BoardState::new(g, g);
        assert!(!b.toggle_pencil(cell(0, 0), d(4)), "a given takes no marks");
        assert!(b.toggle_pencil(cell(0, 2), d(4)));
        assert!(b.toggle_pencil(cell(0, 2), d(1)));
        assert!(b.toggle_pencil(cell(8, 2), d(4)));
        assert!(b.toggle_pencil(cell(4, 4), d(4)));
        b.place(cell(0, 3), d(4));
        assert_eq!(b.pencil_cursor.pencil[cell(0, 2).idx()], d(1).bit());
        assert_eq!(
            b.pencil_cursor.pencil[cell(8, 2).idx()],
            d(4).bit(),
            "not a peer"
        );
        assert_eq!(
            b.pencil_cursor.pencil[cell(4, 4).idx()],
            d(4).bit(),
            "not a peer"
        );
        assert_eq!(b.n_placed(), 1);
        assert_eq!(b.count(d(5)), 3);
        assert!(!b.digit_complete(d(5)));
    }
}
