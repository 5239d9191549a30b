//! Validity-preserving transforms: relabel the digits, permute the rows within a band, the bands,
//! the columns within a stack and the stacks, and transpose. Each maps a puzzle to an equivalent
//! one with the same number of solutions and the same grade, so one graded puzzle can be dealt
//! many times looking fresh.
//!
//! A transform keeps a [`Geometry`] when it maps every house to a house and every other
//! constraint to one alike ([`Transform::keeps`]): classic Sudoku keeps all of them, a variant
//! only some (a killer cage's sum does not survive relabelling the digits).
//! [`Transform::random_keeping`] draws one for a geometry; [`Transform::for_geometry`] draws
//! uniformly from the isomorphs a variant allows, layouts carried along (`variants`).

use rand::seq::SliceRandom;
use rand::Rng;

use super::geometry::Geometry;
use super::grid::{Cell, Grid, N_CELLS};

mod variants;

pub use variants::isomorph_count;

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

/// The relabelling `d -> 10 - d`, the one besides the identity that a killer cage's sum
/// survives (as `10n - S`).
const COMPLEMENT: [u8; 9] = [9, 8, 7, 6, 5, 4, 3, 2, 1];

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
    /// [`Transform::apply`] moves its digit, its layout with them (jigsaw regions, killer
    /// cages). Under the complement relabelling (`d -> 10 - d`) a cage of `n` cells and sum `S`
    /// becomes one of sum `10n - S`; other relabellings leave sums as they are (no sum
    /// survives them: [`Transform::keeps`] refuses them, [`Transform::for_geometry`] never
    /// draws them for a killer).
    pub fn apply_geometry(&self, geometry: &Geometry) -> Geometry {
        geometry.relocated(&self.cell_map(), self.digits == COMPLEMENT)
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
mod tests;
