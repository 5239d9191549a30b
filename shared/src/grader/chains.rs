//! Chains: X-chains (one digit), XY-chains (bivalue cells) and alternating inference chains
//! (any candidates). Each search is a breadth-first search of implications from one assumed-false
//! candidate: a strong link takes "false" to "true", a weak link takes "true" to "false". When a
//! candidate `B` is reached as true from `A` assumed false, `A` or `B` holds, and every candidate
//! that sees both goes; reaching `A` itself as true places it. Breadth-first, the chains found
//! are the shortest from their start.

use super::combos::pop9;
use super::state::{bit, cell, digit, is_two, Bits, Digits, State, Tables, MAX_CELL_UNITS};
use super::step::Step;

/// For digit `d`: each cell's conjugate partners (the other place of `d` in a unit where `d`
/// has two places), and the cells with any partner.
fn strong_links(t: &impl Tables, s: &State, d: usize, partner: &mut [u128; 81]) -> u128 {
    let p = s.pos[d];
    let mut linked = 0u128;
    for &u in t.units() {
        let m = p & u;
        if is_two(m) {
            let a = m.trailing_zeros() as usize;
            let b = (m & (m - 1)).trailing_zeros() as usize;
            partner[a] |= bit(b);
            partner[b] |= bit(a);
            linked |= m;
        }
    }
    linked
}

/// The first X-chain that removes or places something: digits in order, start cells in order.
pub(crate) fn x_chain(t: &impl Tables, s: &State, step: &mut Step, clean: &mut u32) -> bool {
    let mut partner = [0u128; 81];
    let mut queue = [(0u8, false); 2 * 81];
    for d in 0..9 {
        if *clean & (1 << d) != 0 {
            continue;
        }
        let p = s.pos[d];
        partner.fill(0);
        let linked = strong_links(t, s, d, &mut partner);
        for start in Bits(linked) {
            let mut vis = [bit(start), 0u128]; // [off, on]
            let mut pred = [[0u8; 81]; 2];
            let (mut head, mut tail) = (0, 1);
            queue[0] = (start as u8, false);
            while head < tail {
                let (c, on) = queue[head];
                head += 1;
                let c = c as usize;
                let next = if on {
                    p & t.peers(c) & !vis[0]
                } else {
                    partner[c] & !vis[1]
                };
                let side = usize::from(!on);
                vis[side] |= next;
                for v in Bits(next) {
                    pred[side][v] = c as u8;
                    queue[tail] = (v as u8, !on);
                    tail += 1;
                    if on {
                        continue;
                    }
                    // `v` is true if `start` is false.
                    let (place, elim) = if v == start {
                        (true, 0)
                    } else {
                        (false, p & t.peers(start) & t.peers(v))
                    };
                    if place || elim != 0 {
                        let mut cur = (v, true);
                        loop {
                            step.cells.push(cell(cur.0));
                            if cur.0 == start && !cur.1 {
                                break;
                            }
                            cur = (pred[usize::from(cur.1)][cur.0] as usize, !cur.1);
                        }
                        step.cells.reverse();
                        step.digits.push(digit(d));
                        if place {
                            step.placements.push((cell(start), digit(d)));
                        }
                        step.eliminate_all(elim, d);
                        return true;
                    }
                }
            }
        }
        *clean |= 1 << d;
    }
    false
}

/// The first XY-chain that removes or places something: start cells in order, then the digit
/// assumed false in the start cell.
pub(crate) fn xy_chain(t: &impl Tables, s: &State, step: &mut Step) -> bool {
    let bivalue = s.bivalue_cells();
    let mut queue = [(0u8, 0u8); 2 * 81];
    let mut pred = [0u16; 81 * 9];
    for start in Bits(bivalue) {
        for z in Digits(s.cand[start]) {
            let y = (s.cand[start] & !(1 << z)).trailing_zeros() as usize;
            // State (c, v): cell c holds v, if `start` does not hold z.
            let mut vis = [0u128; 9];
            vis[y] |= bit(start);
            queue[0] = (start as u8, y as u8);
            let (mut head, mut tail) = (0, 1);
            while head < tail {
                let (c, v) = queue[head];
                head += 1;
                let (c, v) = (c as usize, v as usize);
                for q in Bits(bivalue & t.peers(c) & s.pos[v]) {
                    let w = (s.cand[q] & !(1 << v)).trailing_zeros() as usize;
                    if vis[w] & bit(q) != 0 {
                        continue;
                    }
                    vis[w] |= bit(q);
                    pred[q * 9 + w] = (c * 9 + v) as u16;
                    queue[tail] = (q as u8, w as u8);
                    tail += 1;
                    if w != z {
                        continue;
                    }
                    let (place, elim) = if q == start {
                        (true, 0)
                    } else {
                        (false, s.pos[z] & t.peers(start) & t.peers(q))
                    };
                    if place || elim != 0 {
                        let mut node = q * 9 + w;
                        loop {
                            step.cells.push(cell(node / 9));
                            if node == start * 9 + y {
                                break;
                            }
                            node = pred[node] as usize;
                        }
                        step.cells.reverse();
                        step.digits.push(digit(z));
                        if place {
                            step.placements.push((cell(start), digit(z)));
                        }
                        step.eliminate_all(elim, z);
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// The first alternating inference chain that removes or places something. Strong links:
/// bivalue cells and conjugate pairs; weak links: two candidates of one cell, or one digit in
/// two cells that see each other.
pub(crate) fn aic(t: &impl Tables, s: &State, step: &mut Step) -> bool {
    // Node = cell * 9 + digit; queue entries carry the side (false = off, true = on).
    let mut queue = [(0u16, false); 2 * 81 * 9];
    let mut pred = [[0u16; 81 * 9]; 2];
    for sc in Bits(s.unsolved) {
        let bivalue = pop9(s.cand[sc]) == 2;
        for a in Digits(s.cand[sc]) {
            // A chain starts with a strong link.
            let linked = bivalue
                || t.cell_units(sc)
                    .iter()
                    .any(|&u| is_two(s.pos[a] & t.units()[usize::from(u)]));
            if !linked {
                continue;
            }
            let start = sc * 9 + a;
            let mut vis = [[0u128; 9], [0u128; 9]]; // [off, on][digit]
            vis[0][a] |= bit(sc);
            queue[0] = (start as u16, false);
            let (mut head, mut tail) = (0, 1);
            while head < tail {
                let (node, on) = queue[head];
                head += 1;
                let (c, d) = (node as usize / 9, node as usize % 9);
                if on {
                    // Weak links to "off": other digits of the cell, the digit in peers.
                    for e in Digits(s.cand[c] & !(1 << d)) {
                        if vis[0][e] & bit(c) == 0 {
                            vis[0][e] |= bit(c);
                            pred[0][c * 9 + e] = node;
                            queue[tail] = ((c * 9 + e) as u16, false);
                            tail += 1;
                        }
                    }
                    let next = s.pos[d] & t.peers(c) & !vis[0][d];
                    vis[0][d] |= next;
                    for q in Bits(next) {
                        pred[0][q * 9 + d] = node;
                        queue[tail] = ((q * 9 + d) as u16, false);
                        tail += 1;
                    }
                    continue;
                }
                // Strong links to "on": the other digit of a bivalue cell, conjugate partners.
                let (targets, k) = strong_links_of(t, s, c, d);
                for &(v, e) in &targets[..k] {
                    let (v, e) = (usize::from(v), usize::from(e));
                    if vis[1][e] & bit(v) != 0 {
                        continue;
                    }
                    vis[1][e] |= bit(v);
                    pred[1][v * 9 + e] = node;
                    queue[tail] = ((v * 9 + e) as u16, true);
                    tail += 1;
                    // (v, e) is true if (sc, a) is false: one of them holds.
                    if record_aic(t, s, step, (sc, a), (v, e)) {
                        push_chain(step, &pred, v * 9 + e, start);
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// The strong links from "(c, d) is off" to "on": the other digit of a bivalue cell, and the
/// digit's conjugate partner in each unit of `c` where it has only two places.
fn strong_links_of(
    t: &impl Tables,
    s: &State,
    c: usize,
    d: usize,
) -> ([(u8, u8); MAX_CELL_UNITS + 1], usize) {
    let mut targets = [(0u8, 0u8); MAX_CELL_UNITS + 1];
    let mut k = 0;
    if pop9(s.cand[c]) == 2 {
        targets[k] = (c as u8, (s.cand[c] & !(1 << d)).trailing_zeros() as u8);
        k += 1;
    }
    for &u in t.cell_units(c) {
        let m = s.pos[d] & t.units()[usize::from(u)];
        if is_two(m) {
            targets[k] = ((m & !bit(c)).trailing_zeros() as u8, d as u8);
            k += 1;
        }
    }
    (targets, k)
}

/// Record the chain from its start ("`start` off") to its end ("`end` on") in `step`, walking
/// the predecessors back and then turning the list around.
fn push_chain(step: &mut Step, pred: &[[u16; 81 * 9]; 2], end: usize, start: usize) {
    let mut cur = (end, true);
    loop {
        step.cells.push(cell(cur.0 / 9));
        step.digits.push(digit(cur.0 % 9));
        if cur.0 == start && !cur.1 {
            break;
        }
        cur = (pred[usize::from(cur.1)][cur.0] as usize, !cur.1);
    }
    step.cells.reverse();
    step.digits.reverse();
}

/// Record what follows from "`(sc, a)` or `(v, e)` holds"; whether that is anything.
fn record_aic(
    t: &impl Tables,
    s: &State,
    step: &mut Step,
    (sc, a): (usize, usize),
    (v, e): (usize, usize),
) -> bool {
    if (sc, a) == (v, e) {
        step.placements.push((cell(sc), digit(a)));
        return true;
    }
    if e == a {
        step.eliminate_all(s.pos[a] & t.peers(sc) & t.peers(v), a);
    } else if v == sc {
        for x in Digits(s.cand[sc] & !(1 << a) & !(1 << e)) {
            step.eliminations.push((cell(sc), digit(x)));
        }
    } else if t.peers(sc) & bit(v) != 0 {
        if s.cand[sc] & (1 << e) != 0 {
            step.eliminations.push((cell(sc), digit(e)));
        }
        if s.cand[v] & (1 << a) != 0 {
            step.eliminations.push((cell(v), digit(a)));
        }
    }
    !step.eliminations.is_empty()
}

#[cfg(test)]
mod tests {
    use super::super::testing::check_step;
    use super::super::Technique;

    // Each puzzle is the one of the shared sets (qqwing, top1465) that needs the fewest
    // steps above singles while using the technique.

    #[test]
    fn x_chain() {
        check_step(
            "......8...7..9..1...3..7..51..6......5..2..4...8..9..74.....2...6..1..5......6..3",
            Technique::XChain,
            "x-chain: 1 in r3c2=r3c4-r1c6=r5c6-r5c9=r7c9 => r7c2 <> 1",
        );
    }

    #[test]
    fn xy_chain() {
        check_step(
            ".2..9.....74..6..39..784..5.......3...6..34.....457...4..2......32..9.....8..57..",
            Technique::XYChain,
            "xy-chain: 8 in r2c7,r4c7,r3c7,r3c8,r8c8 => r2c8 <> 8",
        );
    }

    #[test]
    fn aic() {
        check_step(
            ".2...3..48..7..39...7....61..3.7...8..6..213.5.........4.8....6..8.1..2..5...9...",
            Technique::Aic,
            "aic: r1c3(5)=r2c3(5)-r2c3(4)=r6c3(4)-r6c8(4)=r6c8(7)-r1c8(7)=r1c7(7) => r1c7 <> 5",
        );
    }
}
