//! The key table's rows, footers and contexts.

use super::*;

const PHASES: [Option<Phase>; 5] = [
    None,
    Some(Phase::Lobby),
    Some(Phase::Countdown),
    Some(Phase::Racing),
    Some(Phase::Finished),
];

fn contexts() -> impl Iterator<Item = Context> {
    PHASES.into_iter().flat_map(|phase| {
        (0..960).map(move |bits| Context {
            phase,
            player: bits & 1 != 0,
            room_host: bits & 2 != 0 && bits & 64 == 0,
            racing: bits & 5 == 5 && phase == Some(Phase::Racing),
            offer: bits & 8 != 0 && phase.is_none(),
            pool: bits & 64 != 0 && phase.is_some(),
            queued: bits & 128 != 0 && phase.is_none(),
            ghost: bits & 256 != 0 && bits & 128 != 0 && phase.is_none(),
            restart: bits & 512 != 0 && bits & (8 | 128) == 0 && phase.is_none(),
            mode: [Mode::Room, Mode::Settings, Mode::Kick][bits / 16 % 3],
        })
    })
}

#[test]
fn every_key_the_footer_names_works_there() {
    for ctx in contexts() {
        for b in TABLE
            .iter()
            .filter(|b| b.mode == ctx.mode && (b.shown)(&ctx))
        {
            assert!(
                (b.active)(&ctx),
                "{:?} is shown but dead in {ctx:?}",
                b.label
            );
        }
    }
}

#[test]
fn every_footer_fits_80_columns() {
    let width = |items: &[(&str, &str)]| -> usize {
        items
            .iter()
            .map(|(k, w)| k.chars().count() + 1 + w.chars().count())
            .sum::<usize>()
            + 2 * items.len().saturating_sub(1)
    };
    for ctx in contexts() {
        let items = help(&ctx);
        assert!(width(&items) <= 80, "{items:?} is too wide in {ctx:?}");
    }
    assert!(width(INPUT_HELP) <= 80 && width(RENAME_HELP) <= 80);
}

#[test]
fn the_footer_follows_the_room() {
    let lobby_host = Context {
        phase: Some(Phase::Lobby),
        player: true,
        room_host: true,
        ..Context::default()
    };
    assert_eq!(
        help(&lobby_host),
        [
            ("r", "ready"),
            ("s", "start"),
            ("e", "settings"),
            ("k", "kick"),
            ("Enter", "chat"),
            ("q", "quit")
        ]
    );
    let lobby_guest = Context {
        room_host: false,
        ..lobby_host
    };
    assert_eq!(
        help(&lobby_guest),
        [("r", "ready"), ("Enter", "chat"), ("q", "quit")]
    );
    assert_eq!(action(&lobby_guest, KeyCode::Char('e')), None);
    assert_eq!(action(&lobby_guest, KeyCode::Char('k')), None);
    let rematch = Context {
        phase: Some(Phase::Finished),
        ..lobby_host
    };
    assert_eq!(
        help(&rematch),
        [
            ("s", "rematch"),
            ("e", "settings"),
            ("k", "kick"),
            ("!", "report"),
            ("Enter", "chat"),
            ("q", "leave")
        ]
    );
    assert_eq!(help(&Context::default()), [("q", "quit")]);
    // Out of the race (forfeited, eliminated, solved) while it goes on: nothing to place.
    let out = Context {
        phase: Some(Phase::Racing),
        player: true,
        ..Context::default()
    };
    assert_eq!(help(&out), [("Enter", "chat"), ("q", "quit")]);
    let racing_host = Context {
        racing: true,
        room_host: true,
        ..out
    };
    assert!(!help(&racing_host).contains(&("e", "settings")));
    let editing = Context {
        mode: Mode::Settings,
        ..lobby_host
    };
    assert_eq!(
        help(&editing),
        [
            ("↑↓", "setting"),
            ("←→", "change"),
            ("Enter", "apply"),
            ("Esc", "cancel")
        ]
    );
}

#[test]
fn a_pool_room_has_no_host_keys_and_races_again_after_a_race() {
    let pool_lobby = Context {
        phase: Some(Phase::Lobby),
        player: true,
        pool: true,
        ..Context::default()
    };
    assert_eq!(help(&pool_lobby), [("Enter", "chat"), ("q", "quit")]);
    assert_eq!(action(&pool_lobby, KeyCode::Char('r')), None);
    assert_eq!(action(&pool_lobby, KeyCode::Char('s')), None);
    let pool_after = Context {
        phase: Some(Phase::Finished),
        ..pool_lobby
    };
    assert_eq!(
        help(&pool_after),
        [
            ("r", "race again"),
            ("!", "report"),
            ("Enter", "chat"),
            ("q", "quit")
        ]
    );
    assert_eq!(
        action(&pool_after, KeyCode::Char('r')),
        Some(Action::Requeue)
    );
    assert_eq!(action(&pool_after, KeyCode::Char('s')), None);
    let queued = Context {
        queued: true,
        ..Context::default()
    };
    assert_eq!(help(&queued), [("Esc", "leave the queue")]);
    assert_eq!(action(&queued, KeyCode::Esc), Some(Action::Quit));
    assert_eq!(action(&queued, KeyCode::Char('q')), Some(Action::Quit));
}

#[test]
fn keys_resolve_only_where_they_work() {
    let watching = Context {
        phase: Some(Phase::Racing),
        ..Context::default()
    };
    assert_eq!(action(&watching, KeyCode::Left), None, "no cursor to move");
    assert_eq!(action(&watching, KeyCode::Char('5')), None);
    let racing = Context {
        player: true,
        racing: true,
        ..watching
    };
    assert_eq!(action(&racing, KeyCode::Left), Some(Action::Move(0, -1)));
    assert_eq!(
        action(&racing, KeyCode::Char('5')),
        Digit::new(5).map(Action::Place)
    );
    assert_eq!(action(&racing, KeyCode::Backspace), Some(Action::Erase));
    assert_eq!(action(&Context::default(), KeyCode::Enter), None);
    assert_eq!(
        action(&Context::default(), KeyCode::Esc),
        Some(Action::Quit)
    );
    let kicking = Context {
        phase: Some(Phase::Lobby),
        player: true,
        room_host: true,
        mode: Mode::Kick,
        ..Context::default()
    };
    assert_eq!(action(&kicking, KeyCode::Char('j')), Some(Action::Row(1)));
    assert_eq!(action(&kicking, KeyCode::Esc), Some(Action::Cancel));
    assert_eq!(action(&kicking, KeyCode::Char('r')), None);
}
