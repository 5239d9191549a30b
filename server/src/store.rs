//! Race results in SQLite (WAL mode): one row per race, its standings, and every placement of
//! every player with its time, so a race can be replayed later.
//!
//! rusqlite is synchronous: the room task calls [`Store::save`] inside `spawn_blocking` and
//! awaits it before it sends `race_over`. A std `Mutex` guards the connection because it is
//! only ever taken on a blocking thread, never across an `.await`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use protocol::Standing;
use rusqlite::{params, Connection};

/// A results-store failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database directory could not be created.
    #[error("cannot create directory {path}: {source}")]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// SQLite failed.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The connection mutex was poisoned by a panic elsewhere.
    #[error("results store lock poisoned")]
    Poisoned,
}

/// One placement, for replays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacementRecord {
    /// Who placed.
    pub player_id: String,
    /// Race time of the placement (without penalties).
    pub at_ms: u64,
    /// Cell 0..=80.
    pub cell: u8,
    /// Digit 1..=9.
    pub digit: u8,
    /// `accepted`, `wrong`, `conflict`, `given` or `filled`.
    pub outcome: &'static str,
}

/// Everything stored about one finished race.
#[derive(Clone, Debug)]
pub struct RaceRecord {
    /// Opaque race id.
    pub race_id: String,
    /// Room code.
    pub room: String,
    /// `easy` .. `expert`.
    pub difficulty: &'static str,
    /// The puzzle dealt.
    pub puzzle: String,
    /// Its solution.
    pub solution: String,
    /// Wall-clock start, Unix milliseconds.
    pub started_unix_ms: i64,
    /// Race clock at the end.
    pub duration_ms: u64,
    /// `all_done`, `time_limit` or `shutdown` (the server stopped mid-race).
    pub reason: &'static str,
    /// Final standings.
    pub standings: Vec<Standing>,
    /// Every placement, in order.
    pub placements: Vec<PlacementRecord>,
}

/// A standings row read back from the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredStanding {
    /// Rank.
    pub rank: u32,
    /// Player id.
    pub player_id: String,
    /// Name.
    pub name: String,
    /// `solved`, `forfeited`, `eliminated` or `timed_out`.
    pub status: String,
    /// Time with penalties, when solved.
    pub time_ms: Option<u64>,
    /// Correct cells filled.
    pub filled: u32,
    /// Mistakes.
    pub mistakes: u32,
}

/// The results database.
#[derive(Debug)]
pub struct Store {
    conn: Mutex<Connection>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS races (
    race_id TEXT PRIMARY KEY,
    room TEXT NOT NULL,
    difficulty TEXT NOT NULL,
    puzzle TEXT NOT NULL,
    solution TEXT NOT NULL,
    started_unix_ms INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    reason TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS standings (
    race_id TEXT NOT NULL REFERENCES races(race_id),
    rank INTEGER NOT NULL,
    player_id TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    time_ms INTEGER,
    filled INTEGER NOT NULL,
    mistakes INTEGER NOT NULL,
    PRIMARY KEY (race_id, player_id)
);
CREATE TABLE IF NOT EXISTS placements (
    race_id TEXT NOT NULL REFERENCES races(race_id),
    seq INTEGER NOT NULL,
    player_id TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    cell INTEGER NOT NULL,
    digit INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    PRIMARY KEY (race_id, seq)
);
";

impl Store {
    /// Open (or create) the database at `path`, in WAL mode, with the schema.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                path: dir.to_owned(),
                source,
            })?;
        }
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch(SCHEMA)?;
        Ok(Store {
            conn: Mutex::new(conn),
        })
    }

    /// Write one race, its standings and placements in one transaction.
    pub fn save(&self, rec: &RaceRecord) -> Result<(), StoreError> {
        let mut conn = self.conn.lock().map_err(|_| StoreError::Poisoned)?;
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT OR REPLACE INTO races VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                rec.race_id,
                rec.room,
                rec.difficulty,
                rec.puzzle,
                rec.solution,
                rec.started_unix_ms,
                rec.duration_ms as i64,
                rec.reason
            ],
        )?;
        {
            let mut st = tx.prepare(
                "INSERT OR REPLACE INTO standings VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            for s in &rec.standings {
                st.execute(params![
                    rec.race_id,
                    s.rank,
                    s.player_id.as_str(),
                    s.name.as_str(),
                    s.status.as_str(),
                    s.time_ms.map(|t| t as i64),
                    s.filled,
                    s.mistakes
                ])?;
            }
            let mut pl = tx
                .prepare("INSERT OR REPLACE INTO placements VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?;
            for (seq, p) in rec.placements.iter().enumerate() {
                pl.execute(params![
                    rec.race_id,
                    seq as i64,
                    p.player_id,
                    p.at_ms as i64,
                    p.cell,
                    p.digit,
                    p.outcome
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The stored standings of a race, by rank (empty if the race is unknown).
    pub fn standings(&self, race_id: &str) -> Result<Vec<StoredStanding>, StoreError> {
        let conn = self.conn.lock().map_err(|_| StoreError::Poisoned)?;
        let mut st = conn.prepare(
            "SELECT rank, player_id, name, status, time_ms, filled, mistakes FROM standings
             WHERE race_id = ?1 ORDER BY rank, player_id",
        )?;
        let rows = st.query_map([race_id], |r| {
            Ok(StoredStanding {
                rank: r.get(0)?,
                player_id: r.get(1)?,
                name: r.get(2)?,
                status: r.get(3)?,
                time_ms: r.get::<_, Option<i64>>(4)?.map(|t| t as u64),
                filled: r.get(5)?,
                mistakes: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The stored reason of a race (`all_done`, `time_limit`, `shutdown`), if stored.
    pub fn race_reason(&self, race_id: &str) -> Result<Option<String>, StoreError> {
        let conn = self.conn.lock().map_err(|_| StoreError::Poisoned)?;
        let mut st = conn.prepare("SELECT reason FROM races WHERE race_id = ?1")?;
        let mut rows = st.query([race_id])?;
        Ok(match rows.next()? {
            Some(r) => Some(r.get(0)?),
            None => None,
        })
    }

    /// Number of placements stored for a race (all outcomes).
    pub fn placement_count(&self, race_id: &str) -> Result<u64, StoreError> {
        let conn = self.conn.lock().map_err(|_| StoreError::Poisoned)?;
        let n: i64 = conn.query_row(
            "SELECT COUNT(*) FROM placements WHERE race_id = ?1",
            [race_id],
            |r| r.get(0),
        )?;
        Ok(n as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::FinishStatus;

    #[test]
    fn save_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("sub").join("r.sqlite3")).unwrap();
        let rec = RaceRecord {
            race_id: "r1".into(),
            room: "ABCD".into(),
            difficulty: "easy",
            puzzle: ".".repeat(81),
            solution: "1".repeat(81),
            started_unix_ms: 1,
            duration_ms: 2,
            reason: "all_done",
            standings: vec![Standing {
                rank: 1,
                player_id: "p1".into(),
                name: "ann".try_into().unwrap(),
                status: FinishStatus::Solved,
                time_ms: Some(1234),
                filled: 50,
                mistakes: 1,
            }],
            placements: vec![PlacementRecord {
                player_id: "p1".into(),
                at_ms: 5,
                cell: 3,
                digit: 4,
                outcome: "accepted",
            }],
        };
        store.save(&rec).unwrap();
        let got = store.standings("r1").unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(
            (got[0].status.as_str(), got[0].time_ms),
            ("solved", Some(1234))
        );
        assert_eq!(store.placement_count("r1").unwrap(), 1);
        assert_eq!(
            store.race_reason("r1").unwrap().as_deref(),
            Some("all_done")
        );
        assert!(store.standings("nope").unwrap().is_empty());
    }
}
