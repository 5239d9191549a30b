//! Single-digit patterns built from strong links (a unit where a digit has exactly two places):
//! Skyscraper, 2-String Kite and simple colouring.

use super::state::{bit, is_two, Bits, State, Tables, UNIT_BB};
use super::step::Step;

/// The two cells of a bitboard holding exactly two.
#[inline]
fn two(m: u128) -> (usize, usize) {
    (
        m.trailing_zeros() as usize,
        (m & (m - 1)).trailing_zeros() as usize,
    )
}

/// Strong links of digit `d` in units `units` (indices into `UNIT_BB`), as cell pairs.
fn links(
    s: &State,
    d: usize,
    units: std::ops::Range<usize>,
    out: &mut [(usize, usize); 9],
) -> usize {
    let mut k = 0;
    for u in units {
        let m = s.pos[d] & UNIT_BB[u];
        if is_two(m) {
            out[k] = two(m);
            k += 1;
        }
    }
    k
}

/// Record a two-link step: links `(a1, a2)`, `(b1, b2)` joined at `a1`/`b1`.
fn record(step: &mut Step, d: usize, chain: [usize; 4], elim: u128) {
    step.cells.extend(chain.map(super::state::cell));
    step.add_digits(1 << d);
    step.eliminate_all(elim, d);
}

/// Links `a` and `b` of digit `d`, each tried both ways round: the first orientation whose ends
/// pass `joined(a1, a2, b1, b2)` (`a1`/`b1` the joined ends, `a2`/`b2` the free ends) and whose
/// free ends both see a cell holding the candidate removes it there.
fn join_links(
    t: &impl Tables,
    s: &State,
    step: &mut Step,
    d: usize,
    a: (usize, usize),
    b: (usize, usize),
    joined: impl Fn(usize, usize, usize, usize) -> bool,
) -> bool {
    for (a1, a2) in [(a.0, a.1), (a.1, a.0)] {
        for (b1, b2) in [(b.0, b.1), (b.1, b.0)] {
            if !joined(a1, a2, b1, b2) {
                continue;
            }
            let elim = s.pos[d] & t.peers(a2) & t.peers(b2);
            if elim != 0 {
                record(step, d, [a2, a1, b1, b2], elim);
                return true;
            }
        }
    }
    false
}

/// The first Skyscraper that removes something: two row (or column) strong links whose ends meet
/// in one column (row); the digit leaves every cell seeing both other ends.
pub(crate) fn skyscraper(t: &impl Tables, s: &State, step: &mut Step, clean: &mut u32) -> bool {
    let mut ls = [(0, 0); 9];
    for d in 0..9 {
        if *clean & (1 << d) != 0 {
            continue;
        }
        for (units, cross) in [(0..9, 9usize), (9..18, 0usize)] {
            let k = links(s, d, units, &mut ls);
            for i in 0..k {
                for j in i + 1..k {
                    // Joined ends share the cross line; free ends must not.
                    let line = |c: usize| if cross == 9 { c % 9 } else { c / 9 };
                    let joined = |a1, a2, b1, b2| line(a1) == line(b1) && line(a2) != line(b2);
                    if join_links(t, s, step, d, ls[i], ls[j], joined) {
                        return true;
                    }
                }
            }
        }
        *clean |= 1 << d;
    }
    false
}

/// The first 2-String Kite that removes something: a row strong link and a column strong link
/// with one end each in the same box; the digit leaves every cell seeing both other ends.
pub(crate) fn two_string_kite(
    t: &impl Tables,
    s: &State,
    step: &mut Step,
    clean: &mut u32,
) -> bool {
    let mut rows = [(0, 0); 9];
    let mut cols = [(0, 0); 9];
    for d in 0..9 {
        if *clean & (1 << d) != 0 {
            continue;
        }
        let kr = links(s, d, 0..9, &mut rows);
        let kc = links(s, d, 9..18, &mut cols);
        for &r in &rows[..kr] {
            for &c in &cols[..kc] {
                // Joined in a box, four distinct cells.
                let joined = |a1: usize, a2: usize, b1: usize, b2: usize| {
                    t.same_block(a1, b1) && a1 != b1 && a1 != b2 && a2 != b1 && a2 != b2
                };
                if join_links(t, s, step, d, r, c, joined) {
                    return true;
                }
            }
        }
        *clean |= 1 << d;
    }
    false
}

/// The first simple-colouring step: for each digit, the strong links are two-coloured per
/// connected cluster. Colour wrap: two cells of one colour see each other, so that colour is
/// false everywhere. Colour trap: a cell seeing both colours loses the digit.
pub(crate) fn simple_colouring(
    t: &impl Tables,
    s: &State,
    step: &mut Step,
    clean: &mut u32,
) -> bool {
    for d in 0..9 {
        if *clean & (1 << d) != 0 {
            continue;
        }
        let p = s.pos[d];
        // Conjugate partners of each cell.
        let mut partner = [0u128; 81];
        let mut linked = 0u128;
        for &u in t.units() {
            let m = p & u;
            if is_two(m) {
                let (a, b) = two(m);
                partner[a] |= bit(b);
                partner[b] |= bit(a);
                linked |= m;
            }
        }
        let mut done = 0u128;
        for start in Bits(linked) {
            if done & bit(start) != 0 {
                continue;
            }
            // Two-colour the cluster of `start` by BFS over whole frontiers.
            let mut colour = [bit(start), 0u128];
            let mut frontier = bit(start);
            let mut side = 0;
            while frontier != 0 {
                let next_side = 1 - side;
                let mut next = 0u128;
                for c in Bits(frontier) {
                    next |= partner[c];
                }
                next &= !(colour[0] | colour[1]);
                colour[next_side] |= next;
                frontier = next;
                side = next_side;
            }
            let cluster = colour[0] | colour[1];
            done |= cluster;
            if cluster.count_ones() < 3 {
                continue;
            }
            let mut sees = [0u128; 2];
            for (k, &col) in colour.iter().enumerate() {
                for c in Bits(col) {
                    sees[k] |= t.peers(c);
                }
            }
            // Colour wrap.
            for k in 0..2 {
                if colour[k] & sees[k] != 0 {
                    step.add_cells(cluster);
                    step.add_digits(1 << d);
                    step.eliminate_all(colour[k], d);
                    return true;
                }
            }
            // Colour trap.
            let elim = p & sees[0] & sees[1] & !cluster;
            if elim != 0 {
                step.add_cells(cluster);
                step.add_digits(1 << d);
                step.eliminate_all(elim, d);
                return true;
            }
        }
        *clean |= 1 << d;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::testing::check_step;
    use super::super::Technique;

    // Each puzzle is the one of the shared sets (qqwing, top1465) that needs the fewest
    // steps above singles while using the technique.

    #[test]
    fn skyscraper() {
        check_step(
            "..7.5.......2.3.....26..5.3..17.4.2.....65..76.4........69.2.1.....3...4..547.2..",
            Technique::Skyscraper,
            "skyscraper: 8 in r8c3,r2c3,r2c9,r9c9 => r8c7 <> 8, r8c8 <> 8, r9c1 <> 8, r9c2 <> 8",
        );
    }

    #[test]
    fn two_string_kite() {
        check_step(
            "5..2..3......8..9...2..4..66..1..9...1.....4...7..3..87..3..4...9..7..2...5..6..9",
            Technique::TwoStringKite,
            "2-string kite: 9 in r3c4,r3c1,r1c3,r5c3 => r5c4 <> 9",
        );
    }

    #[test]
    fn simple_colouring() {
        check_step(
            "..4.2...5.7...1..615..68.79..917.2.....4.9...51...........52...8..........7...9..",
            Technique::SimpleColouring,
            "simple colouring: 3 in r2c3,r2c7,r4c9,r5c5,r5c8,r6c3,r6c5,r9c9 => r1c8 <> 3, r7c7 <> 3, r8c7 <> 3",
        );
    }
}
