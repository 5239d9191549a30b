//! Client benchmarks: a bench binary that prints a table
//! (`cargo bench -p sudoku-race --bench ui`).
//!
//! - `render race 120x40` / `render race 80x24`: one full frame of the race screen (board with
//!   pencil marks, side panel with 8 players, chat) drawn into a ratatui `TestBackend`.
//! - `render killer 120x40` / `render killer 80x24`: the same of a killer race (A10: the board on
//!   its lattice, cage outlines and sums), a medium puzzle from a seeded generator.
//! - `update progress`: `App::update` on one server `progress` message.
//! - `bot solve`: a bot brain choosing and confirming every placement of a 51-cell puzzle.
//!
//! Each figure is the median of 7 runs.

use std::time::{Duration, Instant};

use client::app::{App, Event};
use client::bot::{BotConfig, Brain, Level};
use client::net::NetEvent;
use crossterm::event::{KeyCode, KeyEvent};
use engine::generator::variant::generate_in;
use engine::{Cell, Difficulty, Digit, Grid, Variant};
use protocol::variant::WireLayout;
use protocol::{ClientMsg, Phase, Player, PlayerStatus, Progress, Role, ServerMsg, Settings, You};
use rand::SeedableRng;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

const PUZZLE: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
const SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

fn msg(m: ServerMsg) -> Event {
    Event::Net(NetEvent::Message(Box::new(m)))
}

/// A race of `variant` under way: classic's [`PUZZLE`], or a seeded medium puzzle of the variant.
fn racing_app(variant: Variant) -> App {
    let (puzzle, layout) = if variant == Variant::Classic {
        (PUZZLE.parse().unwrap(), WireLayout::default())
    } else {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let dealt = generate_in(&mut rng, variant, Difficulty::Medium);
        (dealt.puzzle, WireLayout::of(&dealt.geometry))
    };
    let mut app = App::new("p0");
    let players = (0..8)
        .map(|i| Player {
            player_id: format!("p{i}").into(),
            name: format!("player{i}").try_into().unwrap(),
            ready: true,
            connected: i != 3,
            status: PlayerStatus::Waiting,
            bot: false,
            handle: None,
            ghost: false,
        })
        .collect();
    app.update(msg(ServerMsg::RoomJoined {
        room: "K7QX".try_into().unwrap(),
        you: You {
            player_id: Some("p0".into()),
            token: Some("t".into()),
            role: Role::Player,
        },
        host: Some("p0".into()),
        settings: Settings::default(),
        phase: Phase::Lobby,
        players,
        race: None,
    }));
    app.update(msg(ServerMsg::RaceStarted {
        race_id: "r".into(),
        puzzle,
        difficulty: Difficulty::Medium,
        time_limit_s: 1800,
        rated: false,
        layout,
        variant,
    }));
    for i in 0..8 {
        app.update(msg(ServerMsg::Progress(Progress {
            player_id: format!("p{i}").into(),
            filled: i * 6,
            to_fill: 51,
            mistakes: i % 3,
        })));
        app.update(msg(ServerMsg::Chat {
            player_id: Some(format!("p{i}").into()),
            name: format!("player{i}").try_into().unwrap(),
            text: "good luck, have fun".into(),
        }));
    }
    // Pencil marks 1 2 4 6 7 9 in every empty cell, typed as a player would: pencil mode, then
    // row by row (the cursor wraps, so it ends top-left where it began), then pen mode again.
    if let Some(puzzle) = app.race().map(|r| r.puzzle) {
        app.update(key(KeyCode::Char('p')));
        for c in Cell::all() {
            if puzzle.get(c).is_none() {
                for d in "124679".chars() {
                    app.update(key(KeyCode::Char(d)));
                }
            }
            app.update(key(KeyCode::Right));
            if c.col() == 8 {
                app.update(key(KeyCode::Down));
            }
        }
        app.update(key(KeyCode::Char('p')));
    }
    app
}

fn key(code: KeyCode) -> Event {
    Event::Key(KeyEvent::from(code))
}

/// Median time per iteration of `f`, over 7 runs of `iters` iterations.
fn median(iters: u32, mut f: impl FnMut()) -> Duration {
    let mut runs: Vec<Duration> = (0..7)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iters {
                f();
            }
            t.elapsed() / iters
        })
        .collect();
    runs.sort();
    runs[3]
}

fn bot_solve() {
    let solution = Grid::parse(SOLUTION).expect("grid");
    let config = BotConfig {
        style: Level::Expert.style(),
        ..BotConfig::default()
    };
    let mut brain = Brain::new(config, None);
    brain.on_msg(&ServerMsg::RoomJoined {
        room: "K7QX".try_into().unwrap(),
        you: You {
            player_id: Some("b".into()),
            token: Some("t".into()),
            role: Role::Player,
        },
        host: Some("h".into()),
        settings: Settings::default(),
        phase: Phase::Lobby,
        players: vec![],
        race: None,
    });
    brain.on_msg(&ServerMsg::RaceStarted {
        race_id: "r".into(),
        puzzle: PUZZLE.parse().unwrap(),
        difficulty: Difficulty::Easy,
        time_limit_s: 1800,
        rated: false,
        layout: Default::default(),
        variant: Default::default(),
    });
    while let Some(ClientMsg::Place { cell, digit, id }) = brain.next_move() {
        let (Ok(c), Ok(d)) = (Cell::try_from(cell), Digit::try_from(digit)) else {
            break;
        };
        let ok = solution.get(c) == Some(d);
        brain.on_msg(&ServerMsg::Placement {
            id,
            cell: c,
            digit: d,
            accepted: ok,
            reason: None,
            conflicts: vec![],
            mistakes: 0,
            penalty_ms: 0,
        });
    }
}

fn main() {
    let filter = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    let (classic, killer) = (racing_app(Variant::Classic), racing_app(Variant::Killer));
    let mut rows: Vec<(&str, Duration)> = Vec::new();
    let want = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    for (name, app, w, h) in [
        ("render race 120x40", &classic, 120, 40),
        ("render race 80x24", &classic, 80, 24),
        ("render killer 120x40", &killer, 120, 40),
        ("render killer 80x24", &killer, 80, 24),
    ] {
        if want(name) {
            let mut t = Terminal::new(TestBackend::new(w, h)).expect("backend");
            rows.push((
                name,
                median(200, || {
                    t.draw(|f| f.render_widget(app, f.area())).expect("draw");
                }),
            ));
        }
    }
    if want("update progress") {
        let mut app = racing_app(Variant::Classic);
        let mut n = 0u32;
        rows.push((
            "update progress",
            median(100_000, || {
                n = (n + 1) % 51;
                app.update(msg(ServerMsg::Progress(Progress {
                    player_id: "p1".into(),
                    filled: n,
                    to_fill: 51,
                    mistakes: 0,
                })));
            }),
        ));
    }
    if want("bot solve") {
        rows.push(("bot solve (51 cells)", median(200, bot_solve)));
    }
    println!("{:<24} {:>12}", "bench", "median");
    for (name, d) in rows {
        println!("{name:<24} {:>9.1} µs", d.as_secs_f64() * 1e6);
    }
}
