//! The race screen: our board (the server's digits under our pencil marks and cursor), the digit
//! bar, the pen/pencil mode and the last refusal, beside the side `panel`. A spectator that asked
//! for boards (`spectate --boards`, A8) sees the leader's delayed board in its place.

use engine::{Cell, Digit};
use protocol::{PlayerId, Role};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::board::{beside_board, digit_bar, BoardView};
use super::panel;
use crate::app::mirror::Delayed;
use crate::app::{App, Play, Race, Room};

/// The board as we play it: the server's board under our pencil marks and cursor (spectators
/// see the board only).
fn board_view<'a>(
    play: &'a Play,
    race: &'a Race,
    flash_cells: &'a [Cell],
    spectator: bool,
) -> BoardView<'a> {
    let mut v = BoardView::new(&race.puzzle, &race.board).in_geometry(&race.geometry);
    if spectator {
        return v;
    }
    v.pencil = Some(&play.pencil_cursor().pencil);
    v.cursor = Some(play.pencil_cursor().cursor);
    v.conflicts = flash_cells;
    v.flash = play.flash().map(|f| (f.cell, f.digit));
    v
}

/// A boards-spectator's view (A8): the leader's delayed board, its digit bar and a caption.
fn render_leader(
    room: &Room,
    race: &Race,
    (leader, shown): (&PlayerId, &Delayed),
    [board_area, bar_area, caption_area]: [Rect; 3],
    buf: &mut Buffer,
) {
    // A seat's own isomorph of a jigsaw or killer has its own layout, which its delayed board
    // does not bring: drawn with the race's only where every seat shares it.
    let own_layout = room.settings.isomorphs && race.variant.has_layout();
    let plain = engine::Geometry::classic();
    let geometry = if own_layout { plain } else { &race.geometry };
    BoardView::new(&shown.givens, &shown.board)
        .in_geometry(geometry)
        .render(board_area, buf);
    digit_bar(&shown.board).render(bar_area, buf);
    let name = room.name_of(leader.as_str()).unwrap_or("?");
    let caption = format!(
        "leader: {name}, as of {} (delayed)",
        crate::app::clock(shown.at_ms)
    );
    Line::styled(caption, Style::new().fg(Color::DarkGray)).render(caption_area, buf);
}

pub(super) fn render(app: &App, room: &Room, area: Rect, buf: &mut Buffer) {
    let Some(race) = &room.race else {
        Line::raw("waiting for the puzzle…").render(area, buf);
        return;
    };
    let [board_area, under, right] = beside_board(area, 20, 2, &race.geometry);
    let [bar_area, flash_area] =
        Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(under);
    let play = app.play();
    let conflicts: Vec<Cell> = play
        .flash()
        .map(|f| f.conflicts.clone())
        .unwrap_or_default();
    let pending: Vec<(Cell, Digit)> = play.pending().collect();
    let spectator = room.role == Role::Spectator;
    if let (true, Some((leader, shown))) = (spectator, race.leader_board()) {
        render_leader(
            room,
            race,
            (leader, shown),
            [board_area, bar_area, flash_area],
            buf,
        );
        panel::render(app, room, race, right, buf);
        return;
    }
    let mut view = board_view(play, race, &conflicts, spectator);
    view.pending = &pending;
    // No solution here, even for a player who is out: it comes with `race_over` (Amendment A1),
    // and the results screen shows it.
    view.render(board_area, buf);
    digit_bar(&race.board).render(bar_area, buf);
    let mut status = Vec::new();
    if play.pencil_cursor().pencil_mode {
        status.push(Span::styled(
            " PENCIL ",
            Style::new().fg(Color::Black).bg(Color::Yellow),
        ));
        status.push(Span::raw(" "));
    }
    if let Some(f) = play.flash() {
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
    if let (true, Some((finish, _))) = (status.is_empty(), race.finished) {
        let note = if finish == protocol::FinishStatus::Solved {
            "solved: the results come when the race ends"
        } else {
            "out of this race: the solution comes with the results"
        };
        status.push(Span::styled(note, Style::new().fg(Color::DarkGray)));
    }
    // The note wraps into the free lines under the board: beside the small board (80×24) it
    // has 32 columns, fewer than a refusal with its clashing cells or the finish note needs.
    let note_area = Rect {
        height: area
            .bottom()
            .saturating_sub(flash_area.y)
            .max(flash_area.height),
        ..flash_area
    };
    Paragraph::new(Line::from(status))
        .wrap(Wrap { trim: false })
        .render(note_area, buf);
    panel::render(app, room, race, right, buf);
}
