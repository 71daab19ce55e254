//! The schedule every command measures by: methods interleaved in the rows of a balanced
//! Latin square, so that no method always runs first or always after the same other one.
//!
//! A command takes its runs from [`steps`] (the driver and `verify`: warm-up runs, then
//! measured runs, counted across both; `limbo`: its one run) or [`loads`] (`page`: its
//! measured loads, each one every page; its warm-up loads go page by page), and each
//! [`Step`] orders the methods of every item it measures (a site, a chain, a testcase, a
//! page): [`Step::order`].

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

/// One run of a command's schedule: warm-up or measured, its index among the runs of its
/// kind, and the row and block of the square its items' method orders are taken from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// A warm-up run (its samples recorded as warm-up, or not recorded).
    pub warmup: bool,
    /// The run's index among the warm-up runs, or among the measured runs.
    pub run: u32,
    /// The methods (entries) ordered.
    methods: usize,
    /// The row of item 0: item `i` takes row `row + i`.
    row: usize,
    /// The block the rows are renamed for ([`permutation_in_block`]).
    block: usize,
}

impl Step {
    /// The order of the methods for item `item` of this run: row `row + item` of the square,
    /// renamed for the step's block. Every item steps through every row as the runs go by.
    pub fn order(&self, item: usize) -> Vec<usize> {
        permutation_in_block(self.methods, self.row + item, self.block)
    }
}

/// The runs of the driver and `verify`: `warmup` warm-up runs, then `runs` measured ones,
/// `methods` ordered in each. Runs are counted across both kinds: run `r` of them (0-based,
/// warm-ups first) gives item `i` row `r + i`, and block `r / period(methods)`, so that each
/// block is a whole square and what ran two before a method changes from block to block.
pub fn steps(methods: usize, warmup: u32, runs: u32) -> impl Iterator<Item = Step> {
    let kinds = [(true, warmup), (false, runs)];
    let all = kinds
        .into_iter()
        .flat_map(|(warmup, runs)| (0..runs).map(move |run| (warmup, run)));
    all.enumerate().map(move |(counted, (warmup, run))| Step {
        warmup,
        run,
        methods,
        row: counted,
        block: counted / period(methods),
    })
}

/// The runs of `page` over `items` pages: with any warm-up, one warm-up step first (row 0 of
/// the plain square: page `p` takes row `p`; the page loader repeats each method's warm-up
/// load `warmup` times in place), then `runs` measured loads, load `n` (0-based) giving page
/// `p` row `n × items + p` and block `n / period(methods)`: warm-ups do not count, and the
/// rows go on from one load's last page to the next load's first.
pub fn loads(methods: usize, items: usize, warmup: u32, runs: u32) -> impl Iterator<Item = Step> {
    let first = (warmup > 0).then_some(Step {
        warmup: true,
        run: 0,
        methods,
        row: 0,
        block: 0,
    });
    let measured = (0..runs).map(move |n| Step {
        warmup: false,
        run: n,
        methods,
        row: n as usize * items,
        block: n as usize / period(methods),
    });
    first.into_iter().chain(measured)
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

    /// Every (warm-up, run, item, method) a command measures, in order.
    type Sequence = Vec<(bool, u32, usize, usize)>;

    fn flatten(steps: impl Iterator<Item = super::Step>, items: usize) -> Sequence {
        let mut all = Vec::new();
        for step in steps {
            for item in 0..items {
                for m in step.order(item) {
                    all.push((step.warmup, step.run, item, m));
                }
            }
        }
        all
    }

    #[test]
    fn steps_are_the_order_the_driver_and_verify_measured_by() {
        use super::{permutation_in_block, steps};
        // The loop the driver and `verify` each wrote out before [`steps`].
        let before = |n: usize, items: usize, warmup: u32, runs: u32| {
            let mut all = Vec::new();
            let mut runs_before = 0usize;
            for (w, count) in [(true, warmup), (false, runs)] {
                for run in 0..count {
                    let order = runs_before + run as usize;
                    let block = order / period(n);
                    for c in 0..items {
                        for k in permutation_in_block(n, order + c, block) {
                            all.push((w, run, c, k));
                        }
                    }
                }
                runs_before += count as usize;
            }
            all
        };
        for (n, items, warmup, runs) in [(1, 1, 0, 1), (3, 2, 1, 4), (4, 5, 2, 9), (6, 3, 0, 13)] {
            let got = flatten(steps(n, warmup, runs), items);
            assert_eq!(got, before(n, items, warmup, runs), "n={n} items={items}");
            assert_eq!(got.len(), n * items * (warmup + runs) as usize);
        }
    }

    #[test]
    fn loads_are_the_order_page_measured_by() {
        use super::{loads, permutation, permutation_in_block};
        // `page`'s loop before [`loads`]: warm-ups page by page in the plain square, then
        // every load of every page.
        let before = |n: usize, pages: usize, warmup: u32, runs: u32| {
            let mut all = Vec::new();
            if warmup > 0 {
                for p in 0..pages {
                    for k in permutation(n, p) {
                        all.push((true, 0, p, k));
                    }
                }
            }
            for load in 0..runs {
                for p in 0..pages {
                    let block = load as usize / period(n);
                    for k in permutation_in_block(n, load as usize * pages + p, block) {
                        all.push((false, load, p, k));
                    }
                }
            }
            all
        };
        for (n, pages, warmup, runs) in [(1, 1, 0, 1), (3, 2, 1, 4), (4, 5, 2, 9), (2, 3, 0, 5)] {
            let got = flatten(loads(n, pages, warmup, runs), pages);
            assert_eq!(got, before(n, pages, warmup, runs), "n={n} pages={pages}");
        }
    }

    #[test]
    fn page_over_one_page_gets_the_driver_and_verify_sequence() {
        // The driver (sites) and `verify` (chains) take [`super::steps`], `page` takes
        // [`super::loads`]: over one page and without warm-up, the same runs in the same
        // order, each with the same methods' order; with several items too for the driver's
        // first run.
        for (n, runs) in [(1, 3), (3, 7), (4, 9), (5, 11)] {
            let driver = flatten(super::steps(n, 0, runs), 1);
            let page = flatten(super::loads(n, 1, 0, runs), 1);
            assert_eq!(page, driver, "n={n}");
            let first = |s: Sequence| -> Sequence { s.into_iter().filter(|x| x.1 == 0).collect() };
            assert_eq!(
                first(flatten(super::loads(n, 4, 0, runs), 4)),
                first(flatten(super::steps(n, 0, runs), 4)),
                "n={n}: the first run, four items"
            );
        }
    }

    #[test]
    fn limbos_one_run_orders_testcase_i_by_row_i_of_the_plain_square() {
        // `limbo` takes the one step of a run without warm-up: testcase `i`, row `i`, as it
        // took `permutation(n, i)` before.
        for n in 1..=6 {
            let step = super::steps(n, 0, 1).next().unwrap();
            for i in 0..20 {
                assert_eq!(step.order(i), permutation(n, i), "n={n} i={i}");
            }
        }
    }
}
