//! The PostgreSQL store, for several nodes sharing one database: [`PgStore`] opens a pool of
//! connections, brings the schema up to date ([`schema`]) and is a [`Backend`] (so a
//! [`Store`]): the writes in [`write`], statements and rows in PostgreSQL's terms in
//! [`dialect`], the reads those of [`crate::store::read`], answering exactly as
//! [`super::SqliteStore`] does for the same calls.
//!
//! The client is the synchronous `postgres` crate pooled by `r2d2` (`r2d2_postgres`): the
//! [`Store`] trait is synchronous and always called on blocking threads, so a blocking client
//! fits it as it is, with no runtime handle kept in the store and nothing that depends on the
//! caller's runtime flavour (plain `#[test]`s use it the same way). Each `postgres::Client`
//! drives its socket on a small runtime of its own, which is why it must never be used, nor
//! dropped, on a thread that drives async tasks: tokio refuses to block there (see the `Drop`
//! below).

mod dialect;
mod schema;
#[doc(hidden)]
pub mod scratch;
mod write;

use std::time::Duration;

use r2d2_postgres::postgres::{self, NoTls};
use r2d2_postgres::{r2d2, PostgresConnectionManager};

use super::backend::{Backend, Sql};
#[cfg(doc)]
use super::Store;
use super::{RaceRecord, RatingChange, StoreError};
use dialect::Pg;

type Manager = PostgresConnectionManager<NoTls>;
type Conn = r2d2::PooledConnection<Manager>;

/// Connections per node. Store calls are short and each holds one connection; ten per node
/// leaves room for several nodes under PostgreSQL's default `max_connections` of 100.
const POOL_SIZE: u32 = 10;

/// How long a store call waits for a connection (and a new connection for the server) before
/// it fails with [`StoreError::Backend`]: a node whose database is gone answers errors
/// instead of hanging its rooms.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

impl From<postgres::Error> for StoreError {
    fn from(e: postgres::Error) -> StoreError {
        StoreError::Backend(Box::new(e))
    }
}

impl From<r2d2::Error> for StoreError {
    fn from(e: r2d2::Error) -> StoreError {
        StoreError::Backend(Box::new(e))
    }
}

/// Whether `db` names a PostgreSQL database (a `postgres://` or `postgresql://` URL) rather
/// than a SQLite file.
pub fn is_url(db: &str) -> bool {
    ["postgres://", "postgresql://"]
        .iter()
        .any(|scheme| db.len() >= scheme.len() && db[..scheme.len()].eq_ignore_ascii_case(scheme))
}

/// The results database in PostgreSQL, behind a connection pool.
pub struct PgStore {
    /// `None` only while dropping.
    pool: Option<r2d2::Pool<Manager>>,
}

impl std::fmt::Debug for PgStore {
    // The URL may carry a password: say nothing of it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore").finish_non_exhaustive()
    }
}

impl PgStore {
    /// Connect to the database at `url` (`postgres://user@host/db`, or any libpq key=value
    /// string) and migrate it to the current schema. It blocks: call it off the async workers.
    pub fn open(url: &str) -> Result<PgStore, StoreError> {
        let mut config: postgres::Config = url.parse()?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let pool = r2d2::Pool::builder()
            .max_size(POOL_SIZE)
            // One connection is made (and checked) now; the rest as load asks for them.
            .min_idle(Some(1))
            .connection_timeout(CONNECT_TIMEOUT)
            .build(Manager::new(config, NoTls))?;
        let store = PgStore { pool: Some(pool) };
        schema::migrate(&mut *store.conn()?)?;
        Ok(store)
    }

    fn conn(&self) -> Result<Conn, StoreError> {
        let pool = self.pool.as_ref().expect("only drop takes the pool");
        Ok(pool.get()?)
    }

    /// The daily challenge's secret kept in the database, so that every node derives the same
    /// day's puzzle. The first call on a new database stores `candidate`; when several nodes
    /// start at once, the first one written wins and all of them return it.
    pub fn daily_secret(&self, candidate: &str) -> Result<String, StoreError> {
        let mut c = self.conn()?;
        c.execute(
            "INSERT INTO daily_secret (secret) VALUES ($1) ON CONFLICT DO NOTHING",
            &[&candidate],
        )?;
        let row = c.query_one("SELECT secret FROM daily_secret", &[])?;
        Ok(row.try_get(0)?)
    }

    /// Run `f` on a pooled connection (tests and tools; not part of the trait).
    #[doc(hidden)]
    pub fn with_client<T>(
        &self,
        f: impl FnOnce(&mut postgres::Client) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        f(&mut *self.conn()?)
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        let Some(pool) = self.pool.take() else {
            return;
        };
        // A `postgres::Client` closes its connection by blocking on its own runtime, which
        // panics on a thread inside a tokio runtime (where the server's last handle on the
        // store is often dropped): close the pool on a plain thread there.
        if tokio::runtime::Handle::try_current().is_ok() {
            let closing = std::thread::Builder::new()
                .name("pg-store-close".into())
                .spawn(move || drop(pool));
            if let Err(e) = closing {
                tracing::error!(error = %e, "cannot close the PostgreSQL pool on its own thread");
            }
        } else {
            drop(pool);
        }
    }
}

impl Backend for PgStore {
    fn read<T>(
        &self,
        f: impl FnOnce(&mut dyn Sql) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        f(&mut Pg::new(&mut *self.conn()?))
    }

    fn write_race(&self, rec: &RaceRecord) -> Result<Vec<RatingChange>, StoreError> {
        let mut c = self.conn()?;
        let mut tx = c.transaction()?;
        let changes = write::save_race(&mut tx, rec)?;
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
        write::register(&mut *self.conn()?, handle, key_hash, name, now_unix_ms)
    }

    fn probe(&self) -> Result<(), StoreError> {
        self.conn()?.simple_query("SELECT 1")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
