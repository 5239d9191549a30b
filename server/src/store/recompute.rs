//! Ratings recomputed from history: replay every stored rated race, in the order it was
//! applied, from newcomer ratings and the stored standings, and compare each step and the end
//! result with what the store holds. A clean run proves the ratings follow from the races
//! alone (and is how a change to the rating math would be rolled over past races).

use std::collections::HashMap;

use super::{rating_rank, Store, StoreError};
use crate::rating::{rate, Rating};

/// What a recomputation found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recomputed {
    /// Rated races replayed.
    pub races: u64,
    /// The ratings the replay ends with, by (handle, difficulty).
    pub ratings: HashMap<(String, String), Rating>,
    /// Every disagreement with the stored data, described; empty when history and ratings agree.
    pub mismatches: Vec<String>,
}

/// Replay the store's rated races and check them against its stored changes and ratings.
pub fn recompute(store: &dyn Store) -> Result<Recomputed, StoreError> {
    let mut out = Recomputed::default();
    store.for_each_rated_race(&mut |race| {
        out.races += 1;
        let racers: Vec<(Rating, u32)> = race
            .entries
            .iter()
            .map(|e| {
                let key = (e.handle.clone(), race.difficulty.clone());
                let now = out.ratings.get(&key).copied().unwrap_or_default();
                (now, rating_rank(&e.status, e.rank))
            })
            .collect();
        let after = rate(&racers);
        for ((e, (before, _)), new) in race.entries.iter().zip(&racers).zip(after) {
            let stored_before = Rating {
                mu: e.before.0,
                sigma: e.before.1,
            };
            let stored_after = Rating {
                mu: e.after.0,
                sigma: e.after.1,
            };
            if *before != stored_before || new != stored_after {
                out.mismatches.push(format!(
                    "race {} {}: replayed {before:?} -> {new:?}, stored {stored_before:?} -> {stored_after:?}",
                    race.race_id, e.handle
                ));
            }
            out.ratings
                .insert((e.handle.clone(), race.difficulty.clone()), new);
        }
        Ok(())
    })?;
    let stored = store.ratings()?;
    for r in &stored {
        let key = (r.handle.clone(), r.difficulty.clone());
        let got = Rating {
            mu: r.mu,
            sigma: r.sigma,
        };
        match out.ratings.get(&key) {
            Some(replayed) if *replayed == got => {}
            other => out.mismatches.push(format!(
                "rating {} {}: replayed {other:?}, stored {got:?}",
                r.handle, r.difficulty
            )),
        }
    }
    if stored.len() != out.ratings.len() {
        out.mismatches.push(format!(
            "{} ratings replayed, {} stored",
            out.ratings.len(),
            stored.len()
        ));
    }
    Ok(out)
}
