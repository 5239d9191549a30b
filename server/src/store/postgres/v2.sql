-- Ghosts (A7), as SQLite's migration 3 (sqlite/schema.rs): `races.ghost_of` names the race a
-- ghost race replayed, and `best_solves` keeps each player's fastest solve per difficulty,
-- one row per player and difficulty kept at write time; the solves stored before are written
-- into it here, the fastest per player and difficulty (the earlier race on a tie).
ALTER TABLE races ADD COLUMN ghost_of TEXT COLLATE "C";
CREATE TABLE best_solves (
    handle TEXT COLLATE "C" NOT NULL REFERENCES players(handle),
    difficulty TEXT COLLATE "C" NOT NULL,
    time_ms BIGINT NOT NULL,
    race_id TEXT COLLATE "C" NOT NULL REFERENCES races(race_id),
    PRIMARY KEY (handle, difficulty)
);
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
