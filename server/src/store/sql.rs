//! The SQL that SQLite and PostgreSQL run alike, written once so that the two stores cannot
//! drift apart in what they ask. Placeholders are `$1`, `$2`, ...: PostgreSQL's own, and to
//! SQLite named parameters that it numbers in order of first appearance, so every statement
//! here brings in `$1`, `$2`, ... in that order and binds positionally on both. Upserts use
//! `ON CONFLICT`, which both speak; what one of them says differently (the best-time minimum,
//! bulk placements) stays in its own module.

/// The player whose key hashes to `$1`.
pub(crate) const PLAYER_BY_KEY: &str =
    "SELECT handle, name, banned FROM players WHERE key_hash = $1";

/// A page of a board: `board_by_rating` from the period's start, in its order.
pub(crate) const LEADERBOARD: &str =
    "SELECT b.handle, p.name, b.mu, b.sigma, b.races, b.wins, b.best_time_ms
         FROM board b JOIN players p ON p.handle = b.handle
         WHERE b.difficulty = $1 AND b.period = $2 AND b.period_start = $3 AND NOT p.banned
         ORDER BY b.rating DESC, b.handle
         LIMIT $4 OFFSET $5";

/// A player's head row.
pub(crate) const PLAYER: &str =
    "SELECT handle, name, created_unix_ms FROM players WHERE handle = $1";

/// A player's ratings, one per difficulty.
pub(crate) const PLAYER_RATINGS: &str =
    "SELECT difficulty, mu, sigma, races, wins, best_time_ms FROM ratings WHERE handle = $1";

/// A page of a player's races. The ORDER BY matches `seats_by_handle` column for column, so
/// the database walks the index and stops after LIMIT + OFFSET rows instead of sorting the
/// player's whole history.
pub(crate) const HISTORY: &str =
    "SELECT s.race_id, s.finished_unix_ms, r.difficulty, r.rated, st.rank,
             (SELECT COUNT(*) FROM standings c WHERE c.race_id = s.race_id),
             st.status, st.time_ms, st.mistakes,
             rc.mu_before, rc.sigma_before, rc.mu_after, rc.sigma_after, s.flags
         FROM seats s
         JOIN races r ON r.race_id = s.race_id
         JOIN standings st ON st.race_id = s.race_id AND st.player_id = s.player_id
         LEFT JOIN rating_changes rc ON rc.race_id = s.race_id AND rc.handle = s.handle
         WHERE s.handle = $1
         ORDER BY s.finished_unix_ms DESC, s.race_id
         LIMIT $2 OFFSET $3";

/// A player's best solves, one per difficulty (`best_solves`' key).
pub(crate) const PLAYER_BEST: &str =
    "SELECT difficulty, time_ms, race_id FROM best_solves WHERE handle = $1";

/// A race's own row.
pub(crate) const RACE: &str =
    "SELECT race_id, difficulty, puzzle, solution, started_unix_ms, duration_ms, reason,
             rated, daily, ghost_of
         FROM races WHERE race_id = $1";

/// The seat of a player's best solve at a difficulty: the seat of that handle in that race
/// that solved in that time, unflagged (a handle may sit twice in a race: the first such seat).
pub(crate) const GHOST_BEST: &str = "SELECT b.race_id, st.player_id
         FROM best_solves b
         JOIN seats s ON s.race_id = b.race_id AND s.handle = b.handle
         JOIN standings st ON st.race_id = s.race_id AND st.player_id = s.player_id
         WHERE b.handle = $1 AND b.difficulty = $2 AND s.flags = ''
             AND st.status = 'solved' AND st.time_ms = b.time_ms
         ORDER BY st.player_id LIMIT 1";

/// The winner of a daily: the first solver on its board (`daily_by_time`; an unsolved
/// attempt sorts last, so the first row that solved is the fastest).
pub(crate) const GHOST_DAILY: &str = "SELECT d.race_id, st.player_id
         FROM daily_attempts d
         JOIN seats s ON s.race_id = d.race_id AND s.handle = d.handle
         JOIN standings st ON st.race_id = s.race_id AND st.player_id = s.player_id
         WHERE d.date = $1 AND d.difficulty = $2
             AND st.status = 'solved' AND st.time_ms IS NOT NULL
         ORDER BY d.sort_ms, d.handle, st.player_id LIMIT 1";

/// The winner of a race: its best-ranked solver.
pub(crate) const GHOST_WINNER: &str = "SELECT race_id, player_id FROM standings
         WHERE race_id = $1 AND status = 'solved' AND time_ms IS NOT NULL
         ORDER BY rank, player_id LIMIT 1";

/// The ghost's seat: the name it raced under, its solve time, its handle if any, its time on
/// the server's clock and its lag (A8), and its own puzzle and solution if it was dealt an
/// isomorph (A8).
pub(crate) const GHOST_SEAT: &str =
    "SELECT st.name, st.time_ms, s.handle, st.time_ms_raw, st.lag_ms, s.puzzle, s.solution
         FROM standings st
         LEFT JOIN seats s ON s.race_id = st.race_id AND s.player_id = st.player_id
         WHERE st.race_id = $1 AND st.player_id = $2";

/// One player's accepted placements in a race, in order.
pub(crate) const GHOST_MOVES: &str = "SELECT at_ms, cell, digit FROM placements
         WHERE race_id = $1 AND player_id = $2 AND outcome = 'accepted' ORDER BY seq";

/// A race's seats in standings order. Races stored before seats existed have none: their
/// players are anonymous humans.
pub(crate) const RACE_SEATS: &str =
    "SELECT st.player_id, st.name, s.handle, coalesce(s.bot, FALSE), coalesce(s.flags, ''),
             s.puzzle, s.solution
         FROM standings st
         LEFT JOIN seats s ON s.race_id = st.race_id AND s.player_id = st.player_id
         WHERE st.race_id = $1 ORDER BY st.rank, st.player_id";

/// A race's placements in order.
pub(crate) const PLACEMENTS: &str = "SELECT player_id, at_ms, cell, digit, outcome FROM placements
         WHERE race_id = $1 ORDER BY seq";

/// Whether an attempt at a daily is stored.
pub(crate) const DAILY_PLAYED: &str =
    "SELECT 1 FROM daily_attempts WHERE handle = $1 AND date = $2 AND difficulty = $3";

/// A page of a daily's board (`daily_by_time`).
pub(crate) const DAILY_BOARD: &str =
    "SELECT d.handle, p.name, d.race_id, st.status, st.time_ms, st.mistakes
         FROM daily_attempts d
         JOIN players p ON p.handle = d.handle
         JOIN seats s ON s.race_id = d.race_id AND s.handle = d.handle
         JOIN standings st ON st.race_id = s.race_id AND st.player_id = s.player_id
         WHERE d.date = $1 AND d.difficulty = $2 AND NOT p.banned
         ORDER BY d.sort_ms, d.handle
         LIMIT $3 OFFSET $4";

/// Every rating change with its standing, in the order applied.
pub(crate) const RATED_RACES: &str =
    "SELECT rc.race_id, rc.difficulty, rc.handle, st.rank, st.status,
             rc.mu_before, rc.sigma_before, rc.mu_after, rc.sigma_after
         FROM rating_changes rc
         JOIN seats s ON s.race_id = rc.race_id AND s.handle = rc.handle
         JOIN standings st ON st.race_id = s.race_id AND st.player_id = s.player_id
         ORDER BY rc.seq";

/// Every current rating.
pub(crate) const RATINGS: &str =
    "SELECT handle, difficulty, mu, sigma FROM ratings ORDER BY handle, difficulty";

/// A race's standings by rank.
pub(crate) const STANDINGS: &str =
    "SELECT rank, player_id, name, status, time_ms, filled, mistakes, time_ms_raw, lag_ms
         FROM standings
         WHERE race_id = $1 ORDER BY rank, player_id";

/// Why a race ended.
pub(crate) const RACE_REASON: &str = "SELECT reason FROM races WHERE race_id = $1";

/// How many placements a race has.
pub(crate) const PLACEMENT_COUNT: &str = "SELECT COUNT(*) FROM placements WHERE race_id = $1";

/// A race's row, replacing the one stored before.
pub(crate) const PUT_RACE: &str =
    "INSERT INTO races (race_id, room, difficulty, puzzle, solution, started_unix_ms,
             duration_ms, reason, rated, daily, ghost_of)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (race_id) DO UPDATE SET room = excluded.room,
             difficulty = excluded.difficulty, puzzle = excluded.puzzle,
             solution = excluded.solution, started_unix_ms = excluded.started_unix_ms,
             duration_ms = excluded.duration_ms, reason = excluded.reason,
             rated = excluded.rated, daily = excluded.daily, ghost_of = excluded.ghost_of";

/// A standing, replacing the one stored before.
pub(crate) const PUT_STANDING: &str =
    "INSERT INTO standings (race_id, rank, player_id, name, status, time_ms, filled, mistakes,
             time_ms_raw, lag_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (race_id, player_id) DO UPDATE SET rank = excluded.rank,
             name = excluded.name, status = excluded.status, time_ms = excluded.time_ms,
             filled = excluded.filled, mistakes = excluded.mistakes,
             time_ms_raw = excluded.time_ms_raw, lag_ms = excluded.lag_ms";

/// A seat, replacing the one stored before.
pub(crate) const PUT_SEAT: &str =
    "INSERT INTO seats (race_id, player_id, handle, bot, flags, finished_unix_ms, puzzle,
             solution)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (race_id, player_id) DO UPDATE SET handle = excluded.handle,
             bot = excluded.bot, flags = excluded.flags,
             finished_unix_ms = excluded.finished_unix_ms, puzzle = excluded.puzzle,
             solution = excluded.solution";

/// A daily attempt; a later one of the same player, day and difficulty does not count.
pub(crate) const PUT_DAILY: &str =
    "INSERT INTO daily_attempts (handle, date, difficulty, race_id, sort_ms)
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING";

/// A solve that may be the player's best at its difficulty: it replaces the stored best only
/// when strictly faster, so equal times keep the earlier race and a race stored twice changes
/// nothing.
pub(crate) const PUT_BEST: &str =
    "INSERT INTO best_solves (handle, difficulty, time_ms, race_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (handle, difficulty) DO UPDATE SET time_ms = excluded.time_ms,
             race_id = excluded.race_id
         WHERE excluded.time_ms < best_solves.time_ms";

/// Whether a race's ratings were applied already.
pub(crate) const RATED_ALREADY: &str = "SELECT 1 FROM rating_changes WHERE race_id = $1 LIMIT 1";

/// A stored race's rating changes with the seats they were for, in the order applied.
pub(crate) const STORED_CHANGES: &str =
    "SELECT s.player_id, rc.handle, rc.mu_before, rc.sigma_before, rc.mu_after, rc.sigma_after
         FROM rating_changes rc
         JOIN seats s ON s.race_id = rc.race_id AND s.handle = rc.handle
         WHERE rc.race_id = $1
         ORDER BY rc.seq";

/// A player's current rating at a difficulty.
pub(crate) const RATING: &str =
    "SELECT mu, sigma FROM ratings WHERE handle = $1 AND difficulty = $2";

/// One rating change (its `seq` is the order applied).
pub(crate) const PUT_CHANGE: &str =
    "INSERT INTO rating_changes (race_id, handle, difficulty, mu_before, sigma_before,
             mu_after, sigma_after)
         VALUES ($1, $2, $3, $4, $5, $6, $7)";

/// A new player.
pub(crate) const PUT_PLAYER: &str =
    "INSERT INTO players (handle, key_hash, name, created_unix_ms) VALUES ($1, $2, $3, $4)";

/// Whether a handle is someone's.
pub(crate) const HANDLE_TAKEN: &str = "SELECT 1 FROM players WHERE handle = $1";

/// Ban a player (A8): their rows stay, ratings and boards skip them.
pub(crate) const BAN: &str = "UPDATE players SET banned = TRUE WHERE handle = $1";

/// Lift a ban.
pub(crate) const UNBAN: &str = "UPDATE players SET banned = FALSE WHERE handle = $1";

/// Whether a player is banned (no row: not a player, so not banned).
pub(crate) const BANNED: &str = "SELECT 1 FROM players WHERE handle = $1 AND banned";

/// The name a player raced under becomes their name, unless a later race already gave one.
pub(crate) const PUT_NAME: &str =
    "UPDATE players SET name = $1, name_unix_ms = $2 WHERE handle = $3 AND name_unix_ms <= $2";

/// The handles going by a name (`players_by_name`), a few more than anyone lists.
pub(crate) const HANDLES_NAMED: &str =
    "SELECT handle FROM players WHERE name = $1 ORDER BY handle LIMIT 10";

/// A page of flagged results, newest first (`seats_flagged`).
pub(crate) const FLAGGED: &str =
    "SELECT s.race_id, r.room, r.difficulty, s.player_id, s.handle, st.name, s.flags,
             st.status, st.time_ms, s.finished_unix_ms
         FROM seats s
         JOIN races r ON r.race_id = s.race_id
         JOIN standings st ON st.race_id = s.race_id AND st.player_id = s.player_id
         WHERE s.flags <> ''
         ORDER BY s.finished_unix_ms DESC, s.race_id, s.player_id
         LIMIT $1 OFFSET $2";

/// A report; the same reporter, target and race again keeps the first.
pub(crate) const PUT_REPORT: &str =
    "INSERT INTO reports (race_id, reporter, target, room, reporter_handle, reporter_name,
             target_handle, target_name, reason, created_unix_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING";

/// A page of reports, newest first (`reports_by_time`).
pub(crate) const REPORTS: &str =
    "SELECT race_id, room, reporter_handle, reporter_name, target, target_handle, target_name,
             reason, created_unix_ms
         FROM reports
         ORDER BY created_unix_ms DESC, race_id, reporter, target
         LIMIT $1 OFFSET $2";
