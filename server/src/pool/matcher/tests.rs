use super::*;
use proptest::prelude::*;

fn rated(id: u64, rating: f64, since_ms: u64) -> Waiting {
    Waiting {
        id,
        rating: Some(rating),
        since_ms,
        chain: None,
    }
}

fn anon(id: u64, since_ms: u64) -> Waiting {
    Waiting {
        id,
        rating: None,
        since_ms,
        chain: None,
    }
}

fn chained(chain: u64, w: Waiting) -> Waiting {
    Waiting {
        chain: Some(chain),
        ..w
    }
}

/// The races that form among `waiting` at `now_ms` under the default rules.
#[track_caller]
fn check(waiting: &[Waiting], now_ms: u64, expected: &[&[u64]]) {
    let races = form_races(waiting, now_ms, &Rules::default());
    assert_eq!(races, expected, "at {now_ms} ms");
    assert_invariants(waiting, now_ms, &Rules::default(), &races);
}

#[test]
fn the_band_starts_at_100_and_widens_by_100_every_5_s() {
    let bands: Vec<f64> = [0, 4_999, 5_000, 9_999, 10_000, 15_000, 60_000]
        .into_iter()
        .map(band)
        .collect();
    assert_eq!(bands, [100.0, 100.0, 200.0, 200.0, 300.0, 400.0, 1300.0]);
}

#[test]
fn eight_waiting_race_at_once() {
    let waiting: Vec<Waiting> = (0..8)
        .map(|i| rated(i, 1500.0 + 10.0 * i as f64, i))
        .collect();
    check(&waiting, 8, &[&[0, 1, 2, 3, 4, 5, 6, 7]]);
    check(&waiting[..7], 8, &[]);
}

#[test]
fn two_race_wait_ms_after_the_second_arrived_and_not_before() {
    let waiting = [rated(1, 1500.0, 0), rated(2, 1550.0, 3_000)];
    check(&waiting, 12_999, &[]);
    check(&waiting, 13_000, &[&[1, 2]]);
}

#[test]
fn a_race_formed_on_time_takes_the_compatible_newcomers_with_it() {
    let waiting = [
        rated(1, 1500.0, 0),
        rated(2, 1500.0, 1_000),
        rated(3, 1520.0, 10_900),
        anon(4, 10_950),
        rated(5, 2500.0, 10_950), // outside the band
    ];
    check(&waiting, 11_000, &[&[1, 2, 3, 4]]);
}

#[test]
fn far_apart_ratings_wait_until_the_band_has_widened() {
    let waiting = [rated(1, 1000.0, 0), rated(2, 1350.0, 0)];
    check(&waiting, 10_000, &[]); // both due, but the band is 300
    check(&waiting, 14_999, &[]);
    check(&waiting, 15_000, &[&[1, 2]]); // band 400
}

#[test]
fn the_longest_wait_sets_the_band() {
    // 1 has waited 15 s (band 400), 2 only the 10 s that make it due: they race at 400 apart.
    let waiting = [rated(1, 1000.0, 0), rated(2, 1400.0, 5_000)];
    check(&waiting, 15_000, &[&[1, 2]]);
}

#[test]
fn anonymous_players_fit_any_race() {
    let waiting = [rated(1, 0.0, 0), anon(2, 0), rated(3, 5000.0, 0)];
    check(&waiting, 9_999, &[]);
    check(&waiting, 10_000, &[&[1, 2]]);
    let mut full: Vec<Waiting> = (1..8).map(|i| anon(i, 0)).collect();
    full.push(rated(8, 2750.0, 0));
    check(&full, 0, &[&[1, 2, 3, 4, 5, 6, 7, 8]]);
    check(&[anon(1, 0), anon(2, 500)], 10_500, &[&[1, 2]]);
}

#[test]
fn a_rating_that_is_not_finite_counts_as_none() {
    check(
        &[rated(1, f64::NAN, 0), rated(2, 1500.0, 0)],
        10_000,
        &[&[1, 2]],
    );
}

#[test]
fn chains_are_seated_together_first() {
    let mut waiting: Vec<Waiting> = (1..=3).map(|i| chained(7, rated(i, 1500.0, 0))).collect();
    waiting.extend((4..=8).map(|i| rated(i, 1500.0, 0)));
    check(&waiting, 0, &[]); // the chain is held: strangers alone are not 8
    check(&waiting, 10_000, &[&[1, 2, 3], &[4, 5, 6, 7, 8]]);
}

#[test]
fn a_chain_waits_for_its_second_player_and_ignores_the_band() {
    let waiting = [
        chained(1, rated(1, 0.0, 0)),
        chained(1, rated(2, 3000.0, 5_000)),
        rated(3, 0.0, 0),
    ];
    check(&waiting, 14_999, &[]); // 1 is held for its chain, so 3 has nobody
    check(&waiting, 15_000, &[&[1, 2]]);
}

#[test]
fn a_chains_lone_player_is_held_until_due_then_waits_like_anyone() {
    let mut waiting = vec![chained(1, rated(1, 1500.0, 0))];
    waiting.extend((2..=8).map(|i| rated(i, 1500.0, 100)));
    check(&waiting, 100, &[]);
    check(&waiting, 10_000, &[&[1, 2, 3, 4, 5, 6, 7, 8]]);
}

#[test]
fn a_full_race_takes_the_tightest_run_around_the_longest_waiting() {
    // 1 waited longest; of the nine within its band, the eight closest together race.
    let mut waiting = vec![rated(1, 1050.0, 0)];
    waiting.extend((2..=5).map(|i| rated(i, 1050.0 - i as f64, 10)));
    waiting.extend((6..=9).map(|i| rated(i, 1050.0 + i as f64, 10)));
    waiting.push(rated(10, 960.0, 10));
    check(&waiting, 10, &[&[1, 2, 3, 4, 5, 6, 7, 8]]);
}

// Properties.

/// Checks (1) to (3) on one call's races and, after it, (4) liveness: among those left and
/// free for strangers, no compatible pair is both due, and no `size` compatible players wait.
fn assert_invariants(waiting: &[Waiting], now_ms: u64, rules: &Rules, races: &[Vec<u64>]) {
    let size = rules.size.max(2);
    let by_id: std::collections::HashMap<u64, &Waiting> =
        waiting.iter().map(|w| (w.id, w)).collect();
    let mut seated = std::collections::HashSet::new();
    for race in races {
        assert!((2..=size).contains(&race.len()), "race size: {race:?}");
        for id in race {
            assert!(by_id.contains_key(id), "{id} was not waiting");
            assert!(seated.insert(*id), "{id} seated twice");
        }
        let players: Vec<&Waiting> = race.iter().map(|id| by_id[id]).collect();
        let chain = players[0].chain;
        if chain.is_some() && players.iter().all(|p| p.chain == chain) {
            continue; // a chain race keeps no band
        }
        let rated: Vec<&&Waiting> = players.iter().filter(|p| p.rated().is_some()).collect();
        let Some(longest) = rated
            .iter()
            .map(|p| now_ms.saturating_sub(p.since_ms))
            .max()
        else {
            continue;
        };
        let ratings = rated.iter().filter_map(|p| p.rated());
        let (lo, hi) = ratings.fold((f64::MAX, f64::MIN), |(l, h), r| (l.min(r), h.max(r)));
        assert!(hi - lo <= band(longest), "race {race:?} spreads {lo}..{hi}");
    }
    let left: Vec<&Waiting> = waiting.iter().filter(|w| !seated.contains(&w.id)).collect();
    let free = free_for_strangers(&left, now_ms, rules);
    assert_live(&free, now_ms, rules);
}

/// Those left who are not held for their chain; a held chain must not be ready.
fn free_for_strangers<'a>(left: &[&'a Waiting], now_ms: u64, rules: &Rules) -> Vec<&'a Waiting> {
    let due = |w: &Waiting| now_ms.saturating_sub(w.since_ms) >= rules.wait_ms;
    let mut chains: std::collections::BTreeMap<u64, Vec<&Waiting>> = Default::default();
    let mut free = Vec::new();
    for w in left {
        match w.chain {
            Some(c) => chains.entry(c).or_default().push(w),
            None => free.push(*w),
        }
    }
    for (chain, members) in chains {
        if members.len() == 1 {
            free.extend(members.iter().filter(|w| due(w)));
            continue;
        }
        let n_due = members.iter().filter(|w| due(w)).count();
        let ready = members.len() >= rules.size.max(2) || n_due >= 2;
        assert!(!ready, "chain {chain} left waiting: {members:?}");
    }
    free
}

fn assert_live(free: &[&Waiting], now_ms: u64, rules: &Rules) {
    let size = rules.size.max(2);
    let waited = |w: &Waiting| now_ms.saturating_sub(w.since_ms);
    let fits = |a: &Waiting, b: &Waiting| match (a.rated(), b.rated()) {
        (Some(x), Some(y)) => (x - y).abs() <= band(waited(a).max(waited(b))),
        _ => true,
    };
    let due: Vec<&&Waiting> = free.iter().filter(|w| waited(w) >= rules.wait_ms).collect();
    for (i, a) in due.iter().enumerate() {
        for b in &due[i + 1..] {
            assert!(!fits(a, b), "due and compatible, left waiting: {a:?} {b:?}");
        }
    }
    let n_anon = free.iter().filter(|w| w.rated().is_none()).count();
    assert!(n_anon < size, "{n_anon} anonymous left waiting");
    // A full set whose longest-waiting identified player is `y`: a window of y's band.
    for y in free {
        let (Some(ry), b) = (y.rated(), band(waited(y))) else {
            continue;
        };
        let mut near: Vec<f64> = free
            .iter()
            .filter(|z| waited(z) <= waited(y))
            .filter_map(|z| z.rated())
            .filter(|rz| (rz - ry).abs() <= b)
            .collect();
        near.sort_by(f64::total_cmp);
        for (s, rs) in near.iter().enumerate().filter(|(_, rs)| **rs <= ry) {
            let count = near[s..].iter().take_while(|rz| *rz - rs <= b).count();
            let holds_y = near[s..s + count].iter().any(|r| *r >= ry);
            assert!(
                !(holds_y && count + n_anon >= size),
                "{count} around {y:?} and {n_anon} anonymous left waiting"
            );
        }
    }
}

fn waiting_strategy(max: usize) -> impl Strategy<Value = Vec<Waiting>> {
    let player = (
        // × 25: ties in rating, and pairs exactly a band apart.
        prop::option::weighted(0.75, 0..60u32),
        0..80u64, // × 500 ms: many arrive together, so ties are broken often
        prop::option::weighted(0.2, 0..4u64),
    );
    prop::collection::vec(player, 0..max).prop_map(|players| {
        players
            .into_iter()
            .enumerate()
            .map(|(i, (rating, since_ms, chain))| Waiting {
                id: 1000 + 7 * i as u64,
                rating: rating.map(|r| 25.0 * f64::from(r)),
                since_ms: since_ms * 500,
                chain,
            })
            .collect()
    })
}

fn rules_strategy() -> impl Strategy<Value = Rules> {
    (0..10usize, 0..20_000u64).prop_map(|(size, wait_ms)| Rules { size, wait_ms })
}

proptest! {
    #[test]
    fn one_call_keeps_the_invariants(
        waiting in waiting_strategy(80),
        now_ms in 0..60_000u64,
        rules in rules_strategy(),
    ) {
        let races = form_races(&waiting, now_ms, &rules);
        assert_invariants(&waiting, now_ms, &rules, &races);
    }

    #[test]
    fn the_input_order_does_not_matter(
        waiting in waiting_strategy(60),
        now_ms in 0..60_000u64,
        rules in rules_strategy(),
        seed in any::<u64>(),
    ) {
        let mut shuffled = waiting.clone();
        // A plain LCG shuffle: the property needs any order, not a good one.
        let mut state = seed;
        for i in (1..shuffled.len()).rev() {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            shuffled.swap(i, (state >> 33) as usize % (i + 1));
        }
        prop_assert_eq!(
            form_races(&waiting, now_ms, &rules),
            form_races(&shuffled, now_ms, &rules)
        );
    }
}

const TICK_MS: u64 = 100;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Players arrive over 20 s and the pool is matched every tick: after every tick the
    /// invariants hold, so nobody waits past `wait_ms` and one tick while a compatible partner
    /// is due with them.
    #[test]
    fn ticking_over_random_arrivals_keeps_everyone_moving(
        mut arrivals in waiting_strategy(120),
        size in 2..9usize,
        wait_ms in 500..8_000u64,
    ) {
        let rules = Rules { size, wait_ms };
        for w in &mut arrivals {
            w.since_ms /= 2; // over 20 s
        }
        arrivals.sort_by_key(|w| std::cmp::Reverse(w.since_ms));
        let mut waiting: Vec<Waiting> = Vec::new();
        let mut now_ms = 0;
        while !arrivals.is_empty() || now_ms <= 20_000 + 2 * wait_ms {
            while arrivals.last().is_some_and(|w| w.since_ms <= now_ms) {
                waiting.extend(arrivals.pop());
            }
            let races = form_races(&waiting, now_ms, &rules);
            assert_invariants(&waiting, now_ms, &rules, &races);
            let seated: std::collections::HashSet<u64> = races.into_iter().flatten().collect();
            waiting.retain(|w| !seated.contains(&w.id));
            now_ms += TICK_MS;
        }
    }
}
