//! The lobby screen (also shown between races): the room code, how a friend joins, the
//! settings, the players and the chat.

use protocol::Phase;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

use super::{players_lines, render_chat};
use crate::app::{clock, App, Room};

pub(super) fn render(app: &App, room: &Room, area: Rect, buf: &mut Buffer) {
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(area);
    let mut lines = vec![
        Line::from(vec![
            Span::raw("Room code: "),
            Span::styled(
                room.code.to_string(),
                Style::new()
                    .fg(Color::Yellow)
                    .add_modifier(Modifier::BOLD | Modifier::REVERSED),
            ),
        ]),
        Line::raw(""),
    ];
    if let Some(cmd) = app.join_command() {
        lines.push(Line::raw("A friend joins with:"));
        let cmd = cmd.replace("{code}", &room.code);
        lines.push(Line::styled(
            format!("  {cmd}"),
            Style::new().fg(Color::Green),
        ));
        if let Some(page) = browser_link(&cmd) {
            lines.push(Line::raw("or in a browser, no install:"));
            lines.push(Line::styled(
                format!("  {page}"),
                Style::new().fg(Color::Green),
            ));
        }
        lines.push(Line::raw(""));
    }
    let s = &room.settings;
    lines.push(Line::raw(format!(
        "Settings: {} · {}{} room · up to {} players · {} limit",
        crate::app::variant_label(s.variant, s.difficulty),
        if s.public { "public" } else { "private" },
        if s.rated { " rated" } else { "" },
        s.max_players,
        clock(u64::from(s.time_limit_s) * 1000)
    )));
    lines.push(Line::raw(format!(
        "          {} · {} s penalty per mistake",
        if s.max_mistakes == 0 {
            "unlimited mistakes".to_owned()
        } else {
            format!("out after {} mistakes", s.max_mistakes)
        },
        s.penalty_s,
    )));
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!("Players ({}/{})", room.players.len(), s.max_players),
        Style::new().add_modifier(Modifier::BOLD),
    ));
    lines.extend(players_lines(room));
    lines.push(Line::raw(""));
    let waiting = if room.settings.pool {
        if room.phase == Phase::Finished {
            "Race over: press r to race again with whoever is waiting."
        } else {
            "A race with strangers: it starts by itself (nobody hosts it)."
        }
    } else if room.phase == Phase::Finished {
        "Between races: the host can start a rematch."
    } else if room.am_room_host() {
        "Press s to start when everyone is here (ready marks are optional)."
    } else {
        "Waiting for the host to start. Press r to mark yourself ready."
    };
    lines.push(Line::raw(waiting));
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(Block::new().borders(Borders::ALL).title(" lobby "))
        .render(left, buf);
    render_chat(app, right, buf);
}

/// The browser's form of the invite link in a join command (`ws[s]://HOST/r/CODE` →
/// `http[s]://HOST/r/CODE`, Amendment A5): the server serves the browser client there.
fn browser_link(cmd: &str) -> Option<String> {
    let link = cmd.split_whitespace().find(|w| w.contains("/r/"))?;
    if let Some(rest) = link.strip_prefix("wss://") {
        Some(format!("https://{rest}"))
    } else {
        link.strip_prefix("ws://")
            .map(|rest| format!("http://{rest}"))
    }
}

#[cfg(test)]
mod tests {
    use super::browser_link;

    #[test]
    fn a_join_command_names_the_browser_page_of_its_link() {
        for (cmd, page) in [
            (
                "sudoku-race join ws://10.0.0.5:7878/r/AB23",
                Some("http://10.0.0.5:7878/r/AB23"),
            ),
            (
                "sudoku-race join wss://race.example.org/r/AB23 --ca-file PEM",
                Some("https://race.example.org/r/AB23"),
            ),
            ("sudoku-race join AB23 --server ws://10.1.2.3:7878/ws", None),
        ] {
            assert_eq!(browser_link(cmd).as_deref(), page, "{cmd}");
        }
    }
}
