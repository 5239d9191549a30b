//! Rating math, pure (no IO, no clock): Weng-Lin (the OpenSkill model) over a race seen as a
//! free-for-all of one-player teams, through `skillratings::weng_lin`. A rating is (μ, σ);
//! what players see is [`conservative`], μ − 3σ, which starts at 0 and only
//! climbs as the system grows sure of a player. The store decides who is rated and with which
//! rank (`store::rating_rank`); this module only turns ranks into new ratings.

use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::MultiTeamOutcome;

/// A Weng-Lin rating: mean skill and its uncertainty.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// μ.
    pub mu: f64,
    /// σ.
    pub sigma: f64,
}

impl Default for Rating {
    /// A newcomer: μ = 25, σ = 25/3 (the model's defaults), so conservative 0.
    fn default() -> Rating {
        let r = WengLinRating::new();
        Rating {
            mu: r.rating,
            sigma: r.uncertainty,
        }
    }
}

/// The rating shown to players: μ − 3σ.
pub fn conservative(r: Rating) -> f64 {
    r.mu - 3.0 * r.sigma
}

/// New ratings after one race: `racers` are (current rating, rank) with rank 1 best and
/// equal ranks tied; the result is parallel to the input. Fewer than two racers change nothing.
pub fn rate(racers: &[(Rating, u32)]) -> Vec<Rating> {
    if racers.len() < 2 {
        return racers.iter().map(|&(r, _)| r).collect();
    }
    let teams: Vec<[WengLinRating; 1]> = racers
        .iter()
        .map(|&(r, _)| {
            [WengLinRating {
                rating: r.mu,
                uncertainty: r.sigma,
            }]
        })
        .collect();
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(racers)
        .map(|(t, &(_, rank))| (&t[..], MultiTeamOutcome::new(rank as usize)))
        .collect();
    weng_lin_multi_team(&input, &WengLinConfig::new())
        .into_iter()
        .zip(racers)
        .map(|(team, &(old, _))| {
            // One player per team in, one out; the fallback keeps a malformed answer harmless.
            team.first().map_or(old, |r| Rating {
                mu: r.rating,
                sigma: r.uncertainty,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new() -> Rating {
        Rating::default()
    }

    #[test]
    fn a_winner_gains_and_a_loser_loses() {
        let out = rate(&[(new(), 1), (new(), 2)]);
        assert!(out[0].mu > 25.0);
        assert!(out[1].mu < 25.0);
        assert!(conservative(out[0]) > conservative(new()));
        assert!(out[0].sigma < new().sigma);
    }

    #[test]
    fn ties_move_equal_players_equally() {
        let out = rate(&[(new(), 1), (new(), 2), (new(), 2)]);
        assert_eq!(out[1], out[2]);
        assert!(out[0].mu > out[1].mu);
    }

    #[test]
    fn the_same_sequence_gives_the_same_ratings() {
        let run = || {
            let mut a = new();
            let mut b = new();
            let mut c = new();
            for ranks in [[1, 2, 3], [3, 1, 2], [1, 1, 3], [2, 3, 1]] {
                let out = rate(&[(a, ranks[0]), (b, ranks[1]), (c, ranks[2])]);
                (a, b, c) = (out[0], out[1], out[2]);
            }
            [a, b, c]
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn one_racer_is_unchanged() {
        assert_eq!(rate(&[(new(), 1)]), vec![new()]);
        assert!(conservative(new()).abs() < 1e-9);
    }
}
