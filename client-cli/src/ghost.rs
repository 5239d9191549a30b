//! `sudoku-race ghost`: race a stored race's ghost (Amendment A7 `race_ghost`): your own best
//! at a difficulty, today's daily winner, or any race by its id. The server opens a private room
//! with you and the ghost, counts down at once, and replays the ghost's placements by the race
//! clock; the race screen shows its progress, marked `[ghost]`.

use std::process::ExitCode;

use anyhow::bail;
use clap::Args;
use client::net::Intent;
use engine::{Difficulty, Variant};

use crate::cmd::{self, Lobby, NameArg, ServerArg};

/// `sudoku-race ghost`.
#[derive(Args, Debug)]
pub struct GhostArgs {
    /// `best` (your own fastest solve at --difficulty), `daily` (today's daily winner at
    /// --difficulty) or a race id (from `sudoku-race history`).
    pub ghost: String,
    /// For `best` and `daily`: easy, medium, hard or expert, any case [default: medium].
    #[arg(long, value_parser = crate::difficulty_arg)]
    difficulty: Option<Difficulty>,
    /// For `best` and `daily`: classic, x, windoku, jigsaw or killer, any case [default:
    /// classic].
    #[arg(long, value_parser = crate::variant_arg)]
    variant: Option<Variant>,
    #[command(flatten)]
    server: ServerArg,
    #[command(flatten)]
    name: NameArg,
}

/// The intent a `ghost` argument asks for: `best` and `daily` take a difficulty (medium by
/// default), a race id none; `best` needs an identity.
pub fn intent(
    ghost: &str,
    difficulty: Option<Difficulty>,
    variant: Option<Variant>,
    name: &str,
    anonymous: bool,
) -> anyhow::Result<Intent> {
    let ghost = ghost.trim();
    let named = match ghost.to_ascii_lowercase().as_str() {
        "best" | "daily" => Some(ghost.to_ascii_lowercase()),
        _ => None,
    };
    if named.as_deref() == Some("best") && anonymous {
        bail!("`best` is your own best solve: it cannot be raced --anonymous");
    }
    if named.is_none() && difficulty.is_some() {
        bail!("a race id names its race's difficulty: --difficulty is for `best` and `daily`");
    }
    if named.is_none() && variant.is_some() {
        bail!("a race id names its race's variant: --variant is for `best` and `daily`");
    }
    if ghost.is_empty()
        || ghost.len() > 64
        || !ghost.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        bail!("a ghost is `best`, `daily` or a race id (letters, digits and -, like K7QRM-1733400000000)");
    }
    Ok(Intent::Ghost {
        difficulty: named
            .is_some()
            .then(|| difficulty.unwrap_or(Difficulty::Medium)),
        variant: variant.unwrap_or_default(),
        ghost: named.unwrap_or_else(|| ghost.to_owned()),
        name: name.to_owned(),
    })
}

/// `sudoku-race ghost best|daily|RACE_ID`.
pub fn ghost(rt: &tokio::runtime::Runtime, a: GhostArgs) -> anyhow::Result<ExitCode> {
    let settings = cmd::settings(&a.server, a.name.name.as_deref())?;
    let name = cmd::checked_name(&settings.name)?;
    let to = cmd::endpoint(&settings.server, a.server.ca_file.as_deref())?;
    let intent = intent(&a.ghost, a.difficulty, a.variant, &name, a.name.anonymous)?;
    cmd::tui(rt, to, intent, name, Lobby::default(), a.name.anonymous)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_and_daily_take_a_difficulty_and_a_race_id_none() {
        let i = intent("best", Some(Difficulty::Hard), None, "ann", false).expect("best");
        assert_eq!(
            i,
            Intent::Ghost {
                ghost: "best".into(),
                difficulty: Some(Difficulty::Hard),
                variant: Variant::Classic,
                name: "ann".into()
            }
        );
        let i = intent("DAILY", None, None, "ann", true).expect("daily");
        assert!(
            matches!(i, Intent::Ghost { ref ghost, difficulty: Some(Difficulty::Medium), .. } if ghost == "daily"),
            "{i:?}"
        );
        let i = intent("K7QRM-1", None, None, "ann", true).expect("a race id");
        assert!(
            matches!(i, Intent::Ghost { ref ghost, difficulty: None, .. } if ghost == "K7QRM-1"),
            "{i:?}"
        );
        let first = protocol::ClientMsg::RaceGhost {
            ghost: "K7QRM-1".into(),
            difficulty: None,
            name: "ann".into(),
            key: None,
            variant: None,
            variants: client::net::drawn(),
        };
        assert_eq!(i.first_message(), Some(first));
    }

    #[test]
    fn a_variant_goes_with_best_and_daily_only() {
        let i = intent("best", None, Some(Variant::Killer), "ann", false).expect("best");
        let msg = i.first_message().expect("a hello");
        assert!(
            matches!(msg, protocol::ClientMsg::RaceGhost { ref variant, .. } if variant.as_deref() == Some("killer")),
            "{msg:?}"
        );
        assert!(intent("K7QRM-1", None, Some(Variant::X), "ann", false).is_err());
    }

    #[test]
    fn what_cannot_be_a_ghost_is_refused_before_connecting() {
        assert!(
            intent("best", None, None, "ann", true).is_err(),
            "best needs a key"
        );
        assert!(intent("K7QRM-1", Some(Difficulty::Easy), None, "ann", false).is_err());
        assert!(intent("a b", None, None, "ann", false).is_err());
        assert!(intent("\u{1b}[2J", None, None, "ann", false).is_err());
        assert!(intent("", None, None, "ann", false).is_err());
    }
}
