//! The pool's matcher (A7): given who is waiting in one pool and the time, which races form
//! now. Pure: std only, no clock, no RNG, no IO, and equal input gives equal output. The caller
//! keeps the queue, calls [`form_races`] on every tick (every 100 ms, say) with everyone
//! waiting, seats the races it returns and calls again later with whoever is left.
//!
//! # The rules, precisely
//!
//! - **Wait.** A player's wait is `now_ms - since_ms` (0 for a `since_ms` in the future). A
//!   player is *due* once they have waited `wait_ms`.
//! - **Band.** The identified players of a race (those with a rating) differ pairwise by at most
//!   [`band`]`(w)`, where `w` is the longest wait among them: `max - min <= band(w)`, so each lies
//!   within ±band of every other one. `band(w) = 100 + 100 * floor(w / 5000)` ([`BAND_BASE`],
//!   [`BAND_STEP`], [`BAND_EVERY_MS`]), in the ratings' own units.
//! - **Anonymous** players (no rating, or one that is not finite) fit any race and play no part
//!   in its band. They are seated earliest first.
//! - **Timing.** A group of compatible players forms a race at once when it has `size` players,
//!   or as soon as two of its players are due: A7's "`wait_ms` after the second one began
//!   waiting". A race formed on time takes the other compatible players waiting, up to `size`.
//! - **Chains** (`requeue`, a rematch): the caller gives players who requeued within `wait_ms`
//!   of each other the same chain id. A chain is seated first, by itself and whatever the band:
//!   `size` of its players (earliest first) form a race at once, and two or more form one when
//!   the second of them is due. Until then they are held back from strangers. A chain's lone
//!   player is held until due (the rest of the chain may still requeue), then waits like anyone.
//! - **Order.** Ties are broken by `since_ms`, then `id`, then position in the input. Each race
//!   lists its players earliest first; races come in the order they formed.
//!
//! # Guarantees (the properties in `matcher/tests.rs`)
//!
//! Nobody is seated twice; every race has 2 to `size` players and keeps its band (chain races
//! aside); after a call, no two compatible players who are both due are left waiting outside a
//! held chain, nor `size` compatible players at all. So with a call every tick nobody waits more
//! than a tick past the moment a race with a compatible partner was due.
//!
//! # How
//!
//! The identified players are sorted by rating once and linked both ways, so a seated player
//! drops out of the line in O(1). They are then taken in order of arrival, longest wait first,
//! each as the anchor of a race it might lead: the anchor looks at no more than `size - 1`
//! waiting neighbours on each side within its band (if one side has that many, a full race lies
//! on that side) and picks the best window holding itself. A longer-waiting player comes first
//! and has the wider band, so a pair left over would have been seated by its elder. The cost is
//! O(n log n + n * size).

use std::cmp::Ordering;

/// Half the width of the band at no wait: identified players of a race differ by at most this
/// much until the longest-waiting of them has waited [`BAND_EVERY_MS`].
pub const BAND_BASE: f64 = 100.0;
/// What the band widens by every [`BAND_EVERY_MS`] of the longest wait.
pub const BAND_STEP: f64 = 100.0;
/// How often the band widens.
pub const BAND_EVERY_MS: u64 = 5_000;

/// No neighbour in the rating line.
const NONE: usize = usize::MAX;

/// One player waiting in the pool.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Waiting {
    /// The caller's id for the player; ids are expected to be distinct.
    pub id: u64,
    /// The conservative rating of an identified player; `None` (or a value that is not finite)
    /// for an anonymous one.
    pub rating: Option<f64>,
    /// When the player began waiting, in the caller's milliseconds.
    pub since_ms: u64,
    /// The rematch chain the player requeued in, if any.
    pub chain: Option<u64>,
}

impl Waiting {
    fn rated(&self) -> Option<f64> {
        self.rating.filter(|r| r.is_finite())
    }
}

/// The pool's settings (`--pool-size`, `--pool-wait-ms`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Players in a full race; a race forms at once when this many compatible players wait.
    /// Below 2 counts as 2.
    pub size: usize,
    /// How long the second player of a race waits at most before it forms.
    pub wait_ms: u64,
}

impl Default for Rules {
    /// A7's defaults: 8 players, 10,000 ms.
    fn default() -> Rules {
        Rules {
            size: 8,
            wait_ms: 10_000,
        }
    }
}

/// The band of a race whose longest-waiting identified player has waited `waited_ms`: its
/// identified players' ratings differ by at most this much.
pub fn band(waited_ms: u64) -> f64 {
    BAND_BASE + BAND_STEP * (waited_ms / BAND_EVERY_MS) as f64
}

/// The races that form at `now_ms` among `waiting` under `rules`: each the ids of its 2 to
/// `size` players, earliest first. Everyone not named keeps waiting.
pub fn form_races(waiting: &[Waiting], now_ms: u64, rules: &Rules) -> Vec<Vec<u64>> {
    let mut matcher = Matcher {
        waiting,
        now_ms,
        size: rules.size.max(2),
        wait_ms: rules.wait_ms,
        races: Vec::new(),
    };
    let free = matcher.seat_chains();
    let (rated, anonymous): (Vec<usize>, Vec<usize>) = free
        .into_iter()
        .partition(|&i| waiting[i].rated().is_some());
    let left = matcher.seat_rated(rated, anonymous);
    matcher.seat_anonymous(&left);
    matcher
        .races
        .into_iter()
        .map(|race| race.into_iter().map(|i| waiting[i].id).collect())
        .collect()
}

/// One call's work: the input and the races formed so far, as indices into it.
struct Matcher<'a> {
    waiting: &'a [Waiting],
    now_ms: u64,
    size: usize,
    wait_ms: u64,
    races: Vec<Vec<usize>>,
}

impl Matcher<'_> {
    fn waited(&self, i: usize) -> u64 {
        self.now_ms.saturating_sub(self.waiting[i].since_ms)
    }

    fn due(&self, i: usize) -> bool {
        self.waited(i) >= self.wait_ms
    }

    /// Earliest first: `since_ms`, then `id`, then input position.
    fn arrival(&self, a: usize, b: usize) -> Ordering {
        let (x, y) = (&self.waiting[a], &self.waiting[b]);
        (x.since_ms, x.id, a).cmp(&(y.since_ms, y.id, b))
    }

    fn push(&mut self, mut race: Vec<usize>) {
        race.sort_by(|&a, &b| self.arrival(a, b));
        self.races.push(race);
    }

    /// Seat the chains that are ready; return everyone free for strangers (the unchained, and
    /// chains' lone players who are due). Held chain players are in neither.
    fn seat_chains(&mut self) -> Vec<usize> {
        let waiting = self.waiting;
        let (mut chained, mut free): (Vec<usize>, Vec<usize>) =
            (0..waiting.len()).partition(|&i| waiting[i].chain.is_some());
        chained.sort_by(|&a, &b| {
            (waiting[a].chain.cmp(&waiting[b].chain)).then_with(|| self.arrival(a, b))
        });
        for chain in chained.chunk_by(|&a, &b| waiting[a].chain == waiting[b].chain) {
            let mut rest = chain;
            while rest.len() >= self.size {
                let (race, tail) = rest.split_at(self.size);
                self.push(race.to_vec());
                rest = tail;
            }
            match *rest {
                [] => {}
                // Nobody of its chain requeued within `wait_ms`: a stranger like any other.
                [one] if self.due(one) => free.push(one),
                [_, second, ..] if self.due(second) => self.push(rest.to_vec()),
                _ => {} // held for its chain
            }
        }
        free
    }

    /// Seat races around the identified players in `rated`, filling seats from `anonymous`;
    /// return the anonymous players left, earliest first.
    fn seat_rated(&mut self, rated: Vec<usize>, mut anonymous: Vec<usize>) -> Vec<usize> {
        anonymous.sort_by(|&a, &b| self.arrival(a, b));
        let mut queue = Queue {
            due: anonymous.iter().filter(|&&i| self.due(i)).count(),
            idx: anonymous,
            taken: 0,
        };
        let mut line = Line::new(self, rated);
        let mut anchors: Vec<usize> = (0..line.idx.len()).collect();
        anchors.sort_by(|&a, &b| self.arrival(line.idx[a], line.idx[b]));
        let mut near = Vec::with_capacity(2 * self.size);
        for anchor in anchors {
            if line.seated[anchor] {
                continue;
            }
            let band = band(self.waited(line.idx[anchor]));
            let at = line.neighbourhood(anchor, band, self.size - 1, &mut near);
            let Some(pick) = pick(&near, at, band, self.size, &queue) else {
                continue;
            };
            let mut race: Vec<usize> = Vec::with_capacity(self.size);
            for n in &near[pick.start..pick.end] {
                line.remove(n.pos);
                race.push(line.idx[n.pos]);
            }
            race.extend_from_slice(queue.take(pick.anonymous));
            self.push(race);
        }
        queue.idx.split_off(queue.taken)
    }

    /// Seat the anonymous players left (earliest first): full races, then the rest together
    /// once the second of them is due.
    fn seat_anonymous(&mut self, left: &[usize]) {
        let mut rest = left;
        while rest.len() >= self.size {
            let (race, tail) = rest.split_at(self.size);
            self.push(race.to_vec());
            rest = tail;
        }
        if rest.len() >= 2 && self.due(rest[1]) {
            self.push(rest.to_vec());
        }
    }
}

/// The anonymous players free for strangers, earliest first; those before `taken` are seated.
struct Queue {
    idx: Vec<usize>,
    taken: usize,
    /// How many of `idx` are due: a prefix, since they are in order of arrival.
    due: usize,
}

impl Queue {
    fn left(&self) -> usize {
        self.idx.len() - self.taken
    }

    fn due_left(&self) -> usize {
        self.due.saturating_sub(self.taken)
    }

    fn take(&mut self, n: usize) -> &[usize] {
        let from = self.taken;
        self.taken += n;
        &self.idx[from..self.taken]
    }
}

/// The free identified players in rating order (ties by arrival); the unseated ones are linked
/// both ways, so neighbours skip the seated in O(1).
struct Line {
    idx: Vec<usize>,
    rating: Vec<f64>,
    due: Vec<bool>,
    seated: Vec<bool>,
    prev: Vec<usize>,
    next: Vec<usize>,
}

/// A player near an anchor: its place in the [`Line`], rating and whether it is due.
#[derive(Clone, Copy, Debug)]
struct Near {
    pos: usize,
    rating: f64,
    due: bool,
}

impl Line {
    fn new(m: &Matcher<'_>, mut idx: Vec<usize>) -> Line {
        let rating_of = |i: usize| m.waiting[i].rated().unwrap_or(0.0);
        idx.sort_by(|&a, &b| (rating_of(a).total_cmp(&rating_of(b))).then_with(|| m.arrival(a, b)));
        let n = idx.len();
        Line {
            rating: idx.iter().map(|&i| rating_of(i)).collect(),
            due: idx.iter().map(|&i| m.due(i)).collect(),
            seated: vec![false; n],
            prev: (0..n).map(|p| p.checked_sub(1).unwrap_or(NONE)).collect(),
            next: (1..=n).map(|p| if p < n { p } else { NONE }).collect(),
            idx,
        }
    }

    fn near(&self, pos: usize) -> Near {
        Near {
            pos,
            rating: self.rating[pos],
            due: self.due[pos],
        }
    }

    /// Fill `near` with the anchor and the up to `reach` unseated players on each side of it
    /// within `band` of its rating, in rating order; return the anchor's index in `near`.
    fn neighbourhood(&self, anchor: usize, band: f64, reach: usize, near: &mut Vec<Near>) -> usize {
        near.clear();
        let r = self.rating[anchor];
        let mut p = self.prev[anchor];
        while p != NONE && near.len() < reach && r - self.rating[p] <= band {
            near.push(self.near(p));
            p = self.prev[p];
        }
        near.reverse();
        let at = near.len();
        near.push(self.near(anchor));
        let mut p = self.next[anchor];
        while p != NONE && near.len() - at <= reach && self.rating[p] - r <= band {
            near.push(self.near(p));
            p = self.next[p];
        }
        at
    }

    fn remove(&mut self, pos: usize) {
        let (a, b) = (self.prev[pos], self.next[pos]);
        if a != NONE {
            self.next[a] = b;
        }
        if b != NONE {
            self.prev[b] = a;
        }
        self.seated[pos] = true;
    }
}

/// The race an anchor leads: `near[start..end]` and the first `anonymous` anonymous players.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pick {
    start: usize,
    end: usize,
    anonymous: usize,
}

/// The race that forms now around `near[at]`, whose band is `band`, if one does: a full one of
/// identified players (the tightest); else the largest window within the band holding the anchor
/// that anonymous players fill; else the largest in which two players are due, with every
/// anonymous player.
fn pick(near: &[Near], at: usize, band: f64, size: usize, queue: &Queue) -> Option<Pick> {
    if let Some(start) = tightest_run(near, at, band, size) {
        let end = start + size;
        let anonymous = 0;
        return Some(Pick {
            start,
            end,
            anonymous,
        });
    }
    // No run of `size` fits the band, so neither side of the anchor reached `size - 1`: `near`
    // holds every player within the band of the anchor, and every window is one of it.
    let mut due_before = Vec::with_capacity(near.len() + 1);
    due_before.push(0);
    for n in near {
        due_before.push(due_before[due_before.len() - 1] + usize::from(n.due));
    }
    let (mut full, mut timed): (Option<Pick>, Option<Pick>) = (None, None);
    let mut end = at + 1;
    for start in 0..=at {
        while end < near.len() && near[end].rating - near[start].rating <= band {
            end += 1;
        }
        let count = end - start;
        let wider = |p: &Option<Pick>| p.is_none_or(|p| count > p.end - p.start);
        if count + queue.left() >= size && wider(&full) {
            let anonymous = size - count;
            full = Some(Pick {
                start,
                end,
                anonymous,
            });
        }
        let due = due_before[end] - due_before[start] + queue.due_left();
        if due >= 2 && wider(&timed) {
            let anonymous = queue.left();
            timed = Some(Pick {
                start,
                end,
                anonymous,
            });
        }
    }
    full.or(timed)
}

/// The start of the run of `size` consecutive players in `near` holding `near[at]` whose
/// ratings spread least, if one lies within `band` (ties: the lowest).
fn tightest_run(near: &[Near], at: usize, band: f64, size: usize) -> Option<usize> {
    let first = at.saturating_sub(size - 1);
    let last = at.min(near.len().checked_sub(size)?);
    let spread = |s: usize| near[s + size - 1].rating - near[s].rating;
    (first..=last)
        .filter(|&s| spread(s) <= band)
        .min_by(|&a, &b| spread(a).total_cmp(&spread(b)))
}

#[cfg(test)]
mod tests;
