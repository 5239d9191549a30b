//! The standings: ranks and shared ties, and the end reasons as stored and announced.

use super::*;

#[track_caller]
fn check_ranks(rows: &[(&str, FinishStatus, Option<u64>, u32, u32)], expected: &[(&str, u32)]) {
    let rows: Vec<_> = rows
        .iter()
        .map(|r| Standing {
            rank: 0,
            player_id: r.0.to_owned().into(),
            name: r.0.to_owned().try_into().unwrap(),
            status: r.1,
            time_ms: r.2,
            filled: r.3,
            mistakes: r.4,
            time_ms_raw: None,
            lag_ms: 0,
            puzzle: None,
            solution: None,
            layout: protocol::variant::WireLayout::default(),
        })
        .collect();
    let got: Vec<(String, u32)> = standings(rows)
        .into_iter()
        .map(|s| (s.player_id.to_string(), s.rank))
        .collect();
    let expected: Vec<(String, u32)> = expected.iter().map(|e| (e.0.to_owned(), e.1)).collect();
    assert_eq!(got, expected);
}

#[test]
fn standings_rank_and_share_ties() {
    use FinishStatus::*;
    check_ranks(
        &[
            ("d", Forfeited, None, 10, 1),
            ("a", Solved, Some(5000), 50, 0),
            ("c", TimedOut, None, 10, 1),
            ("b", Solved, Some(6000), 50, 3),
            ("e", Eliminated, None, 20, 3),
        ],
        &[("a", 1), ("b", 2), ("e", 3), ("d", 4), ("c", 4)],
    );
    check_ranks(
        &[
            ("a", Solved, Some(1), 1, 0),
            ("b", Solved, Some(1), 1, 0),
            ("c", TimedOut, None, 0, 0),
        ],
        &[("a", 1), ("b", 1), ("c", 3)],
    );
    // The contract's example: 1, 2, 2, 4 (ties among the unsolved share a rank too).
    check_ranks(
        &[
            ("d", TimedOut, None, 30, 0),
            ("b", Solved, Some(9000), 50, 1),
            ("a", Solved, Some(4000), 50, 0),
            ("c", Solved, Some(9000), 50, 2),
        ],
        &[("a", 1), ("b", 2), ("c", 2), ("d", 4)],
    );
    check_ranks(
        &[
            ("a", Solved, Some(4000), 50, 0),
            ("b", Forfeited, None, 30, 2),
            ("c", Eliminated, None, 30, 2),
            ("d", TimedOut, None, 30, 3),
        ],
        &[("a", 1), ("b", 2), ("c", 2), ("d", 4)],
    );
}

#[test]
fn end_reasons_as_stored_and_announced() {
    use crate::room::rules::race::EndReason;
    let names = [
        EndReason::AllDone,
        EndReason::TimeLimit,
        EndReason::Shutdown,
    ]
    .map(EndReason::as_str);
    assert_eq!(names, ["all_done", "time_limit", "shutdown"]);
    assert_eq!(
        EndReason::TimeLimit.announced(),
        Some(OverReason::TimeLimit)
    );
    assert_eq!(EndReason::Shutdown.announced(), None);
}
