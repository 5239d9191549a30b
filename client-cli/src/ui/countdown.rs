//! The countdown screen: seconds to the start and who is seated.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

use super::players_lines;
use crate::app::{App, Room};

pub(super) fn render(app: &App, room: &Room, area: Rect, buf: &mut Buffer) {
    let left_ms = room
        .countdown_until_ms
        .map_or(0, |t| t.saturating_sub(app.clock_ms()));
    let secs = left_ms.div_ceil(1000);
    let mut lines = vec![
        Line::raw(""),
        Line::styled(
            format!("The race starts in {secs}…"),
            Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
        ),
        Line::raw(""),
    ];
    lines.extend(players_lines(room));
    Paragraph::new(lines)
        .block(Block::new().borders(Borders::ALL).title(" get ready "))
        .render(area, buf);
}
