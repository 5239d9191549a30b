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
