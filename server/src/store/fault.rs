//! Which store failures pass ([`StoreError::is_transient`]): the database is away, full,
//! busy or restarting, and the same write may succeed later, or it answered and refused
//! this one record (a constraint or a value it does not take), which no retry changes.
//! The results spool ([`super::spool`]) keeps the first kind until it lands and sets the
//! second aside.

use r2d2_postgres::postgres;
use rusqlite::ErrorCode;

use super::StoreError;

impl StoreError {
    /// The same call may succeed later: retry it rather than give up on what it wrote.
    pub fn is_transient(&self) -> bool {
        match self {
            StoreError::Backend(e) => transient_cause(e.as_ref()),
            // Opening or migrating failed part-way: the database is not (yet) usable.
            StoreError::CreateDir { .. } | StoreError::Migration(_) | StoreError::Poisoned => true,
            StoreError::HandleTaken { .. } | StoreError::KeyTaken | StoreError::Corrupt { .. } => {
                false
            }
        }
    }
}

fn transient_cause(e: &(dyn std::error::Error + Send + Sync + 'static)) -> bool {
    if let Some(e) = e.downcast_ref::<rusqlite::Error>() {
        return sqlite_transient(e);
    }
    if let Some(e) = e.downcast_ref::<postgres::Error>() {
        return postgres_transient(e);
    }
    // The pool gave no connection in time: the database does not answer.
    if e.downcast_ref::<r2d2_postgres::r2d2::Error>().is_some() {
        return true;
    }
    e.downcast_ref::<std::io::Error>().is_some()
}

/// SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY, SQLITE_LOCKED and their kin: the disk or the
/// file, not the record.
fn sqlite_transient(e: &rusqlite::Error) -> bool {
    match e {
        rusqlite::Error::SqliteFailure(f, _) => matches!(
            f.code,
            ErrorCode::DiskFull
                | ErrorCode::SystemIoFailure
                | ErrorCode::DatabaseBusy
                | ErrorCode::DatabaseLocked
                | ErrorCode::CannotOpen
                | ErrorCode::ReadOnly
                | ErrorCode::OutOfMemory
                | ErrorCode::FileLockingProtocolFailed
        ),
        _ => false,
    }
}

/// The connection broke, timed out or was never made (an I/O error under it), class 08
/// (connection exception), 53 (insufficient resources: disk full, too many connections),
/// 57P01..57P03 (shutting down, crashed, starting up), 58 (system error: I/O), 40001 and
/// 40P01 (serialization failure, deadlock), 55P03 (lock not available). Any other SQLSTATE is
/// a refusal, and so is an error with neither (a malformed URL, say).
fn postgres_transient(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    if let Some(state) = e.code() {
        let code = state.code();
        return ["08", "53", "58"].iter().any(|c| code.starts_with(c))
            || ["57P01", "57P02", "57P03", "40001", "40P01", "55P03"].contains(&code);
    }
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        if c.is::<std::io::Error>() {
            return true;
        }
        cause = c.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqlite(code: i32) -> StoreError {
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None).into()
    }

    #[test]
    fn a_full_disk_or_a_busy_file_passes_and_a_constraint_does_not() {
        for code in [
            rusqlite::ffi::SQLITE_FULL,
            rusqlite::ffi::SQLITE_IOERR,
            rusqlite::ffi::SQLITE_IOERR_WRITE,
            rusqlite::ffi::SQLITE_BUSY,
            rusqlite::ffi::SQLITE_LOCKED,
        ] {
            assert!(sqlite(code).is_transient(), "{code}");
        }
        for code in [
            rusqlite::ffi::SQLITE_CONSTRAINT,
            rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE,
            rusqlite::ffi::SQLITE_MISMATCH,
        ] {
            assert!(!sqlite(code).is_transient(), "{code}");
        }
        let wrong_type =
            rusqlite::Error::InvalidColumnType(0, "x".into(), rusqlite::types::Type::Text);
        assert!(!StoreError::from(wrong_type).is_transient());
        let io = std::io::Error::from(std::io::ErrorKind::StorageFull);
        assert!(StoreError::Backend(Box::new(io)).is_transient());
        assert!(!StoreError::KeyTaken.is_transient());
    }
}
