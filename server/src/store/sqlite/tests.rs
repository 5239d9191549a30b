//! The store suite on SQLite files in temp dirs, and what only SQLite has: files from before
//! migrations.

use std::sync::Arc;

use rusqlite::params;

use super::SqliteStore;
use crate::store::tests::{
    check_old_solves, duel, register, store_suite, Fixture, NOW, OLD_SOLVES,
};
use crate::store::{SeatRow, Store};

/// The schema the first results store created (migration 1 is that text, frozen).
const OLD_SCHEMA: &str = super::schema::V1;

/// A new SQLite file in a directory that does not exist yet (the store creates it).
fn open() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(&dir.path().join("sub").join("r.sqlite3")).unwrap());
    Fixture {
        store: store.clone(),
        exec: Box::new(move |sql| {
            store.with_conn(|c| Ok(c.execute_batch(sql)?)).unwrap();
        }),
        _keep: Box::new(dir),
    }
}

store_suite!(open);

#[test]
fn a_file_from_before_migrations_upgrades_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sqlite3");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(OLD_SCHEMA).unwrap();
        conn.execute(
            "INSERT INTO races VALUES ('old', 'WXYZ', 'hard', ?1, ?2, 100, 200, 'time_limit')",
            params![".".repeat(81), "2".repeat(81)],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO standings VALUES ('old', 1, 'p1', 'ann', 'timed_out', NULL, 30, 2)",
            [],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO placements VALUES ('old', 0, 'p1', 50, 7, 3, 'accepted')",
            [],
        )
        .unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(
        store.race_reason("old").unwrap().as_deref(),
        Some("time_limit")
    );
    let replay = store.replay("old").unwrap().unwrap();
    assert_eq!(replay.race.difficulty, "hard");
    assert!(!replay.race.rated);
    assert_eq!(replay.race.daily, None);
    assert_eq!(
        replay.players,
        vec![SeatRow {
            player_id: "p1".into(),
            name: "ann".into(),
            handle: None,
            bot: false,
            flags: Vec::new(),
            // A seat stored before A8 raced the race's puzzle.
            puzzle: ".".repeat(81),
            solution: "2".repeat(81),
        }]
    );
    assert_eq!(replay.placements[0].outcome, "accepted");
    // New data goes into the upgraded file, and a second open changes nothing.
    register(&store, &["hA", "hB"]);
    assert_eq!(
        store
            .save_race(&duel("new", NOW, "hA", "hB"))
            .unwrap()
            .len(),
        2
    );
    drop(store);
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.history("hA", 10, 0).unwrap().len(), 1);
    assert_eq!(store.standings("old").unwrap()[0].filled, 30);
}

#[test]
fn a_file_from_before_ghosts_gets_its_best_solves() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v2.sqlite3");
    {
        let mut conn = rusqlite::Connection::open(&path).unwrap();
        let v2 = rusqlite_migration::Migrations::new(vec![
            rusqlite_migration::M::up(super::schema::V1),
            rusqlite_migration::M::up(super::schema::V2),
        ]);
        v2.to_latest(&mut conn).unwrap();
        conn.execute_batch(
            "INSERT INTO players VALUES ('hA', X'01', 'ann', 0), ('hB', X'02', 'bob', 0);",
        )
        .unwrap();
        conn.execute_batch(OLD_SOLVES).unwrap();
    }
    check_old_solves(&SqliteStore::open(&path).unwrap());
}
