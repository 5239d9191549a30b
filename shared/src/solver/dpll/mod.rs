//! The solution counter behind the uniqueness check: a port of tdoku's `solver_dpll_triad_simd`
//! to Rust. It owns the counting search; the bitboard solver in the parent module keeps random
//! grids and the singles and locked-candidates checks.
//!
//! The algorithm, its layouts and its tables are tdoku's, Copyright (c) 2019, Tom Dillon, under
//! the BSD 2-Clause License, whose text is in `LICENSE-tdoku` beside this file.
//!
//! # Design
//!
//! Sudoku as a SAT problem over cells and *triads* (a digit's place among the three mini-rows or
//! mini-columns of a box), with one vector per box and one per band:
//!
//! - **Boxes.** Sixteen 16-bit lanes, a 4x4 matrix: the 3x3 cells hold candidate sets (9 bits);
//!   the right column and bottom row hold *negative* triads (the digit is not in that
//!   mini-row / mini-column). Each row and column of the matrix is an exactly-one clause per
//!   digit, each cell needs at least one digit, each negative triad six. One vector pass
//!   counts candidates and finds what a clause forces (unit propagation over all nine digits at
//!   once).
//! - **Bands.** Within a band a digit takes one of six configurations (which mini-row of each
//!   box); eight lanes hold, per configuration, the digits that may still take it. Changes move
//!   between boxes and bands as elimination masks built with byte shuffles.
//! - **Propagation.** A box update propagates inside the box to a fixpoint and leaves pending
//!   eliminations in its two bands; a band update applies them and restricts its three boxes.
//!   After a guess this runs depth first, as in tdoku (a contradiction shows sooner); after the
//!   givens, breadth first over a worklist of bands (less work when every band changed: 8% less
//!   time on the 17-clue set, where five puzzles in six need no guess).
//! - **Search.** DPLL: branch on the band with the fewest configurations left and in it a digit
//!   with the fewest (two if any); try one configuration in a copy, its negation in place.
//!
//! The search text (`search.rs`) is compiled three times: with the AVX-512 and the AVX2 vectors
//! of [`x86`] and with the portable arrays of [`portable`]; the best kind the CPU has is chosen
//! once, at the first count. All must give the same counts, solutions and guess counts (tested
//! in `tests.rs`, on every kind this CPU has).
//!
//! Givens that clash are rejected while they are placed: tdoku never sees such input, and a clash
//! inside one box is not always caught by its propagation.

mod portable;
mod tables;
#[cfg(target_arch = "x86_64")]
mod x86;

/// What a count found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Outcome {
    /// Solutions found, at most the limit.
    pub(super) count: usize,
    /// The first solution (1..=9 per cell), when asked for and found.
    pub(super) first: Option<[u8; 81]>,
    /// Branches taken.
    pub(super) guesses: u64,
}

/// The search on portable vectors.
mod portable_search {
    use super::portable::{V16, V8};
    use super::tables::*;
    use super::Outcome;

    macro_rules! simd {
        (outlined: $($i:item)*) => { $( #[inline(never)] $i )* };
        ($($i:item)*) => { $( #[inline] $i )* };
    }

    include!("search.rs");
}

/// The search on AVX2 vectors.
#[cfg(target_arch = "x86_64")]
mod avx2_search {
    use super::tables::*;
    use super::x86::avx2::{V16, V8};
    use super::Outcome;

    macro_rules! simd {
        (outlined: $($i:item)*) => {
            $( #[target_feature(enable = "avx2,sse4.2,ssse3,popcnt")] #[inline(never)] $i )*
        };
        ($($i:item)*) => {
            $( #[target_feature(enable = "avx2,sse4.2,ssse3,popcnt")] #[inline] $i )*
        };
    }

    include!("search.rs");
}

/// The search on AVX-512 vectors.
#[cfg(target_arch = "x86_64")]
mod avx512_search {
    use super::tables::*;
    use super::x86::avx512::{V16, V8};
    use super::Outcome;

    macro_rules! simd {
        (outlined: $($i:item)*) => {
            $(
                #[target_feature(
                    enable = "avx2,sse4.2,ssse3,popcnt,avx512f,avx512vl,avx512bw,avx512bitalg"
                )]
                #[inline(never)]
                $i
            )*
        };
        ($($i:item)*) => {
            $(
                #[target_feature(
                    enable = "avx2,sse4.2,ssse3,popcnt,avx512f,avx512vl,avx512bw,avx512bitalg"
                )]
                #[inline]
                $i
            )*
        };
    }

    include!("search.rs");
}

/// The vector kinds, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Avx512,
    Avx2,
    Portable,
}

/// Whether this CPU has `kind`'s features (every one its search module is compiled with).
fn has(kind: Kind) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let avx2 = is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("sse4.2")
            && is_x86_feature_detected!("ssse3")
            && is_x86_feature_detected!("popcnt");
        match kind {
            Kind::Avx512 => {
                avx2 && is_x86_feature_detected!("avx512f")
                    && is_x86_feature_detected!("avx512vl")
                    && is_x86_feature_detected!("avx512bw")
                    && is_x86_feature_detected!("avx512bitalg")
            }
            Kind::Avx2 => avx2,
            Kind::Portable => true,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        kind == Kind::Portable
    }
}

/// The best kind this CPU runs, found once: a kind for which [`has`] held.
fn best_kind() -> Kind {
    static BEST: std::sync::OnceLock<Kind> = std::sync::OnceLock::new();
    *BEST.get_or_init(|| {
        [Kind::Avx512, Kind::Avx2, Kind::Portable]
            .into_iter()
            .find(|&k| has(k))
            .unwrap_or(Kind::Portable)
    })
}

/// Count the solutions of `cells` (0 = empty, 1..=9 given) up to `limit`, keeping the first
/// when `want_first`. Clashing givens count 0.
pub(super) fn count(cells: &[u8; 81], limit: usize, want_first: bool) -> Outcome {
    if limit == 0 {
        return Outcome {
            count: 0,
            first: None,
            guesses: 0,
        };
    }
    // `best_kind` returns only a kind whose features `has` confirmed on this CPU.
    run(best_kind(), cells, limit, want_first)
}

/// [`count`] on the search of `kind`, or on the portable search when this CPU lacks `kind`'s
/// features (for the tests, which run every kind).
#[cfg(test)]
fn count_with(kind: Kind, cells: &[u8; 81], limit: usize, want_first: bool) -> Outcome {
    let kind = if has(kind) { kind } else { Kind::Portable };
    run(kind, cells, limit, want_first)
}

/// The search of `kind`. The caller guarantees that [`has`]`(kind)` held on this CPU.
#[allow(unsafe_code)]
fn run(kind: Kind, cells: &[u8; 81], limit: usize, want_first: bool) -> Outcome {
    match kind {
        // SAFETY: `avx512_search::solve` is safe apart from its target features: calling it on
        // a CPU without them would be undefined. Both callers (`count` through `best_kind`, and
        // `count_with`) pass a kind only after `has(kind)` confirmed every one of them at run
        // time, and `has` checks exactly the features `avx512_search` is compiled with.
        #[cfg(target_arch = "x86_64")]
        Kind::Avx512 => unsafe { avx512_search::solve(cells, limit, want_first) },
        // SAFETY: as above, for `avx2_search` and `has(Kind::Avx2)`.
        #[cfg(target_arch = "x86_64")]
        Kind::Avx2 => unsafe { avx2_search::solve(cells, limit, want_first) },
        _ => portable_search::solve(cells, limit, want_first),
    }
}

#[cfg(test)]
mod tests;
