//! Room settings: [`SettingsRequest`] as a client sends them, [`Settings`] once resolved.

use engine::{Difficulty, Variant};
use serde::{Deserialize, Serialize};

/// Room settings as a client sends them: every field optional; the server fills defaults and
/// checks ranges (`invalid_settings`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SettingsRequest {
    /// `easy` | `medium` | `hard` | `expert`; a string, checked by the server.
    #[serde(default)]
    pub difficulty: Option<String>,
    /// 1..=16.
    #[serde(default, deserialize_with = "int_setting")]
    pub max_players: Option<i64>,
    /// 60..=7200.
    #[serde(default, deserialize_with = "int_setting")]
    pub time_limit_s: Option<i64>,
    /// 0..=10, 0 = unlimited.
    #[serde(default, deserialize_with = "int_setting")]
    pub max_mistakes: Option<i64>,
    /// 0..=120.
    #[serde(default, deserialize_with = "int_setting")]
    pub penalty_s: Option<i64>,
    /// Listed in `room_list` while in the lobby.
    #[serde(default)]
    pub public: Option<bool>,
    /// Whether the room's races change ratings (A6) [false].
    #[serde(default)]
    pub rated: Option<bool>,
    /// Whether each seat gets its own isomorph of the puzzle (A8) [true when rated].
    #[serde(default)]
    pub isomorphs: Option<bool>,
    /// `classic` | `x` | `windoku` | `jigsaw` | `killer` (A10) [classic]; checked by the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

/// An integer setting: any JSON number with no fraction is well-typed (`8`, `8.0`, `1e20`); one
/// beyond `i64` saturates, so that `resolve` calls it out of range (`invalid_settings`) rather
/// than mistyped. A string, a bool or a fraction is the wrong type (`bad_message`).
fn int_setting<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let Some(n) = Option::<serde_json::Number>::deserialize(d)? else {
        return Ok(None);
    };
    if let Some(v) = n.as_i64() {
        return Ok(Some(v));
    }
    if n.as_u64().is_some() {
        return Ok(Some(i64::MAX));
    }
    match n.as_f64() {
        // `as` saturates at the bounds of i64.
        Some(f) if f.is_finite() && f.fract() == 0.0 => Ok(Some(f as i64)),
        _ => Err(serde::de::Error::custom(format!(
            "invalid type: {n}, expected an integer"
        ))),
    }
}

/// A room's settings, complete and in range.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Difficulty of the puzzles dealt.
    #[serde(with = "crate::convert::difficulty")]
    pub difficulty: Difficulty,
    /// Most players in the room (1..=16).
    pub max_players: u8,
    /// Race time limit in seconds (60..=7200).
    pub time_limit_s: u32,
    /// Mistakes that eliminate a player (0 = unlimited).
    pub max_mistakes: u8,
    /// Seconds added to a player's time per mistake (0..=120).
    pub penalty_s: u32,
    /// Whether the room is listed in `room_list` while in the lobby.
    pub public: bool,
    /// Whether races here are rated (A6); a race is rated only with two identified non-bot players.
    #[serde(default)]
    pub rated: bool,
    /// Each seat is dealt its own random isomorph of the race's puzzle (A8); true in pool,
    /// arena and rated races.
    #[serde(default)]
    pub isomorphs: bool,
    /// A pool room (A7): formed by the server from `quick_race`, with no host; absent = false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pool: bool,
    /// The arena this room's races belong to (A7); absent in any other room (as `pool` is
    /// when false), so other rooms' settings are byte for byte what they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena: Option<String>,
    /// The rules of the puzzles dealt (A10); absent for classic, so a classic room's settings
    /// are byte for byte what they were.
    #[serde(
        default,
        with = "crate::convert::variant",
        skip_serializing_if = "crate::convert::variant::is_classic"
    )]
    pub variant: Variant,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            difficulty: Difficulty::Medium,
            max_players: 8,
            time_limit_s: 1800,
            max_mistakes: 3,
            penalty_s: 10,
            public: true,
            rated: false,
            isomorphs: false,
            pool: false,
            arena: None,
            variant: Variant::Classic,
        }
    }
}

/// Which setting is out of range, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct InvalidSettings {
    /// The field's wire name.
    pub field: &'static str,
    /// What is wrong with it.
    pub reason: String,
}

impl SettingsRequest {
    /// Defaults filled in, ranges checked; never silently clamped.
    pub fn resolve(&self) -> Result<Settings, InvalidSettings> {
        fn range(
            field: &'static str,
            v: Option<i64>,
            lo: i64,
            hi: i64,
            default: i64,
        ) -> Result<i64, InvalidSettings> {
            match v {
                None => Ok(default),
                Some(v) if (lo..=hi).contains(&v) => Ok(v),
                Some(v) => Err(InvalidSettings {
                    field,
                    reason: format!("{v} is outside {lo}..={hi}"),
                }),
            }
        }
        let d = Settings::default();
        let difficulty = match &self.difficulty {
            None => d.difficulty,
            Some(s) => s
                .parse()
                .map_err(|e: engine::difficulty::UnknownDifficulty| InvalidSettings {
                    field: "difficulty",
                    reason: e.to_string(),
                })?,
        };
        // The casts below are lossless: each value was just checked against a small range.
        Ok(Settings {
            difficulty,
            max_players: range("max_players", self.max_players, 1, 16, d.max_players.into())? as u8,
            time_limit_s: range(
                "time_limit_s",
                self.time_limit_s,
                60,
                7200,
                d.time_limit_s.into(),
            )? as u32,
            max_mistakes: range(
                "max_mistakes",
                self.max_mistakes,
                0,
                10,
                d.max_mistakes.into(),
            )? as u8,
            penalty_s: range("penalty_s", self.penalty_s, 0, 120, d.penalty_s.into())? as u32,
            public: self.public.unwrap_or(d.public),
            rated: self.rated.unwrap_or(d.rated),
            isomorphs: self.isomorphs.unwrap_or(self.rated.unwrap_or(d.rated)),
            pool: false,
            arena: None,
            variant: match &self.variant {
                None => d.variant,
                Some(s) => s
                    .parse()
                    .map_err(|e: engine::UnknownVariant| InvalidSettings {
                        field: "variant",
                        reason: e.to_string(),
                    })?,
            },
        })
    }
}
