//! The suite's case for isomorphs (A8): a seat dealt its own isomorph keeps its own puzzle
//! and solution, in the replay and as a ghost; a seat without one reads back the race's.

use engine::Grid;
use protocol::FinishStatus;

use super::{race, register, Fixture, Racer, NOW};
use crate::store::GhostRef;

const OWN_SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

pub(in crate::store) fn a_seat_keeps_its_own_isomorph(store: &Fixture) {
    register(&**store, &["hA", "hB"]);
    let mut rec = race(
        "iso",
        NOW,
        &[
            Racer("p1", Some("hA"), FinishStatus::Solved, Some(70_000), 1),
            Racer("p2", Some("hB"), FinishStatus::Forfeited, None, 2),
        ],
    );
    rec.rated = false;
    let own_puzzle = format!("{}{}", ".".repeat(40), &OWN_SOLUTION[40..]);
    let grid = |line: &str| Grid::parse(line).expect("a test grid");
    rec.standings[0].puzzle = Some(grid(&own_puzzle));
    rec.standings[0].solution = Some(grid(OWN_SOLUTION));
    store.save_race(&rec).unwrap();

    let replay = store.replay("iso").unwrap().unwrap();
    let seats: Vec<(&str, &str, &str)> = replay
        .players
        .iter()
        .map(|s| (s.player_id.as_str(), s.puzzle.as_str(), s.solution.as_str()))
        .collect();
    let (race_puzzle, race_solution) = (".".repeat(81), "1".repeat(81));
    assert_eq!(
        seats,
        [
            ("p1", own_puzzle.as_str(), OWN_SOLUTION),
            ("p2", race_puzzle.as_str(), race_solution.as_str()),
        ]
    );
    // The ghost of p1 deals p1's own puzzle: its placements are on it.
    let ghost = store.ghost_source(&GhostRef::Race("iso")).unwrap().unwrap();
    assert_eq!(
        (ghost.puzzle.as_str(), ghost.solution.as_str()),
        (own_puzzle.as_str(), OWN_SOLUTION)
    );
}
