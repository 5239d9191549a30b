//! SQLite's side of [`Sql`] and [`Cells`]: statements run on a borrowed connection (or
//! transaction), prepared once and kept in rusqlite's statement cache, rows read column by
//! column, parameters bound positionally.

use rusqlite::types::ToSqlOutput;
use rusqlite::{params_from_iter, Connection, Row, ToSql};

use crate::store::backend::{Cells, Param, Sql};
use crate::store::StoreError;

/// A connection, or a transaction (which derefs to one), as [`Sql`].
pub(super) struct Db<'c>(pub(super) &'c Connection);

impl ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        match self {
            Param::Int(v) => v.to_sql(),
            Param::OptInt(v) => v.to_sql(),
            Param::Real(v) => v.to_sql(),
            Param::Text(v) => v.to_sql(),
            Param::OptText(v) => v.to_sql(),
            Param::Bytes(v) => v.to_sql(),
        }
    }
}

impl Sql for Db<'_> {
    fn each(
        &mut self,
        sql: &'static str,
        params: &[Param<'_>],
        f: &mut dyn FnMut(&dyn Cells) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut st = self.0.prepare_cached(sql)?;
        let mut rows = st.query(params_from_iter(params))?;
        while let Some(r) = rows.next()? {
            f(r)?;
        }
        Ok(())
    }

    fn scan(
        &mut self,
        sql: &'static str,
        f: &mut dyn FnMut(&dyn Cells) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut st = self.0.prepare(sql)?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            f(r)?;
        }
        Ok(())
    }

    fn exec(&mut self, sql: &'static str, params: &[Param<'_>]) -> Result<(), StoreError> {
        self.0
            .prepare_cached(sql)?
            .execute(params_from_iter(params))?;
        Ok(())
    }
}

impl Cells for Row<'_> {
    fn int(&self, i: usize) -> Result<i64, StoreError> {
        Ok(self.get(i)?)
    }

    fn opt_int(&self, i: usize) -> Result<Option<i64>, StoreError> {
        Ok(self.get(i)?)
    }

    fn real(&self, i: usize) -> Result<f64, StoreError> {
        Ok(self.get(i)?)
    }

    fn opt_real(&self, i: usize) -> Result<Option<f64>, StoreError> {
        Ok(self.get(i)?)
    }

    fn text(&self, i: usize) -> Result<String, StoreError> {
        Ok(self.get(i)?)
    }

    fn opt_text(&self, i: usize) -> Result<Option<String>, StoreError> {
        Ok(self.get(i)?)
    }

    fn flag(&self, i: usize) -> Result<bool, StoreError> {
        Ok(self.get(i)?)
    }
}
