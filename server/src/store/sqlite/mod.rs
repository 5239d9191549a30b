//! The SQLite store (WAL mode): [`SqliteStore`] opens the file, brings its schema up to date
//! ([`schema`]) and is a [`Backend`] (so a [`Store`]): the writes in [`write`], statements
//! and rows in SQLite's terms in [`dialect`], the reads those of [`crate::store::read`].
//!
//! rusqlite is synchronous: callers run the store inside `spawn_blocking`. A std `Mutex`
//! guards the connection because it is only ever taken on a blocking thread, never across an
//! `.await`.

mod dialect;
pub(crate) mod schema;
mod write;

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::Connection;

use super::backend::{Backend, Sql};
#[cfg(doc)]
use super::Store;
use super::{RaceRecord, RatingChange, StoreError};
use dialect::Db;

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError::Backend(Box::new(e))
    }
}

/// The results database in one SQLite file.
#[derive(Debug)]
pub struct SqliteStore {
    conn: Mutex<Connection>,
}

impl SqliteStore {
    /// Open (or create) the database at `path`, in WAL mode, and migrate it to the current
    /// schema (a file from before migrations upgrades in place).
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                path: dir.to_owned(),
                source,
            })?;
        }
        let mut conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        schema::migrations()
            .to_latest(&mut conn)
            .map_err(|e| StoreError::Migration(Box::new(e)))?;
        Ok(SqliteStore {
            conn: Mutex::new(conn),
        })
    }

    fn lock(&self) -> Result<MutexGuard<'_, Connection>, StoreError> {
        self.conn.lock().map_err(|_| StoreError::Poisoned)
    }

    /// Save many races in one transaction, each exactly as [`Store::save_race`] would (bulk
    /// loads for benchmarks: one commit per race would measure the disk, not the store).
    #[doc(hidden)]
    pub fn save_races(&self, recs: &[RaceRecord]) -> Result<(), StoreError> {
        let mut conn = self.lock()?;
        let tx = conn.transaction()?;
        for rec in recs {
            write::save_race(&tx, rec)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Run `f` on the connection (bulk loads for benchmarks; not part of the trait).
    #[doc(hidden)]
    pub fn with_conn<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        f(&mut *self.lock()?)
    }
}

impl Backend for SqliteStore {
    fn read<T>(
        &self,
        f: impl FnOnce(&mut dyn Sql) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        f(&mut Db(&*self.lock()?))
    }

    fn write_race(&self, rec: &RaceRecord) -> Result<Vec<RatingChange>, StoreError> {
        let mut conn = self.lock()?;
        let tx = conn.transaction()?;
        let changes = write::save_race(&tx, rec)?;
        tx.commit()?;
        Ok(changes)
    }

    fn insert_player(
        &self,
        handle: &str,
        key_hash: [u8; 32],
        name: &str,
        now_unix_ms: i64,
    ) -> Result<(), StoreError> {
        write::register(&*self.lock()?, handle, key_hash, name, now_unix_ms)
    }

    fn probe(&self) -> Result<(), StoreError> {
        Ok(self.lock()?.query_row("SELECT 1", [], |_| Ok(()))?)
    }
}

#[cfg(test)]
mod tests;
