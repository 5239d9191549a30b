//! Rendering: a pure function of the app state. `impl Widget for &App` draws the frame (the
//! top line, the notice and the footer from the key table) and hands the main area to the
//! screen of the room's phase: `lobby`, `countdown`, `race` (with its `panel`),
//! `results`, with the room host's tools (`room_host`) over the lobby and the results; in no room,
//! `outside` says where we stand. [`board`] is the board widget they share with [`solo`], the
//! offline screen, and [`replay`], a finished race played back. Below [`MIN_SIZE`] the frame
//! says the size it needs instead. The helpers here (help line, progress bar, player and chat
//! lines) serve every screen.
//!
//! Every server string drawn here (names, chat, codes, error messages) arrived terminal-safe:
//! the connection task cleans each message as it parses it (`net::parse_server_msg`,
//! Amendment A3), and a replay's strings are cleaned as `Replay::from_json` parses them, so no
//! screen needs to, and none can forget to.

mod arena;
pub mod board;
mod countdown;
mod lobby;
mod outside;
mod panel;
mod race;
pub mod replay;
mod results;
mod room_host;
pub mod solo;

use protocol::{FinishStatus, Phase, Player, PlayerStatus, Role};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

use crate::app::keys::{self, INPUT_HELP, RENAME_HELP};
use crate::app::{App, Conn, Outside, Room};

/// The smallest terminal the online screens are drawn for (every footer fits its width).
pub const MIN_SIZE: (u16, u16) = (80, 24);

/// Draws the size needed instead of the screen, if `area` is smaller than `min`; true if so.
pub fn too_small(area: Rect, min: (u16, u16), buf: &mut Buffer) -> bool {
    if area.width >= min.0 && area.height >= min.1 {
        return false;
    }
    let text = format!(
        "terminal too small: need at least {}×{}, have {}×{} (q quits)",
        min.0, min.1, area.width, area.height
    );
    Paragraph::new(text)
        .wrap(Wrap { trim: true })
        .render(area, buf);
    true
}

/// Style of key names in help lines.
const KEY: Style = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);

/// A help line from `(key, what)` pairs.
pub fn help_line(items: &[(&str, &str)]) -> Line<'static> {
    let mut spans = Vec::new();
    for (i, (k, what)) in items.iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw("  "));
        }
        spans.push(Span::styled((*k).to_owned(), KEY));
        spans.push(Span::raw(format!(" {what}")));
    }
    Line::from(spans)
}

/// A progress bar of `width` cells: `█` for done, `░` for the rest.
pub fn bar(filled: u32, to_fill: u32, width: u16) -> String {
    let width = u32::from(width);
    let done = (filled.min(to_fill) * width)
        .checked_div(to_fill)
        .unwrap_or(width);
    let mut s = "█".repeat(done as usize);
    s.push_str(&"░".repeat((width - done) as usize));
    s
}

fn status_word(s: PlayerStatus) -> &'static str {
    match s {
        PlayerStatus::Waiting => "waiting",
        PlayerStatus::Racing => "racing",
        PlayerStatus::Solved => "solved",
        PlayerStatus::Forfeited => "forfeited",
        PlayerStatus::Eliminated => "eliminated",
        PlayerStatus::TimedOut => "timed out",
    }
}

fn finish_word(s: FinishStatus) -> &'static str {
    status_word(s.into())
}

/// What follows a bot's name in every player list (lobby, progress, results, replay).
pub const BOT_MARK: &str = " [bot]";

/// What follows a ghost's name (a stored race replayed, A7) in every player list.
pub const GHOST_MARK: &str = " [ghost]";

/// The dim [`BOT_MARK`] for a bot, nothing for a person.
fn bot_mark(bot: bool) -> Option<Span<'static>> {
    bot.then(|| Span::styled(BOT_MARK, Style::new().fg(Color::DarkGray)))
}

/// The dim [`BOT_MARK`] or [`GHOST_MARK`] for a seat that is no person, nothing for a person.
fn seat_mark(p: &Player) -> Option<Span<'static>> {
    if p.ghost {
        return Some(Span::styled(GHOST_MARK, Style::new().fg(Color::Magenta)));
    }
    bot_mark(p.bot)
}

fn dot(p: &Player) -> Span<'static> {
    if p.connected {
        Span::styled("●", Style::new().fg(Color::Green))
    } else {
        Span::styled("○", Style::new().fg(Color::Red))
    }
}

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if too_small(area, MIN_SIZE, buf) {
            return;
        }
        let [top, main, bottom] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(0),
            Constraint::Length(2),
        ])
        .areas(area);
        render_top(self, top, buf);
        render_bottom(self, bottom, buf);
        let Some(room) = self.room() else {
            outside::render(self, main, buf);
            return;
        };
        match room.phase {
            Phase::Lobby => lobby::render(self, room, main, buf),
            Phase::Countdown => countdown::render(self, room, main, buf),
            Phase::Racing => race::render(self, room, main, buf),
            Phase::Finished => match &room.results {
                Some(_) => results::render(self, room, main, buf),
                None => lobby::render(self, room, main, buf),
            },
        }
        if let Some(tool) = self.tool() {
            room_host::render(tool, room, main, buf);
        }
    }
}

/// The top line: where we are and as whom, and the connection when it is not well.
fn render_top(app: &App, area: Rect, buf: &mut Buffer) {
    let mut spans = vec![Span::styled(
        " sudoku-race ",
        Style::new().fg(Color::Black).bg(Color::Cyan),
    )];
    if let Some(room) = app.room() {
        spans.push(Span::raw(format!(
            "  room {}  ·  {}  ·  {}",
            room.code,
            crate::app::variant_label(room.settings.variant, room.settings.difficulty),
            match room.role {
                Role::Player => format!("playing as {}", app.name),
                Role::Spectator => "spectating".to_owned(),
            }
        )));
    } else if let (Outside::Arena, Some(arena)) = (&app.outside, &app.arena) {
        spans.push(Span::raw(format!(
            "  arena {}  ·  {}  ·  member as {}",
            arena.info.name, arena.info.difficulty, app.name
        )));
    } else if let Outside::Queued { difficulty, .. } = &app.outside {
        spans.push(Span::raw(format!(
            "  quick race  ·  {}  ·  waiting as {}",
            crate::app::variant_label(app.seating().variant(), difficulty),
            app.name
        )));
    }
    match app.conn() {
        Conn::Reconnecting { attempt, .. } => spans.push(Span::styled(
            format!("  reconnecting… (attempt {attempt})"),
            Style::new().fg(Color::Black).bg(Color::Yellow),
        )),
        Conn::Moving { .. } => spans.push(Span::styled(
            "  moving…",
            Style::new().fg(Color::Black).bg(Color::Yellow),
        )),
        Conn::Closed(Some(_)) => spans.push(Span::styled(
            "  disconnected",
            Style::new().fg(Color::White).bg(Color::Red),
        )),
        _ => {}
    }
    Line::from(spans).render(area, buf);
}

/// The notice (or the chat line being typed) and the footer of keys.
fn render_bottom(app: &App, area: Rect, buf: &mut Buffer) {
    let [notice, help] =
        Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(area);
    if let Some(input) = app.chat().input() {
        Line::from(vec![
            Span::styled("say: ", KEY),
            Span::raw(input.to_owned()),
            Span::styled("▏", Style::new().fg(Color::Yellow)),
        ])
        .render(notice, buf);
    } else if let Some(line) = away_line(app) {
        line.render(notice, buf);
    } else if let Some(n) = app.status().notice() {
        let style = if n.bad {
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
        } else {
            Style::new().fg(Color::Green)
        };
        Line::styled(n.text.clone(), style).render(notice, buf);
    }
    let renaming = app.room().is_none() && matches!(app.outside, Outside::Rename { .. });
    let items = if app.chat().input().is_some() {
        INPUT_HELP.to_vec()
    } else if renaming {
        RENAME_HELP.to_vec()
    } else {
        keys::help(&app.key_context())
    };
    help_line(&items).render(help, buf);
}

/// In a room while the connection is away or the room moves to another server (A12): that the
/// race goes on, and when the next try is.
fn away_line(app: &App) -> Option<Line<'static>> {
    let room = app.room()?;
    let what = if room.phase == Phase::Racing {
        "race"
    } else {
        "room"
    };
    let in_secs = |at: u64| at.saturating_sub(app.clock_ms()).div_ceil(1000);
    let text = match *app.conn() {
        Conn::Reconnecting {
            attempt,
            retry_at_ms,
        } => match in_secs(retry_at_ms) {
            0 => format!("connection lost; the {what} goes on — reconnecting now… (try {attempt})"),
            n => format!(
                "connection lost; the {what} goes on — reconnecting in {n} s (try {attempt})"
            ),
        },
        Conn::Moving { retry_at_ms, .. } => match in_secs(retry_at_ms) {
            0 => format!("the {what} moved to another server and goes on — trying now…"),
            n => format!("the {what} moved to another server and goes on — back in {n} s"),
        },
        _ => return None,
    };
    let style = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
    Some(Line::styled(text, style))
}

/// One line per seated player: connection dot, ready mark, name, bot mark, room-host star. A
/// pool room has neither ready marks nor a host (the server starts its races).
fn players_lines(room: &Room) -> Vec<Line<'static>> {
    room.players
        .iter()
        .map(|p| {
            let mut spans = vec![dot(p), Span::raw(" ")];
            if !room.settings.pool {
                spans.push(if p.ready {
                    Span::styled("✓ ", Style::new().fg(Color::Green))
                } else {
                    Span::raw("· ")
                });
            }
            let me = room.me.as_deref() == Some(p.player_id.as_str());
            let name_style = if me {
                Style::new().add_modifier(Modifier::BOLD)
            } else {
                Style::new()
            };
            spans.push(Span::styled(p.name.to_string(), name_style));
            spans.extend(seat_mark(p));
            if room.room_host.as_ref() == Some(&p.player_id) {
                spans.push(Span::styled(" ★ host", Style::new().fg(Color::Yellow)));
            }
            if me {
                spans.push(Span::raw(" (you)"));
            }
            if !p.connected {
                spans.push(Span::styled(" (reconnecting)", Style::new().fg(Color::Red)));
            }
            Line::from(spans)
        })
        .collect()
}

/// The last `height` chat lines; a spectator's name is marked `(watching)`, so nobody takes a
/// watcher for a rival.
fn chat_lines(app: &App, height: u16) -> Vec<Line<'static>> {
    let chat = app.chat().lines();
    let skip = chat.len().saturating_sub(height as usize);
    chat[skip..]
        .iter()
        .map(|c| {
            let mut spans = vec![Span::styled(
                c.name.to_string(),
                Style::new().fg(Color::Cyan),
            )];
            if c.watching {
                spans.push(Span::styled(
                    " (watching)",
                    Style::new().fg(Color::DarkGray),
                ));
            }
            spans.push(Span::styled(": ", Style::new().fg(Color::Cyan)));
            spans.push(Span::raw(c.text.clone()));
            Line::from(spans)
        })
        .collect()
}

/// The chat box.
fn render_chat(app: &App, area: Rect, buf: &mut Buffer) {
    let block = Block::new().borders(Borders::ALL).title(" chat ");
    let inner = block.inner(area);
    block.render(area, buf);
    Paragraph::new(chat_lines(app, inner.height))
        .wrap(Wrap { trim: false })
        .render(inner, buf);
}
