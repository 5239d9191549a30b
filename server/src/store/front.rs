//! The [`Store`] front written once over any [`Backend`]: writes go to the backend's own
//! transactions, reads to the queries of [`super::read`] on a connection the backend lends.

use engine::Difficulty;

use super::backend::Backend;
use super::{
    arena, ghost, moderation, rated, read, ArenaRecord, DailyRow, FlaggedResult, GhostRef,
    GhostSource, HistoryRow, LeaderRow, Period, PlayerPage, PlayerRow, RaceRecord, RatedRace,
    RatingChange, Replay, ReportRecord, Store, StoreError, StoredRating, StoredStanding,
};

impl<B: Backend> Store for B {
    /// Idempotent by race id: a race stored already (a spooled result landed twice after a
    /// crash between its commit and its file's removal, or by two nodes at a takeover) is not
    /// written again, and its rating changes are the ones stored the first time.
    fn save_race(&self, rec: &RaceRecord) -> Result<Vec<RatingChange>, StoreError> {
        if self.read(|c| read::race_reason(c, &rec.race_id))?.is_some() {
            return self.read(|c| rated::stored_changes(c, &rec.race_id));
        }
        match self.write_race(rec) {
            // Rated, yet no change: another writer applied its ratings first.
            Ok(changes) if changes.is_empty() && rec.rated => {
                self.read(|c| rated::stored_changes(c, &rec.race_id))
            }
            Ok(changes) => Ok(changes),
            // Another writer may have stored it meanwhile (a unique key then refuses ours).
            Err(e) => match self.read(|c| read::race_reason(c, &rec.race_id)) {
                Ok(Some(_)) => self.read(|c| rated::stored_changes(c, &rec.race_id)),
                _ => Err(e),
            },
        }
    }

    fn set_banned(&self, handle: &str, banned: bool) -> Result<bool, StoreError> {
        self.read(|c| moderation::set_banned(c, handle, banned))
    }

    fn flagged(&self, limit: u32, offset: u32) -> Result<Vec<FlaggedResult>, StoreError> {
        self.read(|c| moderation::flagged(c, limit, offset))
    }

    fn save_report(&self, report: &ReportRecord) -> Result<(), StoreError> {
        self.read(|c| moderation::save_report(c, report))
    }

    fn reports(&self, limit: u32, offset: u32) -> Result<Vec<ReportRecord>, StoreError> {
        self.read(|c| moderation::reports(c, limit, offset))
    }

    fn handles_named(&self, name: &str) -> Result<Vec<String>, StoreError> {
        self.read(|c| moderation::handles_named(c, name))
    }

    fn register(
        &self,
        handle: &str,
        key_hash: [u8; 32],
        name: &str,
        now_unix_ms: i64,
    ) -> Result<(), StoreError> {
        self.insert_player(handle, key_hash, name, now_unix_ms)
    }

    fn player_by_key(&self, key_hash: [u8; 32]) -> Result<Option<PlayerRow>, StoreError> {
        self.read(|c| read::player_by_key(c, key_hash))
    }

    fn leaderboard(
        &self,
        difficulty: Difficulty,
        period: Period,
        now_unix_ms: i64,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<LeaderRow>, StoreError> {
        self.read(|c| read::leaderboard(c, difficulty, period, now_unix_ms, limit, offset))
    }

    fn player(&self, handle: &str) -> Result<Option<PlayerPage>, StoreError> {
        self.read(|c| read::player(c, handle))
    }

    fn history(
        &self,
        handle: &str,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<HistoryRow>, StoreError> {
        self.read(|c| read::history(c, handle, limit, offset))
    }

    fn replay(&self, race_id: &str) -> Result<Option<Replay>, StoreError> {
        self.read(|c| read::replay(c, race_id))
    }

    fn daily_played(
        &self,
        handle: &str,
        date: &str,
        difficulty: Difficulty,
    ) -> Result<bool, StoreError> {
        self.read(|c| read::daily_played(c, handle, date, difficulty))
    }

    fn daily_board(
        &self,
        date: &str,
        difficulty: Difficulty,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<DailyRow>, StoreError> {
        self.read(|c| read::daily_board(c, date, difficulty, limit, offset))
    }

    fn ghost_source(&self, ghost: &GhostRef<'_>) -> Result<Option<GhostSource>, StoreError> {
        self.read(|c| ghost::ghost_source(c, ghost))
    }

    fn save_arena(&self, rec: &ArenaRecord) -> Result<(), StoreError> {
        self.read(|c| arena::save(c, rec))
    }

    fn arena(&self, arena_id: &str) -> Result<Option<ArenaRecord>, StoreError> {
        self.read(|c| arena::get(c, arena_id))
    }

    fn recent_arenas(&self, limit: u32) -> Result<Vec<ArenaRecord>, StoreError> {
        self.read(|c| arena::recent(c, limit))
    }

    fn for_each_rated_race(
        &self,
        f: &mut dyn FnMut(RatedRace) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.read(|c| read::for_each_rated_race(c, f))
    }

    fn ratings(&self) -> Result<Vec<StoredRating>, StoreError> {
        self.read(read::ratings)
    }

    fn standings(&self, race_id: &str) -> Result<Vec<StoredStanding>, StoreError> {
        self.read(|c| read::standings(c, race_id))
    }

    fn race_reason(&self, race_id: &str) -> Result<Option<String>, StoreError> {
        self.read(|c| read::race_reason(c, race_id))
    }

    fn placement_count(&self, race_id: &str) -> Result<u64, StoreError> {
        self.read(|c| read::placement_count(c, race_id))
    }

    fn ping(&self) -> Result<(), StoreError> {
        self.probe()
    }
}
