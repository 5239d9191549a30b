//! The SQLite schema as numbered migrations (`rusqlite_migration`, version in `user_version`).
//! Migration 1 is the schema the first results store created, word for word, with
//! `IF NOT EXISTS`: a file made before migrations existed (`user_version` 0) takes it as a
//! no-op and upgrades in place. Later migrations only add.

use rusqlite_migration::{Migrations, M};

/// The first schema (races, standings, placements), exactly as it shipped. Frozen: a file
/// made before migrations holds this text.
pub(crate) const V1: &str = include_str!("v1.sql");

/// Players who persist (A6), seats, ratings with every change, leaderboard aggregates and
/// daily attempts.
///
/// The read paths are index range scans with a LIMIT: `board` holds one row per difficulty,
/// period (day/week/month/all), period start and player, kept at write time, and
/// `board_by_rating` orders it by conservative rating, so a leaderboard reads only the rows it
/// returns. `seats` carries the race's end time so `seats_by_handle` serves a history page
/// newest first without touching other players' races. `rating_changes` keeps every change
/// in the order applied (`seq`), so ratings can be recomputed from history. A daily attempt
/// keeps its board order in `sort_ms` (the solve time; the largest integer when unsolved), so
/// `daily_by_time` serves the day's board the same way.
pub(crate) const V2: &str = "
CREATE TABLE players (
    handle TEXT PRIMARY KEY,
    key_hash BLOB NOT NULL UNIQUE,
    name TEXT NOT NULL,
    created_unix_ms INTEGER NOT NULL
);
ALTER TABLE races ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE races ADD COLUMN daily TEXT;
CREATE TABLE seats (
    race_id TEXT NOT NULL REFERENCES races(race_id),
    player_id TEXT NOT NULL,
    handle TEXT REFERENCES players(handle),
    bot INTEGER NOT NULL,
    flags TEXT NOT NULL,
    finished_unix_ms INTEGER NOT NULL,
    PRIMARY KEY (race_id, player_id)
) WITHOUT ROWID;
CREATE INDEX seats_by_handle ON seats(handle, finished_unix_ms DESC, race_id)
    WHERE handle IS NOT NULL;
CREATE TABLE ratings (
    handle TEXT NOT NULL REFERENCES players(handle),
    difficulty TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    races INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    best_time_ms INTEGER,
    updated_unix_ms INTEGER NOT NULL,
    PRIMARY KEY (handle, difficulty)
) WITHOUT ROWID;
CREATE TABLE rating_changes (
    seq INTEGER PRIMARY KEY,
    race_id TEXT NOT NULL REFERENCES races(race_id),
    handle TEXT NOT NULL REFERENCES players(handle),
    difficulty TEXT NOT NULL,
    mu_before REAL NOT NULL,
    sigma_before REAL NOT NULL,
    mu_after REAL NOT NULL,
    sigma_after REAL NOT NULL,
    UNIQUE (race_id, handle)
);
CREATE TABLE board (
    difficulty TEXT NOT NULL,
    period TEXT NOT NULL,
    period_start INTEGER NOT NULL,
    handle TEXT NOT NULL REFERENCES players(handle),
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    rating REAL NOT NULL,
    races INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    best_time_ms INTEGER,
    PRIMARY KEY (difficulty, period, period_start, handle)
) WITHOUT ROWID;
CREATE INDEX board_by_rating ON board(difficulty, period, period_start, rating DESC, handle);
CREATE TABLE daily_attempts (
    handle TEXT NOT NULL REFERENCES players(handle),
    date TEXT NOT NULL,
    difficulty TEXT NOT NULL,
    race_id TEXT NOT NULL REFERENCES races(race_id),
    sort_ms INTEGER NOT NULL,
    PRIMARY KEY (handle, date, difficulty)
) WITHOUT ROWID;
CREATE INDEX daily_by_time ON daily_attempts(date, difficulty, sort_ms, handle);
";

/// Ghosts (A7): `races.ghost_of` names the race a ghost race replayed, and `best_solves`
/// keeps each player's fastest solve per difficulty (see `crate::store::BestSolve` for what
/// counts), one row per player and difficulty kept at write time like `ratings`, so a player
/// page and a ghost of one's best read one row instead of the player's whole history. The
/// solves stored before are written into it here, the fastest per player and difficulty (the
/// earlier race on a tie).
const V3: &str = "
ALTER TABLE races ADD COLUMN ghost_of TEXT;
CREATE TABLE best_solves (
    handle TEXT NOT NULL REFERENCES players(handle),
    difficulty TEXT NOT NULL,
    time_ms INTEGER NOT NULL,
    race_id TEXT NOT NULL REFERENCES races(race_id),
    PRIMARY KEY (handle, difficulty)
) WITHOUT ROWID;
INSERT INTO best_solves (handle, difficulty, time_ms, race_id)
    SELECT handle, difficulty, time_ms, race_id FROM (
        SELECT s.handle, r.difficulty, st.time_ms, s.race_id,
            ROW_NUMBER() OVER (PARTITION BY s.handle, r.difficulty
                ORDER BY st.time_ms, s.finished_unix_ms, s.race_id) AS n
        FROM seats s
        JOIN races r ON r.race_id = s.race_id
        JOIN standings st ON st.race_id = s.race_id AND st.player_id = s.player_id
        WHERE s.handle IS NOT NULL AND s.flags = ''
            AND st.status = 'solved' AND st.time_ms IS NOT NULL
    ) AS b WHERE n = 1;
";

/// Arenas (A7): each arena's schedule and standings (JSON), kept when it ends, so
/// `/api/arenas/ID` answers after a restart.
const V4: &str = "
CREATE TABLE arenas (
    arena_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    difficulty TEXT NOT NULL,
    starts_unix_ms INTEGER NOT NULL,
    ends_unix_ms INTEGER NOT NULL,
    standings TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX arenas_by_end ON arenas(ends_unix_ms);
";

/// Moderation and names (A8). `players.banned`: a banned identity plays unrated and is left
/// out of the boards (its rows stay, so an unban restores them). `players.name` becomes the
/// name the identity last raced under, `name_unix_ms` the end of that race (a race stored late
/// never writes an older name over a newer one); `players_by_name` finds a handle by its name.
/// `seats_flagged` serves the admin list of flagged results newest first, reading only flagged
/// seats. `reports` keeps players' reports, one per reporter (a handle, or `~` and the name of
/// an anonymous one), target seat and race; no foreign key to `races`, because a report may
/// come while its race still runs.
const V5: &str = "
ALTER TABLE players ADD COLUMN banned INTEGER NOT NULL DEFAULT 0;
ALTER TABLE players ADD COLUMN name_unix_ms INTEGER NOT NULL DEFAULT 0;
CREATE INDEX players_by_name ON players(name, handle);
CREATE INDEX seats_flagged ON seats(finished_unix_ms DESC, race_id, player_id)
    WHERE flags <> '';
CREATE TABLE reports (
    race_id TEXT NOT NULL,
    reporter TEXT NOT NULL,
    target TEXT NOT NULL,
    room TEXT NOT NULL,
    reporter_handle TEXT,
    reporter_name TEXT NOT NULL,
    target_handle TEXT,
    target_name TEXT NOT NULL,
    reason TEXT NOT NULL,
    created_unix_ms INTEGER NOT NULL,
    PRIMARY KEY (race_id, reporter, target)
) WITHOUT ROWID;
CREATE INDEX reports_by_time ON reports(created_unix_ms DESC, race_id, reporter, target);
";

/// Lag compensation (A8): each standing keeps the solve time by the server's clock
/// (`time_ms_raw`, penalties included) and the lag it was compensated by; `time_ms` is the
/// compensated time, which ranks, leaderboards and best solves use. Rows stored before had no
/// compensation: their raw time is their time, and their lag 0.
const V6: &str = "
ALTER TABLE standings ADD COLUMN time_ms_raw INTEGER;
ALTER TABLE standings ADD COLUMN lag_ms INTEGER NOT NULL DEFAULT 0;
UPDATE standings SET time_ms_raw = time_ms;
";

/// A different isomorph per seat (A8): a seat's own puzzle and solution, when it was dealt its
/// own; null is the race's (every race stored before, and races without isomorphs).
const V7: &str = "
ALTER TABLE seats ADD COLUMN puzzle TEXT;
ALTER TABLE seats ADD COLUMN solution TEXT;
";

/// Every migration, oldest first.
pub(crate) fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(V1),
        M::up(V2),
        M::up(V3),
        M::up(V4),
        M::up(V5),
        M::up(V6),
        M::up(V7),
    ])
}

#[cfg(test)]
mod tests {
    #[test]
    fn migrations_are_valid() {
        assert!(super::migrations().validate().is_ok());
    }
}
