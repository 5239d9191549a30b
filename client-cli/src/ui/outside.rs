//! The screens shown while in no room: connecting, asking, waiting in the pool (A7), a refusal
//! (and only the refusal), a name to type again, the offer to watch a race that is on, removed
//! by the host, the room closed.

use engine::Difficulty;
use protocol::ErrorCode;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

use super::KEY;
use crate::app::outside::{intent_room, refused_what};
use crate::app::{clock, App, Conn, Outside};

const BAD: Style = Style::new().fg(Color::Red).add_modifier(Modifier::BOLD);

pub(super) fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let room = intent_room(app.seating().intent()).unwrap_or("?");
    let lines: Vec<Line<'static>> = match (&app.outside, app.conn()) {
        (Outside::Kicked { room }, _) => vec![
            Line::styled(
                format!("you were removed from room {room} by the host"),
                BAD,
            ),
            Line::raw("(a removed player cannot come back to the room for 10 minutes)"),
        ],
        (Outside::Closed { room }, _) => vec![
            Line::styled(format!("room {room} was closed"), BAD),
            Line::raw("the host left, or its server was lost"),
        ],
        (
            Outside::Restarting {
                room,
                difficulty,
                variant,
            },
            _,
        ) => {
            let redo_in = app
                .redo_at_ms()
                .map(|at| at.saturating_sub(app.clock_ms()).div_ceil(1000));
            let kind = crate::app::variant_label(*variant, difficulty);
            restarting(room.as_ref(), &kind, redo_in)
        }
        (_, Conn::Closed(Some(e))) => vec![Line::styled(format!("disconnected: {e}"), BAD)],
        (
            Outside::Queued {
                difficulty,
                waiting,
                since_ms,
                alone,
                ghost,
            },
            _,
        ) => {
            let waited = clock(app.clock_ms().saturating_sub(*since_ms));
            let queue = Queue {
                difficulty: *difficulty,
                waiting: *waiting,
                waited: &waited,
                alone: *alone,
                ghost: ghost.as_deref(),
            };
            return render_queue(&queue, area, buf);
        }
        (Outside::Arena, _) => match &app.arena {
            Some(arena) => return super::arena::render_outside(app, arena, area, buf),
            None => vec![Line::raw("you are in no arena any more: q quits")],
        },
        (_, Conn::Connecting) => vec![Line::raw("connecting…")],
        (Outside::Entering, _) => vec![Line::raw("joining…")],
        (Outside::Refused { code, message }, _) => refused(app, *code, message),
        (
            Outside::Rename {
                code,
                message,
                input,
            },
            _,
        ) => rename(&app.name, room, *code, message, input),
        (Outside::RaceOn { room }, _) => vec![Line::from(vec![
            Span::raw(format!("room {room} is racing now: press ")),
            Span::styled("s", KEY),
            Span::raw(" to watch, and you join it when the race ends"),
        ])],
    };
    Paragraph::new(lines)
        .wrap(Wrap { trim: true })
        .block(Block::new().borders(Borders::ALL))
        .render(area, buf);
}

/// The server restarting for an update (A9), and what to do now; `redo_in`: the seconds until
/// the pool or the arena is asked again by itself.
fn restarting(
    room: Option<&protocol::RoomCode>,
    kind: &str,
    redo_in: Option<u64>,
) -> Vec<Line<'static>> {
    let closed = match room {
        Some(room) => format!("room {room} was closed: "),
        None => String::new(),
    };
    vec![
        Line::styled(
            format!("{closed}the server is restarting for an update"),
            BAD,
        ),
        Line::raw("your finished races are saved; connect again to keep playing:"),
        match redo_in {
            Some(0) => Line::raw("asking another server now…"),
            Some(n) => Line::raw(format!("asking another server by itself in {n} s, or:")),
            None => Line::raw(""),
        },
        Line::from(vec![
            Span::styled("n", KEY),
            Span::raw(format!(" a new room ({kind}), ")),
            Span::styled("p", KEY),
            Span::raw(format!(" play now ({kind} pool), ")),
            Span::styled("q", KEY),
            Span::raw(" quit"),
        ]),
    ]
}

/// An ask refused for good: what was asked, the server's reason and code; for
/// `unsupported_variant` (A10), what it means for this client, which draws every variant it
/// knows: the server's variant is newer, or the server has no pool, daily or ghost of it.
fn refused(app: &App, code: ErrorCode, message: &str) -> Vec<Line<'static>> {
    let what = refused_what(app.seating().intent());
    let mut lines = vec![Line::styled(
        format!("{what}: {message} ({})", code.as_str()),
        BAD,
    )];
    if code == ErrorCode::UnsupportedVariant {
        let names = protocol::variant::all_names().join(", ");
        lines.push(Line::raw(""));
        lines.push(Line::raw(format!(
            "this sudoku-race draws {names}: the server has no such race for it (a variant \
             newer than this client, or a pool, daily or ghost of a variant it has not opened)"
        )));
    }
    lines
}

/// The name a room refused, and the line to type another in.
fn rename(
    name: &str,
    room: &str,
    code: ErrorCode,
    message: &str,
    input: &str,
) -> Vec<Line<'static>> {
    let why = if code == ErrorCode::NameTaken {
        format!("the name {name} is taken in room {room}")
    } else {
        format!("that name cannot be used: {message}")
    };
    vec![
        Line::styled(why, BAD),
        Line::raw(""),
        Line::from(vec![
            Span::styled("another name: ", KEY),
            Span::raw(input.to_owned()),
            Span::styled("▏", Style::new().fg(Color::Yellow)),
        ]),
    ]
}

/// What the queue screen shows.
struct Queue<'a> {
    difficulty: Difficulty,
    waiting: u32,
    waited: &'a str,
    alone: bool,
    ghost: Option<&'a str>,
}

/// Waiting in the pool: the difficulty, how many wait, for how long, the ghost offered when
/// nobody comes, and how to leave.
fn render_queue(q: &Queue<'_>, area: Rect, buf: &mut Buffer) {
    let Queue {
        difficulty,
        waiting,
        waited,
        alone,
        ghost,
    } = *q;
    let who = match waiting.saturating_sub(1) {
        0 => "just you".to_owned(),
        1 => "you and 1 other".to_owned(),
        n => format!("you and {n} others"),
    };
    let mut lines = vec![
        Line::from(vec![
            Span::raw(match difficulty {
                Difficulty::Easy | Difficulty::Expert => "Looking for an ",
                Difficulty::Medium | Difficulty::Hard => "Looking for a ",
            }),
            Span::styled(
                difficulty.to_string(),
                Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
            ),
            Span::raw(" race with strangers"),
        ]),
        Line::raw(""),
        Line::raw(format!("players waiting: {waiting} ({who})")),
        Line::raw(format!("time in the queue: {waited}")),
        Line::raw(""),
        Line::raw("The race starts by itself when enough players are here."),
    ];
    if alone {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "nobody else is waiting right now: you stay in the queue",
            Style::new().fg(Color::Yellow),
        ));
    }
    if let Some(race) = ghost {
        lines.push(Line::from(vec![
            Span::raw("or press "),
            Span::styled("g", KEY),
            Span::raw(format!(" to race a ghost instead (race {race})")),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("Esc", KEY),
        Span::raw(" or "),
        Span::styled("q", KEY),
        Span::raw(" leaves the queue."),
    ]));
    Paragraph::new(lines)
        .wrap(Wrap { trim: true })
        .block(Block::new().borders(Borders::ALL).title(" quick race "))
        .render(area, buf);
}
