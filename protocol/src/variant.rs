//! Variants on the wire (A10): the name in `settings.variant` and the requests that take one,
//! the seat's layout beside its puzzle (`regions` for jigsaw, `cages` for killer), and the
//! `variants` a client says it can draw.

use engine::geometry::{Layout, LayoutError};
use engine::{Cell, Geometry, Variant};
use serde::{Deserialize, Serialize};

/// A killer cage on the wire: its cells (indices 0..=80) and what their digits add up to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cage {
    /// The cage's cells.
    pub cells: Vec<u8>,
    /// Their sum.
    pub sum: u8,
}

/// The seat's geometry beside its puzzle (A10), flattened into `race_started`, a race view, a
/// standing, a replay and a ghost: both absent for classic, x and windoku (their houses
/// follow from the variant's name).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireLayout {
    /// Jigsaw: each cell's region, 81 characters `0`..`8`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regions: Option<String>,
    /// Killer: every cage, every cell in exactly one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cages: Option<Vec<Cage>>,
}

impl WireLayout {
    /// What a client is given to draw `geometry`.
    pub fn of(geometry: &Geometry) -> WireLayout {
        let Layout { regions, cages } = geometry.layout();
        let cages = (!cages.is_empty()).then(|| {
            cages
                .into_iter()
                .map(|(cells, sum)| Cage {
                    cells: cells.iter().map(|c| c.get()).collect(),
                    sum,
                })
                .collect()
        });
        WireLayout { regions, cages }
    }

    /// Whether there is nothing to draw beyond the variant's name.
    pub fn is_empty(&self) -> bool {
        self.regions.is_none() && self.cages.is_none()
    }

    /// The geometry of a `variant` puzzle drawn with this layout (a client's or a stored
    /// replay's reading; the server never takes one from a client).
    pub fn geometry(&self, variant: Variant) -> Result<Geometry, LayoutError> {
        let cages = self
            .cages
            .iter()
            .flatten()
            .map(|k| {
                let cells = k.cells.iter().filter_map(|&c| Cell::new(c)).collect();
                (cells, k.sum)
            })
            .collect();
        let layout = Layout {
            regions: self.regions.clone(),
            cages,
        };
        // A cell index out of range was dropped above: its cage then misses a cell, which the
        // cover check refuses.
        Geometry::of(variant, &layout)
    }
}

/// The variants a client can draw (A10), from the `variants` it sent: `classic` always (a
/// client that sends none draws it only). Kept with a seat, carried by the relay and the
/// command log as one small number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Draws(u8);

impl Default for Draws {
    fn default() -> Self {
        Draws::of(None)
    }
}

impl Draws {
    /// What a client that sent `variants` draws. Names this server does not know are ignored
    /// (a newer client's).
    pub fn of(variants: Option<&[String]>) -> Draws {
        let named = |v: &Variant| variants.is_some_and(|n| n.iter().any(|n| n == v.as_str()));
        let bits = Variant::ALL
            .iter()
            .enumerate()
            .filter(|(_, v)| **v == Variant::Classic || named(v))
            .fold(0u8, |b, (i, _)| b | 1 << i);
        Draws(bits)
    }

    /// Every variant.
    pub fn all() -> Draws {
        Draws::of(Some(&all_names()))
    }

    /// Whether it draws `classic` alone (what a client that sends no `variants` draws).
    pub fn is_classic_only(&self) -> bool {
        *self == Draws::default()
    }

    /// Whether it draws `v`.
    pub fn has(self, v: Variant) -> bool {
        let i = Variant::ALL.iter().position(|&x| x == v).unwrap_or(0);
        self.0 & 1 << i != 0
    }
}

/// The names of the variants this side can draw, for a client's `variants`.
pub fn all_names() -> Vec<String> {
    Variant::ALL.iter().map(|v| v.as_str().to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(variants: Option<&[String]>, v: Variant) -> bool {
        Draws::of(variants).has(v)
    }

    #[test]
    fn a_client_without_variants_draws_classic_only() {
        assert!(draws(None, Variant::Classic));
        assert!(!draws(None, Variant::Killer));
        let some = vec!["x".to_owned(), "hexadoku".to_owned()];
        assert!(draws(Some(&some), Variant::X));
        assert!(draws(Some(&some), Variant::Classic));
        assert!(!draws(Some(&some), Variant::Jigsaw));
        assert!(Variant::ALL.iter().all(|&v| Draws::all().has(v)));
        let json = serde_json::to_string(&Draws::of(Some(&some))).expect("json");
        assert_eq!(json, "3");
        assert_eq!(
            serde_json::from_str::<Draws>(&json).ok(),
            Some(Draws::of(Some(&some)))
        );
    }

    #[test]
    fn a_layout_goes_to_the_wire_and_back() {
        let killer = Geometry::killer(Cell::all().map(|c| (vec![c], 1 + c.get() % 9)).collect())
            .expect("one-cell cages");
        let wire = WireLayout::of(&killer);
        assert_eq!(wire.cages.as_ref().map(Vec::len), Some(81));
        let json = serde_json::to_string(&wire).expect("json");
        assert!(!json.contains("regions"), "{json}");
        let back: WireLayout = serde_json::from_str(&json).expect("parse");
        let g = back.geometry(Variant::Killer).expect("geometry");
        assert!(g.same_rules(&killer));
        assert!(WireLayout::of(&Geometry::x()).is_empty());
        assert_eq!(
            serde_json::to_string(&WireLayout::default())
                .ok()
                .as_deref(),
            Some("{}")
        );
        // A cell out of range leaves its cage short: refused, not trusted.
        let mut bad = back.clone();
        if let Some(k) = bad.cages.as_mut().and_then(|c| c.first_mut()) {
            k.cells[0] = 200;
        }
        assert!(bad.geometry(Variant::Killer).is_err());
    }
}
