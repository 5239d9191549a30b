//! Arenas on the wire (A7): an arena's state and card, and a member's standing row.

use engine::Difficulty;
use serde::{Deserialize, Serialize};

use crate::ids::PlayerName;

/// An arena's state (A7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArenaState {
    /// Not started yet.
    Upcoming,
    /// Under way: members race back to back.
    Running,
    /// Over; its standings are final.
    Finished,
}

/// One arena, as `/api/arenas` and `arena_joined` show it (A7).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaInfo {
    /// `NAME-STARTUNIXMS`-like opaque id.
    pub arena_id: String,
    /// The configured name.
    pub name: String,
    /// Its races' difficulty.
    #[serde(with = "crate::convert::difficulty")]
    pub difficulty: Difficulty,
    /// When it starts (UTC ms).
    pub starts_unix_ms: i64,
    /// When it ends (UTC ms).
    pub ends_unix_ms: i64,
    /// Upcoming, running or finished.
    pub state: ArenaState,
    /// Members.
    pub players: u32,
}

/// One member's row of an arena's standings (A7).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaStanding {
    /// The member's public handle.
    pub handle: String,
    /// The name they joined under.
    pub name: PlayerName,
    /// Points so far.
    pub points: u32,
    /// Races finished in the arena.
    pub races: u32,
    /// Races won.
    pub wins: u32,
    /// Wins in a row now (points double from the third).
    pub streak: u32,
}
