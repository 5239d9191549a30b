//! The SQLite store (WAL mode): [`SqliteStore`] opens the file, brings its schema up to date
//! ([`schema`]) and implements [`Store`] with the writes in [`write`] and the queries in
//! [`read`].
//!
//! rusqlite is synchronous: callers run the store inside `spawn_blocking`. A std `Mutex`
//! guards the connection because it is only ever taken on a blocking thread, never across an
//! `.await`.

mod read;
pub(crate) mod schema;
mod write;

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::Connection;
use shared::engine::Difficulty;

use super::{
    DailyRow, HistoryRow, LeaderRow, Period, PlayerPage, PlayerRow, RaceRecord, RatedRace,
    RatingChange, Replay, Store, StoreError, StoredRating, StoredStanding,
};

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

impl Store for SqliteStore {
    fn save_race(&self, rec: &RaceRecord) -> Result<Vec<RatingChange>, StoreError> {
        let mut conn = self.lock()?;
        let tx = conn.transaction()?;
        let changes = write::save_race(&tx, rec)?;
        tx.commit()?;
        Ok(changes)
    }

    fn register(
        &self,
        handle: &str,
        key_hash: [u8; 32],
        name: &str,
        now_unix_ms: i64,
    ) -> Result<(), StoreError> {
        write::register(&*self.lock()?, handle, key_hash, name, now_unix_ms)
    }

    fn player_by_key(&self, key_hash: [u8; 32]) -> Result<Option<PlayerRow>, StoreError> {
        read::player_by_key(&*self.lock()?, key_hash)
    }

    fn leaderboard(
        &self,
        difficulty: Difficulty,
        period: Period,
        now_unix_ms: i64,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<LeaderRow>, StoreError> {
        read::leaderboard(
            &*self.lock()?,
            difficulty,
            period,
            now_unix_ms,
            limit,
            offset,
        )
    }

    fn player(&self, handle: &str) -> Result<Option<PlayerPage>, StoreError> {
        read::player(&*self.lock()?, handle)
    }

    fn history(
        &self,
        handle: &str,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<HistoryRow>, StoreError> {
        read::history(&*self.lock()?, handle, limit, offset)
    }

    fn replay(&self, race_id: &str) -> Result<Option<Replay>, StoreError> {
        read::replay(&*self.lock()?, race_id)
    }

    fn daily_played(
        &self,
        handle: &str,
        date: &str,
        difficulty: Difficulty,
    ) -> Result<bool, StoreError> {
        read::daily_played(&*self.lock()?, handle, date, difficulty)
    }

    fn daily_board(
        &self,
        date: &str,
        difficulty: Difficulty,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<DailyRow>, StoreError> {
        read::daily_board(&*self.lock()?, date, difficulty, limit, offset)
    }

    fn for_each_rated_race(
        &self,
        f: &mut dyn FnMut(RatedRace) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        read::for_each_rated_race(&*self.lock()?, f)
    }

    fn ratings(&self) -> Result<Vec<StoredRating>, StoreError> {
        read::ratings(&*self.lock()?)
    }

    fn standings(&self, race_id: &str) -> Result<Vec<StoredStanding>, StoreError> {
        read::standings(&*self.lock()?, race_id)
    }

    fn race_reason(&self, race_id: &str) -> Result<Option<String>, StoreError> {
        read::race_reason(&*self.lock()?, race_id)
    }

    fn placement_count(&self, race_id: &str) -> Result<u64, StoreError> {
        read::placement_count(&*self.lock()?, race_id)
    }

    fn ping(&self) -> Result<(), StoreError> {
        Ok(self.lock()?.query_row("SELECT 1", [], |_| Ok(()))?)
    }
}

#[cfg(test)]
mod tests;
