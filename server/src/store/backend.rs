//! The seam between what every store does once and what each database does its own way.
//! A backend ([`super::sqlite`], [`super::postgres`]) keeps its connection handling and its
//! SQL dialect: it runs statements through [`Sql`], hands rows back as [`Cells`], and writes
//! a race and a player itself ([`Backend`]). Everything else is written once over these: the
//! [`Store`](super::Store) front over any [`Backend`] ([`super::front`]), whose reads are
//! [`super::read`] and whose rating update is [`super::rated`].

use super::{RaceRecord, RatingChange, StoreError};

/// A value bound to a statement's placeholder, in the types both databases store.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Param<'a> {
    /// An integer (`BIGINT` in PostgreSQL).
    Int(i64),
    /// A nullable integer.
    OptInt(Option<i64>),
    /// A float (`DOUBLE PRECISION`).
    Real(f64),
    /// A text.
    Text(&'a str),
    /// A nullable text.
    OptText(Option<&'a str>),
    /// A byte string (`BYTEA`, a SQLite blob).
    Bytes(&'a [u8]),
}

/// One row read back, by 0-based column. A value of a type the column does not hold is an
/// error, never a panic; integers come back as `i64` whatever their width in the database.
pub(crate) trait Cells {
    /// An integer column.
    fn int(&self, i: usize) -> Result<i64, StoreError>;
    /// A nullable integer column.
    fn opt_int(&self, i: usize) -> Result<Option<i64>, StoreError>;
    /// A float column.
    fn real(&self, i: usize) -> Result<f64, StoreError>;
    /// A nullable float column.
    fn opt_real(&self, i: usize) -> Result<Option<f64>, StoreError>;
    /// A text column.
    fn text(&self, i: usize) -> Result<String, StoreError>;
    /// A nullable text column.
    fn opt_text(&self, i: usize) -> Result<Option<String>, StoreError>;
    /// A boolean column (an integer in SQLite).
    fn flag(&self, i: usize) -> Result<bool, StoreError>;
}

/// Something that runs one statement of [`super::sql`] (or a backend's own) with positional
/// parameters: a connection or a transaction, in its database's dialect.
pub(crate) trait Sql {
    /// Run a query and hand each row to `f`, in order.
    fn each(
        &mut self,
        sql: &'static str,
        params: &[Param<'_>],
        f: &mut dyn FnMut(&dyn Cells) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;

    /// Run a query without parameters over a whole table, row by row (it need not fit in
    /// memory, and a one-off statement is not kept prepared).
    fn scan(
        &mut self,
        sql: &'static str,
        f: &mut dyn FnMut(&dyn Cells) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;

    /// Run a statement that returns no rows.
    fn exec(&mut self, sql: &'static str, params: &[Param<'_>]) -> Result<(), StoreError>;
}

/// Every row of a query, each shaped by `f`.
pub(crate) fn rows<T>(
    sql: &mut dyn Sql,
    query: &'static str,
    params: &[Param<'_>],
    mut f: impl FnMut(&dyn Cells) -> Result<T, StoreError>,
) -> Result<Vec<T>, StoreError> {
    let mut out = Vec::new();
    sql.each(query, params, &mut |r| {
        out.push(f(r)?);
        Ok(())
    })?;
    Ok(out)
}

/// The first row of a query, shaped by `f` (the queries asked this way have at most one).
pub(crate) fn first<T>(
    sql: &mut dyn Sql,
    query: &'static str,
    params: &[Param<'_>],
    f: impl FnOnce(&dyn Cells) -> Result<T, StoreError>,
) -> Result<Option<T>, StoreError> {
    let mut f = Some(f);
    let mut out = None;
    sql.each(query, params, &mut |r| {
        if let Some(f) = f.take() {
            out = Some(f(r)?);
        }
        Ok(())
    })?;
    Ok(out)
}

/// What a database does its own way: how a call gets a connection, how a race and a player
/// are written (in one transaction, with the dialect's bulk inserts, locks and error codes),
/// and how to tell that it answers. The [`Store`] front over it is written once, in
/// [`super::front`].
pub(crate) trait Backend: Send + Sync + std::fmt::Debug {
    /// Run `f` on a connection (the reads of [`super::read`]).
    fn read<T>(
        &self,
        f: impl FnOnce(&mut dyn Sql) -> Result<T, StoreError>,
    ) -> Result<T, StoreError>;

    /// [`Store::save_race`].
    fn write_race(&self, rec: &RaceRecord) -> Result<Vec<RatingChange>, StoreError>;

    /// [`Store::register`].
    fn insert_player(
        &self,
        handle: &str,
        key_hash: [u8; 32],
        name: &str,
        now_unix_ms: i64,
    ) -> Result<(), StoreError>;

    /// [`Store::ping`].
    fn probe(&self) -> Result<(), StoreError>;
}
