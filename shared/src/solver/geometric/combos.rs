//! Every killer cage's digit sets, precomputed once: for a cage of `n` cells adding up to `sum`,
//! the sets of `n` distinct digits that make it (at most 12 for any size and sum). Propagation
//! reads the few sets of a cage instead of walking all 512 digit sets at each step.

/// The digit sets (bit `d` for digit `d`), grouped by size and then sum, each group in
/// increasing order of mask.
const TABLE: ([u16; 512], [[u16; 47]; 10]) = build();

/// The table and, for each (size, sum), where its group starts (`START[n][sum]`; the group ends
/// where `START[n][sum + 1]` starts, sums past 45 start at the end).
const fn build() -> ([u16; 512], [[u16; 47]; 10]) {
    // A counting sort: how many sets each (size, sum) has, where each group starts, then each
    // set in its place (masks in increasing order within a group).
    let mut count = [[0u16; 47]; 10];
    let mut set = 0u16;
    while set < 512 {
        let mask = set << 1;
        count[mask.count_ones() as usize][digit_sum(mask) as usize] += 1;
        set += 1;
    }
    let mut start = [[0u16; 47]; 10];
    let mut at = 0u16;
    let mut n = 0;
    while n < 10 {
        let mut sum = 0;
        while sum < 47 {
            start[n][sum] = at;
            at += count[n][sum];
            sum += 1;
        }
        n += 1;
    }
    let mut sets = [0u16; 512];
    let mut next = start;
    let mut set = 0u16;
    while set < 512 {
        let mask = set << 1;
        let (n, sum) = (mask.count_ones() as usize, digit_sum(mask) as usize);
        sets[next[n][sum] as usize] = mask;
        next[n][sum] += 1;
        set += 1;
    }
    (sets, start)
}

/// The sum of the digits in `mask` (bit `d` for digit `d`).
pub(crate) const fn digit_sum(mask: u16) -> u16 {
    let mut total = 0;
    let mut d = 1;
    while d <= 9 {
        if mask & 1 << d != 0 {
            total += d;
        }
        d += 1;
    }
    total
}

/// The sets of `n` distinct digits adding up to `sum` (empty when there are none).
pub fn combos(n: usize, sum: u16) -> &'static [u16] {
    let (sets, start) = &TABLE;
    let sum = usize::from(sum);
    if n > 9 || sum > 45 {
        return &[];
    }
    let from = usize::from(start[n][sum]);
    let to = usize::from(start[n][sum + 1]);
    &sets[from..to]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_every_set_once() {
        let total: usize = (0..=9)
            .map(|n| (0..=45).map(|s| combos(n, s).len()).sum::<usize>())
            .sum();
        assert_eq!(total, 512);
        assert_eq!(combos(2, 3), [0b110]);
        assert_eq!(combos(2, 17), [1 << 8 | 1 << 9]);
        assert_eq!(combos(3, 15).len(), 8);
        assert_eq!(combos(9, 45), [0b11_1111_1110]);
        assert!(combos(2, 2).is_empty() && combos(10, 45).is_empty());
        assert_eq!(combos(4, 20).len(), 12);
    }
}
