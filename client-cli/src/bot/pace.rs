//! How a bot paces itself: the order it fills cells in, how long it thinks before each, when it
//! looks away, and how often it slips. Pure functions of the board, a [`Style`] and an RNG, so
//! the tests measure a whole race's pacing without a clock.
//!
//! The order and the effort come from the grader: the bot fills cells in the order a person
//! using the grader's techniques would, and each placement costs one *look* for every technique
//! step since the previous placement (an elimination by pointing, then the single it opens).
//! A [`Style`] says how long a look at each [`Tier`] takes. The four [`Level`]s are rows of one
//! table, [`LEVELS`].

use std::time::Duration;

use engine::grader::{self, Technique};
use engine::{Cell, Geometry, Grid};
use rand::seq::SliceRandom;
use rand::Rng;

/// How hard a technique step is to see, coarser than [`Technique`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tier {
    /// The only candidate left in a cell.
    NakedSingle,
    /// The only place left for a digit in a unit.
    HiddenSingle,
    /// Intersections and subsets up to triples (the grader's medium techniques).
    Medium,
    /// Fish, wings, quads, single-digit patterns (hard).
    Hard,
    /// Chains, or beyond what the grader knows.
    Expert,
}

impl Tier {
    /// The number of tiers (the length of [`Looks`] and [`Style::think_ms`]).
    pub const COUNT: usize = 5;

    /// The tier of one technique.
    pub fn of(t: Technique) -> Tier {
        use engine::Level as L;
        match (t, t.level()) {
            (Technique::NakedSingle, _) => Tier::NakedSingle,
            (_, L::Easy) => Tier::HiddenSingle,
            (_, L::Medium) => Tier::Medium,
            (_, L::Hard) => Tier::Hard,
            (_, L::Expert | L::Extreme) => Tier::Expert,
        }
    }
}

/// The technique steps behind one placement, counted by [`Tier`].
pub type Looks = [u8; Tier::COUNT];

/// One looks at `tier`.
pub const fn look(tier: Tier) -> Looks {
    let mut l = [0; Tier::COUNT];
    l[tier as usize] = 1;
    l
}

/// One cell of the plan: where, and the looks it takes to find its digit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Planned {
    /// The cell to fill.
    pub cell: Cell,
    /// What it takes to see the digit.
    pub looks: Looks,
    /// A correction after a refused digit: the bot knows the digit now and does not slip.
    pub fix: bool,
}

/// The empty cells of `board` (digits all right, one solution) in the order the bot fills them:
/// the grader's steps, each wave of singles shuffled; an elimination's look is paid by the next
/// placement. Cells the grader cannot reach follow in random order, one expert look each.
pub fn plan(board: &Grid, rng: &mut impl Rng) -> Vec<Planned> {
    plan_in(Geometry::classic(), board, rng)
}

/// [`plan`] for a board of `geometry` (A10: a variant's houses and cages, which the grader's
/// techniques walk).
pub fn plan_in(geometry: &Geometry, board: &Grid, rng: &mut impl Rng) -> Vec<Planned> {
    let grading = grader::grade_in(geometry, board);
    let mut order: Vec<Planned> = Vec::new();
    let mut owed: Looks = [0; Tier::COUNT];
    for step in &grading.steps {
        let tier = Tier::of(step.technique) as usize;
        if step.placements.is_empty() {
            owed[tier] = owed[tier].saturating_add(1);
            continue;
        }
        let mut wave: Vec<Cell> = step.placements.iter().map(|&(c, _)| c).collect();
        wave.shuffle(rng);
        for cell in wave {
            let mut looks = std::mem::take(&mut owed);
            looks[tier] = looks[tier].saturating_add(1);
            order.push(Planned {
                cell,
                looks,
                fix: false,
            });
        }
    }
    let mut rest: Vec<Cell> = Cell::all()
        .filter(|&c| board.get(c).is_none() && !order.iter().any(|p| p.cell == c))
        .collect();
    rest.shuffle(rng);
    order.extend(rest.into_iter().map(|cell| Planned {
        cell,
        looks: look(Tier::Expert),
        fix: false,
    }));
    order
}

/// How strongly a bot plays; each is a row of [`LEVELS`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Level {
    /// A beginner: some 13 minutes on medium, long pauses, a few slips.
    Beginner,
    /// A casual human: some 5 minutes on medium, pauses now and then, an occasional slip.
    #[default]
    Casual,
    /// A strong human: some 45 s on medium (the old fixed pace), no pauses, rare slips.
    Strong,
    /// Faster than most people: some 25 s on medium, never wrong.
    Expert,
}

/// How a bot thinks: the time per look at each tier, its pauses and its slips.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Style {
    /// Mean milliseconds per look, by [`Tier`]; each look is drawn from half to one and a half
    /// times its mean.
    pub think_ms: [u32; Tier::COUNT],
    /// Probability that the bot pauses (looks away) before a placement.
    pub pause_rate: f64,
    /// A pause's length in milliseconds, drawn uniformly from this range.
    pub pause_ms: (u32, u32),
    /// Probability that a placement is a wrong digit, `0.0..=1.0`. The server refuses it and
    /// the bot then places the right one.
    pub mistake_rate: f64,
}

/// The levels' styles: the bot's whole tuning, in one place. A medium puzzle takes some 54
/// placements (about 40 naked singles, 14 hidden singles) and 3 medium eliminations; the tests
/// hold each level's mean time on medium to its range.
pub const LEVELS: [(Level, Style); 4] = [
    (
        Level::Beginner,
        Style {
            think_ms: [7_000, 12_000, 50_000, 120_000, 240_000],
            pause_rate: 0.08,
            pause_ms: (15_000, 60_000),
            mistake_rate: 0.04,
        },
    ),
    (
        Level::Casual,
        Style {
            think_ms: [3_000, 6_000, 25_000, 60_000, 150_000],
            pause_rate: 0.05,
            pause_ms: (8_000, 30_000),
            mistake_rate: 0.02,
        },
    ),
    (
        Level::Strong,
        Style {
            think_ms: [550, 800, 3_000, 8_000, 20_000],
            pause_rate: 0.0,
            pause_ms: (0, 0),
            mistake_rate: 0.005,
        },
    ),
    (
        Level::Expert,
        Style {
            think_ms: [300, 450, 2_000, 5_000, 12_000],
            pause_rate: 0.0,
            pause_ms: (0, 0),
            mistake_rate: 0.0,
        },
    ),
];

impl Level {
    /// This level's row of [`LEVELS`].
    pub fn style(self) -> Style {
        LEVELS
            .iter()
            .find(|(l, _)| *l == self)
            .map(|&(_, s)| s)
            .expect("LEVELS has a row for every level")
    }
}

impl Default for Style {
    fn default() -> Self {
        Level::default().style()
    }
}

impl Style {
    /// One mean `pace` for every look, no pauses, and `mistake_rate` (the `--pace-ms` flag, and
    /// fast bots in tests).
    pub fn flat(pace: Duration, mistake_rate: f64) -> Style {
        let ms = u32::try_from(pace.as_millis()).unwrap_or(u32::MAX);
        Style {
            think_ms: [ms; Tier::COUNT],
            pause_rate: 0.0,
            pause_ms: (0, 0),
            mistake_rate,
        }
    }

    /// How long the bot waits before a placement that takes `looks`, a pause included when one
    /// comes up.
    pub fn wait(&self, looks: &Looks, rng: &mut impl Rng) -> Duration {
        let mut ms: u64 = 0;
        for (&n, &mean) in looks.iter().zip(&self.think_ms) {
            let mean = u64::from(mean);
            for _ in 0..n {
                ms += rng.gen_range(mean / 2..=mean + mean / 2);
            }
        }
        if rng.gen_bool(self.pause_rate.clamp(0.0, 1.0)) {
            let (lo, hi) = self.pause_ms;
            ms += u64::from(rng.gen_range(lo.min(hi)..=hi));
        }
        Duration::from_millis(ms)
    }

    /// Whether the next placement is a slip.
    pub fn slips(&self, rng: &mut impl Rng) -> bool {
        rng.gen_bool(self.mistake_rate.clamp(0.0, 1.0))
    }
}
