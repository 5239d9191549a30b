-- The SQLite schema (sqlite/v1.sql and migration 2 in sqlite/schema.rs) in PostgreSQL types:
-- BIGINT for every integer (times in Unix ms, counts, ranks), SMALLINT for cells and digits,
-- DOUBLE PRECISION for mu and sigma (REAL is 4 bytes here: ratings must read back bit for bit),
-- BOOLEAN for flags, BYTEA for key hashes, and every text in the "C" collation: ordered byte
-- by byte like SQLite's BINARY whatever the database's locale, so ties break the same way.
-- The same keys and indexes, so the leaderboard, history and daily queries stay index range
-- scans bounded by their LIMIT.
CREATE TABLE races (
    race_id TEXT COLLATE "C" PRIMARY KEY,
    room TEXT COLLATE "C" NOT NULL,
    difficulty TEXT COLLATE "C" NOT NULL,
    puzzle TEXT COLLATE "C" NOT NULL,
    solution TEXT COLLATE "C" NOT NULL,
    started_unix_ms BIGINT NOT NULL,
    duration_ms BIGINT NOT NULL,
    reason TEXT COLLATE "C" NOT NULL,
    rated BOOLEAN NOT NULL DEFAULT FALSE,
    daily TEXT COLLATE "C"
);
CREATE TABLE standings (
    race_id TEXT COLLATE "C" NOT NULL REFERENCES races(race_id),
    rank BIGINT NOT NULL,
    player_id TEXT COLLATE "C" NOT NULL,
    name TEXT COLLATE "C" NOT NULL,
    status TEXT COLLATE "C" NOT NULL,
    time_ms BIGINT,
    filled BIGINT NOT NULL,
    mistakes BIGINT NOT NULL,
    PRIMARY KEY (race_id, player_id)
);
CREATE TABLE placements (
    race_id TEXT COLLATE "C" NOT NULL REFERENCES races(race_id),
    seq BIGINT NOT NULL,
    player_id TEXT COLLATE "C" NOT NULL,
    at_ms BIGINT NOT NULL,
    cell SMALLINT NOT NULL,
    digit SMALLINT NOT NULL,
    outcome TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (race_id, seq)
);
CREATE TABLE players (
    handle TEXT COLLATE "C" PRIMARY KEY,
    key_hash BYTEA NOT NULL UNIQUE,
    name TEXT COLLATE "C" NOT NULL,
    created_unix_ms BIGINT NOT NULL
);
CREATE TABLE seats (
    race_id TEXT COLLATE "C" NOT NULL REFERENCES races(race_id),
    player_id TEXT COLLATE "C" NOT NULL,
    handle TEXT COLLATE "C" REFERENCES players(handle),
    bot BOOLEAN NOT NULL,
    flags TEXT COLLATE "C" NOT NULL,
    finished_unix_ms BIGINT NOT NULL,
    PRIMARY KEY (race_id, player_id)
);
CREATE INDEX seats_by_handle ON seats(handle, finished_unix_ms DESC, race_id)
    WHERE handle IS NOT NULL;
CREATE TABLE ratings (
    handle TEXT COLLATE "C" NOT NULL REFERENCES players(handle),
    difficulty TEXT COLLATE "C" NOT NULL,
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    races BIGINT NOT NULL,
    wins BIGINT NOT NULL,
    best_time_ms BIGINT,
    updated_unix_ms BIGINT NOT NULL,
    PRIMARY KEY (handle, difficulty)
);
-- `seq` is the order ratings were applied in: the rating lock (write.rs) makes it the commit
-- order too, as SQLite's single writer does.
CREATE TABLE rating_changes (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    race_id TEXT COLLATE "C" NOT NULL REFERENCES races(race_id),
    handle TEXT COLLATE "C" NOT NULL REFERENCES players(handle),
    difficulty TEXT COLLATE "C" NOT NULL,
    mu_before DOUBLE PRECISION NOT NULL,
    sigma_before DOUBLE PRECISION NOT NULL,
    mu_after DOUBLE PRECISION NOT NULL,
    sigma_after DOUBLE PRECISION NOT NULL,
    UNIQUE (race_id, handle)
);
CREATE TABLE board (
    difficulty TEXT COLLATE "C" NOT NULL,
    period TEXT COLLATE "C" NOT NULL,
    period_start BIGINT NOT NULL,
    handle TEXT COLLATE "C" NOT NULL REFERENCES players(handle),
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    races BIGINT NOT NULL,
    wins BIGINT NOT NULL,
    best_time_ms BIGINT,
    PRIMARY KEY (difficulty, period, period_start, handle)
);
CREATE INDEX board_by_rating ON board(difficulty, period, period_start, rating DESC, handle);
CREATE TABLE daily_attempts (
    handle TEXT COLLATE "C" NOT NULL REFERENCES players(handle),
    date TEXT COLLATE "C" NOT NULL,
    difficulty TEXT COLLATE "C" NOT NULL,
    race_id TEXT COLLATE "C" NOT NULL REFERENCES races(race_id),
    sort_ms BIGINT NOT NULL,
    PRIMARY KEY (handle, date, difficulty)
);
CREATE INDEX daily_by_time ON daily_attempts(date, difficulty, sort_ms, handle);
-- The daily challenge's secret, one row: every node derives the same day's puzzle from it.
CREATE TABLE daily_secret (
    id BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (id),
    secret TEXT COLLATE "C" NOT NULL
);
