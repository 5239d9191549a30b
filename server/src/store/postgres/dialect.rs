//! PostgreSQL's side of [`Sql`] and [`Cells`]: statements run on a pooled client or inside a
//! transaction ([`Pg`]), each prepared on first use and kept for the rest of the call (a
//! rating update runs the same few statements once per seat), parameters bound in the column
//! types of `v1.sql`, rows read with `try_get`, so a type the schema does not promise is an
//! error, never a panic.

use r2d2_postgres::postgres::fallible_iterator::FallibleIterator;
use r2d2_postgres::postgres::types::{ToSql, Type};
use r2d2_postgres::postgres::{GenericClient, Row, Statement};

use crate::store::backend::{Cells, Param, Sql};
use crate::store::StoreError;

/// A client or a transaction as [`Sql`], with the statements it prepared so far.
pub(super) struct Pg<'a, C> {
    client: &'a mut C,
    prepared: Vec<(&'static str, Statement)>,
}

impl<'a, C: GenericClient> Pg<'a, C> {
    /// Run statements on `client`.
    pub(super) fn new(client: &'a mut C) -> Self {
        Pg {
            client,
            prepared: Vec::new(),
        }
    }

    /// `sql` prepared on this client, once.
    fn statement(&mut self, sql: &'static str) -> Result<Statement, StoreError> {
        if let Some((_, st)) = self.prepared.iter().find(|(s, _)| *s == sql) {
            return Ok(st.clone());
        }
        let st = self.client.prepare(sql)?;
        self.prepared.push((sql, st.clone()));
        Ok(st)
    }
}

/// A parameter as the client binds it: integers are `BIGINT`, floats `DOUBLE PRECISION`.
fn value<'p>(p: &'p Param<'_>) -> &'p (dyn ToSql + Sync) {
    match p {
        Param::Int(v) => v,
        Param::OptInt(v) => v,
        Param::Real(v) => v,
        Param::Text(v) => v,
        Param::OptText(v) => v,
        Param::Bytes(v) => v,
    }
}

impl<C: GenericClient> Sql for Pg<'_, C> {
    fn each(
        &mut self,
        sql: &'static str,
        params: &[Param<'_>],
        f: &mut dyn FnMut(&dyn Cells) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let st = self.statement(sql)?;
        let mut found = self.client.query_raw(&st, params.iter().map(value))?;
        while let Some(r) = found.next()? {
            f(&r)?;
        }
        Ok(())
    }

    fn scan(
        &mut self,
        sql: &'static str,
        f: &mut dyn FnMut(&dyn Cells) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        // Streamed row by row: the whole history need not fit in memory.
        let mut found = self.client.query_raw(sql, std::iter::empty::<i64>())?;
        while let Some(r) = found.next()? {
            f(&r)?;
        }
        Ok(())
    }

    fn exec(&mut self, sql: &'static str, params: &[Param<'_>]) -> Result<(), StoreError> {
        let st = self.statement(sql)?;
        let values: Vec<_> = params.iter().map(value).collect();
        self.client.execute(&st, &values)?;
        Ok(())
    }
}

/// How wide column `i`'s integers are: cells and digits are `SMALLINT`, a literal is
/// `INTEGER`, everything else `BIGINT` (see `v1.sql`).
fn width(r: &Row, i: usize) -> u8 {
    match r.columns().get(i).map(|c| c.type_()) {
        Some(&Type::INT2) => 2,
        Some(&Type::INT4) => 4,
        _ => 8,
    }
}

impl Cells for Row {
    fn int(&self, i: usize) -> Result<i64, StoreError> {
        Ok(match width(self, i) {
            2 => self.try_get::<_, i16>(i)?.into(),
            4 => self.try_get::<_, i32>(i)?.into(),
            _ => self.try_get(i)?,
        })
    }

    fn opt_int(&self, i: usize) -> Result<Option<i64>, StoreError> {
        Ok(match width(self, i) {
            2 => self.try_get::<_, Option<i16>>(i)?.map(i64::from),
            4 => self.try_get::<_, Option<i32>>(i)?.map(i64::from),
            _ => self.try_get(i)?,
        })
    }

    fn real(&self, i: usize) -> Result<f64, StoreError> {
        Ok(self.try_get(i)?)
    }

    fn opt_real(&self, i: usize) -> Result<Option<f64>, StoreError> {
        Ok(self.try_get(i)?)
    }

    fn text(&self, i: usize) -> Result<String, StoreError> {
        Ok(self.try_get(i)?)
    }

    fn opt_text(&self, i: usize) -> Result<Option<String>, StoreError> {
        Ok(self.try_get(i)?)
    }

    fn flag(&self, i: usize) -> Result<bool, StoreError> {
        Ok(self.try_get(i)?)
    }
}
