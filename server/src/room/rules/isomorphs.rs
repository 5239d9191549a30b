//! A different isomorph per seat (A8): which rooms deal them, and the `race_started` each
//! member receives. With isomorphs off the race's puzzle goes to everyone as one message
//! (serialized once); with them on, each racing seat gets its own puzzle and everyone else
//! (spectators, a seat that did not race) the race's.

use crate::puzzles::SolvedPuzzle;
use protocol::variant::WireLayout;
use protocol::{ServerMsg, Settings};

use super::effect::Effects;
use super::race::Race;
use super::seats::Seats;
use super::Effect;

/// The settings a room keeps: isomorphs are on in pool, arena and rated rooms whatever was
/// asked (a rated race must not let two seats pass each other digits).
pub(super) fn forced(mut settings: Settings) -> Settings {
    settings.isomorphs |= settings.rated || settings.pool || settings.arena.is_some();
    settings
}

/// Isomorphs off for good: the daily challenge is one puzzle for everyone by definition,
/// and a ghost race deals the ghost's own stored puzzle to the human.
pub(super) fn no_isomorphs(settings: &mut Settings) {
    settings.isomorphs = false;
}

/// `settings` as a room keeps them ([`forced`], and never isomorphs in a room that deals a
/// fixed puzzle: a daily or ghost room).
pub(super) fn kept(settings: Settings, fixed_puzzle: bool) -> Settings {
    let mut settings = forced(settings);
    if fixed_puzzle {
        settings.isomorphs = false;
    }
    settings
}

/// Tell the room `race` started: each racer its own puzzle (isomorphs), or everyone the
/// race's in one message.
pub(super) fn announce_start(
    race: &Race,
    settings: &Settings,
    seats: &Seats,
    rated: bool,
    fx: &mut Effects,
) {
    let race_id = race.race_id();
    let started = |dealt: &SolvedPuzzle| ServerMsg::RaceStarted {
        race_id: race_id.clone(),
        puzzle: dealt.puzzle,
        difficulty: settings.difficulty,
        time_limit_s: settings.time_limit_s,
        rated,
        variant: settings.variant,
        layout: WireLayout::of(dealt.geometry()),
    };
    let mut rest = seats.audience();
    if settings.isomorphs {
        for (player, dealt) in race.seat_puzzles() {
            let Some(conn) = seats.conn_of(player) else {
                continue;
            };
            rest.retain(|&c| c != conn);
            fx.push(Effect::Send(vec![conn], started(dealt)));
        }
    }
    let base = started(race.dealt());
    fx.push(Effect::Send(rest, base));
}
