//! Replays of finished races (`sudoku-race replay RACE_ID`): the API's `GET /api/races/ID`
//! answer parsed into checked types ([`Replay`]), the playback over it ([`Playback`]: a clock
//! in race time, a speed, pause and steps, and every player's state at that time), and the
//! screen's state and keys ([`ReplayApp`]). No IO here: the binary fetches the JSON, and
//! `ui::replay` draws.
//!
//! Every string from the server is made terminal-safe as it is parsed, so nothing drawn from a
//! [`Replay`] can carry an escape sequence.

mod app;
mod playback;

pub use app::{ReplayApp, HELP};
pub use playback::{Playback, PlayerState, SPEEDS};

use engine::{Cell, Digit, Geometry, Grid, ParseGridError, Variant};
use protocol::text::terminal_safe;
use protocol::variant::WireLayout;
use protocol::FinishStatus;
use serde::Deserialize;
use serde_json::Value;

/// Why an answer is not a replayable race.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// A field is missing or of the wrong type.
    #[error("the race is not in the API's shape: {0}")]
    Shape(#[from] serde_json::Error),
    /// The puzzle or the solution is not a board.
    #[error("the race's {field} is not a board: {source}")]
    Grid {
        /// `puzzle` or `solution`.
        field: &'static str,
        /// Why.
        source: ParseGridError,
    },
    /// The solution is not full, or disagrees with a given.
    #[error("the race's solution does not complete its puzzle")]
    Solution,
    /// A variant this client does not know, or a layout that is not one (A10).
    #[error("the race's {0}")]
    Variant(String),
    /// A placement that cannot have happened.
    #[error("placement {index}: {why}")]
    Placement {
        /// Its position in the answer.
        index: usize,
        /// What is wrong with it.
        why: String,
    },
}

/// What the server made of one placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The right digit: it went on the board.
    Accepted,
    /// A digit the solution does not have there (a mistake).
    Wrong,
    /// A digit already in the cell's row, column or box (a mistake).
    Conflict,
    /// The cell is a given (refused, not a mistake).
    Given,
    /// The cell was already filled (refused, not a mistake).
    Filled,
}

impl Outcome {
    /// Whether the server counted it as a mistake (and a penalty).
    pub fn is_mistake(self) -> bool {
        matches!(self, Outcome::Wrong | Outcome::Conflict)
    }
}

/// A seat of the race.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seat {
    /// The race's player id.
    pub player_id: String,
    /// The name raced under (terminal-safe).
    pub name: String,
    /// The persistent player, if the seat had one (terminal-safe).
    pub handle: Option<String>,
    /// A declared bot.
    pub bot: bool,
    /// The seat's own givens (A8: an isomorph of the race's puzzle when the race dealt one
    /// per seat, else the race's): its placements are on this board.
    pub puzzle: Grid,
    /// The seat's own solution.
    pub solution: Grid,
    /// The seat's own rules (A10: its regions or cages, beside its puzzle).
    pub geometry: Geometry,
}

/// A line of the final standings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    /// From 1; ties share a rank.
    pub rank: u32,
    /// Whose (an index into [`Replay::players`]).
    pub player: usize,
    /// How their race ended.
    pub status: FinishStatus,
    /// Solve time with penalties less the player's lag (A8), for a solver.
    pub time_ms: Option<u64>,
    /// Cells filled.
    pub filled: u32,
    /// Mistakes made.
    pub mistakes: u32,
    /// Solve time with penalties by the server's clock (A8), for a solver.
    pub time_ms_raw: Option<u64>,
    /// The round trip `time_ms` was compensated by (A8).
    pub lag_ms: u32,
}

/// One placement, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Who placed (an index into [`Replay::players`]).
    pub player: usize,
    /// Race time, without penalties.
    pub at_ms: u64,
    /// Where.
    pub cell: Cell,
    /// What.
    pub digit: Digit,
    /// What the server made of it.
    pub outcome: Outcome,
}

/// A finished race, whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// Its id (terminal-safe).
    pub race_id: String,
    /// `easy` to `expert` (terminal-safe).
    pub difficulty: String,
    /// Whether it counted for ratings.
    pub rated: bool,
    /// The daily challenge's date, if it was one (terminal-safe).
    pub daily: Option<String>,
    /// Its variant (A10).
    pub variant: Variant,
    /// Why it ended (terminal-safe).
    pub reason: String,
    /// How long it ran.
    pub duration_ms: u64,
    /// The givens.
    pub puzzle: Grid,
    /// The solution.
    pub solution: Grid,
    /// The seats, in standings order.
    pub players: Vec<Seat>,
    /// The final standings, best first.
    pub standings: Vec<Standing>,
    /// Every placement, by time (placements at the same millisecond in the server's order).
    pub placements: Vec<Placement>,
}

/// The answer's shape, as sent; [`Replay::from_json`] checks it into the types above.
mod wire {
    use serde::Deserialize;

    #[derive(Deserialize)]
    pub struct Race {
        pub race_id: String,
        pub difficulty: String,
        pub puzzle: String,
        pub solution: String,
        pub duration_ms: u64,
        pub reason: String,
        pub rated: bool,
        pub daily: Option<String>,
        /// A10: absent for classic.
        #[serde(default)]
        pub variant: Option<String>,
        /// The race's own regions or cages (A10).
        #[serde(flatten)]
        pub layout: protocol::variant::WireLayout,
        pub players: Vec<Seat>,
        pub standings: Vec<Standing>,
        pub placements: Vec<Placement>,
    }

    #[derive(Deserialize)]
    pub struct Seat {
        pub player_id: String,
        pub name: String,
        pub handle: Option<String>,
        pub bot: bool,
        /// The seat's own puzzle and solution (A8); a server from before them sends none,
        /// and then every seat raced the race's.
        #[serde(default)]
        pub puzzle: Option<String>,
        #[serde(default)]
        pub solution: Option<String>,
        /// The seat's own regions or cages (A10); none: the race's.
        #[serde(flatten)]
        pub layout: protocol::variant::WireLayout,
    }

    #[derive(Deserialize)]
    pub struct Standing {
        pub rank: u32,
        pub player_id: String,
        pub status: protocol::FinishStatus,
        pub time_ms: Option<u64>,
        pub filled: u32,
        pub mistakes: u32,
        // A race stored before A8 has neither: its time is its raw time, its lag 0.
        #[serde(default)]
        pub time_ms_raw: Option<u64>,
        #[serde(default)]
        pub lag_ms: u32,
    }

    #[derive(Deserialize)]
    pub struct Placement {
        pub player_id: String,
        pub at_ms: u64,
        pub cell: u8,
        pub digit: u8,
        pub outcome: super::Outcome,
    }
}

/// A puzzle and a solution that parse, the solution completing the puzzle.
fn solved(puzzle: &str, solution: &str) -> Result<(Grid, Grid), ReplayError> {
    let grid =
        |field, line: &str| Grid::parse(line).map_err(|source| ReplayError::Grid { field, source });
    let (puzzle, solution) = (grid("puzzle", puzzle)?, grid("solution", solution)?);
    let completes = solution.is_full()
        && Cell::all().all(|c| puzzle.get(c).is_none_or(|d| solution.get(c) == Some(d)));
    if !completes {
        return Err(ReplayError::Solution);
    }
    Ok((puzzle, solution))
}

/// The race's variant: classic when absent (A10), an error for a name this client does not know.
fn variant_of(name: Option<&str>) -> Result<Variant, ReplayError> {
    let Some(name) = name else {
        return Ok(Variant::Classic);
    };
    name.parse()
        .map_err(|_| ReplayError::Variant(format!("variant {} is unknown", safe(name))))
}

/// The race's seats, checked: each with its own puzzle, solution and layout (A8, A10), or the
/// race's (`puzzle`, `solution`, its layout) where it has none.
fn seats(
    race: &wire::Race,
    variant: Variant,
    puzzle: Grid,
    solution: Grid,
) -> Result<Vec<Seat>, ReplayError> {
    let geometry = |layout: &WireLayout| {
        let layout = if layout.is_empty() {
            &race.layout
        } else {
            layout
        };
        layout
            .geometry(variant)
            .map_err(|e| ReplayError::Variant(format!("layout is not a {variant}'s: {e}")))
    };
    race.players
        .iter()
        .map(|s| {
            let (puzzle, solution) = match (&s.puzzle, &s.solution) {
                (Some(p), Some(s)) => solved(p, s)?,
                _ => (puzzle, solution),
            };
            Ok(Seat {
                geometry: geometry(&s.layout)?,
                player_id: s.player_id.clone(),
                name: safe(&s.name),
                handle: s.handle.as_deref().map(safe),
                bot: s.bot,
                puzzle,
                solution,
            })
        })
        .collect()
}

fn safe(s: &str) -> String {
    terminal_safe(s).into_owned()
}

impl Replay {
    /// The race in `/api/races/ID`'s answer, checked: boards that parse, solutions that
    /// complete their puzzles (the race's and each seat's own), placements by seated players
    /// on real cells.
    pub fn from_json(v: &Value) -> Result<Replay, ReplayError> {
        let race = wire::Race::deserialize(v)?;
        let (puzzle, solution) = solved(&race.puzzle, &race.solution)?;
        let variant = variant_of(race.variant.as_deref())?;
        let players = seats(&race, variant, puzzle, solution)?;
        let seat = |id: &str| players.iter().position(|p| p.player_id == id);
        // A standing of nobody seated says nothing the screen could draw: it is left out.
        let standings = race
            .standings
            .iter()
            .filter_map(|s| {
                Some(Standing {
                    rank: s.rank,
                    player: seat(&s.player_id)?,
                    status: s.status,
                    time_ms: s.time_ms,
                    filled: s.filled,
                    mistakes: s.mistakes,
                    time_ms_raw: s.time_ms_raw.or(s.time_ms),
                    lag_ms: s.lag_ms,
                })
            })
            .collect();
        let mut placements = Vec::with_capacity(race.placements.len());
        for (index, p) in race.placements.iter().enumerate() {
            let bad = |why: String| ReplayError::Placement { index, why };
            let player = seat(&p.player_id)
                .ok_or_else(|| bad(format!("by {}, who has no seat", safe(&p.player_id))))?;
            let cell = Cell::try_from(p.cell).map_err(|e| bad(e.to_string()))?;
            let digit = Digit::try_from(p.digit).map_err(|e| bad(e.to_string()))?;
            placements.push(Placement {
                player,
                at_ms: p.at_ms,
                cell,
                digit,
                outcome: p.outcome,
            });
        }
        // The server sends them in the order it judged them, which is by time; a stable sort
        // keeps that order within a millisecond and puts right any answer that is not.
        placements.sort_by_key(|p| p.at_ms);
        Ok(Replay {
            race_id: safe(&race.race_id),
            difficulty: safe(&race.difficulty),
            rated: race.rated,
            daily: race.daily.as_deref().map(safe),
            variant,
            reason: safe(&race.reason),
            duration_ms: race.duration_ms,
            puzzle,
            solution,
            players,
            standings,
            placements,
        })
    }

    /// Cells each player had to fill.
    pub fn to_fill(&self) -> u32 {
        self.puzzle.n_empty() as u32
    }

    /// The standing of player `i`, if the race ranked them.
    pub fn standing(&self, i: usize) -> Option<&Standing> {
        self.standings.iter().find(|s| s.player == i)
    }
}

#[cfg(test)]
mod tests;
