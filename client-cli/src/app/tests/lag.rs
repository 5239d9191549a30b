//! Lag compensation on the results screen (A8): the table's time is the compensated one to
//! the tenth, with each player's lag beside it; our own box says what our time was
//! compensated from.

use super::*;

fn solved(rank: u32, id: &str, name: &str, time_ms: u64, raw: u64, lag_ms: u32) -> Standing {
    Standing {
        rank,
        player_id: id.into(),
        name: name.try_into().unwrap(),
        status: FinishStatus::Solved,
        time_ms: Some(time_ms),
        filled: 51,
        mistakes: 0,
        time_ms_raw: Some(raw),
        lag_ms,
        puzzle: None,
        solution: None,
        layout: Default::default(),
    }
}

#[test]
fn results_show_the_compensated_time_with_the_raw_time_and_lag_beside_it() {
    let mut app = racing();
    app.update(net(ServerMsg::RaceOver {
        race_id: "r1".into(),
        reason: OverReason::AllDone,
        standings: vec![
            solved(1, "p1", "ann", 83_400, 83_712, 312),
            solved(2, "p2", "bob", 83_500, 83_540, 40),
        ],
        solution: SOLUTION.parse().unwrap(),
        ratings: Vec::new(),
    }));
    for (w, h) in [(110, 36), (120, 40)] {
        let buf = render(&app, w, h);
        check_shows(&buf, "Your time: 1:23.4 (rank 1)");
        check_shows(&buf, "raw 1:23.7, lag 312 ms");
        let row = |name: &str| -> String {
            lines(&buf)
                .into_iter()
                .find(|l| l.contains(&format!(" {name} ")) && l.contains("solved"))
                .unwrap_or_else(|| panic!("{name}'s row at {w}x{h}"))
        };
        let (ann, bob) = (row("ann"), row("bob"));
        assert!(ann.contains("1:23.4") && ann.contains("312"), "{ann}");
        assert!(bob.contains("1:23.5") && bob.contains(" 40"), "{bob}");
    }
}
