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

/// Row `row` of [`permutation`]'s square with its methods renamed for block `block`: as they
/// are in block 0, by a shuffle seeded with the block's number after it (the same in every
/// run of certbench). A renamed square is as balanced as the square (a renaming keeps every
/// position and every predecessor once), but what ran *two* before each method changes:
/// [`permutation`] alone gives each method the same neighbours-but-one in every block, fixed
/// by its place in the list of methods. That measured: `verify` with four methods
/// (rustlsserial, rustlsparallel, chrome, openssl) put the same rustlsparallel code at ×0.95
/// or ×1.07 of rustlsserial by which of the two came first in `--method` (one CPU, so no
/// pool: the second-listed method always ran after chrome then openssl, the two that leave
/// the caches coldest). A caller uses one block per [`period`] of its own runs, so that each
/// block is a whole square.
pub fn permutation_in_block(n: usize, row: usize, block: usize) -> Vec<usize> {
    let mut names: Vec<usize> = (0..n).collect();
    if block > 0 {
        fastrand::Rng::with_seed(block as u64).shuffle(&mut names);
    }
    permutation(n, row).into_iter().map(|i| names[i]).collect()
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

    #[test]
    fn renamed_blocks_stay_balanced_and_vary_what_ran_two_before() {
        use super::permutation_in_block;
        assert_eq!(permutation_in_block(1, 3, 2), [0]);
        assert_eq!(
            permutation_in_block(4, 0, 0),
            permutation(4, 0),
            "block 0: as is"
        );
        for n in [3, 4, 5, 10] {
            // Over eight blocks, each method meets more methods two before it than the
            // plain square gives it (two for n = 4: its neighbours but one, fixed).
            let p = period(n);
            let mut two_before: std::collections::HashMap<usize, std::collections::HashSet<usize>> =
                Default::default();
            let mut plain: std::collections::HashMap<usize, std::collections::HashSet<usize>> =
                Default::default();
            for block in 0..8 {
                let rows: Vec<Vec<usize>> = (0..p)
                    .map(|k| permutation_in_block(n, 7 + k, block))
                    .collect();
                let mut pairs = std::collections::HashMap::new();
                for r in &rows {
                    let mut sorted = r.clone();
                    sorted.sort();
                    assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "a permutation: {r:?}");
                    for w in r.windows(2) {
                        *pairs.entry((w[0], w[1])).or_insert(0) += 1;
                    }
                    for w in r.windows(3) {
                        two_before.entry(w[2]).or_default().insert(w[0]);
                    }
                }
                assert_eq!(pairs.len(), n * (n - 1), "n={n} block {block}: balanced");
                for k in 0..p {
                    for w in permutation(n, 7 + k).windows(3) {
                        plain.entry(w[2]).or_default().insert(w[0]);
                    }
                }
            }
            if n >= 4 {
                let least = |m: &std::collections::HashMap<
                    usize,
                    std::collections::HashSet<usize>,
                >| { m.values().map(|s| s.len()).min().unwrap() };
                assert!(
                    least(&two_before) > least(&plain),
                    "n={n}: renamed {two_before:?}, plain {plain:?}"
                );
            }
        }
    }
}
