//! An arena (A7) on screen: its standings (points, races, wins, streak) as the race's side panel
//! and the results show them, and the arena's own screen while we are in none of its rooms
//! (before it starts, between its races, after its end).

use protocol::ArenaState;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

use super::KEY;
use crate::app::{clock, App, Arena};

/// Widest name in a standings row (the side panel is about 40 columns inside).
const NAME_CHARS: usize = 14;

/// How long until `unix_ms`, as `m:ss` (or `h:mm:ss`).
fn until(app: &App, unix_ms: i64) -> String {
    clock(u64::try_from(unix_ms.saturating_sub(app.unix_ms())).unwrap_or(0))
}

/// Where the arena stands, in words: `starts in 3:20`, `ends in 12:05`, `over`.
pub(super) fn status(app: &App, arena: &Arena) -> String {
    match arena.state_at(app.unix_ms()) {
        ArenaState::Upcoming => format!("starts in {}", until(app, arena.info.starts_unix_ms)),
        ArenaState::Running => format!("ends in {}", until(app, arena.info.ends_unix_ms)),
        ArenaState::Finished => "over: the standings are final".to_owned(),
    }
}

/// The standings table: a header, then up to `rows` members best first, our own row in bold.
pub(super) fn standings_lines(app: &App, arena: &Arena, rows: usize) -> Vec<Line<'static>> {
    let head = Style::new().add_modifier(Modifier::UNDERLINED);
    let mut lines = vec![Line::styled(
        format!(
            "{:>2} {:<NAME_CHARS$} {:>4} {:>5} {:>4} {:>6}",
            "#", "name", "pts", "races", "wins", "streak"
        ),
        head,
    )];
    if arena.standings.is_empty() {
        lines.push(Line::styled(
            "no races yet",
            Style::new().fg(Color::DarkGray),
        ));
    }
    for (i, s) in arena.standings.iter().take(rows).enumerate() {
        let name: String = s.name.as_str().chars().take(NAME_CHARS).collect();
        let mine = s.name.as_str() == app.name;
        let style = if mine {
            Style::new().add_modifier(Modifier::BOLD)
        } else {
            Style::new()
        };
        lines.push(Line::styled(
            format!(
                "{:>2} {name:<NAME_CHARS$} {:>4} {:>5} {:>4} {:>6}",
                i + 1,
                s.points,
                s.races,
                s.wins,
                s.streak
            ),
            style,
        ));
    }
    lines
}

/// The standings box of the side panel and the results: the arena's name and where it stands
/// in the title.
pub(super) fn render_box(
    app: &App,
    arena: &Arena,
    extra: Option<Line<'static>>,
    area: Rect,
    buf: &mut Buffer,
) {
    let block = Block::new().borders(Borders::ALL).title(format!(
        " arena {} · {} ",
        arena.info.name,
        status(app, arena)
    ));
    let inner = block.inner(area);
    block.render(area, buf);
    let rows = usize::from(inner.height).saturating_sub(1 + usize::from(extra.is_some()));
    let mut lines: Vec<Line<'static>> = extra.into_iter().collect();
    lines.extend(standings_lines(app, arena, rows));
    Paragraph::new(lines).render(inner, buf);
}

/// The arena's screen while we are in none of its rooms.
pub(super) fn render_outside(app: &App, arena: &Arena, area: Rect, buf: &mut Buffer) {
    let info = &arena.info;
    let what = match arena.state_at(app.unix_ms()) {
        ArenaState::Upcoming => {
            "It has not started yet: its first race seats you by itself when it does."
        }
        ArenaState::Running => {
            "Waiting for the next race: you are seated with other members by itself."
        }
        ArenaState::Finished => "The arena is over.",
    };
    let mut lines = vec![
        Line::from(vec![
            Span::raw("Arena "),
            Span::styled(
                info.name.clone(),
                Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
            ),
            Span::raw(format!(" · {} · {}", info.difficulty, status(app, arena))),
        ]),
        Line::raw(""),
        Line::raw(what),
        Line::raw("Points per race: one for each racer you beat, 2 for a solve; doubled while your last two races were wins."),
        Line::raw(""),
    ];
    let rows = usize::from(area.height).saturating_sub(12);
    lines.extend(standings_lines(app, arena, rows.max(3)));
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("q", KEY),
        Span::raw(" leaves the arena."),
    ]));
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(Block::new().borders(Borders::ALL).title(" arena "))
        .render(area, buf);
}
