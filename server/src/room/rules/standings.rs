//! The final ranking of a race, by the contract's rules.

use protocol::{FinishStatus, PlayerStatus, Standing};

/// How a player's race ended, for the standings. Racing and Waiting never reach them (the
/// race times out whoever still races); a leaver counts as forfeited.
pub fn finish_status(s: PlayerStatus) -> FinishStatus {
    match s {
        PlayerStatus::Solved => FinishStatus::Solved,
        PlayerStatus::Eliminated => FinishStatus::Eliminated,
        PlayerStatus::TimedOut => FinishStatus::TimedOut,
        PlayerStatus::Forfeited | PlayerStatus::Racing | PlayerStatus::Waiting => {
            FinishStatus::Forfeited
        }
    }
}

/// Standings by the contract: solved first by time, then by filled (more first), then
/// mistakes (fewer first); equal rows share a rank and the next rank skips. The rows come in
/// unranked (their `rank` is set here); `time_ms` (compensated, A8: the time ranks use) and
/// `time_ms_raw` are kept only for solved players.
pub fn standings(mut rows: Vec<Standing>) -> Vec<Standing> {
    type Key = (u8, u64, u32, u32);
    let key = |r: &Standing| -> Key {
        match (r.status, r.time_ms) {
            (FinishStatus::Solved, Some(t)) => (0, t, 0, 0),
            _ => (1, 0, u32::MAX - r.filled, r.mistakes),
        }
    };
    rows.sort_by_key(key);
    let mut prev: Option<(Key, u32)> = None;
    for (i, r) in rows.iter_mut().enumerate() {
        let k = key(r);
        r.rank = match prev {
            Some((p, rank)) if p == k => rank,
            _ => i as u32 + 1,
        };
        prev = Some((k, r.rank));
        if r.status != FinishStatus::Solved {
            r.time_ms = None;
            r.time_ms_raw = None;
        }
    }
    rows
}
