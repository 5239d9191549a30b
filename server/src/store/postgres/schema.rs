//! The PostgreSQL schema as numbered migrations, the same story as the SQLite side: an ordered
//! list, each applied once, the version kept in the database (`schema_version`, one row),
//! later migrations only add, and a database newer than the server is refused.
//!
//! Not `refinery`: several nodes of a cluster start at once against one database, and
//! refinery takes no lock between processes, so two nodes could both run a migration. Here
//! the whole run is one transaction under an advisory lock: one node migrates, the others
//! wait and then find nothing left to do; a failed migration leaves nothing behind (DDL is
//! transactional in PostgreSQL). It is also a dozen lines against refinery's dependencies.

use r2d2_postgres::postgres::Client;

use crate::store::StoreError;

/// Every migration, oldest first. Migration 1 is the whole schema SQLite reached in its two
/// (PostgreSQL had no earlier databases to upgrade), plus the daily secret's table; migration
/// 2 is SQLite's 3 (ghosts: `races.ghost_of`, `best_solves`), 3 SQLite's 4 (arenas), 4 SQLite's 5
/// (moderation and names, A8), 5 SQLite's 6 (lag compensation, A8),
/// 6 SQLite's 7 (each seat's own isomorph, A8).
pub(crate) const MIGRATIONS: &[&str] = &[
    include_str!("v1.sql"),
    include_str!("v2.sql"),
    include_str!("v3.sql"),
    include_str!("v4.sql"),
    include_str!("v5.sql"),
    include_str!("v6.sql"),
];

/// The advisory lock key that serialises migrations (any fixed number; "sudoku" in ASCII).
const MIGRATION_LOCK: i64 = 0x7375_646f_6b75;

/// The database is at a schema version this server does not know.
#[derive(Debug, thiserror::Error)]
#[error("the database is at schema version {found}; this server knows {known}")]
struct TooNew {
    found: i64,
    known: usize,
}

fn migration(e: impl std::error::Error + Send + Sync + 'static) -> StoreError {
    StoreError::Migration(Box::new(e))
}

/// Bring the database to the latest schema.
pub(super) fn migrate(client: &mut Client) -> Result<(), StoreError> {
    let mut tx = client.transaction().map_err(migration)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .map_err(migration)?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_version (
             id BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (id),
             version BIGINT NOT NULL
         )",
    )
    .map_err(migration)?;
    let found: i64 = match tx
        .query_opt("SELECT version FROM schema_version", &[])
        .map_err(migration)?
    {
        Some(row) => row.try_get(0).map_err(migration)?,
        None => 0,
    };
    let known = MIGRATIONS.len();
    let done = usize::try_from(found)
        .ok()
        .filter(|n| *n <= known)
        .ok_or_else(|| migration(TooNew { found, known }))?;
    for sql in &MIGRATIONS[done..] {
        tx.batch_execute(sql).map_err(migration)?;
    }
    let latest = i64::try_from(known).unwrap_or(i64::MAX);
    tx.execute(
        "INSERT INTO schema_version (version) VALUES ($1)
         ON CONFLICT (id) DO UPDATE SET version = excluded.version",
        &[&latest],
    )
    .map_err(migration)?;
    tx.commit().map_err(migration)
}

/// The schema version of the database (for tests).
#[cfg(all(test, feature = "pg-tests"))]
pub(crate) fn version(client: &mut Client) -> Result<i64, StoreError> {
    Ok(client
        .query_one("SELECT version FROM schema_version", &[])?
        .try_get(0)?)
}
