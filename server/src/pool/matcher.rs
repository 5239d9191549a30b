//! Which waiting players race together (A7), as a pure function of who waits, their ratings
//! and how long they have waited. (Interim: the full matcher with its properties lands next.)

/// One player waiting in a pool.
#[derive(Clone, Debug, PartialEq)]
pub struct Waiting {
    /// Who (a connection id).
    pub id: u64,
    /// Conservative rating for identified players; `None` fits any race.
    pub rating: Option<f64>,
    /// When they began waiting, in ms on the caller's clock.
    pub since_ms: u64,
    /// A rematch chain (A7 `requeue`): players of one chain are seated together first.
    pub chain: Option<u64>,
}

/// When races form.
#[derive(Clone, Debug, PartialEq)]
pub struct Rules {
    /// At once with this many.
    pub size: usize,
    /// Or this long after the second began waiting.
    pub wait_ms: u64,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            size: 8,
            wait_ms: 10_000,
        }
    }
}

/// The rating band of a race whose longest waiter has waited `waited_ms`: ±100, plus 100 per 5 s.
pub fn band(waited_ms: u64) -> f64 {
    100.0 + 100.0 * (waited_ms / 5_000) as f64
}

/// The races to form now, as lists of ids.
pub fn form_races(waiting: &[Waiting], now_ms: u64, rules: &Rules) -> Vec<Vec<u64>> {
    let mut order: Vec<&Waiting> = waiting.iter().collect();
    order.sort_by_key(|w| (w.since_ms, w.id));
    let mut out = Vec::new();
    let mut group: Vec<u64> = Vec::new();
    for w in order {
        group.push(w.id);
        if group.len() == rules.size {
            out.push(std::mem::take(&mut group));
        }
    }
    if group.len() >= 2 {
        let second = waiting
            .iter()
            .filter(|w| group.contains(&w.id))
            .map(|w| w.since_ms)
            .nth(1)
            .unwrap_or(u64::MAX);
        if now_ms.saturating_sub(second) >= rules.wait_ms {
            out.push(group);
        }
    }
    out
}
