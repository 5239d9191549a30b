// The x86-64 vectors shared by the AVX2 and AVX-512 kinds, included by `mod.rs` (which says what
// they are) into each kind's module; that module supplies `simd!` (its `#[target_feature]`) and
// the methods that differ.

/// Eight 16-bit lanes.
#[derive(Clone, Copy)]
pub(in super::super) struct V8(__m128i);

/// Sixteen 16-bit lanes; shuffles work within each half of eight, as `vpshufb` does.
#[derive(Clone, Copy)]
pub(in super::super) struct V16(__m256i);

impl V8 {
    simd! {
        /// The lanes of `a`.
        #[allow(unsafe_code)]
        pub(in super::super) fn load(a: &[u16; 8]) -> V8 {
            // SAFETY: `a` is a reference to 16 initialised bytes, and `loadu` reads exactly
            // those 16 bytes with no alignment requirement.
            V8(unsafe { _mm_loadu_si128(a.as_ptr().cast()) })
        }

        /// Every lane `x`.
        pub(in super::super) fn splat(x: u16) -> V8 {
            V8(_mm_set1_epi16(x as i16))
        }

        /// All lanes zero.
        pub(in super::super) fn zero() -> V8 {
            V8(_mm_setzero_si128())
        }

        pub(in super::super) fn and(self, o: V8) -> V8 {
            V8(_mm_and_si128(self.0, o.0))
        }

        pub(in super::super) fn or(self, o: V8) -> V8 {
            V8(_mm_or_si128(self.0, o.0))
        }

        pub(in super::super) fn xor(self, o: V8) -> V8 {
            V8(_mm_xor_si128(self.0, o.0))
        }

        /// `self & !o`.
        pub(in super::super) fn and_not(self, o: V8) -> V8 {
            V8(_mm_andnot_si128(o.0, self.0))
        }

        pub(in super::super) fn intersects(self, o: V8) -> bool {
            _mm_testz_si128(self.0, o.0) == 0
        }

        pub(in super::super) fn all_zero(self) -> bool {
            _mm_testz_si128(self.0, self.0) != 0
        }

        /// The lowest set bit of each lane.
        pub(in super::super) fn low_bit(self) -> V8 {
            V8(_mm_and_si128(self.0, _mm_sign_epi16(self.0, _mm_set1_epi16(-1))))
        }

        /// The whole vector as a 128-bit number with its lowest set bit cleared (lanes hold at
        /// most 9 bits, so each 64-bit half is positive when non-zero).
        pub(in super::super) fn clear_low_bit(self) -> V8 {
            let cmp = _mm_cmpgt_epi64(self.0, _mm_setzero_si128());
            let one = _mm_andnot_si128(_mm_slli_si128::<8>(cmp), _mm_srli_epi64::<63>(cmp));
            V8(_mm_and_si128(self.0, _mm_sub_epi64(self.0, one)))
        }

        /// Set bits in all lanes.
        pub(in super::super) fn popcount(self) -> u32 {
            (_mm_cvtsi128_si64(self.0) as u64).count_ones()
                + (_mm_extract_epi64::<1>(self.0) as u64).count_ones()
        }

        /// `(index << 16) | value` of the smallest `lane - min` (wrapping), the first on ties.
        pub(in super::super) fn min_pos_from(self, min: u16) -> u32 {
            let v = _mm_sub_epi16(self.0, _mm_set1_epi16(min as i16));
            _mm_cvtsi128_si32(_mm_minpos_epu16(v)) as u32
        }

        /// Bytes picked by `control` (`vpshufb`).
        pub(in super::super) fn shuffle(self, control: V8) -> V8 {
            V8(_mm_shuffle_epi8(self.0, control.0))
        }

        /// The two halves of four lanes swapped.
        pub(in super::super) fn rotate_cols(self) -> V8 {
            V8(_mm_shuffle_epi32::<0b0100_1110>(self.0))
        }
    }
}

impl V16 {
    simd! {
        /// The lanes of `a`.
        #[allow(unsafe_code)]
        pub(in super::super) fn load(a: &[u16; 16]) -> V16 {
            // SAFETY: `a` is a reference to 32 initialised bytes, and `loadu` reads exactly
            // those 32 bytes with no alignment requirement.
            V16(unsafe { _mm256_loadu_si256(a.as_ptr().cast()) })
        }

        /// Every lane `x`.
        pub(in super::super) fn splat(x: u16) -> V16 {
            V16(_mm256_set1_epi16(x as i16))
        }

        /// `lo` in lanes 0..8, `hi` in lanes 8..16.
        pub(in super::super) fn from_halves(lo: V8, hi: V8) -> V16 {
            V16(_mm256_set_m128i(hi.0, lo.0))
        }

        pub(in super::super) fn lo(self) -> V8 {
            V8(_mm256_castsi256_si128(self.0))
        }

        pub(in super::super) fn hi(self) -> V8 {
            V8(_mm256_extracti128_si256::<1>(self.0))
        }

        /// The lanes as an array.
        pub(in super::super) fn to_array(self) -> [u16; 16] {
            let (lo, hi) = (self.lo().0, self.hi().0);
            [
                _mm_extract_epi16::<0>(lo) as u16,
                _mm_extract_epi16::<1>(lo) as u16,
                _mm_extract_epi16::<2>(lo) as u16,
                _mm_extract_epi16::<3>(lo) as u16,
                _mm_extract_epi16::<4>(lo) as u16,
                _mm_extract_epi16::<5>(lo) as u16,
                _mm_extract_epi16::<6>(lo) as u16,
                _mm_extract_epi16::<7>(lo) as u16,
                _mm_extract_epi16::<0>(hi) as u16,
                _mm_extract_epi16::<1>(hi) as u16,
                _mm_extract_epi16::<2>(hi) as u16,
                _mm_extract_epi16::<3>(hi) as u16,
                _mm_extract_epi16::<4>(hi) as u16,
                _mm_extract_epi16::<5>(hi) as u16,
                _mm_extract_epi16::<6>(hi) as u16,
                _mm_extract_epi16::<7>(hi) as u16,
            ]
        }

        pub(in super::super) fn and(self, o: V16) -> V16 {
            V16(_mm256_and_si256(self.0, o.0))
        }

        pub(in super::super) fn or(self, o: V16) -> V16 {
            V16(_mm256_or_si256(self.0, o.0))
        }

        /// `self & !o`.
        pub(in super::super) fn and_not(self, o: V16) -> V16 {
            V16(_mm256_andnot_si256(o.0, self.0))
        }

        /// `x & !y | z`.
        pub(in super::super) fn x_y_andnot_z_or(x: V16, y: V16, z: V16) -> V16 {
            V16(_mm256_or_si256(_mm256_andnot_si256(y.0, x.0), z.0))
        }

        /// `x ^ y | z`.
        pub(in super::super) fn x_y_xor_z_or(x: V16, y: V16, z: V16) -> V16 {
            V16(_mm256_or_si256(_mm256_xor_si256(x.0, y.0), z.0))
        }

        /// `0xffff` in lanes equal to `o`'s, else 0.
        pub(in super::super) fn lanes_eq(self, o: V16) -> V16 {
            V16(_mm256_cmpeq_epi16(self.0, o.0))
        }

        /// `0xffff` in non-zero lanes (lanes hold at most 9 bits), else 0.
        pub(in super::super) fn lanes_nonzero(self) -> V16 {
            V16(_mm256_cmpgt_epi16(self.0, _mm256_setzero_si256()))
        }

        pub(in super::super) fn intersects(self, o: V16) -> bool {
            _mm256_testz_si256(self.0, o.0) == 0
        }

        /// Whether every bit of `self` is in `o`.
        pub(in super::super) fn subset_of(self, o: V16) -> bool {
            _mm256_testc_si256(o.0, self.0) != 0
        }

        /// Bytes picked by `control` within each half (`vpshufb`).
        pub(in super::super) fn shuffle(self, control: V16) -> V16 {
            V16(_mm256_shuffle_epi8(self.0, control.0))
        }

        /// Each row rotated by two.
        pub(in super::super) fn rotate_rows2(self) -> V16 {
            V16(_mm256_shuffle_epi32::<0b1011_0001>(self.0))
        }

        /// The rows rotated by one: row `r` takes row `(r + 1) % 4`.
        pub(in super::super) fn rotate_cols(self) -> V16 {
            V16(_mm256_permute4x64_epi64::<0b0011_1001>(self.0))
        }

        /// The rows rotated by two.
        pub(in super::super) fn rotate_cols2(self) -> V16 {
            V16(_mm256_permute4x64_epi64::<0b0100_1110>(self.0))
        }
    }
}
