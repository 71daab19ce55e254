//! The schedule every command measures by: methods interleaved in the rows of a balanced
//! Latin square, so that no method always runs first or always after the same other one.

/// Row `k` of a balanced Latin square of `0..n` (a Williams design): over any [`period`]`(n)`
/// consecutive `k` — `n` rows for an even `n`, `2n` (the rows and their mirror images) for an
/// odd one — every method takes every position equally often and directly follows every
/// other method equally often. Going through all `n!` orders would take `n!` runs to balance
/// (720 for six methods): a run of 60 would have put one method first every time, and the
/// same few right after it.
pub fn permutation(n: usize, k: usize) -> Vec<usize> {
    if n == 0 {
        return Vec::new();
    }
    // The first row: 0, 1, n−1, 2, n−2, 3, …; row i adds i to each (mod n).
    let first = (0..n).map(|j| match j {
        0 => 0,
        j if j % 2 == 1 => j.div_ceil(2),
        j => n - j / 2,
    });
    let k = k % period(n);
    let mut row: Vec<usize> = first.map(|m| (m + k) % n).collect();
    if k >= n {
        row.reverse();
    }
    row
}

/// How many consecutive rows of [`permutation`] balance positions and predecessors.
pub fn period(n: usize) -> usize {
    if n.is_multiple_of(2) { n.max(1) } else { 2 * n }
}

#[cfg(test)]
mod tests {
    use super::{period, permutation};

    #[test]
    fn permutations_give_every_method_every_position_and_predecessor() {
        assert_eq!(permutation(3, 0), [0, 1, 2]);
        assert_eq!(permutation(6, 0), [0, 1, 5, 2, 4, 3]);
        assert_eq!(permutation(1, 5), [0]);
        assert!(permutation(0, 3).is_empty());
        for n in 2..=8 {
            let p = period(n);
            // Any `p` consecutive rows are balanced, wherever they start.
            for start in [0, 1, 5, 33] {
                let rows: Vec<Vec<usize>> = (start..start + p).map(|k| permutation(n, k)).collect();
                let mut at = std::collections::HashMap::new();
                let mut pairs = std::collections::HashMap::new();
                for r in &rows {
                    let mut sorted = r.clone();
                    sorted.sort();
                    assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "a permutation: {r:?}");
                    for (pos, &m) in r.iter().enumerate() {
                        *at.entry((pos, m)).or_insert(0) += 1;
                    }
                    for w in r.windows(2) {
                        *pairs.entry((w[0], w[1])).or_insert(0) += 1;
                    }
                }
                assert_eq!(at.len(), n * n, "n={n}: every method in every position");
                assert!(at.values().all(|&c| c == p / n), "n={n}: {at:?}");
                assert_eq!(
                    pairs.len(),
                    n * (n - 1),
                    "n={n}: every ordered pair adjacent"
                );
                let want = p * (n - 1) / (n * (n - 1));
                assert!(pairs.values().all(|&c| c == want), "n={n}: {pairs:?}");
            }
            assert_eq!(permutation(n, p), permutation(n, 0));
        }
    }
}
