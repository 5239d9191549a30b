//! The race screen's side panel: the clock, our mistakes and penalty, every player's progress,
//! an arena race's standings (A7), and the chat.

use protocol::{Player, PlayerStatus, Role};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

use super::{arena, bar, dot, finish_word, render_chat, seat_mark, status_word};
use crate::app::{clock, App, Conn, Race, Room};

pub(super) fn render(app: &App, room: &Room, race: &Race, area: Rect, buf: &mut Buffer) {
    let n_players = room.players.len() as u16;
    let standings = app.arena.as_ref().filter(|_| app.in_arena_room());
    // Up to 5 members' rows, under a header.
    let standings_h = standings.map_or(0, |a| a.standings.len().clamp(1, 5) as u16 + 3);
    let [stats, progress, table, chat] = Layout::vertical([
        Constraint::Length(5),
        Constraint::Length(n_players * 2 + 2),
        Constraint::Length(standings_h),
        Constraint::Min(3),
    ])
    .areas(area);
    render_stats(app, room, race, stats, buf);
    render_progress(app, room, race, progress, buf);
    if let Some(a) = standings {
        arena::render_box(app, a, None, table, buf);
    }
    render_chat(app, chat, buf);
}

/// What a variant adds to classic's rules, in a line of the side panel (A10).
fn variant_rule(variant: engine::Variant) -> Option<&'static str> {
    use engine::Variant as V;
    match variant {
        V::Classic => None,
        V::X => Some("shaded diagonals hold 1-9 too"),
        V::Windoku => Some("shaded windows hold 1-9 too"),
        V::Jigsaw => Some("heavy outlines: regions hold 1-9"),
        V::Killer => Some("cages: no repeats, sum at top-left"),
    }
}

/// The clock against the time limit; for a player, our mistakes, penalty and finish.
fn render_stats(app: &App, room: &Room, race: &Race, area: Rect, buf: &mut Buffer) {
    let elapsed = race.elapsed_ms(app.clock_ms());
    let limit = u64::from(race.time_limit_s) * 1000;
    let mut lines = vec![Line::from(vec![
        Span::raw("clock "),
        Span::styled(
            clock(elapsed),
            Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
        ),
        Span::raw(format!(" / {}", clock(limit))),
    ])];
    if room.role == Role::Player {
        let max = room.settings.max_mistakes;
        lines.push(Line::raw(format!(
            "mistakes {}{}  penalty +{}s",
            race.mistakes,
            if max == 0 {
                String::new()
            } else {
                format!("/{max}")
            },
            race.penalty_ms / 1000
        )));
        if let Some((status, time)) = race.finished {
            lines.push(Line::styled(
                match time {
                    Some(t) => format!("{}: {}", finish_word(status), clock(t)),
                    None => finish_word(status).to_owned(),
                },
                Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
            ));
        }
    }
    // The variant's extra rule, in the line left free (a finish takes it).
    if let Some(rule) = variant_rule(race.variant) {
        lines.push(Line::styled(rule, Style::new().fg(Color::DarkGray)));
    }
    Paragraph::new(lines)
        .block(Block::new().borders(Borders::ALL).title(format!(
            " {} ",
            crate::app::variant_label(race.variant, race.difficulty)
        )))
        .render(area, buf);
}

/// Every player's progress: two lines each, the name and status, then a bar of cells filled.
fn render_progress(app: &App, room: &Room, race: &Race, area: Rect, buf: &mut Buffer) {
    let block = Block::new().borders(Borders::ALL).title(" progress ");
    let inner = block.inner(area);
    block.render(area, buf);
    let bar_w = inner.width.saturating_sub(12).min(30);
    let mut lines = Vec::new();
    for p in &room.players {
        lines.extend(progress_lines(app, room, race, p, bar_w));
    }
    Paragraph::new(lines).render(inner, buf);
}

/// One player's two progress lines.
fn progress_lines(
    app: &App,
    room: &Room,
    race: &Race,
    p: &Player,
    bar_w: u16,
) -> [Line<'static>; 2] {
    let pr = race.progress.get(&p.player_id);
    let (filled, to_fill, mistakes) = pr.map_or((0, race.puzzle.n_empty() as u32, 0), |pr| {
        (pr.filled, pr.to_fill, pr.mistakes)
    });
    let me = room.me.as_deref() == Some(p.player_id.as_str());
    let mut head = vec![dot(p), Span::raw(" ")];
    head.push(Span::styled(
        p.name.to_string(),
        if me {
            Style::new().add_modifier(Modifier::BOLD)
        } else {
            Style::new()
        },
    ));
    head.extend(seat_mark(p));
    // Our seat's fate is unknown once the connection is gone for good.
    let status = if me && p.status == PlayerStatus::Racing && matches!(app.conn(), Conn::Closed(_))
    {
        "disconnected"
    } else {
        status_word(p.status)
    };
    head.push(Span::raw(format!("  {status}")));
    if mistakes > 0 {
        head.push(Span::styled(
            format!("  ✗{mistakes}"),
            Style::new().fg(Color::Red),
        ));
    }
    let color = match p.status {
        PlayerStatus::Solved => Color::Green,
        PlayerStatus::Racing | PlayerStatus::Waiting => Color::Cyan,
        _ => Color::DarkGray,
    };
    [
        Line::from(head),
        Line::from(vec![
            Span::raw("  "),
            Span::styled(bar(filled, to_fill, bar_w), Style::new().fg(color)),
            Span::raw(format!(" {filled}/{to_fill}")),
        ]),
    ]
}
