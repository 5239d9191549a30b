//! Subset search shared by the subset and fish techniques: `n` items whose 9-bit masks together
//! have exactly `n` bits, pruned as soon as a partial union has more than `n`.

/// Bits set in each 9-bit mask (the default x86-64 target has no popcount instruction).
pub(crate) const POP9: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut i = 1;
    while i < 512 {
        t[i] = t[i >> 1] + (i & 1) as u8;
        i += 1;
    }
    t
};

/// Bits set in a 9-bit mask.
#[inline]
pub(crate) fn pop9(m: u16) -> usize {
    POP9[(m & 0x1ff) as usize] as usize
}

/// Calls `f(chosen item indices, union)` for each choice of `n` (1..=4) items of `masks` whose
/// union has exactly `n` bits, in lexicographic order, until `f` returns true.
pub(crate) fn find(masks: &[u16], n: usize, f: &mut impl FnMut(&[usize], u16) -> bool) -> bool {
    fn go(
        masks: &[u16],
        start: usize,
        n: usize,
        union: u16,
        acc: &mut [usize; 4],
        k: usize,
        f: &mut impl FnMut(&[usize], u16) -> bool,
    ) -> bool {
        if k == n {
            return pop9(union) == n && f(&acc[..n], union);
        }
        for i in start..=masks.len() - (n - k) {
            let u = union | masks[i];
            if pop9(u) > n {
                continue;
            }
            acc[k] = i;
            if go(masks, i + 1, n, u, acc, k + 1, f) {
                return true;
            }
        }
        false
    }
    if n == 0 || n > 4 || masks.len() < n {
        return false;
    }
    go(masks, 0, n, 0, &mut [0; 4], 0, f)
}

#[cfg(test)]
mod tests {
    use super::{find, pop9};

    #[track_caller]
    fn check(masks: &[u16], n: usize, expected: Option<&[usize]>) {
        let mut got = None;
        find(masks, n, &mut |idx, _| {
            got = Some(idx.to_vec());
            true
        });
        assert_eq!(got.as_deref(), expected);
    }

    #[test]
    fn finds_the_first_closed_subset() {
        check(&[0b011, 0b110, 0b011], 2, Some(&[0, 2]));
        check(&[0b011, 0b110, 0b101], 3, Some(&[0, 1, 2]));
        check(&[0b011, 0b110, 0b1100], 2, None);
        check(&[0b1], 2, None);
    }

    #[test]
    fn pop9_counts() {
        for m in 0..512u16 {
            assert_eq!(pop9(m), m.count_ones() as usize);
        }
    }
}
