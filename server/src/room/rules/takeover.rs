//! What the rules do for a room rebuilt from its command log on another node (A9): a seat
//! replayed holds its token's hash in the token's place (the log, like Redis, keeps no
//! token), the time the room stood still is charged to nobody, and a member still connected
//! gets the room as it stands, as `resume` sends it.
//!
//! The room's side of it is [`super::Room::pause_race`], [`super::Room::view_of`] and the
//! accessors beside them; here are the tokens' and the race clock's.

use tokio::time::Instant;

pub use super::seats::{rebuilt_token, token_hash, token_matches};

impl super::race::Race {
    /// Race time 0: the start, moved on by the time the race stood still.
    pub(super) fn origin(&self) -> Instant {
        self.started_at + self.paused
    }
}
