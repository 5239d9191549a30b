//! The portable vectors of the DPLL solver: plain arrays of 16-bit lanes with the same methods,
//! meaning for meaning, as the x86 ones in `x86.rs` (that module's tests compare the two). Used
//! where AVX2 is missing; the compiler vectorises what it can.

/// Eight 16-bit lanes.
#[derive(Clone, Copy)]
pub(super) struct V8([u16; 8]);

/// Sixteen 16-bit lanes; shuffles work within each half of eight, as `vpshufb` does.
#[derive(Clone, Copy)]
pub(super) struct V16([u16; 16]);

/// `vpshufb` on one 16-byte half: byte `i` of the result is byte `control[i] & 15` of `src`,
/// or 0 when bit 7 of `control[i]` is set.
fn shuffle_half(src: &[u16], control: &[u16]) -> [u16; 8] {
    let byte = |k: u8| -> u16 {
        if k & 0x80 != 0 {
            return 0;
        }
        let lane = src[usize::from(k & 15) / 2];
        if k & 1 == 0 {
            lane & 0xff
        } else {
            lane >> 8
        }
    };
    let mut out = [0u16; 8];
    for (o, &c) in out.iter_mut().zip(control) {
        let [lo, hi] = c.to_le_bytes();
        *o = byte(lo) | byte(hi) << 8;
    }
    out
}

impl V8 {
    /// The lanes of `a`.
    #[inline]
    pub(super) fn load(a: &[u16; 8]) -> V8 {
        V8(*a)
    }

    /// Every lane `x`.
    #[inline]
    pub(super) fn splat(x: u16) -> V8 {
        V8([x; 8])
    }

    /// All lanes zero.
    #[inline]
    pub(super) fn zero() -> V8 {
        V8([0; 8])
    }

    #[inline]
    fn zip(self, o: V8, f: impl Fn(u16, u16) -> u16) -> V8 {
        V8(std::array::from_fn(|i| f(self.0[i], o.0[i])))
    }

    #[inline]
    pub(super) fn and(self, o: V8) -> V8 {
        self.zip(o, |a, b| a & b)
    }

    #[inline]
    pub(super) fn or(self, o: V8) -> V8 {
        self.zip(o, |a, b| a | b)
    }

    #[inline]
    pub(super) fn xor(self, o: V8) -> V8 {
        self.zip(o, |a, b| a ^ b)
    }

    /// `self & !o`.
    #[inline]
    pub(super) fn and_not(self, o: V8) -> V8 {
        self.zip(o, |a, b| a & !b)
    }

    #[inline]
    pub(super) fn intersects(self, o: V8) -> bool {
        !self.and(o).all_zero()
    }

    #[inline]
    pub(super) fn all_zero(self) -> bool {
        self.0 == [0; 8]
    }

    /// The lowest set bit of each lane.
    #[inline]
    pub(super) fn low_bit(self) -> V8 {
        V8(self.0.map(|x| x & x.wrapping_neg()))
    }

    /// The whole vector as a 128-bit number (lane 0 lowest) with its lowest set bit cleared.
    #[inline]
    pub(super) fn clear_low_bit(self) -> V8 {
        let mut x = 0u128;
        for (i, &lane) in self.0.iter().enumerate() {
            x |= u128::from(lane) << (16 * i);
        }
        x &= x.wrapping_sub(1);
        V8(std::array::from_fn(|i| (x >> (16 * i)) as u16))
    }

    /// Set bits in all lanes.
    #[inline]
    pub(super) fn popcount(self) -> u32 {
        self.0.iter().map(|x| x.count_ones()).sum()
    }

    /// `(index << 16) | value` of the smallest `lane - min` (wrapping), the first on ties.
    #[inline]
    pub(super) fn min_pos_from(self, min: u16) -> u32 {
        let mut best = (u16::MAX, 0u32);
        for (i, &lane) in self.0.iter().enumerate().rev() {
            let v = lane.wrapping_sub(min);
            if v <= best.0 {
                best = (v, i as u32);
            }
        }
        best.1 << 16 | u32::from(best.0)
    }

    /// Bytes picked by `control` (`vpshufb`).
    #[inline]
    pub(super) fn shuffle(self, control: V8) -> V8 {
        V8(shuffle_half(&self.0, &control.0))
    }

    /// The two halves of four lanes swapped.
    #[inline]
    pub(super) fn rotate_cols(self) -> V8 {
        V8(std::array::from_fn(|i| self.0[(i + 4) % 8]))
    }
}

impl V16 {
    /// The lanes of `a`.
    #[inline]
    pub(super) fn load(a: &[u16; 16]) -> V16 {
        V16(*a)
    }

    /// Every lane `x`.
    #[inline]
    pub(super) fn splat(x: u16) -> V16 {
        V16([x; 16])
    }

    /// `lo` in lanes 0..8, `hi` in lanes 8..16.
    #[inline]
    pub(super) fn from_halves(lo: V8, hi: V8) -> V16 {
        V16(std::array::from_fn(|i| {
            if i < 8 {
                lo.0[i]
            } else {
                hi.0[i - 8]
            }
        }))
    }

    #[inline]
    pub(super) fn lo(self) -> V8 {
        V8(std::array::from_fn(|i| self.0[i]))
    }

    #[inline]
    pub(super) fn hi(self) -> V8 {
        V8(std::array::from_fn(|i| self.0[i + 8]))
    }

    /// The lanes as an array.
    #[inline]
    pub(super) fn to_array(self) -> [u16; 16] {
        self.0
    }

    #[inline]
    fn zip(self, o: V16, f: impl Fn(u16, u16) -> u16) -> V16 {
        V16(std::array::from_fn(|i| f(self.0[i], o.0[i])))
    }

    #[inline]
    fn map(self, f: impl Fn(usize) -> u16) -> V16 {
        V16(std::array::from_fn(f))
    }

    #[inline]
    pub(super) fn and(self, o: V16) -> V16 {
        self.zip(o, |a, b| a & b)
    }

    #[inline]
    pub(super) fn or(self, o: V16) -> V16 {
        self.zip(o, |a, b| a | b)
    }

    /// `self & !o`.
    #[inline]
    pub(super) fn and_not(self, o: V16) -> V16 {
        self.zip(o, |a, b| a & !b)
    }

    /// `x & !y | z`.
    #[inline]
    pub(super) fn x_y_andnot_z_or(x: V16, y: V16, z: V16) -> V16 {
        x.and_not(y).or(z)
    }

    /// `x ^ y | z`.
    #[inline]
    pub(super) fn x_y_xor_z_or(x: V16, y: V16, z: V16) -> V16 {
        x.zip(y, |a, b| a ^ b).or(z)
    }

    /// `0xffff` in lanes equal to `o`'s, else 0.
    #[inline]
    pub(super) fn lanes_eq(self, o: V16) -> V16 {
        self.zip(o, |a, b| if a == b { 0xffff } else { 0 })
    }

    /// `0xffff` in non-zero lanes, else 0.
    #[inline]
    pub(super) fn lanes_nonzero(self) -> V16 {
        self.map(|i| if self.0[i] != 0 { 0xffff } else { 0 })
    }

    /// Whether some lane is below `o`'s.
    #[inline]
    pub(super) fn any_lt(self, o: V16) -> bool {
        self.0.iter().zip(&o.0).any(|(a, b)| a < b)
    }

    #[inline]
    pub(super) fn intersects(self, o: V16) -> bool {
        self.0.iter().zip(&o.0).any(|(a, b)| a & b != 0)
    }

    /// Whether every bit of `self` is in `o`.
    #[inline]
    pub(super) fn subset_of(self, o: V16) -> bool {
        self.0.iter().zip(&o.0).all(|(a, b)| a & !b == 0)
    }

    /// Set bits in each lane.
    #[inline]
    pub(super) fn popcounts9(self) -> V16 {
        V16(self.0.map(|x| x.count_ones() as u16))
    }

    /// Bytes picked by `control` within each half (`vpshufb`).
    #[inline]
    pub(super) fn shuffle(self, control: V16) -> V16 {
        let lo = shuffle_half(&self.0[..8], &control.0[..8]);
        let hi = shuffle_half(&self.0[8..], &control.0[8..]);
        V16::from_halves(V8(lo), V8(hi))
    }

    /// Each row of four lanes rotated by one: lane `4r + c` takes lane `4r + (c + 1) % 4`.
    #[inline]
    pub(super) fn rotate_rows(self) -> V16 {
        self.map(|i| self.0[i / 4 * 4 + (i + 1) % 4])
    }

    /// Each row rotated by two.
    #[inline]
    pub(super) fn rotate_rows2(self) -> V16 {
        self.map(|i| self.0[i / 4 * 4 + (i + 2) % 4])
    }

    /// The rows rotated by one: row `r` takes row `(r + 1) % 4`.
    #[inline]
    pub(super) fn rotate_cols(self) -> V16 {
        self.map(|i| self.0[(i + 4) % 16])
    }

    /// The rows rotated by two.
    #[inline]
    pub(super) fn rotate_cols2(self) -> V16 {
        self.map(|i| self.0[(i + 8) % 16])
    }
}
