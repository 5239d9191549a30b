//! The puzzle stock: a shelf of generated puzzles per difficulty, filled by a background OS
//! thread so that the async workers never run the generator and `start_race` never waits on it
//! (unless a shelf is still empty right after start-up).
//!
//! The stock hands out puzzles as generated; each race's deal applies its own
//! [`Transform`](engine::transform::Transform),
//! drawn from the race's seed ([`SolvedPuzzle::transformed`]), to the puzzle and its solution alike, so two
//! races never see the same grid even when a shelf runs low (the last generated puzzle of
//! each difficulty is kept and re-dealt), and a deal can be replayed from its seed.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};

use engine::generator;
use engine::Difficulty;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::{slot, SolvedPuzzle};

#[derive(Default)]
struct Shelf {
    ready: VecDeque<SolvedPuzzle>,
    /// The last puzzle generated, re-dealt under a new transform when `ready` is empty.
    last: Option<SolvedPuzzle>,
    /// Deals waiting for this difficulty's first puzzle: generate it before anything else.
    waiting: usize,
    /// Kept full: prewarmed at start-up, or asked for at least once.
    wanted: bool,
}

struct Shelves {
    shelves: [Shelf; 4],
    stop: bool,
}

/// The shelves of every difficulty.
pub struct PuzzleStock {
    target: usize,
    state: Mutex<Shelves>,
    /// Wakes the generator thread when a shelf dropped below its target.
    wake: Condvar,
    /// Wakes async deals waiting for a difficulty's first puzzle.
    arrived: Notify,
}

impl std::fmt::Debug for PuzzleStock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PuzzleStock")
            .field("target", &self.target)
            .finish()
    }
}

impl PuzzleStock {
    /// Shelves that keep `target` puzzles ready per difficulty, filled by a thread started
    /// here that stops when `shutdown` is cancelled. With `prewarm`, every difficulty is
    /// filled from the start; otherwise a difficulty is filled once it is first asked for.
    pub fn start(target: usize, prewarm: bool, shutdown: CancellationToken) -> Arc<PuzzleStock> {
        let mut shelves: [Shelf; 4] = Default::default();
        for s in &mut shelves {
            s.wanted = prewarm;
        }
        let stock = Arc::new(PuzzleStock {
            target: target.max(1),
            state: Mutex::new(Shelves {
                shelves,
                stop: false,
            }),
            wake: Condvar::new(),
            arrived: Notify::new(),
        });
        let worker = stock.clone();
        let spawned = std::thread::Builder::new()
            .name("puzzle-stock".into())
            .spawn(move || worker.fill());
        if let Err(e) = spawned {
            tracing::error!(error = %e, "cannot start the puzzle generator thread");
        }
        let stopper = stock.clone();
        tokio::spawn(async move {
            shutdown.cancelled().await;
            if let Ok(mut s) = stopper.state.lock() {
                s.stop = true;
            }
            stopper.wake.notify_all();
        });
        stock
    }

    /// A puzzle of `difficulty` now, if one was ever generated (as generated: untransformed).
    pub fn try_take(&self, difficulty: Difficulty) -> Option<SolvedPuzzle> {
        let mut s = self.state.lock().ok()?;
        let shelf = &mut s.shelves[slot(difficulty)];
        shelf.wanted = true;
        let base = match shelf.ready.pop_front() {
            Some(d) => {
                shelf.last = Some(d.clone());
                d
            }
            None => shelf.last.clone()?,
        };
        drop(s);
        self.wake.notify_one();
        Some(base)
    }

    /// A puzzle of `difficulty`, waiting for the first one to be generated if need be.
    pub async fn take(&self, difficulty: Difficulty) -> SolvedPuzzle {
        if let Ok(mut s) = self.state.lock() {
            let shelf = &mut s.shelves[slot(difficulty)];
            shelf.waiting += 1;
            shelf.wanted = true;
        }
        self.wake.notify_one();
        let dealt = loop {
            let notified = self.arrived.notified();
            if let Some(d) = self.try_take(difficulty) {
                break d;
            }
            notified.await;
        };
        if let Ok(mut s) = self.state.lock() {
            let w = &mut s.shelves[slot(difficulty)].waiting;
            *w = w.saturating_sub(1);
        }
        dealt
    }

    /// The generator thread: top up the neediest shelf, sleep when all are full.
    fn fill(&self) {
        let seed: u64 = rand::rngs::OsRng.gen();
        tracing::info!(seed, "puzzle generator started");
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        loop {
            let next = {
                let Ok(mut s) = self.state.lock() else { return };
                loop {
                    if s.stop {
                        return;
                    }
                    // Waiting deals first, then empty shelves, then the emptiest.
                    let pick = Difficulty::ALL
                        .into_iter()
                        .filter(|&d| {
                            let sh = &s.shelves[slot(d)];
                            sh.wanted && sh.ready.len() < self.target
                        })
                        .min_by_key(|&d| {
                            let sh = &s.shelves[slot(d)];
                            (sh.waiting == 0, sh.last.is_some(), sh.ready.len())
                        });
                    match pick {
                        Some(d) => break d,
                        None => match self.wake.wait(s) {
                            Ok(g) => s = g,
                            Err(_) => return,
                        },
                    }
                }
            };
            let g = generator::generate(&mut rng, next, true);
            let dealt = SolvedPuzzle::classic(g.puzzle, g.solution);
            let Ok(mut s) = self.state.lock() else { return };
            let shelf = &mut s.shelves[slot(next)];
            shelf.last.get_or_insert_with(|| dealt.clone());
            shelf.ready.push_back(dealt);
            drop(s);
            self.arrived.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::solver;

    #[tokio::test]
    async fn deals_puzzles_with_their_solution_under_each_races_transform() {
        let stop = CancellationToken::new();
        let stock = PuzzleStock::start(1, false, stop.clone());
        assert!(
            stock.try_take(Difficulty::Easy).is_none(),
            "nothing generated unasked"
        );
        let a = stock.take(Difficulty::Easy).await.transformed(1);
        let b = stock.take(Difficulty::Easy).await.transformed(2);
        for d in [&a, &b] {
            assert_eq!(solver::solve_unique(&d.puzzle), Ok(d.solution));
        }
        assert_ne!(a.puzzle, b.puzzle, "each deal is transformed afresh");
        let base = stock.take(Difficulty::Easy).await;
        assert_eq!(
            base.transformed(7),
            base.transformed(7),
            "a seed replays its deal"
        );
        stop.cancel();
    }
}
