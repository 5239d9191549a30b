//! The 9x9 board widget: heavy box borders, givens / own digits / cursor in distinct styles,
//! pencil marks as a 3x3 mini-grid, conflict highlights, and the solution shown against the board.
//!
//! Two sizes: 7x3 characters per cell (with pencil marks) when the area allows
//! [`BIG_SIZE`], else 3x1 per cell (pencil marks hidden).
//!
//! Variants (A10) are drawn from the view's [`Geometry`]: `x` and `windoku` keep the classic
//! board and tint the background of their diagonals or windows ([`TINT_BG`]); `jigsaw` and
//! `killer` need a line between every two cells, so they are drawn on a lattice (`lattice`: a
//! 3x1 or 7x3 cell inside its own borders) with the regions' or cages' outlines and each cage's
//! sum on its top-left cell's top border.

mod lattice;

pub use lattice::{CAGE, SUM};

use engine::{Cell, Digit, Geometry, Grid, Variant};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use crate::app::board::Marks;

/// Width and height of the big board.
pub const BIG_SIZE: (u16, u16) = (9 * 7 + 4, 9 * 3 + 4);

/// Width and height of the compact board.
pub const SMALL_SIZE: (u16, u16) = (9 * 3 + 4, 9 + 4);

/// Style of a given.
pub const GIVEN: Style = Style::new().fg(Color::White).add_modifier(Modifier::BOLD);
/// Style of the player's own digit.
pub const MINE: Style = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
/// Style of a digit sent and not yet answered.
pub const PENDING: Style = Style::new()
    .fg(Color::Yellow)
    .add_modifier(Modifier::ITALIC);
/// Style of a solution digit revealed in a cell the player had not filled.
pub const REVEALED: Style = Style::new().fg(Color::Magenta);
/// Style of a pencil mark.
pub const PENCIL: Style = Style::new().fg(Color::DarkGray);
/// Background of the cursor cell.
pub const CURSOR_BG: Color = Color::Blue;
/// Background of a conflicting or rejected cell.
pub const CONFLICT_BG: Color = Color::Red;
/// Background of a cell named by a hint.
pub const HINT_BG: Color = Color::Green;
/// Style of the borders.
pub const BORDER: Style = Style::new().fg(Color::Gray);
/// Background of an x's diagonals and a windoku's windows: a dark tint, so digits stay legible.
pub const TINT_BG: Color = Color::Indexed(236);

/// Everything the board shows; borrowed from an app's state.
#[derive(Clone, Copy, Debug)]
pub struct BoardView<'a> {
    /// The givens.
    pub puzzle: &'a Grid,
    /// Givens plus the player's digits.
    pub board: &'a Grid,
    /// Pencil marks, if shown.
    pub pencil: Option<&'a [Marks; 81]>,
    /// The cursor, if shown.
    pub cursor: Option<Cell>,
    /// Cells highlighted as conflicting.
    pub conflicts: &'a [Cell],
    /// Cells highlighted by a hint.
    pub highlight: &'a [Cell],
    /// A rejected digit to flash in its cell.
    pub flash: Option<(Cell, Digit)>,
    /// Digits sent and not yet answered.
    pub pending: &'a [(Cell, Digit)],
    /// The solution, shown in the cells the player had not filled.
    pub solution: Option<&'a Grid>,
    /// The puzzle's rules: its houses and cages, drawn (classic unless set).
    pub geometry: &'a Geometry,
}

impl<'a> BoardView<'a> {
    /// A plain view of `puzzle` with `board` on it.
    pub fn new(puzzle: &'a Grid, board: &'a Grid) -> BoardView<'a> {
        BoardView {
            puzzle,
            board,
            pencil: None,
            cursor: None,
            conflicts: &[],
            highlight: &[],
            flash: None,
            pending: &[],
            solution: None,
            geometry: Geometry::classic(),
        }
    }

    /// The view drawn by the rules of `geometry` (a variant's houses and cages).
    pub fn in_geometry(mut self, geometry: &'a Geometry) -> BoardView<'a> {
        self.geometry = geometry;
        self
    }

    /// The size a classic board draws at within `area`.
    pub fn size_for(area: Rect) -> (u16, u16) {
        size_in(area, false)
    }

    /// Whether the view's board is drawn on the lattice (jigsaw, killer).
    fn lattice(&self) -> bool {
        on_lattice(self.geometry)
    }

    /// The background every state of `cell` shows over: an x's diagonal, a windoku's window.
    fn tint(&self, cell: Cell) -> Option<Color> {
        let (r, c) = (cell.row(), cell.col());
        let shaded = match self.geometry.variant() {
            Variant::X => r == c || r + c == 8,
            // Rows and columns 1..=3 and 5..=7: the four windows.
            Variant::Windoku => r % 4 != 0 && c % 4 != 0,
            _ => false,
        };
        shaded.then_some(TINT_BG)
    }

    fn cell_content(&self, cell: Cell) -> (Option<char>, Style, Marks) {
        if let Some((fc, fd)) = self.flash {
            if fc == cell {
                return (
                    Some(digit_char(fd)),
                    Style::new()
                        .fg(Color::White)
                        .bg(CONFLICT_BG)
                        .add_modifier(Modifier::BOLD),
                    0,
                );
            }
        }
        if let Some(d) = self.puzzle.get(cell) {
            return (Some(digit_char(d)), GIVEN, 0);
        }
        if let Some(d) = self.board.get(cell) {
            return (Some(digit_char(d)), MINE, 0);
        }
        if let Some(&(_, d)) = self.pending.iter().find(|(c, _)| *c == cell) {
            return (Some(digit_char(d)), PENDING, 0);
        }
        if let Some(d) = self.solution.and_then(|s| s.get(cell)) {
            return (Some(digit_char(d)), REVEALED, 0);
        }
        let marks = self.pencil.map_or(0, |p| p[cell.idx()]);
        (None, PENCIL, marks)
    }
}

fn digit_char(d: Digit) -> char {
    char::from(b'0' + d.get())
}

fn border_char(row_kind: u8, col_kind: u8) -> char {
    // row_kind/col_kind: 0 first line, 1 inner line, 2 last line.
    match (row_kind, col_kind) {
        (0, 0) => '┏',
        (0, 1) => '┳',
        (0, 2) => '┓',
        (1, 0) => '┣',
        (1, 1) => '╋',
        (1, 2) => '┫',
        (2, 0) => '┗',
        (2, 1) => '┻',
        _ => '┛',
    }
}

fn kind(i: u16) -> u8 {
    match i {
        0 => 0,
        3 => 2,
        _ => 1,
    }
}

impl Widget for BoardView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let lattice = self.lattice();
        let (w, h) = size_in(area, lattice);
        let small = if lattice {
            lattice::SMALL_SIZE
        } else {
            SMALL_SIZE
        };
        let big = (w, h) != small;
        let area = Rect::new(area.x, area.y, w.min(area.width), h.min(area.height));
        if area.width < w || area.height < h {
            Line::from(format!("board needs {}×{}", small.0, small.1)).render(area, buf);
            return;
        }
        if lattice {
            lattice::render(&self, area, big, buf);
            return;
        }
        let (cw, ch) = if big { (7u16, 3u16) } else { (3, 1) };
        let box_w = 3 * cw + 1;
        let box_h = 3 * ch + 1;
        // Borders.
        for by in 0..4u16 {
            let y = area.y + by * box_h;
            for x in 0..w {
                let c = if x % box_w == 0 {
                    border_char(kind(by), kind(x / box_w))
                } else {
                    '━'
                };
                buf[(area.x + x, y)].set_char(c).set_style(BORDER);
            }
        }
        for bx in 0..4u16 {
            let x = area.x + bx * box_w;
            for y in 0..h {
                if y % box_h != 0 {
                    buf[(x, area.y + y)].set_char('┃').set_style(BORDER);
                }
            }
        }
        for cell in Cell::all() {
            let (r, c) = (cell.row() as u16, cell.col() as u16);
            let x0 = area.x + 1 + (c / 3) * box_w + (c % 3) * cw;
            let y0 = area.y + 1 + (r / 3) * box_h + (r % 3) * ch;
            self.draw_cell(cell, Rect::new(x0, y0, cw, ch), buf);
        }
    }
}

impl BoardView<'_> {
    /// One cell's content in its `inner` rectangle (3x1 or 7x3): its digit, or its pencil
    /// marks, over the cursor's, a clash's, a hint's or its tint's background.
    fn draw_cell(&self, cell: Cell, inner: Rect, buf: &mut Buffer) {
        let (x0, y0, cw, ch) = (inner.x, inner.y, inner.width, inner.height);
        let big = ch > 1;
        let (digit, style, marks) = self.cell_content(cell);
        let mut bg = self.tint(cell);
        if self.highlight.contains(&cell) {
            bg = Some(HINT_BG);
        }
        if self.conflicts.contains(&cell) {
            bg = Some(CONFLICT_BG);
        }
        if self.cursor == Some(cell) {
            bg = Some(CURSOR_BG);
        }
        let base = bg.map_or(Style::new(), |b| Style::new().bg(b));
        for dy in 0..ch {
            for dx in 0..cw {
                buf[(x0 + dx, y0 + dy)].set_char(' ').set_style(base);
            }
        }
        let style = match bg {
            Some(b) if style.bg.is_none() => style.bg(b),
            _ => style,
        };
        match digit {
            Some(d) => {
                buf[(x0 + cw / 2, y0 + ch / 2)].set_char(d).set_style(style);
            }
            None if big && marks != 0 => {
                for d in Digit::all() {
                    if marks & d.bit() != 0 {
                        let i = u16::from(d.get() - 1);
                        buf[(x0 + 1 + (i % 3) * 2, y0 + i / 3)]
                            .set_char(digit_char(d))
                            .set_style(style);
                    }
                }
            }
            None if !big && marks != 0 => {
                buf[(x0 + 1, y0)].set_char('·').set_style(style);
            }
            None => {}
        }
    }
}

/// Whether boards of `geometry` are drawn on the lattice: a line between every two cells,
/// for a jigsaw's regions and a killer's cages.
fn on_lattice(geometry: &Geometry) -> bool {
    matches!(geometry.variant(), Variant::Jigsaw | Variant::Killer)
}

/// The size a board draws at within `area`: big when it fits, else small.
fn size_in(area: Rect, lattice: bool) -> (u16, u16) {
    let (small, big) = if lattice {
        (lattice::SMALL_SIZE, lattice::BIG_SIZE)
    } else {
        (SMALL_SIZE, BIG_SIZE)
    };
    if area.width >= big.0 && area.height >= big.1 {
        big
    } else {
        small
    }
}

/// `area` split for a screen with a board of `geometry`: the board at the largest size that
/// leaves `side` columns beside it (10 more than the side's minimum, so the side is never
/// squeezed to it), with `below` lines under it. `[board, below, side]`.
pub fn beside_board(area: Rect, side: u16, below: u16, geometry: &Geometry) -> [Rect; 3] {
    let (bw, bh) = size_in(
        Rect::new(
            0,
            0,
            area.width.saturating_sub(side + 10),
            area.height.saturating_sub(below),
        ),
        on_lattice(geometry),
    );
    let [left, right] =
        Layout::horizontal([Constraint::Length(bw + 1), Constraint::Min(side)]).areas(area);
    let [board, under, _] = Layout::vertical([
        Constraint::Length(bh),
        Constraint::Length(below),
        Constraint::Min(0),
    ])
    .areas(left);
    [board, under, right]
}

/// The digit bar: `1 2 3 ... 9`, digits complete on the board dimmed.
pub fn digit_bar(board: &Grid) -> Line<'static> {
    let mut spans = vec![Span::raw(" digits: ")];
    for d in Digit::all() {
        let n = board.as_bytes().iter().filter(|&&b| b == d.get()).count();
        let style = if n >= 9 {
            Style::new().fg(Color::DarkGray).add_modifier(Modifier::DIM)
        } else {
            Style::new().fg(Color::White).add_modifier(Modifier::BOLD)
        };
        spans.push(Span::styled(d.to_string(), style));
        spans.push(Span::raw(" "));
    }
    Line::from(spans)
}
