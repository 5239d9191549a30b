//! The bot in variant races (A10): it solves its seat's own puzzle by the layout beside it.

use engine::generator::variant::generate_in;
use engine::{Difficulty, Variant};
use protocol::variant::WireLayout;
use rand::rngs::StdRng;
use rand::SeedableRng;

use super::*;

/// A bot races a fresh `variant` puzzle to the end, the server answering by its solution:
/// every empty cell once, no mistakes, the board solved.
#[track_caller]
fn check_bot_solves(variant: Variant, seed: u64) {
    let dealt = generate_in(&mut StdRng::seed_from_u64(seed), variant, Difficulty::Easy);
    let config = BotConfig {
        style: Style::flat(Duration::from_millis(800), 0.0),
        seed,
        ..BotConfig::default()
    };
    let mut brain = Brain::new(config, None);
    brain.on_msg(&joined("h"));
    brain.on_msg(&ServerMsg::RaceStarted {
        race_id: "r1".into(),
        puzzle: dealt.puzzle,
        difficulty: Difficulty::Easy,
        time_limit_s: 1800,
        rated: false,
        variant,
        layout: WireLayout::of(&dealt.geometry),
    });
    let (mut board, mut mistakes, mut steps) = (dealt.puzzle, 0, 0);
    while let Some(m) = brain.next_move() {
        let reply = answer_for(&dealt.solution, &mut board, &mut mistakes, &m);
        brain.on_msg(&reply);
        steps += 1;
        assert!(steps < 1000, "the bot does not converge");
    }
    assert_eq!(board, dealt.solution, "{variant}");
    assert_eq!(mistakes, 0);
    assert_eq!(brain.report.placements as usize, dealt.puzzle.n_empty());
}

#[test]
fn a_bot_solves_a_killer_by_its_cages() {
    check_bot_solves(Variant::Killer, 3);
}

#[test]
fn a_bot_solves_a_jigsaw_by_its_regions() {
    check_bot_solves(Variant::Jigsaw, 4);
}

#[test]
fn a_bot_solves_x_and_windoku() {
    check_bot_solves(Variant::X, 5);
    check_bot_solves(Variant::Windoku, 6);
}

#[test]
fn a_variant_plan_fills_every_empty_cell_once_singles_first() {
    let dealt = generate_in(
        &mut StdRng::seed_from_u64(9),
        Variant::Jigsaw,
        Difficulty::Medium,
    );
    let plan = super::pace::plan_in(
        &dealt.geometry,
        &dealt.puzzle,
        &mut StdRng::seed_from_u64(1),
    );
    let mut cells: Vec<Cell> = plan.iter().map(|p| p.cell).collect();
    cells.sort();
    cells.dedup();
    assert_eq!(cells.len(), dealt.puzzle.n_empty());
    assert!(cells.iter().all(|&c| dealt.puzzle.get(c).is_none()));
    let single = |p: &super::pace::Planned| {
        p.looks == super::pace::look(Tier::NakedSingle)
            || p.looks == super::pace::look(Tier::HiddenSingle)
    };
    assert!(single(&plan[0]), "singles first: {:?}", plan[0]);
}
