//! The room host's tools drawn over the lobby or the results screen: the settings editor and the
//! list of players to remove.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

use crate::app::room_host::{kick_list, value_text, ROWS};
use crate::app::{Room, Tool};

const CHOSEN: Style = Style::new()
    .fg(Color::Black)
    .bg(Color::Yellow)
    .add_modifier(Modifier::BOLD);

pub(super) fn render(tool: &Tool, room: &Room, area: Rect, buf: &mut Buffer) {
    let (title, lines): (&str, Vec<Line<'static>>) = match tool {
        Tool::Settings { row, draft } => (
            " next race's settings ",
            ROWS.iter()
                .enumerate()
                .map(|(i, name)| {
                    let text = format!(" {name:<11} ◂ {} ▸ ", value_text(draft, i));
                    if i == *row {
                        Line::styled(text, CHOSEN)
                    } else {
                        Line::raw(text)
                    }
                })
                .collect(),
        ),
        Tool::Kick { row } => (
            " remove a player ",
            kick_list(room)
                .into_iter()
                .enumerate()
                .map(|(i, (_, name))| {
                    let text = format!(" {name} ");
                    if i == *row {
                        Line::styled(text, CHOSEN)
                    } else {
                        Line::raw(text)
                    }
                })
                .collect(),
        ),
    };
    let w = 44.min(area.width);
    let h = (lines.len() as u16 + 2).min(area.height);
    let popup = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    Clear.render(popup, buf);
    Paragraph::new(lines)
        .block(Block::new().borders(Borders::ALL).title(title))
        .render(popup, buf);
}
