//! The tools drawn over the lobby or the results screen: the room host's settings editor and
//! list of players to remove, and anyone's list of players to report (A8) with its reason.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

use crate::app::report::report_list;
use crate::app::room_host::{kick_list, value_text, ROWS};
use crate::app::{Room, Tool};

const CHOSEN: Style = Style::new()
    .fg(Color::Black)
    .bg(Color::Yellow)
    .add_modifier(Modifier::BOLD);

/// One line per player, the chosen one highlighted.
fn names(list: Vec<(protocol::PlayerId, String)>, row: usize) -> Vec<Line<'static>> {
    list.into_iter()
        .enumerate()
        .map(|(i, (_, name))| {
            let text = format!(" {name} ");
            if i == row {
                Line::styled(text, CHOSEN)
            } else {
                Line::raw(text)
            }
        })
        .collect()
}

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
        Tool::Kick { row } => (" remove a player ", names(kick_list(room), *row)),
        Tool::Report { row, reason } => {
            let mut lines = names(report_list(room), *row);
            if let Some(reason) = reason {
                lines.push(Line::raw(" why? (1 to 200 characters)"));
                // The popup is 44 wide: a long reason shows its end, where the typing is.
                let n = reason.chars().count();
                let tail: String = reason.chars().skip(n.saturating_sub(38)).collect();
                let cut = if n > 38 { "…" } else { " " };
                lines.push(Line::styled(format!("{cut}{tail}▏"), CHOSEN));
            }
            (" report a player to the moderators ", lines)
        }
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
