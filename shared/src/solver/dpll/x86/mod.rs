//! The x86-64 vectors of the DPLL solver, in two kinds: [`avx2`] and [`avx512`] (AVX2 plus
//! AVX-512 VL, BW and BITALG: a one-instruction popcount per lane and 64-bit rotates; the
//! compiler also fuses logic into `vpternlog` and compares into mask registers). [`V8`] is eight
//! 16-bit lanes in an SSE register, [`V16`] sixteen in an AVX register.
//!
//! Every method is a `#[target_feature]` function, callable only from code compiled with the
//! same features (the solver's search module of that kind), which the dispatcher enters only
//! after detecting them. The methods mirror `portable.rs` meaning for meaning; the solver's
//! tests check that all kinds give the same answers. The only `unsafe` is in `load`, proved
//! there.
//!
//! [`V8`]: avx2::V8
//! [`V16`]: avx2::V16

/// AVX2, SSE4.2, SSSE3 and POPCNT.
pub(super) mod avx2 {
    use core::arch::x86_64::*;

    macro_rules! simd {
        ($($i:item)*) => {
            $( #[target_feature(enable = "avx2,sse4.2,ssse3,popcnt")] #[inline] $i )*
        };
    }

    include!("common.rs");

    impl V16 {
        simd! {
            /// Set bits in each lane (lanes hold at most 9 bits): two nibble lookups and the
            /// ninth bit.
            pub(in super::super) fn popcounts9(self) -> V16 {
                let lookup = _mm256_setr_epi8(
                    0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2,
                    2, 3, 2, 3, 3, 4,
                );
                let low = _mm256_and_si256(self.0, _mm256_set1_epi16(0x0f));
                let sum_0_3 = _mm256_shuffle_epi8(lookup, low);
                let sum_4_7 = _mm256_shuffle_epi8(lookup, _mm256_srli_epi16::<4>(self.0));
                let sum_0_7 = _mm256_add_epi16(sum_0_3, sum_4_7);
                V16(_mm256_add_epi16(sum_0_7, _mm256_srli_epi16::<8>(self.0)))
            }

            /// Whether some lane is below `o`'s (lanes hold small counts).
            pub(in super::super) fn any_lt(self, o: V16) -> bool {
                _mm256_movemask_epi8(_mm256_cmpgt_epi16(o.0, self.0)) != 0
            }

            /// Each row of four lanes rotated by one: lane `4r + c` takes lane
            /// `4r + (c + 1) % 4`.
            pub(in super::super) fn rotate_rows(self) -> V16 {
                let control = _mm256_setr_epi8(
                    2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9, 2, 3, 4, 5, 6, 7, 0, 1,
                    10, 11, 12, 13, 14, 15, 8, 9,
                );
                V16(_mm256_shuffle_epi8(self.0, control))
            }
        }
    }
}

/// [`avx2`]'s features and AVX-512 F, VL, BW and BITALG.
pub(super) mod avx512 {
    use core::arch::x86_64::*;

    macro_rules! simd {
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

    include!("common.rs");

    impl V16 {
        simd! {
            /// Set bits in each lane.
            pub(in super::super) fn popcounts9(self) -> V16 {
                V16(_mm256_popcnt_epi16(self.0))
            }

            /// Whether some lane is below `o`'s (one compare into a mask register).
            pub(in super::super) fn any_lt(self, o: V16) -> bool {
                _mm256_cmplt_epu16_mask(self.0, o.0) != 0
            }

            /// Each row of four lanes rotated by one: lane `4r + c` takes lane
            /// `4r + (c + 1) % 4` (a row is a 64-bit lane rotated right by 16 bits).
            pub(in super::super) fn rotate_rows(self) -> V16 {
                V16(_mm256_ror_epi64::<16>(self.0))
            }
        }
    }
}
