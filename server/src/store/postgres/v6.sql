-- A different isomorph per seat (A8), as SQLite's migration 7 (sqlite/schema.rs): a seat's
-- own puzzle and solution, when it was dealt its own; null is the race's.
ALTER TABLE seats ADD COLUMN puzzle TEXT;
ALTER TABLE seats ADD COLUMN solution TEXT;
