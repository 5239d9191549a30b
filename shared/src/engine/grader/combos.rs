//! Subset search shared by the subset and fish techniques: `n` items whose masks together have
//! exactly `n` bits, with pruning as soon as a partial union has more than `n`.

/// Calls `f(chosen item indices, union)` for each choice of `n` (1..=4) items of `masks` whose
/// union has exactly `n` bits, in lexicographic order, until `f` returns true.
pub(crate) fn find(masks: &[u128], n: usize, f: &mut impl FnMut(&[usize], u128) -> bool) -> bool {
    fn go(
        masks: &[u128],
        start: usize,
        n: usize,
        union: u128,
        acc: &mut [usize; 4],
        k: usize,
        f: &mut impl FnMut(&[usize], u128) -> bool,
    ) -> bool {
        if k == n {
            return union.count_ones() as usize == n && f(&acc[..n], union);
        }
        for i in start..=masks.len() - (n - k) {
            let u = union | masks[i];
            if u.count_ones() as usize > n {
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
    use super::find;

    #[track_caller]
    fn check(masks: &[u128], n: usize, expected: Option<&[usize]>) {
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
}
