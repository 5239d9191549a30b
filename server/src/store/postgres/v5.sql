-- Lag compensation (A8), as SQLite's migration 6 (sqlite/schema.rs): each standing keeps the
-- solve time by the server's clock (`time_ms_raw`, penalties included) and the lag it was
-- compensated by; `time_ms` is the compensated time. Rows stored before had no compensation:
-- their raw time is their time, and their lag 0.
ALTER TABLE standings ADD COLUMN time_ms_raw BIGINT;
ALTER TABLE standings ADD COLUMN lag_ms BIGINT NOT NULL DEFAULT 0;
UPDATE standings SET time_ms_raw = time_ms;
