//! The solo practice screen: the board, a digit bar, and a panel with the clock, the last hint
//! and the keys. A pure function of `&SoloApp`.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

use super::board::{beside_board, digit_bar, BoardView};
use super::help_line;
use crate::app::clock;
use crate::solo::{Outcome, SoloApp};

impl Widget for &SoloApp {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let [top, main, notice, help] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(0),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(area);
        Line::from(vec![
            Span::styled(
                " sudoku-race ",
                Style::new().fg(Color::Black).bg(Color::Cyan),
            ),
            Span::raw(format!(
                "  solo practice  ·  {}",
                crate::app::variant_label(self.variant(), self.level)
            )),
        ])
        .render(top, buf);
        let [board_area, bar_area, right] = beside_board(main, 20, 1, self.board.geometry());
        render_board(self, board_area, buf);
        digit_bar(&self.board.board).render(bar_area, buf);
        Paragraph::new(panel_lines(self))
            .wrap(Wrap { trim: false })
            .block(Block::new().borders(Borders::ALL).title(" solo "))
            .render(right, buf);
        if let Some(n) = &self.notice {
            let style = if n.bad {
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
            } else {
                Style::new().fg(Color::Green)
            };
            Line::styled(n.text.clone(), style).render(notice, buf);
        }
        help_line(&[
            ("hjkl/←↓↑→", "move"),
            ("1-9", "place"),
            ("x", "erase"),
            ("p", "pencil"),
            ("u", "undo"),
            ("c", "check"),
            ("?", "hint"),
            ("g", "give up"),
            ("n", "new"),
            ("q", "quit"),
        ])
        .render(help, buf);
    }
}

/// The board with the pencil marks, the cursor, the clashes, the hint's cells, and the
/// solution after giving up.
fn render_board(app: &SoloApp, area: Rect, buf: &mut Buffer) {
    let hint_cells = app.hint.as_ref().map_or(&[][..], |h| &h.cells[..]);
    let mut view =
        BoardView::new(&app.board.puzzle, &app.board.board).in_geometry(app.board.geometry());
    view.pencil = Some(&app.board.pencil_cursor.pencil);
    view.cursor = Some(app.board.pencil_cursor.cursor);
    view.conflicts = &app.conflicts;
    view.highlight = hint_cells;
    if app.outcome == Some(Outcome::GaveUp) {
        view.solution = Some(&app.solution);
    }
    view.render(area, buf);
}

/// The panel beside the board: clock, progress, mode, the outcome and the last hint.
fn panel_lines(app: &SoloApp) -> Vec<Line<'static>> {
    let to_fill = app.board.puzzle.n_empty();
    let mut lines = vec![
        Line::from(vec![
            Span::raw("clock "),
            Span::styled(
                clock(app.elapsed_ms()),
                Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
            ),
        ]),
        Line::raw(format!("filled {}/{to_fill}", app.board.n_placed())),
        Line::raw(format!(
            "mode   {}",
            if app.board.pencil_cursor.pencil_mode {
                "pencil"
            } else {
                "pen"
            }
        )),
        Line::raw(""),
    ];
    match app.outcome {
        Some(Outcome::Solved { time_ms }) => lines.push(Line::styled(
            format!("Solved in {}!", clock(time_ms)),
            Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
        )),
        Some(Outcome::GaveUp) => lines.push(Line::styled(
            "Gave up: the solution is in magenta.",
            Style::new().fg(Color::Magenta),
        )),
        None => {}
    }
    if let Some(h) = &app.hint {
        lines.push(Line::styled(
            "hint",
            Style::new().add_modifier(Modifier::BOLD),
        ));
        lines.push(Line::styled(h.text.clone(), Style::new().fg(Color::Green)));
    }
    lines
}
