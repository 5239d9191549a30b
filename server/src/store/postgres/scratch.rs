//! Throwaway databases for tests: [`ScratchDb::create`] makes a database with a random name on
//! a PostgreSQL server and its `Drop` drops it again (forcibly: connections a failed test left
//! open do not keep it), so every test run starts empty and leaves nothing behind. Public (and
//! hidden) because the binary tests use it as well as the unit tests.

use r2d2_postgres::postgres::{Client, NoTls};

use crate::store::StoreError;

/// The server the scratch databases are made on, unless `SUDOKU_RACE_PG_ADMIN_URL` says
/// otherwise (a URL that names a database, without a query): the local PostgreSQL with
/// trust auth.
pub const DEFAULT_ADMIN_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// A database that exists while this value does.
#[derive(Debug)]
pub struct ScratchDb {
    admin_url: String,
    name: String,
}

/// Run `f` on a thread of its own: the sync client blocks on a runtime of its own, which tokio
/// refuses inside an async test.
fn off_runtime<T: Send>(f: impl FnOnce() -> Result<T, StoreError> + Send) -> Result<T, StoreError> {
    std::thread::scope(|s| {
        s.spawn(f)
            .join()
            .unwrap_or_else(|_| Err(StoreError::Poisoned))
    })
}

fn admin(url: &str, sql: &str) -> Result<(), StoreError> {
    let mut c = Client::connect(url, NoTls)?;
    c.batch_execute(sql)?;
    Ok(())
}

impl ScratchDb {
    /// A new, empty database.
    pub fn create() -> Result<ScratchDb, StoreError> {
        let admin_url = std::env::var("SUDOKU_RACE_PG_ADMIN_URL")
            .unwrap_or_else(|_| DEFAULT_ADMIN_URL.to_owned());
        let name = format!("sudoku_race_test_{:016x}", rand::random::<u64>());
        let sql = format!("CREATE DATABASE {name}");
        off_runtime(|| admin(&admin_url, &sql))?;
        Ok(ScratchDb { admin_url, name })
    }

    /// The database's URL: the admin URL (which names a database, and has no query) with
    /// that name replaced.
    pub fn url(&self) -> String {
        let base = self
            .admin_url
            .rsplit_once('/')
            .map_or(self.admin_url.as_str(), |(base, _)| base);
        format!("{base}/{}", self.name)
    }
}

impl Drop for ScratchDb {
    fn drop(&mut self) {
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        if let Err(e) = off_runtime(|| admin(&self.admin_url, &sql)) {
            eprintln!("cannot drop the scratch database {}: {e}", self.name);
        }
    }
}
