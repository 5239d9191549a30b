//! The results screen: the final standings, our time and rank, our board against the
//! solution, who is in the room now (and the next race's settings), and the chat.

use protocol::OverReason;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, Widget, Wrap};

use engine::{Geometry, Grid};

use super::board::{self, BoardView};
use super::{arena, finish_word, players_lines, render_chat, seat_mark};
use crate::app::{clock, room_host, App, Race, Results, Room};

pub(super) fn render(app: &App, room: &Room, area: Rect, buf: &mut Buffer) {
    let Some(results) = &room.results else {
        return;
    };
    let geometry = room
        .race
        .as_ref()
        .map_or(Geometry::classic(), |r| &r.geometry);
    let [board_area, legend, right] = board::beside_board(area, 30, 1, geometry);
    // No board for who joined after the race: it has no solution to show it against.
    if let (Some(race), Some(solution)) = (&room.race, &results.solution) {
        render_final_board(race, solution, board_area, legend, buf);
    }
    let mine_lines = my_result_lines(room, results);
    let [table_area, mine, present, chat] = Layout::vertical([
        Constraint::Length(results.standings.len() as u16 + 3),
        Constraint::Length(mine_lines.len() as u16 + 2),
        // The players, and the next race's settings over two lines at most.
        Constraint::Length(room.players.len() as u16 + 4),
        Constraint::Min(3),
    ])
    .areas(right);
    render_standings(room, results, table_area, buf);
    Paragraph::new(mine_lines.into_iter().map(Line::from).collect::<Vec<_>>())
        .block(Block::new().borders(Borders::ALL))
        .render(mine, buf);
    if let Some(a) = app.arena.as_ref().filter(|_| app.in_arena_room()) {
        // An arena race: the arena's standings in place of who is in the room, and when the
        // next race is asked for.
        let next = match a.requeue_at_ms() {
            Some(at) => format!(
                "next race in {}s (r: now)",
                at.saturating_sub(app.clock_ms()).div_ceil(1000)
            ),
            None if a.state_at(app.unix_ms()) == protocol::ArenaState::Running => {
                "press r for the next race".to_owned()
            }
            None => "the arena is over: q leaves".to_owned(),
        };
        let next = Line::styled(next, Style::new().fg(Color::Yellow));
        let rows = (a.standings.len() as u16).clamp(1, 8);
        let [standings, chat] =
            Layout::vertical([Constraint::Length(rows + 4), Constraint::Min(3)])
                .areas(present.union(chat));
        arena::render_box(app, a, Some(next), standings, buf);
        render_chat(app, chat, buf);
        return;
    }
    let mut lines = players_lines(room);
    // Nobody rematches a pool room: each player goes back to the pool (A7 `requeue`).
    let next = if room.settings.pool && room.role == protocol::Role::Player {
        format!(
            "next: press r to race again ({} pool)",
            crate::app::variant_label(room.settings.variant, room.settings.difficulty)
        )
    } else if room.settings.pool {
        "next: its players go back to the pool".to_owned()
    } else {
        format!("next: {}", room_host::summary(&room.settings))
    };
    lines.push(Line::styled(next, Style::new().fg(Color::DarkGray)));
    Paragraph::new(lines)
        .wrap(Wrap { trim: true })
        .block(
            Block::new()
                .borders(Borders::ALL)
                .title(format!(" in the room ({}) ", room.players.len())),
        )
        .render(present, buf);
    render_chat(app, chat, buf);
}

/// Our board against the solution, and the legend of its colours below it.
fn render_final_board(race: &Race, solution: &Grid, area: Rect, legend: Rect, buf: &mut Buffer) {
    let mut view = BoardView::new(&race.puzzle, &race.board).in_geometry(&race.geometry);
    view.solution = Some(solution);
    view.render(area, buf);
    Line::from(vec![
        Span::styled("given ", board::GIVEN),
        Span::styled("yours ", board::MINE),
        Span::styled("solution", board::REVEALED),
    ])
    .render(legend, buf);
}

/// The final standings table, our own row in bold.
fn render_standings(room: &Room, results: &Results, area: Rect, buf: &mut Buffer) {
    let rows = results.standings.iter().map(|s| {
        let me = room.me.as_deref() == Some(s.player_id.as_str());
        let style = if me {
            Style::new().add_modifier(Modifier::BOLD)
        } else {
            Style::new()
        };
        // Standings carry no bot or ghost flag: a bot or ghost still in the room is marked.
        let mut name = vec![Span::raw(s.name.to_string())];
        if let Some(p) = room.players.iter().find(|p| p.player_id == s.player_id) {
            name.extend(seat_mark(p));
        }
        Row::new(vec![
            Cell::from(format!("{}", s.rank)),
            Cell::from(Line::from(name)),
            Cell::from(finish_word(s.status)),
            Cell::from(s.time_ms.map_or_else(|| "-".to_owned(), tenths)),
            Cell::from(s.filled.to_string()),
            Cell::from(s.mistakes.to_string()),
            Cell::from(s.lag_ms.to_string()),
        ])
        .style(style)
    });
    let title = match results.reason {
        OverReason::AllDone => " results ",
        OverReason::TimeLimit => " results (time limit) ",
    };
    Table::new(
        rows,
        [
            // Narrow enough for the side panel (40 columns inside at 110x36). The time is
            // the compensated one (A8, what ranks use) to the tenth; the lag column is in ms.
            Constraint::Length(2),
            Constraint::Min(6),
            Constraint::Length(10),
            Constraint::Length(7),
            Constraint::Length(2),
            Constraint::Length(2),
            Constraint::Length(4),
        ],
    )
    .header(
        Row::new(vec!["#", "name", "status", "time", "✓", "✗", "lag"])
            .style(Style::new().add_modifier(Modifier::UNDERLINED)),
    )
    .block(Block::new().borders(Borders::ALL).title(title))
    .render(area, buf);
}

/// A race time to the tenth of a second ("1:23.4"): lag compensation (A8) moves times by
/// fractions of a second, which whole seconds would hide.
fn tenths(ms: u64) -> String {
    format!("{}.{}", clock(ms), ms % 1000 / 100)
}

/// Our time and rank (or that we watched); a solver's next line says what the time was
/// compensated from (A8); in a rated race, the last how our conservative rating moved (A6).
fn my_result_lines(room: &Room, results: &Results) -> Vec<String> {
    let me = room.me.as_deref();
    let mine = me.and_then(|me| results.standings.iter().find(|s| s.player_id == me));
    let me_line = mine
        .map(|s| match s.time_ms {
            Some(t) => format!("Your time: {} (rank {})", tenths(t), s.rank),
            None => format!("You {} (rank {})", finish_word(s.status), s.rank),
        })
        .unwrap_or_else(|| match results.solution {
            Some(_) => "You watched this race.".to_owned(),
            None => "You came after this race.".to_owned(),
        });
    let lag_line = mine.and_then(|s| {
        let raw = s
            .time_ms_raw
            .or(s.time_ms)
            .filter(|_| s.time_ms.is_some())?;
        Some(format!("raw {}, lag {} ms", tenths(raw), s.lag_ms))
    });
    let rating_line = me
        .and_then(|me| results.ratings.iter().find(|r| r.player_id == me))
        .map(|r| {
            let change = r.after - r.before;
            format!("rating {:.1} → {:.1} ({change:+.1})", r.before, r.after)
        });
    std::iter::once(me_line)
        .chain(lag_line)
        .chain(rating_line)
        .collect()
}
