//! Validity-preserving transforms: relabel the digits, permute the rows within a band, the bands,
//! the columns within a stack and the stacks, and transpose. Each maps a puzzle to an equivalent
//! one with the same number of solutions and the same grade, so one graded puzzle can be dealt
//! many times looking fresh.
//!
//! A transform keeps a [`Geometry`] when it maps every house to a house and every other
//! constraint to one alike ([`Transform::keeps`]): classic Sudoku keeps all of them, a variant
//! only some (a killer cage's sum does not survive relabelling the digits).
//! [`Transform::random_keeping`] draws one for a geometry.

use rand::seq::SliceRandom;
use rand::Rng;

use super::geometry::Geometry;
use super::grid::{Cell, Grid, N_CELLS};

/// A transform: `apply` first transposes (when asked), then takes output row `r` from input row
/// `rows[r]` and output column `c` from input column `cols[c]`, then relabels digit `d` as
/// `digits[d - 1]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Transform {
    digits: [u8; 9],
    rows: [u8; 9],
    cols: [u8; 9],
    transpose: bool,
}

/// Arguments that do not describe a validity-preserving transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TransformError {
    /// The digit map is not a permutation of 1..=9.
    #[error("the digit map is not a permutation of 1..=9")]
    Digits,
    /// A permutation of three (bands, stacks, lines within one) is not a permutation of 0..3.
    #[error("{0} is not a permutation of 0, 1, 2")]
    Perm(&'static str),
}

const IDENTITY9: [u8; 9] = [0, 1, 2, 3, 4, 5, 6, 7, 8];

/// Row (or column) order from a band (stack) permutation and one permutation per band (stack).
fn line_order(outer: [u8; 3], inner: [[u8; 3]; 3]) -> [u8; 9] {
    let mut order = [0u8; 9];
    for (k, slot) in order.iter_mut().enumerate() {
        let band = outer[k / 3];
        *slot = band * 3 + inner[k / 3][k % 3];
    }
    order
}

fn is_perm3(p: [u8; 3]) -> bool {
    let mut sorted = p;
    sorted.sort_unstable();
    sorted == [0, 1, 2]
}

impl Transform {
    /// The transform that changes nothing.
    pub const fn identity() -> Transform {
        Transform {
            digits: [1, 2, 3, 4, 5, 6, 7, 8, 9],
            rows: IDENTITY9,
            cols: IDENTITY9,
            transpose: false,
        }
    }

    /// A transform from its parts: `digits[d - 1]` is the new label of digit `d`; output band `k`
    /// is input band `bands[k]` and its row `j` is that band's row `rows_in_band[k][j]` (likewise
    /// for stacks and columns); `transpose` is applied first.
    pub fn new(
        digits: [u8; 9],
        bands: [u8; 3],
        rows_in_band: [[u8; 3]; 3],
        stacks: [u8; 3],
        cols_in_stack: [[u8; 3]; 3],
        transpose: bool,
    ) -> Result<Transform, TransformError> {
        let mut sorted = digits;
        sorted.sort_unstable();
        if sorted != [1, 2, 3, 4, 5, 6, 7, 8, 9] {
            return Err(TransformError::Digits);
        }
        if !is_perm3(bands) {
            return Err(TransformError::Perm("bands"));
        }
        if !is_perm3(stacks) {
            return Err(TransformError::Perm("stacks"));
        }
        if !rows_in_band.iter().all(|&p| is_perm3(p)) {
            return Err(TransformError::Perm("rows in a band"));
        }
        if !cols_in_stack.iter().all(|&p| is_perm3(p)) {
            return Err(TransformError::Perm("columns in a stack"));
        }
        Ok(Transform {
            digits,
            rows: line_order(bands, rows_in_band),
            cols: line_order(stacks, cols_in_stack),
            transpose,
        })
    }

    /// A uniformly random transform among the 9! x 6^8 x 2 of them.
    pub fn random(rng: &mut impl Rng) -> Transform {
        let mut digits = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        digits.shuffle(rng);
        let perm3 = |rng: &mut _| {
            let mut p = [0u8, 1, 2];
            p.shuffle(rng);
            p
        };
        let bands = perm3(rng);
        let rows_in_band = [perm3(rng), perm3(rng), perm3(rng)];
        let stacks = perm3(rng);
        let cols_in_stack = [perm3(rng), perm3(rng), perm3(rng)];
        Transform {
            digits,
            rows: line_order(bands, rows_in_band),
            cols: line_order(stacks, cols_in_stack),
            transpose: rng.gen(),
        }
    }

    /// The cell whose digit lands in row `r`, column `c` (both 0..9): one place for the row,
    /// column and transpose mapping that `apply` and `cell_map` share.
    fn source(&self, r: usize, c: usize) -> usize {
        let (fr, fc) = (usize::from(self.rows[r]), usize::from(self.cols[c]));
        if self.transpose {
            fc * 9 + fr
        } else {
            fr * 9 + fc
        }
    }

    /// The transformed grid (empty cells stay empty).
    pub fn apply(&self, grid: &Grid) -> Grid {
        let src = grid.as_bytes();
        let mut out = [0u8; N_CELLS];
        for r in 0..9 {
            for c in 0..9 {
                let d = src[self.source(r, c)];
                out[r * 9 + c] = if d == 0 {
                    0
                } else {
                    self.digits[usize::from(d - 1)]
                };
            }
        }
        Grid::from_bytes(out).expect("relabelled digits stay in 1..=9")
    }

    /// A random transform that keeps `geometry`, from exactly one [`Transform::random`] draw:
    /// that draw when it keeps the geometry (always, for classic), else its digit relabelling
    /// alone when that keeps it, else the identity.
    pub fn random_keeping(rng: &mut impl Rng, geometry: &Geometry) -> Transform {
        let t = Transform::random(rng);
        if t.keeps(geometry) {
            return t;
        }
        let relabel = Transform {
            digits: t.digits,
            ..Transform::identity()
        };
        if relabel.keeps(geometry) {
            relabel
        } else {
            Transform::identity()
        }
    }

    /// Where each cell goes: `apply` moves the digit of cell `c` to cell `to[c]`.
    pub fn cell_map(&self) -> [Cell; N_CELLS] {
        let mut to = [Cell::new(0).expect("0 is a cell"); N_CELLS];
        for r in 0..9 {
            for c in 0..9 {
                let to_cell = Cell::new((r * 9 + c) as u8).expect("rows and columns are below 9");
                to[self.source(r, c)] = to_cell;
            }
        }
        to
    }

    /// The geometry of a transformed puzzle: `geometry` with every cell moved as
    /// [`Transform::apply`] moves its digit.
    pub fn apply_geometry(&self, geometry: &Geometry) -> Geometry {
        geometry.relocated(&self.cell_map())
    }

    /// Whether the transform maps every house of `geometry` to one of its houses and every
    /// other constraint to one of its constraints (so a puzzle of the geometry stays one);
    /// digits are relabelled only where every constraint allows it. True for classic.
    pub fn keeps(&self, geometry: &Geometry) -> bool {
        if geometry.is_classic() {
            return true;
        }
        let relabels = self.digits != Transform::identity().digits;
        if relabels && !geometry.constraints().iter().all(|k| k.keeps_relabelling()) {
            return false;
        }
        self.apply_geometry(geometry).same_rules(geometry)
    }
}

impl Default for Transform {
    fn default() -> Self {
        Transform::identity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOLUTION: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    fn grid(line: &str) -> Grid {
        Grid::parse(line).expect("test grid parses")
    }

    #[track_caller]
    fn check(t: Transform, input: &str, expected: &str) {
        assert_eq!(t.apply(&grid(input)).to_line(), expected);
    }

    #[test]
    fn identity_and_parts() {
        let id = [0, 1, 2];
        let ids = [id; 3];
        let digits = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        check(Transform::identity(), SOLUTION, SOLUTION);
        let mut one = ".".repeat(81);
        one.replace_range(1..2, "5"); // r1c2 = 5
                                      // Transposed: r2c1 = 5.
        let t = Transform::new(digits, id, ids, id, ids, true).expect("valid");
        let mut expected = ".".repeat(81);
        expected.replace_range(9..10, "5");
        check(t, &one, &expected);
        // Relabel 5 -> 9 and swap the first two stacks: r1c5 = 9.
        let relabel = [1, 2, 3, 4, 9, 6, 7, 8, 5];
        let t = Transform::new(relabel, id, ids, [1, 0, 2], ids, false).expect("valid");
        let mut expected = ".".repeat(81);
        expected.replace_range(4..5, "9");
        check(t, &one, &expected);
        // Last band first, reversed rows in it: r1 of the output is r9 of the input.
        let t =
            Transform::new(digits, [2, 1, 0], [[2, 1, 0], id, id], id, ids, false).expect("valid");
        let out = t.apply(&grid(SOLUTION)).to_line();
        assert_eq!(&out[..9], &SOLUTION[72..]);
    }

    #[test]
    fn bad_parts_are_refused() {
        let id = [0, 1, 2];
        let ids = [id; 3];
        let digits = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        let twice = [1, 1, 3, 4, 5, 6, 7, 8, 9];
        assert_eq!(
            Transform::new(twice, id, ids, id, ids, false),
            Err(TransformError::Digits)
        );
        assert_eq!(
            Transform::new(digits, [0, 0, 2], ids, id, ids, false),
            Err(TransformError::Perm("bands"))
        );
        assert_eq!(
            Transform::new(digits, id, ids, id, [id, id, [0, 1, 3]], false),
            Err(TransformError::Perm("columns in a stack"))
        );
    }

    #[test]
    fn random_transforms_keep_a_solution_valid() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for _ in 0..50 {
            let t = Transform::random(&mut rng);
            let out = t.apply(&grid(SOLUTION));
            assert!(crate::validator::is_complete_solution(&out));
        }
    }

    #[test]
    fn classic_keeps_every_transform() {
        use rand::SeedableRng;
        let classic = Geometry::classic();
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for _ in 0..50 {
            let t = Transform::random(&mut rng);
            assert!(t.keeps(classic));
            assert!(t.apply_geometry(classic).same_rules(classic));
        }
        // One draw, the same draw: a seeded deal is unchanged.
        let mut a = rand::rngs::StdRng::seed_from_u64(9);
        let mut b = rand::rngs::StdRng::seed_from_u64(9);
        for _ in 0..20 {
            assert_eq!(
                Transform::random_keeping(&mut a, classic),
                Transform::random(&mut b)
            );
        }
    }

    #[test]
    fn cell_map_follows_apply() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(4);
        let sol = grid(SOLUTION);
        for _ in 0..20 {
            let t = Transform::random(&mut rng);
            let out = t.apply(&sol);
            let to = t.cell_map();
            for c in Cell::all() {
                let moved = sol.get(c).map(|d| t.digits[usize::from(d.get() - 1)]);
                assert_eq!(out.get(to[c.idx()]).map(|d| d.get()), moved);
            }
        }
    }

    #[test]
    fn variants_keep_only_some_transforms() {
        use crate::geometry::tests::x_geometry;
        use crate::geometry::Constraint;
        let id = [0, 1, 2];
        let ids = [id; 3];
        let digits = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        let relabel = [2, 1, 3, 4, 5, 6, 7, 8, 9];
        let x = x_geometry();
        // Transposing keeps both diagonals; reversing rows and columns too (a half turn).
        let transpose = Transform::new(digits, id, ids, id, ids, true).expect("valid");
        assert!(transpose.keeps(&x));
        let rev = [2, 1, 0];
        let half_turn =
            Transform::new(relabel, rev, [rev; 3], rev, [rev; 3], false).expect("valid");
        assert!(half_turn.keeps(&x));
        // Swapping two stacks moves the diagonals off themselves.
        let swap = Transform::new(digits, id, ids, [1, 0, 2], ids, false).expect("valid");
        assert!(!swap.keeps(&x));
        assert!(swap.keeps(Geometry::classic()));
        // A cage keeps its place under the identity only, and never under a relabelling.
        let cage = Constraint::Cage {
            cells: vec![Cell::new(0).expect("cell"), Cell::new(1).expect("cell")],
            sum: 3,
        };
        let killer = Geometry::new(Geometry::classic().houses().to_vec(), vec![cage])
            .expect("valid geometry");
        let just_relabel = Transform::new(relabel, id, ids, id, ids, false).expect("valid");
        assert!(just_relabel.keeps(&x));
        assert!(!just_relabel.keeps(&killer));
        assert!(!transpose.keeps(&killer));
        assert!(Transform::identity().keeps(&killer));
        // The transposed cage is the transposed puzzle's: r1c1 and r2c1.
        let moved = transpose.apply_geometry(&killer);
        assert_eq!(
            moved.constraints()[0].cells(),
            [Cell::new(0).expect("cell"), Cell::new(9).expect("cell")]
        );
        // A random draw for a variant keeps it, falling back to a relabelling or nothing.
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(6);
        for _ in 0..20 {
            assert!(Transform::random_keeping(&mut rng, &x).keeps(&x));
            assert_eq!(
                Transform::random_keeping(&mut rng, &killer),
                Transform::identity()
            );
        }
    }

    #[test]
    fn a_kept_geometry_keeps_its_solutions() {
        use crate::geometry::tests::{x_geometry, X_SOLUTION};
        use crate::validator::{check_solution, is_complete_solution_in};
        use rand::SeedableRng;
        let x = x_geometry();
        let xs = grid(X_SOLUTION);
        assert_eq!(check_solution(&x, &xs), Ok(()));
        let mut rng = rand::rngs::StdRng::seed_from_u64(8);
        let (mut kept, mut broken) = (0, 0);
        for _ in 0..200 {
            let t = Transform::random(&mut rng);
            let out = t.apply(&xs);
            // Whatever the transform, the moved geometry holds the moved solution.
            assert!(is_complete_solution_in(&t.apply_geometry(&x), &out));
            if t.keeps(&x) {
                kept += 1;
                assert!(is_complete_solution_in(&x, &out));
            } else if !is_complete_solution_in(&x, &out) {
                broken += 1;
            }
            let t = Transform::random_keeping(&mut rng, &x);
            assert!(is_complete_solution_in(&x, &t.apply(&xs)));
        }
        assert!(broken > 0, "random transforms mostly move the diagonals");
        assert!(kept < 200);
    }
}
