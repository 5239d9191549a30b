-- Moderation and names (A8), as SQLite's migration 5 (sqlite/schema.rs): `players.banned`
-- (a banned identity plays unrated and is left out of the boards; its rows stay), the name an
-- identity last raced under kept in `players.name` with the end of that race in
-- `name_unix_ms`, `players_by_name` to find a handle by name, `seats_flagged` for the admin
-- list of flagged results, and `reports`, one per reporter, target seat and race (no foreign
-- key to `races`: a report may come while its race still runs).
ALTER TABLE players ADD COLUMN banned BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE players ADD COLUMN name_unix_ms BIGINT NOT NULL DEFAULT 0;
CREATE INDEX players_by_name ON players(name, handle);
CREATE INDEX seats_flagged ON seats(finished_unix_ms DESC, race_id, player_id)
    WHERE flags <> '';
CREATE TABLE reports (
    race_id TEXT COLLATE "C" NOT NULL,
    reporter TEXT COLLATE "C" NOT NULL,
    target TEXT COLLATE "C" NOT NULL,
    room TEXT COLLATE "C" NOT NULL,
    reporter_handle TEXT COLLATE "C",
    reporter_name TEXT NOT NULL,
    target_handle TEXT COLLATE "C",
    target_name TEXT NOT NULL,
    reason TEXT NOT NULL,
    created_unix_ms BIGINT NOT NULL,
    PRIMARY KEY (race_id, reporter, target)
);
CREATE INDEX reports_by_time ON reports(created_unix_ms DESC, race_id, reporter, target);
