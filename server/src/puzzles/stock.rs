//! The puzzle stock: a shelf of generated puzzles per variant and difficulty (A10), filled by a background OS
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

use engine::generator::variant::generate_in;
use engine::{Difficulty, Variant};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::{shelf, SolvedPuzzle};

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
    /// By [`shelf`]: every variant's difficulties.
    shelves: Vec<Shelf>,
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
    /// Shelves that keep `target` puzzles ready per variant and difficulty, filled by a
    /// thread started here that stops when `shutdown` is cancelled. With `prewarm`, classic's
    /// difficulties are filled from the start; any other shelf once it is first asked for (a
    /// variant nobody races costs nothing).
    pub fn start(target: usize, prewarm: bool, shutdown: CancellationToken) -> Arc<PuzzleStock> {
        let mut shelves: Vec<Shelf> = Vec::new();
        shelves.resize_with(Variant::ALL.len() * Difficulty::ALL.len(), Shelf::default);
        for d in Difficulty::ALL {
            shelves[shelf(Variant::Classic, d)].wanted = prewarm;
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

    /// A puzzle of `variant` and `difficulty` now, if one was ever generated (as generated:
    /// untransformed).
    pub fn try_take(&self, variant: Variant, difficulty: Difficulty) -> Option<SolvedPuzzle> {
        let mut s = self.state.lock().ok()?;
        let shelf = &mut s.shelves[shelf(variant, difficulty)];
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

    /// A puzzle of `variant` and `difficulty`, waiting for the first one to be generated if
    /// need be.
    pub async fn take(&self, variant: Variant, difficulty: Difficulty) -> SolvedPuzzle {
        let at = shelf(variant, difficulty);
        if let Ok(mut s) = self.state.lock() {
            let shelf = &mut s.shelves[at];
            shelf.waiting += 1;
            shelf.wanted = true;
        }
        self.wake.notify_one();
        let dealt = loop {
            let notified = self.arrived.notified();
            if let Some(d) = self.try_take(variant, difficulty) {
                break d;
            }
            notified.await;
        };
        if let Ok(mut s) = self.state.lock() {
            let w = &mut s.shelves[at].waiting;
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
                    let pick = Variant::ALL
                        .into_iter()
                        .flat_map(|v| Difficulty::ALL.map(|d| (v, d)))
                        .filter(|&(v, d)| {
                            let sh = &s.shelves[shelf(v, d)];
                            sh.wanted && sh.ready.len() < self.target
                        })
                        .min_by_key(|&(v, d)| {
                            let sh = &s.shelves[shelf(v, d)];
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
            let (variant, difficulty) = next;
            let g = generate_in(&mut rng, variant, difficulty);
            let dealt = SolvedPuzzle {
                puzzle: g.puzzle,
                solution: g.solution,
                geometry: if variant == Variant::Classic {
                    super::classic()
                } else {
                    Arc::new(g.geometry)
                },
            };
            let Ok(mut s) = self.state.lock() else { return };
            let shelf = &mut s.shelves[shelf(variant, difficulty)];
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
            stock.try_take(Variant::Classic, Difficulty::Easy).is_none(),
            "nothing generated unasked"
        );
        let a = stock
            .take(Variant::Classic, Difficulty::Easy)
            .await
            .transformed(1);
        let b = stock
            .take(Variant::Classic, Difficulty::Easy)
            .await
            .transformed(2);
        for d in [&a, &b] {
            assert_eq!(solver::solve_unique(&d.puzzle), Ok(d.solution));
        }
        assert_ne!(a.puzzle, b.puzzle, "each deal is transformed afresh");
        let base = stock.take(Variant::Classic, Difficulty::Easy).await;
        assert_eq!(
            base.transformed(7),
            base.transformed(7),
            "a seed replays its deal"
        );
        stop.cancel();
    }

    /// A10: a variant's shelf deals puzzles of that variant, each with its own geometry; a
    /// race's transform carries a killer's cages along (their sums complemented with the
    /// digits, when it relabels), and the deal stays a puzzle of one solution by its rules.
    #[tokio::test]
    async fn a_variants_shelf_deals_its_variant_and_a_transform_keeps_its_rules() {
        use engine::solver::geometric::count_solutions_in;
        use engine::validator::check_solution;
        let stop = CancellationToken::new();
        let stock = PuzzleStock::start(1, false, stop.clone());
        for v in [Variant::X, Variant::Jigsaw, Variant::Killer] {
            let base = stock.take(v, Difficulty::Easy).await;
            assert_eq!(base.variant(), v);
            for seed in 0..4 {
                let d = base.transformed(seed);
                assert_eq!(d.variant(), v);
                assert!(check_solution(d.geometry(), &d.solution).is_ok(), "{v}");
                assert_eq!(count_solutions_in(d.geometry(), &d.puzzle, 2), 1, "{v}");
            }
        }
        assert!(stock.try_take(Variant::Windoku, Difficulty::Easy).is_none());
        stop.cancel();
    }
}
