//! The isomorphs a variant allows (A10), each race seat dealt one: the transforms that map a
//! puzzle of the variant to a puzzle of the same variant, drawn uniformly, and how many there
//! are.
//!
//! - classic: every transform (2 x 6^8 x 9!);
//! - x: the diagonals must land on the diagonals. A line order `p` (bands, then lines within
//!   them) that commutes with the reversal `i -> 8 - i` (24 of them) on the rows, with `p` or
//!   its reversal on the columns, either transposed or not (96 cell maps in all, the 8
//!   rotations and reflections among them); any relabelling;
//! - windoku: the windows must land on the windows: rows and columns each in an order that maps
//!   the window lines {1, 2, 3} and {5, 6, 7} onto themselves (as a pair), transposed or not;
//!   any relabelling;
//! - jigsaw and killer: the 8 rotations and reflections, the layout carried along
//!   ([`Transform::apply_geometry`]); a jigsaw takes any relabelling, a killer only the
//!   identity or the complement `d -> 10 - d` (its sums follow).
//!
//! Isomorphs that keep x's and windoku's geometry onto itself ([`Transform::keeps`]); those
//! of jigsaw and killer give each seat its own moved layout.

use std::sync::OnceLock;

use rand::seq::SliceRandom;
use rand::Rng;

use super::{line_order, Transform, COMPLEMENT, IDENTITY9};
use crate::geometry::Geometry;
use crate::variant::Variant;

/// 9!: the digit relabellings.
const RELABELLINGS: u64 = 362_880;

/// The lines reversed: `i -> 8 - i`.
const REVERSED: [u8; 9] = [8, 7, 6, 5, 4, 3, 2, 1, 0];

/// Every order of the nine lines that keeps the bands: 6 band orders x 6^3 line orders within.
fn all_line_orders() -> Vec<[u8; 9]> {
    const PERMS: [[u8; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut out = Vec::with_capacity(1296);
    for outer in PERMS {
        for a in PERMS {
            for b in PERMS {
                for c in PERMS {
                    out.push(line_order(outer, [a, b, c]));
                }
            }
        }
    }
    out
}

/// The line orders that commute with the reversal (x's rows).
fn x_lines() -> &'static [[u8; 9]] {
    static LINES: OnceLock<Vec<[u8; 9]>> = OnceLock::new();
    LINES.get_or_init(|| {
        all_line_orders()
            .into_iter()
            .filter(|p| (0..9).all(|i| p[8 - i] == 8 - p[i]))
            .collect()
    })
}

/// The line orders that map windoku's window lines {1, 2, 3} and {5, 6, 7} onto themselves.
fn windoku_lines() -> &'static [[u8; 9]] {
    static LINES: OnceLock<Vec<[u8; 9]>> = OnceLock::new();
    LINES.get_or_init(|| {
        let windows = [0b1110u16, 0b1110_0000];
        all_line_orders()
            .into_iter()
            .filter(|p| {
                windows.iter().all(|&w| {
                    let back = (0..9)
                        .filter(|&r| w & 1 << p[r] != 0)
                        .fold(0, |m, r| m | 1 << r);
                    windows.contains(&back)
                })
            })
            .collect()
    })
}

/// A uniformly random relabelling of the nine digits.
fn any_relabelling(rng: &mut impl Rng) -> [u8; 9] {
    let mut digits = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    digits.shuffle(rng);
    digits
}

/// One of the 8 rotations and reflections, uniformly, with `digits`.
fn dihedral(rng: &mut impl Rng, digits: [u8; 9]) -> Transform {
    let line = |rng: &mut _| if Rng::gen(rng) { REVERSED } else { IDENTITY9 };
    Transform {
        digits,
        rows: line(rng),
        cols: line(rng),
        transpose: rng.gen(),
    }
}

/// How a line order is drawn from a list.
fn pick(rng: &mut impl Rng, lines: &[[u8; 9]]) -> [u8; 9] {
    *lines
        .choose(rng)
        .expect("every variant allows the identity")
}

impl Transform {
    /// A transform drawn uniformly from those valid for `geometry`'s variant (see the module
    /// doc): [`Transform::apply`] it to the puzzle and [`Transform::apply_geometry`] to the
    /// geometry, and the seat has an equivalent puzzle of the same variant.
    pub fn for_geometry(rng: &mut impl Rng, geometry: &Geometry) -> Transform {
        match geometry.variant() {
            Variant::Classic => Transform::random(rng),
            Variant::X => {
                let rows = pick(rng, x_lines());
                let cols = if rng.gen() { rows } else { rows.map(|r| 8 - r) };
                let transpose = rng.gen();
                let digits = any_relabelling(rng);
                Transform {
                    digits,
                    rows,
                    cols,
                    transpose,
                }
            }
            Variant::Windoku => {
                let (rows, cols) = (pick(rng, windoku_lines()), pick(rng, windoku_lines()));
                let transpose = rng.gen();
                let digits = any_relabelling(rng);
                Transform {
                    digits,
                    rows,
                    cols,
                    transpose,
                }
            }
            Variant::Jigsaw => {
                let digits = any_relabelling(rng);
                dihedral(rng, digits)
            }
            Variant::Killer => {
                let digits = if rng.gen() {
                    COMPLEMENT
                } else {
                    Transform::identity().digits
                };
                dihedral(rng, digits)
            }
        }
    }
}

/// How many isomorphs a race can deal of a `variant` puzzle: the transforms
/// [`Transform::for_geometry`] draws from (each a different puzzle, unless the puzzle happens
/// to have a symmetry of its own).
pub fn isomorph_count(variant: Variant) -> u64 {
    let n = |lines: &[[u8; 9]]| lines.len() as u64;
    match variant {
        Variant::Classic => 2 * 1296 * 1296 * RELABELLINGS,
        Variant::X => n(x_lines()) * 2 * 2 * RELABELLINGS,
        Variant::Windoku => n(windoku_lines()).pow(2) * 2 * RELABELLINGS,
        Variant::Jigsaw => 8 * RELABELLINGS,
        Variant::Killer => 8 * 2,
    }
}

/// Every line order, x's and windoku's.
#[cfg(test)]
type Lines = (Vec<[u8; 9]>, &'static [[u8; 9]], &'static [[u8; 9]]);

#[cfg(test)]
pub(super) fn lines_for_tests() -> Lines {
    (all_line_orders(), x_lines(), windoku_lines())
}
