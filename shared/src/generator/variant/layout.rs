//! Fresh layouts for the variants that bring one (A10): a jigsaw's nine regions and a killer's
//! cages. Both are drawn anew for every puzzle, so a race's layout is as fresh as its grid.
//!
//! - Regions start as the boxes and trade cells: a cell of one region on its border with a
//!   neighbouring region swaps places with a cell of that region on the same border, kept when
//!   both regions stay orthogonally connected. Sizes never change, so every layout is nine
//!   connected regions of nine; whether it has a solution is the caller's to find out.
//! - Cages grow over a solution from cells in random order: each takes a size (mostly 2 to 4,
//!   sometimes 1 or 5) and adds random orthogonal neighbours whose digits it lacks; a lone
//!   cell then joins a neighbouring cage that can take it, where one can. Sums come from the
//!   solution, so it meets the cages.

use rand::seq::SliceRandom;
use rand::Rng;

use crate::grid::{Cell, Grid, N_CELLS};

/// How many cell trades a jigsaw layout is given (most are refused; about a third are kept).
const TRADES: usize = 400;

/// The orthogonal neighbours of cell `i`.
fn neighbours(i: usize) -> impl Iterator<Item = usize> {
    let (r, c) = (i / 9, i % 9);
    [
        (r > 0).then(|| i - 9),
        (r < 8).then(|| i + 9),
        (c > 0).then(|| i - 1),
        (c < 8).then(|| i + 1),
    ]
    .into_iter()
    .flatten()
}

/// Whether the cells of `region` in `labels` are orthogonally connected.
fn connected(labels: &[u8; N_CELLS], region: u8) -> bool {
    let members: u128 = (0..N_CELLS)
        .filter(|&i| labels[i] == region)
        .fold(0, |bb, i| bb | 1 << i);
    let Some(first) = (members != 0).then(|| members.trailing_zeros() as usize) else {
        return true;
    };
    let (mut seen, mut todo) = (1u128 << first, vec![first]);
    while let Some(i) = todo.pop() {
        for n in neighbours(i) {
            if members & 1 << n != 0 && seen & 1 << n == 0 {
                seen |= 1 << n;
                todo.push(n);
            }
        }
    }
    seen == members
}

/// A random jigsaw layout: each cell's region, 81 characters `0`..`8` (see the module doc).
pub(super) fn random_regions(rng: &mut impl Rng) -> String {
    let mut labels: [u8; N_CELLS] = std::array::from_fn(|i| ((i / 27) * 3 + (i % 9) / 3) as u8);
    for _ in 0..TRADES {
        let a = rng.gen_range(0..N_CELLS);
        let (ra, others): (u8, Vec<u8>) = (
            labels[a],
            neighbours(a)
                .map(|n| labels[n])
                .filter(|&l| l != labels[a])
                .collect(),
        );
        let Some(&rb) = others.choose(rng) else {
            continue;
        };
        // A cell of the other region that touches `a`'s region too.
        let border: Vec<usize> = (0..N_CELLS)
            .filter(|&b| labels[b] == rb && neighbours(b).any(|n| labels[n] == ra && n != a))
            .collect();
        let Some(&b) = border.choose(rng) else {
            continue;
        };
        labels[a] = rb;
        labels[b] = ra;
        if !(connected(&labels, ra) && connected(&labels, rb)) {
            labels[a] = ra;
            labels[b] = rb;
        }
    }
    labels.iter().map(|&l| char::from(b'0' + l)).collect()
}

/// A cage size: 1 to 5, mostly 2 to 4.
fn cage_size(rng: &mut impl Rng) -> usize {
    match rng.gen_range(0..20) {
        0 => 1,
        1..=6 => 2,
        7..=13 => 3,
        14..=17 => 4,
        _ => 5,
    }
}

/// Random cages over `solution` (see the module doc): cells and sum each, every cell in one.
pub(super) fn random_cages(rng: &mut impl Rng, solution: &Grid) -> Vec<(Vec<Cell>, u8)> {
    let digit = |i: usize| 1u16 << solution.as_bytes()[i];
    let mut owner = [usize::MAX; N_CELLS];
    let mut cages: Vec<Vec<usize>> = Vec::new();
    let mut order: Vec<usize> = (0..N_CELLS).collect();
    order.shuffle(rng);
    for start in order {
        if owner[start] != usize::MAX {
            continue;
        }
        let (id, size) = (cages.len(), cage_size(rng));
        let (mut cage, mut held) = (vec![start], digit(start));
        owner[start] = id;
        while cage.len() < size {
            let frontier: Vec<usize> = cage
                .iter()
                .flat_map(|&c| neighbours(c))
                .filter(|&n| owner[n] == usize::MAX && held & digit(n) == 0)
                .collect();
            let Some(&next) = frontier.choose(rng) else {
                break;
            };
            owner[next] = id;
            held |= digit(next);
            cage.push(next);
        }
        cages.push(cage);
    }
    join_lone_cells(rng, &mut cages, &mut owner, digit);
    cages
        .into_iter()
        .filter(|cage| !cage.is_empty())
        .map(|cage| {
            let sum = cage.iter().map(|&i| solution.as_bytes()[i]).sum();
            let cells = cage
                .iter()
                .map(|&i| Cell::new(i as u8).expect("cells are below 81"))
                .collect();
            (cells, sum)
        })
        .collect()
}

/// Each one-cell cage joins a random neighbouring cage of at most four cells without its
/// digit, when it has one (the emptied cage is left empty for the caller to drop).
fn join_lone_cells(
    rng: &mut impl Rng,
    cages: &mut [Vec<usize>],
    owner: &mut [usize; N_CELLS],
    digit: impl Fn(usize) -> u16,
) {
    for id in 0..cages.len() {
        if cages[id].len() != 1 {
            continue;
        }
        let cell = cages[id][0];
        let takers: Vec<usize> = neighbours(cell)
            .map(|n| owner[n])
            .filter(|&o| o != id && cages[o].len() <= 4)
            .filter(|&o| cages[o].iter().all(|&c| digit(c) != digit(cell)))
            .collect();
        if let Some(&to) = takers.choose(rng) {
            cages[id].clear();
            cages[to].push(cell);
            owner[cell] = to;
        }
    }
}
