//! Wings: XY-Wing (bivalue pivot xy, pincers xz and yz: z leaves every cell seeing both
//! pincers), XYZ-Wing (pivot xyz, pincers xz and yz: z leaves every cell seeing all three) and
//! W-Wing (two bivalue cells xy joined by a strong link on x: y leaves every cell seeing both).

use super::combos::pop9;
use super::state::{bit, cell, is_two, Bits, State, Tables, MAX_UNITS};
use super::Step;

/// The first XY-Wing that removes something, pivots in cell order; cells: pivot, pincers.
pub(crate) fn xy_wing(t: &impl Tables, s: &State, step: &mut Step) -> bool {
    let bivalue = s.bivalue_cells();
    for p in Bits(bivalue) {
        let pm = s.cand[p];
        let wings = bivalue & t.peers(p);
        for a in Bits(wings) {
            let am = s.cand[a];
            let shared = am & pm;
            if shared == 0 || shared & (shared - 1) != 0 {
                continue;
            }
            let z = am & !shared;
            let want = (pm & !shared) | z;
            for b in Bits(wings & !bit(a)) {
                if s.cand[b] != want {
                    continue;
                }
                let zd = z.trailing_zeros() as usize;
                let elim = s.pos[zd] & t.peers(a) & t.peers(b);
                if elim != 0 {
                    step.cells.extend([p, a, b].map(cell));
                    step.add_digits(pm | z);
                    step.eliminate_all(elim, zd);
                    return true;
                }
            }
        }
    }
    false
}

/// The first XYZ-Wing that removes something, pivots in cell order; cells: pivot, pincers.
pub(crate) fn xyz_wing(t: &impl Tables, s: &State, step: &mut Step) -> bool {
    let bivalue = s.bivalue_cells();
    for p in Bits(s.unsolved) {
        let pm = s.cand[p];
        if pop9(pm) != 3 {
            continue;
        }
        let wings = bivalue & t.peers(p);
        for a in Bits(wings) {
            let am = s.cand[a];
            if am & !pm != 0 {
                continue;
            }
            for b in Bits(wings & !bit(a)) {
                let bm = s.cand[b];
                if bm & !pm != 0 || bm == am || b < a {
                    continue;
                }
                let zd = (am & bm).trailing_zeros() as usize;
                let elim = s.pos[zd] & t.peers(p) & t.peers(a) & t.peers(b);
                if elim != 0 {
                    step.cells.extend([p, a, b].map(cell));
                    step.add_digits(pm);
                    step.eliminate_all(elim, zd);
                    return true;
                }
            }
        }
    }
    false
}

/// The first W-Wing that removes something; cells: one wing, the strong link, the other wing.
pub(crate) fn w_wing(t: &impl Tables, s: &State, step: &mut Step) -> bool {
    let bivalue = s.bivalue_cells();
    // Each digit's strong links (their two cells), listed when first needed.
    let mut links = [[(0u8, 0u8); MAX_UNITS]; 9];
    let mut n_links = [0usize; 9];
    let mut listed = 0u16;
    for a in Bits(bivalue) {
        let m = s.cand[a];
        for b in Bits(bivalue & !t.peers(a) & !((bit(a) << 1) - 1)) {
            if s.cand[b] != m {
                continue;
            }
            let ends = bit(a) | bit(b);
            for x in Bits(m as u128) {
                let y = (m & !(1 << x)).trailing_zeros() as usize;
                let elim = s.pos[y] & t.peers(a) & t.peers(b);
                if elim == 0 {
                    continue;
                }
                if listed & (1 << x) == 0 {
                    listed |= 1 << x;
                    for &u in t.units() {
                        let link = s.pos[x] & u;
                        if is_two(link) {
                            let l1 = link.trailing_zeros() as u8;
                            let l2 = (link & (link - 1)).trailing_zeros() as u8;
                            links[x][n_links[x]] = (l1, l2);
                            n_links[x] += 1;
                        }
                    }
                }
                for &(l1, l2) in &links[x][..n_links[x]] {
                    let (l1, l2) = (usize::from(l1), usize::from(l2));
                    if (bit(l1) | bit(l2)) & ends != 0 {
                        continue;
                    }
                    // The link's end that sees `a`, then the one that sees `b`.
                    let sees = |x: usize, y: usize| t.peers(x) & bit(y) != 0;
                    let joined = if sees(a, l1) && sees(b, l2) {
                        Some((l1, l2))
                    } else if sees(a, l2) && sees(b, l1) {
                        Some((l2, l1))
                    } else {
                        None
                    };
                    if let Some((la, lb)) = joined {
                        step.cells.extend([a, la, lb, b].map(cell));
                        step.add_digits(m);
                        step.eliminate_all(elim, y);
                        return true;
                    }
                }
            }
        }
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
    fn xy_wing() {
        check_step(
            "..9....5..2...8.........19.3...72..1.4185..72....4.9........4.92.7....8..5.1.....",
            Technique::XYWing,
            "xy-wing: 4,5,7 in r1c4,r3c6,r7c4 => r2c4 <> 5, r7c6 <> 5",
        );
    }

    #[test]
    fn xyz_wing() {
        check_step(
            "2.3.17...1.....43.85.2..........13.5....25.8.....4..1...47..52............1...6.7",
            Technique::XYZWing,
            "xyz-wing: 3,5,7 in r6c1,r6c2,r9c1 => r5c1 <> 3",
        );
    }

    #[test]
    fn w_wing() {
        check_step(
            ".83....9...9..7.63...5....2..81..7...31..92.............2....8.6..8.......721....",
            Technique::WWing,
            "w-wing: 5,6 in r4c2,r6c3,r6c7,r7c7 => r7c2 <> 5",
        );
    }
}
