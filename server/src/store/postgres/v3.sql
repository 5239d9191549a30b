-- Arenas (A7), as SQLite's migration 4 (sqlite/schema.rs): each arena's schedule and
-- standings (JSON text), kept when it ends, so `/api/arenas/ID` answers after a restart.
CREATE TABLE arenas (
    arena_id TEXT COLLATE "C" PRIMARY KEY,
    name TEXT NOT NULL,
    difficulty TEXT COLLATE "C" NOT NULL,
    starts_unix_ms BIGINT NOT NULL,
    ends_unix_ms BIGINT NOT NULL,
    standings TEXT NOT NULL
);
CREATE INDEX arenas_by_end ON arenas(ends_unix_ms);
