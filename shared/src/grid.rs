//! Cells, digits, grids and the 81-character line format, plus the unit tables
//! (cell -> row, column, box; unit -> cells; cell -> peers) every other engine module uses.

use std::fmt;
use std::num::NonZeroU8;
use std::str::FromStr;

/// Number of cells in a grid.
pub const N_CELLS: usize = 81;

/// A cell index, `0..=80`, row-major: `cell = row * 9 + col`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell(u8);

impl Cell {
    /// The cell at `idx`, or `None` when `idx > 80`.
    pub const fn new(idx: u8) -> Option<Cell> {
        if (idx as usize) < N_CELLS {
            Some(Cell(idx))
        } else {
            None
        }
    }

    /// The cell at `row`, `col` (both `0..9`), or `None` when either is out of range.
    pub const fn at(row: u8, col: u8) -> Option<Cell> {
        if row < 9 && col < 9 {
            Some(Cell(row * 9 + col))
        } else {
            None
        }
    }

    /// Every cell, in order.
    pub fn all() -> impl Iterator<Item = Cell> {
        (0..N_CELLS as u8).map(Cell)
    }

    /// The index `0..=80`.
    pub const fn idx(self) -> usize {
        self.0 as usize
    }

    /// The index as `u8`.
    pub const fn get(self) -> u8 {
        self.0
    }

    /// Row `0..9`.
    pub const fn row(self) -> usize {
        self.0 as usize / 9
    }

    /// Column `0..9`.
    pub const fn col(self) -> usize {
        self.0 as usize % 9
    }

    /// Box `0..9`, numbered row-major.
    pub const fn box_idx(self) -> usize {
        BOX_OF[self.0 as usize] as usize
    }

    /// The 20 other cells sharing a row, column or box with this one.
    pub fn peers(self) -> &'static [u8; 20] {
        &PEERS[self.0 as usize]
    }
}

impl TryFrom<u8> for Cell {
    type Error = OutOfRange;
    fn try_from(idx: u8) -> Result<Self, Self::Error> {
        Cell::new(idx).ok_or(OutOfRange {
            what: "cell",
            value: i64::from(idx),
        })
    }
}

impl TryFrom<i64> for Cell {
    type Error = OutOfRange;
    fn try_from(idx: i64) -> Result<Self, Self::Error> {
        u8::try_from(idx)
            .ok()
            .and_then(Cell::new)
            .ok_or(OutOfRange {
                what: "cell",
                value: idx,
            })
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}c{}", self.row() + 1, self.col() + 1)
    }
}

/// A digit `1..=9`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Digit(NonZeroU8);

impl Digit {
    /// The digit `d`, or `None` unless `1 <= d <= 9`.
    pub const fn new(d: u8) -> Option<Digit> {
        match NonZeroU8::new(d) {
            Some(nz) if d <= 9 => Some(Digit(nz)),
            _ => None,
        }
    }

    /// Every digit, 1 to 9.
    pub fn all() -> impl Iterator<Item = Digit> {
        (1..=9u8).filter_map(Digit::new)
    }

    /// The value `1..=9`.
    pub const fn get(self) -> u8 {
        self.0.get()
    }

    /// The bit for this digit in a candidate mask (`1 << (d - 1)`).
    pub const fn bit(self) -> u16 {
        1 << (self.0.get() - 1)
    }
}

impl TryFrom<u8> for Digit {
    type Error = OutOfRange;
    fn try_from(d: u8) -> Result<Self, Self::Error> {
        Digit::new(d).ok_or(OutOfRange {
            what: "digit",
            value: i64::from(d),
        })
    }
}

impl TryFrom<i64> for Digit {
    type Error = OutOfRange;
    fn try_from(d: i64) -> Result<Self, Self::Error> {
        u8::try_from(d).ok().and_then(Digit::new).ok_or(OutOfRange {
            what: "digit",
            value: d,
        })
    }
}

impl fmt::Display for Digit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.get())
    }
}

/// A cell index or digit outside its range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} {value} is out of range")]
pub struct OutOfRange {
    /// `"cell"` or `"digit"`.
    pub what: &'static str,
    /// The value given.
    pub value: i64,
}

/// Why a line is not a grid.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseGridError {
    /// The line does not hold 81 characters.
    #[error("expected 81 characters, found {len}")]
    WrongLength {
        /// Characters found.
        len: usize,
    },
    /// A character other than `1`-`9`, `.` or `0`.
    #[error("bad character {ch:?} at position {pos}")]
    BadChar {
        /// The character.
        ch: char,
        /// Its 1-based position in the line.
        pos: usize,
    },
}

/// A 9x9 grid; each cell holds a digit or is empty.
///
/// Stored as 81 bytes, `0` for empty: cheap to copy, hash and compare.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Grid([u8; N_CELLS]);

impl Default for Grid {
    fn default() -> Self {
        Grid([0; N_CELLS])
    }
}

impl Grid {
    /// The empty grid.
    pub const fn empty() -> Grid {
        Grid([0; N_CELLS])
    }

    /// A grid from raw bytes (`0` empty, `1..=9` digits), or `None` if any byte is over 9.
    pub fn from_bytes(bytes: [u8; N_CELLS]) -> Option<Grid> {
        bytes.iter().all(|&b| b <= 9).then_some(Grid(bytes))
    }

    /// The raw bytes: `0` for empty, `1..=9` for digits.
    pub const fn as_bytes(&self) -> &[u8; N_CELLS] {
        &self.0
    }

    /// The digit in `cell`, if any.
    pub fn get(&self, cell: Cell) -> Option<Digit> {
        Digit::new(self.0[cell.idx()])
    }

    /// Put `digit` in `cell`, or empty it with `None`.
    pub fn set(&mut self, cell: Cell, digit: Option<Digit>) {
        self.0[cell.idx()] = digit.map_or(0, Digit::get);
    }

    /// Number of filled cells.
    pub fn n_filled(&self) -> usize {
        self.0.iter().filter(|&&b| b != 0).count()
    }

    /// Number of empty cells.
    pub fn n_empty(&self) -> usize {
        N_CELLS - self.n_filled()
    }

    /// Whether every cell holds a digit (says nothing of validity).
    pub fn is_full(&self) -> bool {
        self.0.iter().all(|&b| b != 0)
    }

    /// Parse the 81-character line format: `1`-`9` digits, `.` or `0` empty.
    /// Surrounding whitespace is ignored.
    pub fn parse(line: &str) -> Result<Grid, ParseGridError> {
        let line = line.trim();
        // Fast path: 81 bytes of ASCII digits and dots (every well-formed line); the solve
        // tool's throughput on easy sets depends on it. Anything else takes the slow path,
        // which finds the error.
        if let Ok(raw) = <&[u8; N_CELLS]>::try_from(line.as_bytes()) {
            let mut bytes = [0u8; N_CELLS];
            let mut ok = true;
            for (dst, &b) in bytes.iter_mut().zip(raw) {
                *dst = match b {
                    b'1'..=b'9' => b - b'0',
                    b'.' | b'0' => 0,
                    _ => {
                        ok = false;
                        break;
                    }
                };
            }
            if ok {
                return Ok(Grid(bytes));
            }
        }
        Self::parse_slow(line)
    }

    fn parse_slow(line: &str) -> Result<Grid, ParseGridError> {
        let len = line.chars().count();
        if len != N_CELLS {
            return Err(ParseGridError::WrongLength { len });
        }
        let mut bytes = [0u8; N_CELLS];
        for (i, ch) in line.chars().enumerate() {
            bytes[i] = match ch {
                '1'..='9' => ch as u8 - b'0',
                '.' | '0' => 0,
                _ => return Err(ParseGridError::BadChar { ch, pos: i + 1 }),
            };
        }
        Ok(Grid(bytes))
    }

    /// The 81-byte line, `.` for empty, without allocating.
    pub fn to_line_bytes(&self) -> [u8; N_CELLS] {
        self.0.map(|b| if b == 0 { b'.' } else { b'0' + b })
    }

    /// The 81-character line, `.` for empty.
    pub fn to_line(&self) -> String {
        self.to_line_bytes().iter().map(|&b| b as char).collect()
    }
}

impl FromStr for Grid {
    type Err = ParseGridError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Grid::parse(s)
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes = self.to_line_bytes();
        // Every byte is ASCII ('.' or '1'..='9').
        f.write_str(std::str::from_utf8(&bytes).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({})", self.to_line())
    }
}

const fn box_of(cell: usize) -> u8 {
    ((cell / 27) * 3 + (cell % 9) / 3) as u8
}

/// Box index of each cell.
pub const BOX_OF: [u8; N_CELLS] = {
    let mut t = [0u8; N_CELLS];
    let mut i = 0;
    while i < N_CELLS {
        t[i] = box_of(i);
        i += 1;
    }
    t
};

/// The 27 units: rows 0-8, columns 9-17, boxes 18-26; each lists its 9 cells in order.
pub const UNITS: [[u8; 9]; 27] = {
    let mut t = [[0u8; 9]; 27];
    let mut u = 0;
    while u < 9 {
        let mut k = 0;
        while k < 9 {
            t[u][k] = (u * 9 + k) as u8;
            t[9 + u][k] = (k * 9 + u) as u8;
            t[18 + u][k] = ((u / 3) * 27 + (u % 3) * 3 + (k / 3) * 9 + k % 3) as u8;
            k += 1;
        }
        u += 1;
    }
    t
};

/// The 20 peers of each cell, in increasing order.
pub const PEERS: [[u8; 20]; N_CELLS] = {
    let mut t = [[0u8; 20]; N_CELLS];
    let mut c = 0;
    while c < N_CELLS {
        let mut n = 0;
        let mut o = 0;
        while o < N_CELLS {
            if o != c && (o / 9 == c / 9 || o % 9 == c % 9 || box_of(o) == box_of(c)) {
                t[c][n] = o as u8;
                n += 1;
            }
            o += 1;
        }
        c += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

    #[test]
    fn parse_and_print_round_trip() {
        let g = Grid::parse(LINE).unwrap();
        assert_eq!(g.to_line(), LINE);
        assert_eq!(g.n_filled(), 30);
        let zeros = LINE.replace('.', "0");
        assert_eq!(Grid::parse(&zeros).unwrap(), g);
    }

    #[test]
    fn parse_errors_name_the_problem() {
        assert_eq!(
            Grid::parse("123"),
            Err(ParseGridError::WrongLength { len: 3 })
        );
        let wide = format!("{}é", &LINE[..80]);
        assert_eq!(
            Grid::parse(&wide),
            Err(ParseGridError::BadChar { ch: 'é', pos: 81 })
        );
        let short_wide = format!("{}é", &LINE[..79]);
        assert_eq!(
            Grid::parse(&short_wide),
            Err(ParseGridError::WrongLength { len: 80 })
        );
        let bad = format!("x{}", &LINE[1..]);
        assert_eq!(
            Grid::parse(&bad),
            Err(ParseGridError::BadChar { ch: 'x', pos: 1 })
        );
    }

    #[test]
    fn unit_tables_are_consistent() {
        for c in Cell::all() {
            let peers = c.peers();
            assert!(!peers.contains(&c.get()));
            for &p in peers {
                let p = Cell::new(p).unwrap();
                assert!(p.row() == c.row() || p.col() == c.col() || p.box_idx() == c.box_idx());
            }
        }
        for unit in UNITS {
            let mut seen = [false; N_CELLS];
            for c in unit {
                assert!(!seen[c as usize]);
                seen[c as usize] = true;
            }
        }
        assert_eq!(UNITS[18 + 4][0], 30);
    }

    #[test]
    fn newtypes_check_ranges() {
        assert!(Cell::new(80).is_some() && Cell::new(81).is_none());
        assert!(Digit::new(0).is_none() && Digit::new(10).is_none() && Digit::new(9).is_some());
        assert!(Cell::try_from(-1i64).is_err());
        assert_eq!(Digit::new(3).unwrap().bit(), 0b100);
    }
}
