//! Rendering: a pure function of the app state. `impl Widget for &App` draws the online
//! screens (lobby, countdown, race, results); `solo` draws the offline practice screen.

pub mod board;
pub mod solo;

use protocol::{FinishStatus, Phase, Player, PlayerStatus, Role};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Row, Table, Widget, Wrap};
use shared::engine::Cell;

use crate::app::{clock, App, Conn, Race, Room};
use board::{digit_bar, BoardView};

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

fn dot(p: &Player) -> Span<'static> {
    if p.connected {
        Span::styled("●", Style::new().fg(Color::Green))
    } else {
        Span::styled("○", Style::new().fg(Color::Red))
    }
}

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let [top, main, bottom] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(0),
            Constraint::Length(2),
        ])
        .areas(area);
        self.render_top(top, buf);
        self.render_bottom(bottom, buf);
        let Some(room) = &self.room else {
            let text = match &self.conn {
                Conn::Connecting => "connecting…".to_owned(),
                Conn::Closed(Some(e)) => format!("disconnected: {e}"),
                _ => "joining…".to_owned(),
            };
            Paragraph::new(text)
                .wrap(Wrap { trim: true })
                .block(Block::new().borders(Borders::ALL))
                .render(main, buf);
            return;
        };
        match room.phase {
            Phase::Lobby => self.render_lobby(room, main, buf),
            Phase::Countdown => self.render_countdown(room, main, buf),
            Phase::Racing => self.render_race(room, main, buf),
            Phase::Finished => match &room.results {
                Some(_) => self.render_results(room, main, buf),
                None => self.render_lobby(room, main, buf),
            },
        }
    }
}

impl App {
    fn render_top(&self, area: Rect, buf: &mut Buffer) {
        let mut spans = vec![Span::styled(
            " sudoku-race ",
            Style::new().fg(Color::Black).bg(Color::Cyan),
        )];
        if let Some(room) = &self.room {
            spans.push(Span::raw(format!(
                "  room {}  ·  {}  ·  {}",
                room.code,
                room.settings.difficulty,
                match room.role {
                    Role::Player => format!("playing as {}", self.name),
                    Role::Spectator => "spectating".to_owned(),
                }
            )));
        }
        match &self.conn {
            Conn::Reconnecting { attempt } => spans.push(Span::styled(
                format!("  reconnecting… (attempt {attempt})"),
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

    fn render_bottom(&self, area: Rect, buf: &mut Buffer) {
        let [notice, help] =
            Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(area);
        if let Some(input) = &self.input {
            Line::from(vec![
                Span::styled("say: ", KEY),
                Span::raw(input.clone()),
                Span::styled("▏", Style::new().fg(Color::Yellow)),
            ])
            .render(notice, buf);
        } else if let Some(n) = &self.notice {
            let style = if n.bad {
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
            } else {
                Style::new().fg(Color::Green)
            };
            Line::styled(n.text.clone(), style).render(notice, buf);
        }
        let items: Vec<(&str, &str)> = if self.input.is_some() {
            vec![("Enter", "send"), ("Esc", "cancel")]
        } else {
            match self.room.as_ref().map(|r| (r.phase, r.role, r.am_host())) {
                None => vec![("q", "quit")],
                Some((Phase::Lobby, Role::Player, host)) => {
                    let mut v = vec![("r", "ready")];
                    if host {
                        v.push(("s", "start"));
                    }
                    v.extend([("Enter", "chat"), ("q", "quit")]);
                    v
                }
                Some((Phase::Racing, Role::Player, _)) => vec![
                    ("←↓↑→/hjkl", "move"),
                    ("1-9", "place"),
                    ("p", "pencil"),
                    ("x", "erase marks"),
                    ("f", "forfeit"),
                    ("Enter", "chat"),
                    ("q", "quit"),
                ],
                Some((Phase::Finished, Role::Player, true)) => {
                    vec![("s", "rematch"), ("Enter", "chat"), ("q", "leave")]
                }
                Some(_) => vec![("Enter", "chat"), ("q", "quit")],
            }
        };
        help_line(&items).render(help, buf);
    }

    fn players_lines(&self, room: &Room) -> Vec<Line<'static>> {
        room.players
            .iter()
            .map(|p| {
                let mut spans = vec![dot(p), Span::raw(" ")];
                spans.push(if p.ready {
                    Span::styled("✓ ", Style::new().fg(Color::Green))
                } else {
                    Span::raw("· ")
                });
                let me = room.me.as_deref() == Some(p.player_id.as_str());
                let name_style = if me {
                    Style::new().add_modifier(Modifier::BOLD)
                } else {
                    Style::new()
                };
                spans.push(Span::styled(p.name.to_string(), name_style));
                if p.player_id == room.host {
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

    fn chat_lines(&self, height: u16) -> Vec<Line<'static>> {
        let skip = self.chat.len().saturating_sub(height as usize);
        self.chat[skip..]
            .iter()
            .map(|c| {
                Line::from(vec![
                    Span::styled(format!("{}: ", c.name), Style::new().fg(Color::Cyan)),
                    Span::raw(c.text.clone()),
                ])
            })
            .collect()
    }

    fn render_chat(&self, area: Rect, buf: &mut Buffer) {
        let block = Block::new().borders(Borders::ALL).title(" chat ");
        let inner = block.inner(area);
        block.render(area, buf);
        Paragraph::new(self.chat_lines(inner.height))
            .wrap(Wrap { trim: false })
            .render(inner, buf);
    }

    fn render_lobby(&self, room: &Room, area: Rect, buf: &mut Buffer) {
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
                .areas(area);
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
        if let Some(cmd) = &self.join_command {
            lines.push(Line::raw("A friend joins with:"));
            lines.push(Line::styled(
                format!("  {}", cmd.replace("{code}", &room.code)),
                Style::new().fg(Color::Green),
            ));
            lines.push(Line::raw(""));
        }
        let s = &room.settings;
        lines.push(Line::raw(format!(
            "Settings: {} · {} room · up to {} players · {} limit",
            s.difficulty,
            if s.public { "public" } else { "private" },
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
        lines.extend(self.players_lines(room));
        lines.push(Line::raw(""));
        let waiting = if room.phase == Phase::Finished {
            "Between races: the host can start a rematch."
        } else if room.am_host() {
            "Press s to start when everyone is here (ready marks are optional)."
        } else {
            "Waiting for the host to start. Press r to mark yourself ready."
        };
        lines.push(Line::raw(waiting));
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::new().borders(Borders::ALL).title(" lobby "))
            .render(left, buf);
        self.render_chat(right, buf);
    }

    fn render_countdown(&self, room: &Room, area: Rect, buf: &mut Buffer) {
        let left_ms = room
            .countdown_until_ms
            .map_or(0, |t| t.saturating_sub(self.clock_ms));
        let secs = left_ms.div_ceil(1000);
        let mut lines = vec![
            Line::raw(""),
            Line::styled(
                format!("The race starts in {secs}…"),
                Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
            ),
            Line::raw(""),
        ];
        lines.extend(self.players_lines(room));
        Paragraph::new(lines)
            .block(Block::new().borders(Borders::ALL).title(" get ready "))
            .render(area, buf);
    }

    fn board_view<'a>(
        &self,
        race: &'a Race,
        flash_cells: &'a [Cell],
        spectator: bool,
    ) -> BoardView<'a> {
        let mut v = BoardView::new(&race.board.puzzle, &race.board.board);
        if spectator {
            return v;
        }
        v.pencil = Some(&race.board.pencil);
        v.cursor = Some(race.board.cursor);
        v.conflicts = flash_cells;
        v.flash = race.flash.as_ref().map(|f| (f.cell, f.digit));
        v
    }

    fn render_race(&self, room: &Room, area: Rect, buf: &mut Buffer) {
        let Some(race) = &room.race else {
            Line::raw("waiting for the puzzle…").render(area, buf);
            return;
        };
        let (bw, bh) = BoardView::size_for(Rect::new(
            0,
            0,
            area.width.saturating_sub(30),
            area.height.saturating_sub(2),
        ));
        let [left, right] =
            Layout::horizontal([Constraint::Length(bw + 1), Constraint::Min(20)]).areas(area);
        let [board_area, bar_area, flash_area, _] = Layout::vertical([
            Constraint::Length(bh),
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Min(0),
        ])
        .areas(left);
        let conflicts: Vec<Cell> = race
            .flash
            .as_ref()
            .map(|f| f.conflicts.clone())
            .unwrap_or_default();
        let pending: Vec<(Cell, shared::engine::Digit)> =
            race.pending.iter().map(|&(_, c, d)| (c, d)).collect();
        let mut view = self.board_view(race, &conflicts, room.role == Role::Spectator);
        view.pending = &pending;
        if race.finished.is_some() {
            view.solution = race.solution.as_ref();
        }
        view.render(board_area, buf);
        digit_bar(&race.board.board).render(bar_area, buf);
        let mut status = Vec::new();
        if race.board.pencil_mode {
            status.push(Span::styled(
                " PENCIL ",
                Style::new().fg(Color::Black).bg(Color::Yellow),
            ));
            status.push(Span::raw(" "));
        }
        if let Some(f) = &race.flash {
            let why = match f.reason {
                protocol::PlaceReason::Wrong => "wrong digit".to_owned(),
                protocol::PlaceReason::Conflict => {
                    let cells: Vec<String> = f.conflicts.iter().map(ToString::to_string).collect();
                    format!("conflicts with {}", cells.join(", "))
                }
                protocol::PlaceReason::Given => "that cell is a given".to_owned(),
                protocol::PlaceReason::Filled => "that cell is already filled".to_owned(),
            };
            status.push(Span::styled(
                format!("{} at {}: {why}", f.digit, f.cell),
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            ));
        }
        Line::from(status).render(flash_area, buf);
        self.render_panel(room, race, right, buf);
    }

    fn render_panel(&self, room: &Room, race: &Race, area: Rect, buf: &mut Buffer) {
        let n_players = room.players.len() as u16;
        let [stats, progress, chat] = Layout::vertical([
            Constraint::Length(5),
            Constraint::Length(n_players * 2 + 2),
            Constraint::Min(3),
        ])
        .areas(area);
        let elapsed = race.elapsed_ms(self.clock_ms);
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
        Paragraph::new(lines)
            .block(
                Block::new()
                    .borders(Borders::ALL)
                    .title(format!(" {} ", race.difficulty)),
            )
            .render(stats, buf);

        let block = Block::new().borders(Borders::ALL).title(" progress ");
        let inner = block.inner(progress);
        block.render(progress, buf);
        let bar_w = inner.width.saturating_sub(12).min(30);
        let mut lines = Vec::new();
        for p in &room.players {
            let pr = race.progress.get(&p.player_id);
            let (filled, to_fill, mistakes) = pr
                .map_or((0, race.board.puzzle.n_empty() as u32, 0), |pr| {
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
            head.push(Span::raw(format!("  {}", status_word(p.status))));
            if mistakes > 0 {
                head.push(Span::styled(
                    format!("  ✗{mistakes}"),
                    Style::new().fg(Color::Red),
                ));
            }
            lines.push(Line::from(head));
            let color = match p.status {
                PlayerStatus::Solved => Color::Green,
                PlayerStatus::Racing | PlayerStatus::Waiting => Color::Cyan,
                _ => Color::DarkGray,
            };
            lines.push(Line::from(vec![
                Span::raw("  "),
                Span::styled(bar(filled, to_fill, bar_w), Style::new().fg(color)),
                Span::raw(format!(" {filled}/{to_fill}")),
            ]));
        }
        Paragraph::new(lines).render(inner, buf);
        self.render_chat(chat, buf);
    }

    fn render_results(&self, room: &Room, area: Rect, buf: &mut Buffer) {
        let Some(results) = &room.results else {
            return;
        };
        let (bw, bh) = BoardView::size_for(Rect::new(
            0,
            0,
            area.width.saturating_sub(40),
            area.height.saturating_sub(1),
        ));
        let [left, right] =
            Layout::horizontal([Constraint::Length(bw + 1), Constraint::Min(30)]).areas(area);
        let [board_area, legend, _] = Layout::vertical([
            Constraint::Length(bh),
            Constraint::Length(1),
            Constraint::Min(0),
        ])
        .areas(left);
        if let Some(race) = &room.race {
            let mut view = BoardView::new(&race.board.puzzle, &race.board.board);
            view.solution = Some(&results.solution);
            view.render(board_area, buf);
            Line::from(vec![
                Span::styled("given ", board::GIVEN),
                Span::styled("yours ", board::MINE),
                Span::styled("solution", board::REVEALED),
            ])
            .render(legend, buf);
        }
        let [table_area, mine, chat] = Layout::vertical([
            Constraint::Length(results.standings.len() as u16 + 3),
            Constraint::Length(3),
            Constraint::Min(3),
        ])
        .areas(right);
        let rows = results.standings.iter().map(|s| {
            let me = room.me.as_deref() == Some(s.player_id.as_str());
            let style = if me {
                Style::new().add_modifier(Modifier::BOLD)
            } else {
                Style::new()
            };
            Row::new(vec![
                format!("{}", s.rank),
                s.name.to_string(),
                finish_word(s.status).to_owned(),
                s.time_ms.map_or_else(|| "-".to_owned(), clock),
                s.filled.to_string(),
                s.mistakes.to_string(),
            ])
            .style(style)
        });
        let title = match results.reason {
            protocol::OverReason::AllDone => " results ",
            protocol::OverReason::TimeLimit => " results (time limit) ",
        };
        Table::new(
            rows,
            [
                // Narrow enough for the side panel (40 columns inside at 110x36).
                Constraint::Length(2),
                Constraint::Min(6),
                Constraint::Length(10),
                Constraint::Length(7),
                Constraint::Length(5),
                Constraint::Length(2),
            ],
        )
        .header(
            Row::new(vec!["#", "name", "status", "time", "cells", "✗"])
                .style(Style::new().add_modifier(Modifier::UNDERLINED)),
        )
        .block(Block::new().borders(Borders::ALL).title(title))
        .render(table_area, buf);
        let me_line = room
            .me
            .as_deref()
            .and_then(|me| results.standings.iter().find(|s| s.player_id == me))
            .map(|s| match s.time_ms {
                Some(t) => format!("Your time: {} (rank {})", clock(t), s.rank),
                None => format!("You {} (rank {})", finish_word(s.status), s.rank),
            })
            .unwrap_or_else(|| "You watched this race.".to_owned());
        Paragraph::new(me_line)
            .block(Block::new().borders(Borders::ALL))
            .render(mine, buf);
        self.render_chat(chat, buf);
    }
}
