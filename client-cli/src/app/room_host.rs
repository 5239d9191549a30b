//! The host's controls between races (Amendment A5): the settings editor and the list of
//! players to remove, each open over the lobby or the results screen.
//!
//! The editor keeps a draft of the room's settings; each row steps through the values the
//! server accepts, and `Enter` sends them all as one `set_settings`. The room's settings change
//! only when `settings_changed` comes back (the mirror applies it), so a refused draft leaves
//! the screen as the server has it.

use engine::{Difficulty, Variant};
use protocol::{PlayerId, Settings, SettingsRequest};

use super::{clock, Room};

/// The rows of the editor, top to bottom.
pub const ROWS: [&str; 5] = ["difficulty", "time limit", "mistakes", "penalty", "variant"];

/// Time limits offered, in seconds (the protocol takes 60..=7200).
const TIME_LIMITS_S: [u32; 12] = [
    60, 120, 180, 300, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200,
];

/// Penalties offered, in seconds per mistake (0..=120).
const PENALTIES_S: [u32; 10] = [0, 5, 10, 15, 20, 30, 45, 60, 90, 120];

/// Most mistakes a room can allow before elimination (0 = unlimited).
const MAX_MISTAKES: u8 = 10;

/// Difficulties, easiest first.
const DIFFICULTIES: [Difficulty; 4] = [
    Difficulty::Easy,
    Difficulty::Medium,
    Difficulty::Hard,
    Difficulty::Expert,
];

/// A host's tool open over the room.
#[derive(Clone, Debug, PartialEq)]
pub enum Tool {
    /// The settings editor.
    Settings {
        /// The row with the cursor (an index into [`ROWS`]).
        row: usize,
        /// The settings as they would be sent.
        draft: Settings,
    },
    /// The list of players who can be removed.
    Kick {
        /// The row with the cursor (an index into [`kick_list`]).
        row: usize,
    },
    /// The list of players to report (A8; anyone after a race, not only the host).
    Report {
        /// The row with the cursor (an index into [`super::report::report_list`]).
        row: usize,
        /// The reason being typed, once a player is chosen.
        reason: Option<String>,
    },
}

impl Tool {
    /// Move the cursor to the previous or next row of `n_rows`.
    pub fn step_row(&mut self, dir: i8, n_rows: usize) {
        let (Tool::Settings { row, .. } | Tool::Kick { row } | Tool::Report { row, .. }) = self;
        *row = step_index(*row, dir, n_rows);
    }

    /// In the editor: the previous or next value of the cursor's row.
    pub fn step_value(&mut self, dir: i8) {
        let Tool::Settings { row, draft } = self else {
            return;
        };
        match *row {
            0 => draft.difficulty = step_in(&DIFFICULTIES, draft.difficulty, dir),
            1 => draft.time_limit_s = step_in(&TIME_LIMITS_S, draft.time_limit_s, dir),
            2 => {
                let i = step_index(
                    usize::from(draft.max_mistakes),
                    dir,
                    1 + usize::from(MAX_MISTAKES),
                );
                draft.max_mistakes = u8::try_from(i).unwrap_or(MAX_MISTAKES);
            }
            3 => draft.penalty_s = step_in(&PENALTIES_S, draft.penalty_s, dir),
            _ => draft.variant = step_in(&Variant::ALL, draft.variant, dir),
        }
    }
}

/// `i` moved by `dir` within `0..n`, stopping at the ends.
fn step_index(i: usize, dir: i8, n: usize) -> usize {
    if dir < 0 {
        i.saturating_sub(1)
    } else {
        (i + 1).min(n.saturating_sub(1))
    }
}

/// The value before or after `now` in `values` (a value not in the list goes to the first).
fn step_in<T: Copy + PartialEq>(values: &[T], now: T, dir: i8) -> T {
    let i = values.iter().position(|v| *v == now);
    match i {
        Some(i) => values[step_index(i, dir, values.len())],
        None => values[0],
    }
}

/// What a row of the editor shows for `s`.
pub fn value_text(s: &Settings, row: usize) -> String {
    match row {
        0 => s.difficulty.to_string(),
        1 => clock(u64::from(s.time_limit_s) * 1000),
        2 => mistakes_text(s.max_mistakes),
        3 => format!("{} s per mistake", s.penalty_s),
        _ => s.variant.to_string(),
    }
}

fn mistakes_text(max: u8) -> String {
    if max == 0 {
        "unlimited".to_owned()
    } else {
        format!("out after {max}")
    }
}

/// One line for the settings of the next race: `hard, 15:00, out after 3 mistakes, 10 s penalty`.
pub fn summary(s: &Settings) -> String {
    let mistakes = if s.max_mistakes == 0 {
        "unlimited mistakes".to_owned()
    } else {
        format!("out after {} mistakes", s.max_mistakes)
    };
    format!(
        "{}, {}, {mistakes}, {} s penalty",
        super::variant_label(s.variant, s.difficulty),
        clock(u64::from(s.time_limit_s) * 1000),
        s.penalty_s
    )
}

/// The whole draft as a `set_settings` request (every field given, so nothing falls back to
/// a default).
pub fn request(s: &Settings) -> SettingsRequest {
    SettingsRequest {
        difficulty: Some(s.difficulty.to_string()),
        max_players: Some(i64::from(s.max_players)),
        time_limit_s: Some(i64::from(s.time_limit_s)),
        max_mistakes: Some(i64::from(s.max_mistakes)),
        penalty_s: Some(i64::from(s.penalty_s)),
        public: Some(s.public),
        rated: Some(s.rated),
        isomorphs: Some(s.isomorphs),
        variant: Some(s.variant.to_string()),
    }
}

/// The players the host may remove: everyone seated but us, as (id, name).
pub fn kick_list(room: &Room) -> Vec<(PlayerId, String)> {
    room.players
        .iter()
        .filter(|p| !room.is_me(&p.player_id))
        .map(|p| (p.player_id.clone(), p.name.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_step_within_what_the_server_takes() {
        let mut tool = Tool::Settings {
            row: 0,
            draft: Settings::default(),
        };
        for _ in 0..6 {
            tool.step_value(1);
        }
        tool.step_row(1, ROWS.len());
        tool.step_value(-1);
        tool.step_row(1, ROWS.len());
        for _ in 0..20 {
            tool.step_value(1);
        }
        tool.step_row(1, ROWS.len());
        tool.step_value(-1);
        tool.step_row(1, ROWS.len());
        tool.step_row(1, ROWS.len());
        tool.step_value(-1);
        tool.step_value(1);
        let Tool::Settings { row, draft } = tool else {
            panic!("still the editor");
        };
        assert_eq!(row, 4, "the last row stops the cursor");
        assert_eq!(draft.variant, Variant::X, "classic is the first variant");
        assert_eq!(draft.difficulty, Difficulty::Expert);
        assert_eq!(draft.time_limit_s, 1200);
        assert_eq!(draft.max_mistakes, 10);
        assert_eq!(draft.penalty_s, 5);
        assert_eq!(
            summary(&draft),
            "x · expert, 20:00, out after 10 mistakes, 5 s penalty"
        );
    }
}
