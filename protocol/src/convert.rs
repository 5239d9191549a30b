//! The one place wire values become engine values and back.
//!
//! The serde modules here are used with `#[serde(with = …)]` on the message types: a puzzle
//! travels as its 81-character line and arrives as a [`Grid`]; a cell as its index and arrives as
//! a [`Cell`]; a difficulty as its name. [`place_target`] checks a client's `place`, whose numbers
//! are wide on the wire so that an out-of-range one is named in the error.

use engine::{Cell, Difficulty, Digit, Grid};

/// A `place` whose cell or digit is out of range (`bad_message`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cell must be 0..=80 and digit 1..=9")]
pub struct BadPlace;

/// The cell and digit of a client's `place`.
pub fn place_target(cell: i64, digit: i64) -> Result<(Cell, Digit), BadPlace> {
    match (Cell::try_from(cell), Digit::try_from(digit)) {
        (Ok(c), Ok(d)) => Ok((c, d)),
        _ => Err(BadPlace),
    }
}

/// A [`Grid`] as its 81-character line.
pub mod grid {
    use engine::Grid;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialize as the line format.
    pub fn serialize<S: Serializer>(g: &Grid, s: S) -> Result<S::Ok, S::Error> {
        let line = g.to_line_bytes();
        // The line format is ASCII by construction.
        s.serialize_str(std::str::from_utf8(&line).unwrap_or_default())
    }

    /// Parse the line format.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Grid, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Grid::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// An optional [`Grid`] (`null` when absent).
pub mod opt_grid {
    use engine::Grid;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialize as the line format, or `null`.
    pub fn serialize<S: Serializer>(g: &Option<Grid>, s: S) -> Result<S::Ok, S::Error> {
        match g {
            Some(g) => super::grid::serialize(g, s),
            None => s.serialize_none(),
        }
    }

    /// Parse the line format, or `null`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Grid>, D::Error> {
        match <Option<std::borrow::Cow<'de, str>>>::deserialize(d)? {
            Some(s) => Grid::parse(&s).map(Some).map_err(serde::de::Error::custom),
            None => Ok(None),
        }
    }
}

/// A [`Cell`] as its index 0..=80.
pub mod cell {
    use engine::Cell;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialize as the index.
    pub fn serialize<S: Serializer>(c: &Cell, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(c.get())
    }

    /// Read an index, checked.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Cell, D::Error> {
        Cell::try_from(u8::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// A list of [`Cell`]s as indices.
pub mod cells {
    use engine::Cell;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialize as a list of indices.
    pub fn serialize<S: Serializer>(cells: &[Cell], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(cells.iter().map(|c| c.get()))
    }

    /// Read a list of indices, each checked.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Cell>, D::Error> {
        Vec::<u8>::deserialize(d)?
            .into_iter()
            .map(|i| Cell::try_from(i).map_err(serde::de::Error::custom))
            .collect()
    }
}

/// A [`Digit`] as 1..=9.
pub mod digit {
    use engine::Digit;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialize as the number.
    pub fn serialize<S: Serializer>(v: &Digit, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(v.get())
    }

    /// Read a number, checked.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Digit, D::Error> {
        Digit::try_from(u8::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// A [`Difficulty`] as its name (`easy` .. `expert`).
pub mod difficulty {
    use engine::Difficulty;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialize as the name.
    pub fn serialize<S: Serializer>(v: &Difficulty, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.as_str())
    }

    /// Read a name, checked.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Difficulty, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A [`Variant`](engine::Variant) as its name (A10); classic when absent.
pub mod variant {
    use engine::Variant;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialize as the name.
    pub fn serialize<S: Serializer>(v: &Variant, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.as_str())
    }

    /// Read a name, checked.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Variant, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }

    /// Whether it is classic (absent on the wire, as before variants).
    pub fn is_classic(v: &Variant) -> bool {
        *v == Variant::Classic
    }
}

/// A wire difficulty name as an engine [`Difficulty`] (for callers outside serde).
pub fn difficulty(name: &str) -> Option<Difficulty> {
    name.parse().ok()
}

/// A wire puzzle line as a [`Grid`] (for callers outside serde).
pub fn grid(line: &str) -> Option<Grid> {
    Grid::parse(line).ok()
}
