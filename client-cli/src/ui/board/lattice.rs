//! The lattice board for the variants whose pieces do not follow the boxes (A10): a line
//! between every two cells, so a jigsaw's regions and a killer's cages have outlines.
//!
//! Jigsaw: a heavy line between cells of different regions, a light one inside a region.
//! Killer: the boxes stay heavy; a cage's outline is yellow (dashed inside a box, heavy on a box
//! line), a box line inside one cage is grey and dashed, and two cells of one cage inside a box
//! have no line between them. Each cage's sum is written on the top border of its top-left cell
//! (top-most, then left-most), which is always part of its outline.
//!
//! Each cell keeps the classic board's 3x1 or 7x3 inside, so the small lattice is 37x19: the
//! main area of an 80x24 terminal holds it beside a side panel.

use engine::{Cell, Constraint, Geometry, Variant};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

use super::{BoardView, BORDER};

/// Width and height of the small lattice (3x1 inside each cell).
pub const SMALL_SIZE: (u16, u16) = (9 * 4 + 1, 9 * 2 + 1);

/// Width and height of the big lattice (7x3 inside each cell, pencil marks shown).
pub const BIG_SIZE: (u16, u16) = (9 * 8 + 1, 9 * 4 + 1);

/// Style of a killer cage's outline.
pub const CAGE: Style = Style::new().fg(Color::Yellow);

/// Style of a cage's sum.
pub const SUM: Style = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);

/// Style of a light line inside a jigsaw region.
const INSIDE: Style = Style::new().fg(Color::DarkGray);

/// Every junction of up to four arms, indexed by `up * 27 + right * 9 + down * 3 + left`,
/// each arm 0 (none), 1 (light) or 2 (heavy).
const JUNCTIONS: [char; 81] = [
    ' ', '╴', '╸', '╷', '┐', '┑', '╻', '┒', '┓', '╶', '─', '╾', '┌', '┬', '┭', '┎', '┰', '┱', '╺',
    '╼', '━', '┍', '┮', '┯', '┏', '┲', '┳', '╵', '┘', '┙', '│', '┤', '┥', '╽', '┧', '┪', '└', '┴',
    '┵', '├', '┼', '┽', '┟', '╁', '╅', '┕', '┶', '┷', '┝', '┾', '┿', '┢', '╆', '╈', '╹', '┚', '┛',
    '╿', '┦', '┩', '┃', '┨', '┫', '┖', '┸', '┹', '┞', '╀', '╃', '┠', '╂', '╉', '┗', '┺', '┻', '┡',
    '╄', '╇', '┣', '╊', '╋',
];

/// One line segment between two cells (or a cell and the edge of the board).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Edge {
    /// 0 none, 1 light, 2 heavy.
    weight: u8,
    dashed: bool,
    style: Style,
}

impl Edge {
    const NONE: Edge = Edge {
        weight: 0,
        dashed: false,
        style: BORDER,
    };

    const fn new(weight: u8, dashed: bool, style: Style) -> Edge {
        Edge {
            weight,
            dashed,
            style,
        }
    }

    /// Its glyph along a horizontal or a vertical line.
    fn glyph(self, horizontal: bool) -> char {
        let glyphs = match (self.weight, self.dashed) {
            (0, _) => [' ', ' '],
            (1, false) => ['─', '│'],
            (1, true) => ['┄', '┆'],
            (_, false) => ['━', '┃'],
            (_, true) => ['┅', '┇'],
        };
        glyphs[usize::from(!horizontal)]
    }
}

/// The variant's pieces: each cell's jigsaw region or killer cage.
struct Pieces {
    variant: Variant,
    of: [usize; 81],
}

impl Pieces {
    fn of(geometry: &Geometry) -> Pieces {
        let variant = geometry.variant();
        let mut of = [0; 81];
        if variant == Variant::Killer {
            for (i, k) in geometry.constraints().iter().enumerate() {
                k.cells().iter().for_each(|c| of[c.idx()] = i);
            }
        } else {
            // A jigsaw's houses: nine rows, nine columns, then its regions.
            for (i, house) in geometry.houses().iter().enumerate().skip(18) {
                house.iter().for_each(|c| of[c.idx()] = i);
            }
        }
        Pieces { variant, of }
    }

    /// The line between cells `a` and `b` (either off the board: the frame); `box_line` when
    /// it lies on a box's border.
    fn between(&self, a: Option<Cell>, b: Option<Cell>, box_line: bool) -> Edge {
        let killer = self.variant == Variant::Killer;
        let (Some(a), Some(b)) = (a, b) else {
            return Edge::new(2, false, if killer { CAGE } else { BORDER });
        };
        let apart = self.of[a.idx()] != self.of[b.idx()];
        match (killer, apart, box_line) {
            (false, true, _) => Edge::new(2, false, BORDER),
            (false, false, _) => Edge::new(1, false, INSIDE),
            (true, true, true) => Edge::new(2, false, CAGE),
            (true, false, true) => Edge::new(2, true, BORDER),
            (true, true, false) => Edge::new(1, true, CAGE),
            (true, false, false) => Edge::NONE,
        }
    }

    /// The segment of horizontal line `i` (0..=9, above row `i`) over column `c`.
    fn across(&self, i: usize, c: usize) -> Edge {
        if c > 8 {
            return Edge::NONE;
        }
        let above = i.checked_sub(1).and_then(|r| cell(r, c));
        self.between(above, cell(i, c), i.is_multiple_of(3))
    }

    /// The segment of vertical line `j` (0..=9, left of column `j`) beside row `r`.
    fn down(&self, r: usize, j: usize) -> Edge {
        if r > 8 {
            return Edge::NONE;
        }
        let left = j.checked_sub(1).and_then(|c| cell(r, c));
        self.between(left, cell(r, j), j.is_multiple_of(3))
    }

    /// Where horizontal line `i` meets vertical line `j`: its glyph and style.
    fn junction(&self, i: usize, j: usize) -> (char, Style) {
        let up = i.checked_sub(1).map_or(Edge::NONE, |r| self.down(r, j));
        let down = self.down(i, j);
        let left = j.checked_sub(1).map_or(Edge::NONE, |c| self.across(i, c));
        let right = self.across(i, j);
        let arms = [up, right, down, left];
        let style = if arms.iter().any(|e| e.weight > 0 && e.style == CAGE) {
            CAGE
        } else if arms.iter().any(|e| e.weight == 2) {
            BORDER
        } else {
            INSIDE
        };
        // A dashed line runs on through a junction nothing crosses.
        if up.weight == 0 && down.weight == 0 && left == right {
            return (left.glyph(true), style);
        }
        if left.weight == 0 && right.weight == 0 && up == down {
            return (up.glyph(false), style);
        }
        let [u, r, d, l] = arms.map(|e| usize::from(e.weight.min(2)));
        (JUNCTIONS[u * 27 + r * 9 + d * 3 + l], style)
    }
}

/// The cell at row `r`, column `c`, if both are below 9.
fn cell(r: usize, c: usize) -> Option<Cell> {
    Cell::at(u8::try_from(r).ok()?, u8::try_from(c).ok()?)
}

/// Draw `view` on the lattice in `area` (at least [`SMALL_SIZE`], or [`BIG_SIZE`] if `big`).
pub(super) fn render(view: &BoardView<'_>, area: Rect, big: bool, buf: &mut Buffer) {
    let (cw, ch) = if big { (7u16, 3u16) } else { (3, 1) };
    let pieces = Pieces::of(view.geometry);
    let at = |i: usize, step: u16| u16::try_from(i).unwrap_or(0) * (step + 1);
    for i in 0..=9 {
        for j in 0..=9 {
            let (x, y) = (area.x + at(j, cw), area.y + at(i, ch));
            let (glyph, style) = pieces.junction(i, j);
            buf[(x, y)].set_char(glyph).set_style(style);
            let across = pieces.across(i, j);
            for dx in (1..=cw).filter(|_| j < 9) {
                buf[(x + dx, y)]
                    .set_char(across.glyph(true))
                    .set_style(across.style);
            }
            let down = pieces.down(i, j);
            for dy in (1..=ch).filter(|_| i < 9) {
                buf[(x, y + dy)]
                    .set_char(down.glyph(false))
                    .set_style(down.style);
            }
        }
    }
    for c in Cell::all() {
        let (x, y) = (area.x + at(c.col(), cw), area.y + at(c.row(), ch));
        view.draw_cell(c, Rect::new(x + 1, y + 1, cw, ch), buf);
    }
    for k in view.geometry.constraints() {
        let Constraint::Cage { cells, sum } = k;
        // The top-left cell: top-most, then left-most (the smallest index).
        let Some(first) = cells.iter().min() else {
            continue;
        };
        let (x, y) = (area.x + at(first.col(), cw), area.y + at(first.row(), ch));
        for (dx, ch) in (1..).zip(sum.to_string().chars()) {
            buf[(x + dx, y)].set_char(ch).set_style(SUM);
        }
    }
}
