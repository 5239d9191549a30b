//! Anti-cheat flags for one player's race, pure (no IO, no clock). A flag keeps a seat out of
//! the ratings; it is not a verdict, and every flag errs towards letting a human through:
//! - `too_fast`: solved in less than the difficulty's floor ([`floor_ms`]), by the raw time (A8:
//!   `time_ms_raw`, the server's clock; never the lag-compensated `time_ms`).
//! - `metronomic`: the gaps between accepted placements vary too little for a human
//!   (coefficient of variation < 0.15 over at least 20 placements).
//! - `unjustified`: of at least 20 accepted placements made while the board showed a single
//!   somewhere, more than 10 % were not a single themselves: a program fills cells in its own
//!   order, a human fills what the board shows.
//!
//! "Justified" is defined on the digits alone, so it is cheap (no grader run) and the same for
//! everyone: a placement of `d` in cell `c` is justified when, on the board just before it
//! (the puzzle plus the player's earlier accepted placements), `d` is the only candidate left
//! in `c` (a naked single) or `c` is the only cell of one of its row, column or box that can
//! still take `d` (a hidden single). A placement made while the board showed no single at all
//! is not judged: it needed a harder step (pairs, fish, chains) on pencil marks the server
//! never sees. Sudoku boards are so constrained that even a program's order lands on singles
//! most of the time, so the bar is low: on generated puzzles of every difficulty a
//! random-order fill scores 16–30 % and a reading-order fill 8–29 % (median 19 %), while a
//! human who takes singles first scores 0 %, and one who slips every 15th placement about 6 %
//! (the test `on_generated_puzzles_program_orders_are_flagged_and_a_human_order_is_not`).
//! A program that itself picks singles first passes this flag; the other two are for it.

use engine::{Cell, Difficulty, Digit, Grid};

use crate::store::RaceRecord;

/// Placements needed before the rhythm and the order of a race say anything.
pub const MIN_PLACEMENTS: usize = 20;
/// Below this coefficient of variation the gaps between placements are machine-regular.
pub const MIN_CV: f64 = 0.15;
/// Above this share of unjustified placements the order is not a human's.
pub const MAX_UNJUSTIFIED: f64 = 0.1;

/// An anti-cheat flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flag {
    /// Solved faster than the difficulty's floor.
    TooFast,
    /// Placements at a machine's even rhythm.
    Metronomic,
    /// Placements in an order the board did not show.
    Unjustified,
}

impl Flag {
    /// The name stored and shown.
    pub const fn as_str(self) -> &'static str {
        match self {
            Flag::TooFast => "too_fast",
            Flag::Metronomic => "metronomic",
            Flag::Unjustified => "unjustified",
        }
    }
}

/// One accepted placement of the player's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accepted {
    /// Race time.
    pub at_ms: u64,
    /// Where.
    pub cell: Cell,
    /// What.
    pub digit: Digit,
}

/// The fastest believable solve per difficulty, set below the fastest human solves on record
/// so that the best humans are never flagged (A8). What we found (each a single 9×9 classic):
///
/// | solve | time | source |
/// |---|---|---|
/// | Shiyao Wang, WSC 2018 world-record round, Prague, 4 Nov 2018 | 54.44 s | english.radio.cz/new-world-sudoku-speed-record-set-championship-prague-8146534; sudokuplus.net/2023/svetovy-rekord-v-sudoku |
/// | the previous record, Jakub Ondroušek (2010) | 1:25 | english.radio.cz (same article) |
/// | Thomas Snyder, a "very easy" puzzle, 20 May 2006 (Guinness) | 1:23.93 | sudokuplus.net (same page) |
/// | Lucus Yeo, an "easy" puzzle, 2009 (claimed to Guinness) | 1:38 | smh.com.au, via about-sudokus.blogspot.com/2009/09 |
/// | WSC 2018 record qualifiers: three puzzles | 3:13 (≈ 64 s each) | sudokualogika.cz/en/node/2249 |
/// | Sebastian Matschke, 30 Mar 2018 (said to be Guinness-certified) | 30.65 s | gameslearningsociety.org/what-is-the-fastest-sudoku-time |
///
/// The last is uncorroborated, but it is the fastest credible claim, so every floor sits below
/// it: a floor is not a verdict, and letting a fast human through costs nothing that the
/// other two flags do not catch (a program that waits is `metronomic` or `unjustified`).
/// Claims of a few seconds (one page names 3.66 s) are not credible: entering ~50 digits
/// takes longer than that, so they are left out. The records are for easy and competition
/// puzzles; harder grades need harder steps between placements, so their floors rise a
/// little, but none reaches the fastest solve on record of any grade (30.65 s): nobody has a
/// record at a hard grade to set a higher floor by.
pub const fn floor_ms(difficulty: Difficulty) -> u64 {
    match difficulty {
        Difficulty::Easy => 20_000,
        Difficulty::Medium => 24_000,
        Difficulty::Hard => 27_000,
        Difficulty::Expert => 30_000,
    }
}

/// Every flag that one player's race raises, in [`Flag`] order.
pub fn flags(
    difficulty: Difficulty,
    puzzle: &Grid,
    solved_ms: Option<u64>,
    accepted: &[Accepted],
) -> Vec<Flag> {
    let mut out = Vec::new();
    if solved_ms.is_some_and(|t| t < floor_ms(difficulty)) {
        out.push(Flag::TooFast);
    }
    if metronomic(accepted) {
        out.push(Flag::Metronomic);
    }
    if unjustified(puzzle, accepted) {
        out.push(Flag::Unjustified);
    }
    out
}

/// The flags of `player_id`'s seat in a finished race, as the store keeps them. A record whose
/// puzzle or difficulty does not parse, or with placements outside the grid, raises nothing
/// from them: a flag must rest on data the server itself dealt.
pub fn seat_flags(rec: &RaceRecord, player_id: &str) -> Vec<String> {
    // A8: the seat's placements are on its own isomorph when it was dealt one.
    let own = rec.own_grids(player_id).map(|(puzzle, _)| puzzle);
    let (Ok(difficulty), Ok(puzzle)) = (
        rec.difficulty.parse::<Difficulty>(),
        Grid::parse(own.as_deref().unwrap_or(&rec.puzzle)),
    ) else {
        return Vec::new();
    };
    let solved_ms = rec
        .standings
        .iter()
        .find(|s| s.player_id.as_str() == player_id)
        .filter(|s| s.status == protocol::FinishStatus::Solved)
        // A8: the floor is judged on the raw time (the server's clock, like the placements'
        // rhythm), never the lag-compensated one a client could lower by up to the lag cap
        // by delaying its pongs.
        .and_then(|s| s.time_ms_raw.or(s.time_ms));
    let accepted: Vec<Accepted> = rec
        .placements
        .iter()
        .filter(|p| p.player_id == player_id && p.outcome == "accepted")
        .filter_map(|p| {
            Some(Accepted {
                at_ms: p.at_ms,
                cell: Cell::new(p.cell)?,
                digit: Digit::new(p.digit)?,
            })
        })
        .collect();
    flags(difficulty, &puzzle, solved_ms, &accepted)
        .into_iter()
        .map(|f| f.as_str().to_owned())
        .collect()
}

/// The gaps between placements are too even: coefficient of variation below [`MIN_CV`].
pub fn metronomic(accepted: &[Accepted]) -> bool {
    if accepted.len() < MIN_PLACEMENTS {
        return false;
    }
    let gaps: Vec<f64> = accepted
        .windows(2)
        .map(|w| w[1].at_ms.saturating_sub(w[0].at_ms) as f64)
        .collect();
    let n = gaps.len() as f64;
    let mean = gaps.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        // Every placement in the same millisecond: as even as a rhythm gets.
        return true;
    }
    let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n;
    var.sqrt() / mean < MIN_CV
}

/// Of the placements made while the board showed a single, more than [`MAX_UNJUSTIFIED`] were
/// not one (at least [`MIN_PLACEMENTS`] such placements judged).
pub fn unjustified(puzzle: &Grid, accepted: &[Accepted]) -> bool {
    let (judged, bad) = judge(puzzle, accepted);
    judged >= MIN_PLACEMENTS && bad as f64 > MAX_UNJUSTIFIED * judged as f64
}

/// (placements judged, judged ones that were not singles): a placement is judged when it was
/// a single, or when the board before it showed one elsewhere.
fn judge(puzzle: &Grid, accepted: &[Accepted]) -> (usize, usize) {
    let mut board = *puzzle;
    let (mut judged, mut bad) = (0, 0);
    for a in accepted {
        let single = is_single(&board, a.cell, a.digit);
        if single || any_single(&board) {
            judged += 1;
            bad += usize::from(!single);
        }
        board.set(a.cell, Some(a.digit));
    }
    (judged, bad)
}

/// Some empty cell of `board` holds a naked or hidden single. One pass over the candidates
/// (rather than [`is_single`] on every cell and digit) because this runs once per placement.
fn any_single(board: &Grid) -> bool {
    // counts[unit][d]: the cells of a unit (9 rows, 9 columns, 9 boxes) where `d` can go.
    let mut counts = [[0u8; 10]; 27];
    for c in Cell::all().filter(|&c| board.get(c).is_none()) {
        let own = candidates(board, c);
        if own.count_ones() == 1 {
            return true;
        }
        for d in (1..=9).filter(|d| own & (1 << d) != 0) {
            counts[c.row()][d] += 1;
            counts[9 + c.col()][d] += 1;
            counts[18 + c.box_idx()][d] += 1;
        }
    }
    counts.iter().any(|unit| unit.contains(&1))
}

/// Candidates of an empty cell from the digits on the board, bit `d` for digit `d`.
fn candidates(board: &Grid, cell: Cell) -> u16 {
    let mut used = 0u16;
    for &p in cell.peers() {
        if let Some(d) = Cell::new(p).and_then(|p| board.get(p)) {
            used |= 1 << d.get();
        }
    }
    0b11_1111_1110 & !used
}

/// `digit` in `cell` is a naked or hidden single on `board`.
fn is_single(board: &Grid, cell: Cell, digit: Digit) -> bool {
    if board.get(cell).is_some() {
        return false;
    }
    let bit = 1u16 << digit.get();
    let own = candidates(board, cell);
    if own & bit == 0 {
        return false;
    }
    if own == bit {
        return true;
    }
    let units: [fn(Cell) -> usize; 3] = [Cell::row, Cell::col, Cell::box_idx];
    units.iter().any(|unit| {
        Cell::all()
            .filter(|&c| c != cell && unit(c) == unit(cell) && board.get(c).is_none())
            .all(|c| candidates(board, c) & bit == 0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A solved grid, and the puzzle it leaves with the first `n_empty` cells (in reading
    /// order) emptied.
    const SOLUTION: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    fn digit_at(i: usize) -> Digit {
        Digit::new(SOLUTION.as_bytes()[i] - b'0').expect("a solution digit")
    }

    fn puzzle(empty: &[usize]) -> Grid {
        let mut g = Grid::parse(SOLUTION).expect("a grid");
        for &i in empty {
            g.set(Cell::new(i as u8).expect("a cell"), None);
        }
        g
    }

    fn placed(cells: &[usize], gap: impl Fn(usize) -> u64) -> Vec<Accepted> {
        let mut t = 0;
        cells
            .iter()
            .enumerate()
            .map(|(k, &i)| {
                t += gap(k);
                Accepted {
                    at_ms: t,
                    cell: Cell::new(i as u8).expect("a cell"),
                    digit: digit_at(i),
                }
            })
            .collect()
    }

    #[test]
    fn too_fast_is_below_the_floor_and_only_for_a_solve() {
        let g = puzzle(&[]);
        assert_eq!(
            flags(Difficulty::Easy, &g, Some(19_999), &[]),
            vec![Flag::TooFast]
        );
        assert!(flags(Difficulty::Easy, &g, Some(20_000), &[]).is_empty());
        assert!(flags(Difficulty::Expert, &g, None, &[]).is_empty());
        assert_eq!(
            flags(Difficulty::Expert, &g, Some(29_999), &[]),
            vec![Flag::TooFast]
        );
    }

    /// A8: the best humans on record are never flagged. The fastest solve found (30.65 s,
    /// any grade) passes every floor, and the championship record (54.44 s) does too.
    #[test]
    fn the_fastest_human_solves_on_record_are_never_too_fast() {
        let g = puzzle(&[]);
        for d in [
            Difficulty::Easy,
            Difficulty::Medium,
            Difficulty::Hard,
            Difficulty::Expert,
        ] {
            assert!(floor_ms(d) < 30_650, "{d:?}");
            assert!(flags(d, &g, Some(30_650), &[]).is_empty(), "{d:?}");
            assert!(flags(d, &g, Some(54_440), &[]).is_empty(), "{d:?}");
        }
    }

    #[test]
    fn an_even_rhythm_is_metronomic_and_a_human_one_is_not() {
        let cells: Vec<usize> = (0..30).collect();
        assert!(metronomic(&placed(&cells, |_| 1000)));
        assert!(metronomic(&placed(&cells, |k| 1000 + (k as u64 % 3) * 50)));
        // A human: quick runs and long looks.
        assert!(!metronomic(&placed(&cells, |k| [
            400, 2500, 900, 6000, 1200
        ][k % 5])));
        // Too few placements say nothing.
        assert!(!metronomic(&placed(&cells[..19], |_| 1000)));
    }

    #[test]
    fn singles_are_justified_and_a_guess_is_not() {
        // One empty cell: a naked single.
        let g = puzzle(&[0]);
        assert!(is_single(&g, Cell::new(0).expect("cell"), digit_at(0)));
        // The whole first row empty: each cell's column leaves it one candidate.
        let g = puzzle(&(0..9).collect::<Vec<_>>());
        assert!(is_single(&g, Cell::new(4).expect("cell"), digit_at(4)));
        // Cells 1..21 empty: cell 3 could hold 1 or 6, but 6 has nowhere else to go.
        let g = puzzle(&(1..21).collect::<Vec<_>>());
        assert_eq!(candidates(&g, Cell::new(3).expect("cell")).count_ones(), 2);
        assert!(is_single(&g, Cell::new(3).expect("cell"), digit_at(3)));
        // A nearly empty board: the first cell is not forced by the digits.
        let g = puzzle(&(0..60).collect::<Vec<_>>());
        assert!(!is_single(&g, Cell::new(0).expect("cell"), digit_at(0)));
    }

    /// The order of a program that fills cells whatever the board shows: at each step the
    /// first empty cell that is not a single, while there is one.
    fn blind_order(empty: &[usize]) -> Vec<usize> {
        let mut board = puzzle(empty);
        let mut left = empty.to_vec();
        let mut order = Vec::new();
        while !left.is_empty() {
            let cell = |i: usize| Cell::new(i as u8).expect("a cell");
            let k = left
                .iter()
                .position(|&i| !is_single(&board, cell(i), digit_at(i)))
                .unwrap_or(0);
            let i = left.remove(k);
            board.set(cell(i), Some(digit_at(i)));
            order.push(i);
        }
        order
    }

    #[test]
    fn a_blind_fill_is_unjustified_and_filling_singles_is_not() {
        let all: Vec<usize> = (0..81).collect();
        assert!(unjustified(
            &puzzle(&all),
            &placed(&blind_order(&all), |_| 700)
        ));
        // Every third cell empty: nearly every cell is a single in reading order.
        let some: Vec<usize> = (0..81).filter(|i| i % 3 == 0).collect();
        assert!(!unjustified(&puzzle(&some), &placed(&some, |_| 700)));
        // Too few placements say nothing.
        let few = &blind_order(&all)[..19];
        assert!(!unjustified(&puzzle(&all), &placed(few, |_| 700)));
    }

    /// The share of judged placements that were not singles, as [`unjustified`] counts it.
    fn share(puzzle: &Grid, accepted: &[Accepted]) -> f64 {
        let (judged, bad) = judge(puzzle, accepted);
        bad as f64 / judged.max(1) as f64
    }

    /// A human who takes a single whenever the board shows one, and otherwise (after a harder
    /// step on paper) the first empty cell; every `slip`-th placement, while singles are there,
    /// they take a cell that is not one instead (a deduction on pencil marks, a lucky guess).
    fn human(puzzle: &Grid, solution: &Grid, slip: usize) -> Vec<Accepted> {
        let mut board = *puzzle;
        let mut out = Vec::new();
        let mut t = 0;
        let empty = |b: &Grid| {
            Cell::all()
                .filter(|&c| b.get(c).is_none())
                .collect::<Vec<_>>()
        };
        loop {
            let cells = empty(&board);
            let single = |c: &Cell| solution.get(*c).is_some_and(|d| is_single(&board, *c, d));
            let pick = if (out.len() + 1) % slip == 0 {
                cells.iter().find(|c| !single(c))
            } else {
                cells.iter().find(|c| single(c))
            };
            let Some(&cell) = pick.or(cells.first()) else {
                return out;
            };
            let Some(digit) = solution.get(cell) else {
                return out;
            };
            t += 1500 + (t % 7) * 900;
            out.push(Accepted {
                at_ms: t,
                cell,
                digit,
            });
            board.set(cell, Some(digit));
        }
    }

    fn fill(g: &engine::generator::Generated, cells: impl Iterator<Item = Cell>) -> Vec<Accepted> {
        cells
            .filter(|&c| g.puzzle.get(c).is_none())
            .filter_map(|c| {
                Some(Accepted {
                    at_ms: 0,
                    cell: c,
                    digit: g.solution.get(c)?,
                })
            })
            .collect()
    }

    /// The threshold against generated puzzles of every difficulty: a program filling cells in
    /// a random order is always flagged, one filling in reading order nearly always, and a
    /// human who takes singles first is never flagged, even slipping every 15th placement.
    #[test]
    fn on_generated_puzzles_program_orders_are_flagged_and_a_human_order_is_not() {
        use rand::SeedableRng;
        let mut reading_flagged = 0;
        let mut shares = Vec::new();
        for difficulty in Difficulty::ALL {
            for seed in 0..10 {
                let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
                let g = engine::generator::generate(&mut rng, difficulty, true);
                let reading = fill(&g, Cell::all());
                let mut random = reading.clone();
                rand::seq::SliceRandom::shuffle(random.as_mut_slice(), &mut rng);
                let at = format!("{difficulty:?} seed {seed}");
                assert!(unjustified(&g.puzzle, &random), "random order, {at}");
                assert!(
                    !unjustified(&g.puzzle, &human(&g.puzzle, &g.solution, usize::MAX)),
                    "{at}"
                );
                assert!(
                    !unjustified(&g.puzzle, &human(&g.puzzle, &g.solution, 15)),
                    "slips, {at}"
                );
                reading_flagged += usize::from(unjustified(&g.puzzle, &reading));
                shares.push((share(&g.puzzle, &reading), share(&g.puzzle, &random)));
            }
        }
        println!("reading-order, random-order shares: {shares:.2?}");
        assert!(
            reading_flagged >= 36,
            "reading order flagged in {reading_flagged} of 40"
        );
    }

    /// A8: a seat's placements are on its own isomorph, so its flags are judged there: a
    /// human order on its own board is clean, and the same placements judged on the race's
    /// board would be flagged.
    #[test]
    fn a_seat_is_judged_on_its_own_isomorph() {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        let g = engine::generator::generate(&mut rng, Difficulty::Easy, true);
        let t = engine::transform::Transform::random(&mut rng);
        let (own, own_solution) = (t.apply(&g.puzzle), t.apply(&g.solution));
        let moves = human(&own, &own_solution, usize::MAX);
        let mut rec = RaceRecord {
            race_id: "iso".into(),
            room: "ABCD".into(),
            difficulty: "easy",
            puzzle: g.puzzle.to_line(),
            solution: g.solution.to_line(),
            started_unix_ms: 0,
            duration_ms: 600_000,
            reason: "all_done",
            rated: true,
            daily: None,
            ghost_of: None,
            standings: vec![protocol::Standing {
                rank: 1,
                player_id: "p1".into(),
                name: "ann".try_into().expect("a name"),
                status: protocol::FinishStatus::Solved,
                time_ms: moves.last().map(|m| m.at_ms),
                filled: moves.len() as u32,
                mistakes: 0,
                time_ms_raw: None,
                lag_ms: 0,
                puzzle: Some(own),
                solution: Some(own_solution),
                layout: protocol::variant::WireLayout::default(),
            }],
            seats: Vec::new(),
            placements: moves
                .iter()
                .map(|m| crate::store::PlacementRecord {
                    player_id: "p1".into(),
                    at_ms: m.at_ms,
                    cell: m.cell.get(),
                    digit: m.digit.get(),
                    outcome: "accepted",
                })
                .collect(),
        };
        assert_eq!(seat_flags(&rec, "p1"), Vec::<String>::new());
        // The same placements read against the race's board are not a human's.
        rec.standings[0].puzzle = None;
        assert_eq!(seat_flags(&rec, "p1"), ["unjustified"]);
    }
}
