//! The replay screen: the chosen player's board at the playback's time, and beside it the
//! clock, speed and pause, every player's progress bar, and at the end the final standings.
//! A pure function of `&ReplayApp`; its strings were made terminal-safe when the replay was
//! parsed.

use engine::Cell;
use protocol::FinishStatus;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

use super::board::{beside_board, BoardView};
use super::{bar, finish_word, help_line, too_small, MIN_SIZE};
use crate::app::clock;
use crate::replay::{Outcome, Placement, PlayerState, ReplayApp, Seat, HELP};

const BOLD: Style = Style::new().add_modifier(Modifier::BOLD);

impl Widget for &ReplayApp {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if too_small(area, MIN_SIZE, buf) {
            return;
        }
        let [top, main, help] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(0),
            Constraint::Length(1),
        ])
        .areas(area);
        self.render_top(top, buf);
        help_line(&HELP).render(help, buf);
        let r = self.playback.replay();
        let geometry = r
            .players
            .get(self.selected)
            .map_or(engine::Geometry::classic(), |s| &s.geometry);
        let [board_area, caption, right] = beside_board(main, 30, 2, geometry);
        let states = self.playback.players();
        self.render_board(&states, board_area, caption, buf);
        self.render_side(&states, right, buf);
    }
}

impl ReplayApp {
    fn render_top(&self, area: Rect, buf: &mut Buffer) {
        let r = self.playback.replay();
        let mut about = format!(
            "  replay {}  ·  {}  ·  {}",
            r.race_id,
            crate::app::variant_label(r.variant, &r.difficulty),
            if r.rated { "rated" } else { "unrated" }
        );
        if let Some(day) = &r.daily {
            about.push_str(&format!("  ·  daily {day}"));
        }
        Line::from(vec![
            Span::styled(
                " sudoku-race ",
                Style::new().fg(Color::Black).bg(Color::Cyan),
            ),
            Span::raw(about),
        ])
        .render(area, buf);
    }

    /// The chosen player's board, their last move marked, and a caption saying whose it is.
    fn render_board(&self, states: &[PlayerState], area: Rect, caption: Rect, buf: &mut Buffer) {
        let r = self.playback.replay();
        let (Some(seat), Some(state)) = (r.players.get(self.selected), states.get(self.selected))
        else {
            Line::raw("nobody raced").render(area, buf);
            return;
        };
        let mut view = BoardView::new(&seat.puzzle, &state.board).in_geometry(&seat.geometry);
        // The move just played, if it was this player's: green where it went in, red for a
        // digit the server refused as a mistake.
        let last = self.playback.last().filter(|p| p.player == self.selected);
        let cell_if = |keep: fn(Outcome) -> bool| -> Vec<Cell> {
            last.filter(|p| keep(p.outcome))
                .map(|p| p.cell)
                .into_iter()
                .collect()
        };
        let highlight = cell_if(|o| o == Outcome::Accepted);
        let refused = cell_if(Outcome::is_mistake);
        view.highlight = &highlight;
        view.conflicts = &refused;
        view.flash = last
            .filter(|p| p.outcome.is_mistake())
            .map(|p| (p.cell, p.digit));
        view.render(area, buf);
        // Two lines: under the small board one would cut a long name's numbers off.
        Paragraph::new(vec![
            Line::from(vec![
                Span::raw(" board of "),
                Span::styled(seat.name.clone(), BOLD),
            ]),
            Line::raw(format!(
                " {}/{} filled  ✗{}",
                state.filled,
                r.to_fill(),
                state.mistakes
            )),
        ])
        .render(caption, buf);
    }

    fn render_side(&self, states: &[PlayerState], area: Rect, buf: &mut Buffer) {
        let r = self.playback.replay();
        let n = r.players.len() as u16;
        let standings_h = if self.playback.at_end() { n + 2 } else { 0 };
        let [clock_area, progress, standings, _] = Layout::vertical([
            Constraint::Length(5),
            Constraint::Length(n * 2 + 2),
            Constraint::Length(standings_h),
            Constraint::Min(0),
        ])
        .areas(area);
        self.render_clock(clock_area, buf);

        let block = Block::new().borders(Borders::ALL).title(" progress ");
        let inner = block.inner(progress);
        block.render(progress, buf);
        let bar_w = inner.width.saturating_sub(12).min(30);
        let to_fill = r.to_fill();
        let mut lines = Vec::new();
        for (i, (seat, state)) in r.players.iter().zip(states).enumerate() {
            lines.push(self.player_line(i, seat, state));
            let color = if state.solved_at_ms.is_some() {
                Color::Green
            } else {
                Color::Cyan
            };
            lines.push(Line::from(vec![
                Span::raw("   "),
                Span::styled(bar(state.filled, to_fill, bar_w), Style::new().fg(color)),
                Span::raw(format!(" {}/{to_fill}", state.filled)),
            ]));
        }
        Paragraph::new(lines).render(inner, buf);
        if self.playback.at_end() {
            self.render_standings(standings, buf);
        }
    }

    fn render_clock(&self, area: Rect, buf: &mut Buffer) {
        let p = &self.playback;
        let r = p.replay();
        let state = if p.at_end() {
            Span::styled(
                "■ end",
                Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
            )
        } else if p.is_paused() {
            Span::styled("⏸ paused", Style::new().fg(Color::Black).bg(Color::Yellow))
        } else {
            Span::styled("▶ playing", Style::new().fg(Color::Green))
        };
        let mut lines = vec![
            Line::from(vec![
                Span::raw("clock "),
                Span::styled(
                    tenths(p.pos_ms()),
                    Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
                ),
                Span::raw(format!(" / {}  ×{:<2}  ", tenths(p.end_ms()), p.speed())),
                state,
            ]),
            Line::raw(format!("placement {}/{}", p.applied(), r.placements.len())),
        ];
        if let Some(last) = p.last() {
            lines.push(last_line(last, &r.players));
        }
        Paragraph::new(lines)
            .block(Block::new().borders(Borders::ALL).title(" replay "))
            .render(area, buf);
    }

    /// `▸1 ann (hABCDEFG)  ✗2  ✓ 1:05`: the number to choose them by, the chosen one marked.
    fn player_line(&self, i: usize, seat: &Seat, state: &PlayerState) -> Line<'static> {
        let chosen = i == self.selected;
        let mut spans = vec![
            Span::styled(
                if chosen { "▸" } else { " " },
                Style::new().fg(Color::Yellow),
            ),
            Span::raw(format!("{} ", i + 1)),
            Span::styled(seat.name.clone(), if chosen { BOLD } else { Style::new() }),
        ];
        if let Some(h) = &seat.handle {
            spans.push(Span::styled(
                format!(" ({h})"),
                Style::new().fg(Color::DarkGray),
            ));
        }
        spans.extend(super::bot_mark(seat.bot));
        if state.mistakes > 0 {
            spans.push(Span::styled(
                format!("  ✗{}", state.mistakes),
                Style::new().fg(Color::Red),
            ));
        }
        if let Some(at) = state.solved_at_ms {
            // The time the players were told: with the penalties, which only the standings know.
            let t = match self.playback.replay().standing(i) {
                Some(s) if s.status == FinishStatus::Solved => s.time_ms.unwrap_or(at),
                _ => at,
            };
            spans.push(Span::styled(
                format!("  ✓ {}", clock(t)),
                Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
            ));
        } else if self.playback.at_end() {
            // How an unfinished race ended is known only from the standings.
            if let Some(s) = self.playback.replay().standing(i) {
                spans.push(Span::styled(
                    format!("  {}", finish_word(s.status)),
                    Style::new().fg(Color::DarkGray),
                ));
            }
        }
        Line::from(spans)
    }

    fn render_standings(&self, area: Rect, buf: &mut Buffer) {
        let r = self.playback.replay();
        let lines: Vec<Line> = r
            .standings
            .iter()
            .map(|s| {
                let name = r.players.get(s.player).map_or("?", |p| p.name.as_str());
                let time = match (s.status, s.time_ms) {
                    (FinishStatus::Solved, Some(t)) => clock(t),
                    _ => "-".to_owned(),
                };
                Line::raw(format!(
                    "{:>2}. {:<12} {:<10} {:>5}  {:>2}/{}  ✗{}",
                    s.rank,
                    name,
                    finish_word(s.status),
                    time,
                    s.filled,
                    r.to_fill(),
                    s.mistakes
                ))
            })
            .collect();
        Paragraph::new(lines)
            .block(
                Block::new()
                    .borders(Borders::ALL)
                    .title(" final standings "),
            )
            .render(area, buf);
    }
}

/// `1:05.3`: tenths, so a step within a second still moves the clock.
fn tenths(ms: u64) -> String {
    format!("{}.{}", clock(ms), ms / 100 % 10)
}

/// `last: bob 7 at r3c5 ✗ wrong`.
fn last_line(p: &Placement, players: &[Seat]) -> Line<'static> {
    let who = players.get(p.player).map_or("?", |s| s.name.as_str());
    let (what, style) = match p.outcome {
        Outcome::Accepted => ("✓", Style::new().fg(Color::Green)),
        Outcome::Wrong => ("✗ wrong", Style::new().fg(Color::Red)),
        Outcome::Conflict => ("✗ conflict", Style::new().fg(Color::Red)),
        Outcome::Given => ("refused: a given", Style::new().fg(Color::DarkGray)),
        Outcome::Filled => ("refused: filled", Style::new().fg(Color::DarkGray)),
    };
    Line::from(vec![
        Span::raw(format!("last: {who} {} at {} ", p.digit, p.cell)),
        Span::styled(what, style),
    ])
}
