//! The suite's case for arenas (A7): standings kept, replaced, and read back latest first.

use engine::Difficulty;
use protocol::{ArenaInfo, ArenaStanding, ArenaState, PlayerName};

use super::{Fixture, NOW};
use crate::store::ArenaRecord;

fn arena(id: &str, ends: i64, points: &[(&str, u32)]) -> ArenaRecord {
    let standings: Vec<ArenaStanding> = points
        .iter()
        .map(|&(h, p)| ArenaStanding {
            handle: h.into(),
            name: PlayerName::try_from(h).unwrap(),
            points: p,
            races: 2,
            wins: 1,
            streak: 0,
        })
        .collect();
    ArenaRecord {
        info: ArenaInfo {
            arena_id: id.into(),
            name: "Hourly easy".into(),
            difficulty: Difficulty::Easy,
            starts_unix_ms: ends - 1_200_000,
            ends_unix_ms: ends,
            state: ArenaState::Finished,
            players: u32::try_from(standings.len()).unwrap(),
        },
        standings,
    }
}

pub(in crate::store) fn an_arena_is_kept_and_replaced(store: &Fixture) {
    assert_eq!(store.arena("a-1").unwrap(), None);
    let first = arena("a-1", NOW, &[("hA", 4)]);
    store.save_arena(&first).unwrap();
    assert_eq!(store.arena("a-1").unwrap(), Some(first));
    // A race that ended after the arena: the standings are replaced, the schedule kept.
    let later = arena("a-1", NOW, &[("hA", 6), ("hB", 3)]);
    store.save_arena(&later).unwrap();
    assert_eq!(store.arena("a-1").unwrap(), Some(later.clone()));
    let newer = arena("a-2", NOW + 3_600_000, &[]);
    store.save_arena(&newer).unwrap();
    assert_eq!(store.recent_arenas(10).unwrap(), vec![newer.clone(), later]);
    assert_eq!(store.recent_arenas(1).unwrap(), vec![newer]);
    // Damaged standings are an error, not a panic.
    (store.exec)("UPDATE arenas SET standings = 'nope' WHERE arena_id = 'a-1'");
    assert!(store.arena("a-1").is_err());
}
