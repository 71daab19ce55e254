//! An MTC issuance log as certbench's CA keeps it (draft-ietf-plants-merkle-tree-certs-07 §5.2):
//! a Merkle tree (SHA-256) of log entries whose first entries are `null_entry` padding and
//! whose last are the certificates issued, with its landmarks (§6.3) and the two subtrees
//! covering each landmark's interval (§4.5).
//!
//! The padding, before and after the certificates, stands for the rest of a real CA's
//! issuance: a landmark interval holds an hour's issuance at today's rate
//! ([`ISSUANCE_PER_HOUR`], [`ENTRIES_PER_LANDMARK`]) with the draft's hourly landmarks, so a
//! certificate's inclusion proof is as long as it would be there ([`proof_hashes`]), not as
//! long as a log of 13 entries would make it. Null entries are never stored: a perfect subtree of them
//! has one hash per height, computed once.
//!
//! Invariants: `subtree_hash(s, e)` is RFC 9162's `MTH(D[s:e])` of the log's entries, and
//! `inclusion_proof` evaluates to it under `certbench_core::mtc::tree::evaluate_inclusion`
//! (tested); a range outside the log is `None`, never a panic.

use certbench_core::mtc::tree::{Hash, leaf_hash, node_hash};

/// A log entry of type `null_entry` with no extensions: `extensions<0>` then type 0 (§5.2.1).
pub const NULL_ENTRY: [u8; 4] = [0, 0, 0, 0];

/// Certificates issued an hour, all CAs together, as Certificate Transparency saw them in
/// 2026 (~591,000: the figure the draft's PR #325 cites, 2026-09), the rate a landmark
/// interval is sized from here, in place of the draft's own §6.4 estimate (4,400,000).
pub const ISSUANCE_PER_HOUR: u64 = 591_000;

/// Hours between landmarks: the draft's hourly landmarks (§6.3).
pub const LANDMARK_HOURS: u64 = 1;

/// Entries per landmark interval: one interval's issuance at [`ISSUANCE_PER_HOUR`].
pub const ENTRIES_PER_LANDMARK: u64 = ISSUANCE_PER_HOUR * LANDMARK_HOURS;

/// The hashes of an inclusion proof in a subtree of `size` entries (a perfect subtree's
/// height; a landmark's covering subtree is one, §4.5).
pub fn proof_hashes(size: u64) -> u32 {
    size.max(1).next_power_of_two().trailing_zeros()
}

/// An issuance log: `padding` null entries, then `entries` (their leaf hashes), then
/// `trailing` null entries.
pub struct IssuanceLog {
    /// The log number (1: the CA's first and current log).
    pub log_number: u16,
    padding: u64,
    entries: Vec<Hash>,
    trailing: u64,
    /// `null_heights[k]`: the hash of a perfect subtree of `2^k` null entries.
    null_heights: Vec<Hash>,
    /// Landmark tree sizes, landmark 0 (size 0) first (§6.3).
    pub landmarks: Vec<u64>,
}

impl IssuanceLog {
    /// A log of number `log_number` whose first `padding` entries are null entries, its last
    /// landmark at `last_landmark` (`<= padding`; the landmarks between 0 and it are not kept:
    /// only the next one's subtrees are trusted).
    pub fn new(log_number: u16, last_landmark: u64, padding: u64) -> IssuanceLog {
        let mut null_heights = vec![leaf_hash(&NULL_ENTRY)];
        while null_heights.len() < 64 {
            let h = *null_heights.last().expect("one at least");
            null_heights.push(node_hash(&h, &h));
        }
        IssuanceLog {
            log_number,
            padding,
            entries: Vec::new(),
            trailing: 0,
            null_heights,
            landmarks: vec![0, last_landmark.min(padding)],
        }
    }

    /// The tree size.
    pub fn size(&self) -> u64 {
        self.padding + self.entries.len() as u64 + self.trailing
    }

    /// Appends an entry by its leaf hash; its index (none after [`IssuanceLog::pad_to`]).
    pub fn append(&mut self, entry_hash: Hash) -> Option<u64> {
        (self.trailing == 0).then(|| {
            self.entries.push(entry_hash);
            self.size() - 1
        })
    }

    /// Appends null entries up to tree size `size` (the rest of the CA's issuance).
    pub fn pad_to(&mut self, size: u64) {
        self.trailing += size.saturating_sub(self.size());
    }

    /// Allocates a landmark at the current tree size; the two subtrees covering its interval
    /// `[previous landmark, size)`, as §4.5 selects them (left, right; either may be empty).
    pub fn allocate_landmark(&mut self) -> [(u64, u64); 2] {
        let prev = *self.landmarks.last().expect("landmark 0");
        let end = self.size();
        self.landmarks.push(end);
        covering_subtrees(prev, end)
    }

    fn leaf(&self, i: u64) -> Hash {
        match i.checked_sub(self.padding) {
            Some(j) if j < self.entries.len() as u64 => self.entries[j as usize],
            _ => self.null_heights[0],
        }
    }

    /// Whether `[start, end)` holds null entries only.
    fn all_null(&self, start: u64, end: u64) -> bool {
        end <= self.padding || start >= self.padding + self.entries.len() as u64
    }

    /// `MTH(D[start:end])`, or `None` outside the log.
    pub fn subtree_hash(&self, start: u64, end: u64) -> Option<Hash> {
        (start <= end && end <= self.size()).then(|| self.mth(start, end))
    }

    fn mth(&self, start: u64, end: u64) -> Hash {
        let n = end - start;
        if n == 0 {
            return certbench_core::mtc::tree::subtree_hash(&[]);
        }
        if n == 1 {
            return self.leaf(start);
        }
        if self.all_null(start, end) && n.is_power_of_two() {
            return self.null_heights[n.trailing_zeros() as usize];
        }
        let k = largest_power_below(n);
        node_hash(&self.mth(start, start + k), &self.mth(start + k, end))
    }

    /// The inclusion proof of entry `index` in subtree `[start, end)` (RFC 9162 `PATH` over
    /// `D[start:end]`), or `None` if the entry is not in it or it is not in the log.
    pub fn inclusion_proof(&self, index: u64, start: u64, end: u64) -> Option<Vec<Hash>> {
        if !(start <= index && index < end && end <= self.size()) {
            return None;
        }
        let mut path = Vec::new();
        self.path(index, start, end, &mut path);
        Some(path)
    }

    fn path(&self, index: u64, start: u64, end: u64, out: &mut Vec<Hash>) {
        let n = end - start;
        if n <= 1 {
            return;
        }
        let k = largest_power_below(n);
        if index < start + k {
            self.path(index, start, start + k, out);
            out.push(self.mth(start + k, end));
        } else {
            self.path(index, start + k, end, out);
            out.push(self.mth(start, start + k));
        }
    }
}

/// The largest power of two smaller than `n` (`n >= 2`).
fn largest_power_below(n: u64) -> u64 {
    1 << (63 - (n - 1).leading_zeros())
}

/// The two subtrees that cover `[start, end)` (§4.5.1): `[left_start, mid)` and `[mid, end)`.
pub fn covering_subtrees(start: u64, end: u64) -> [(u64, u64); 2] {
    if end - start <= 1 {
        return [(start, end), (end, end)];
    }
    let last = end - 1;
    let split = 63 - (start ^ last).leading_zeros();
    let mask = (1u64 << split) - 1;
    let mid = last & !mask;
    let left_split = 64 - (!start & mask).leading_zeros();
    let left_start = start & !((1u64 << left_split) - 1);
    [(left_start, mid), (mid, end)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use certbench_core::mtc::tree::{evaluate_inclusion, is_valid_subtree, subtree_hash};

    #[test]
    fn a_padded_log_hashes_and_proves_as_the_plain_tree_does() {
        let mut log = IssuanceLog::new(1, 30, 37);
        for i in 0..11u8 {
            log.append(leaf_hash(&[i]));
        }
        log.pad_to(70);
        assert_eq!(
            log.append(leaf_hash(&[0])),
            None,
            "nothing after the padding"
        );
        let mut plain = vec![leaf_hash(&NULL_ENTRY); 37];
        plain.extend((0..11u8).map(|i| leaf_hash(&[i])));
        plain.extend([leaf_hash(&NULL_ENTRY); 22]);
        for end in 0..=70u64 {
            for start in 0..=end {
                let want = subtree_hash(&plain[start as usize..end as usize]);
                assert_eq!(log.subtree_hash(start, end), Some(want));
                if !is_valid_subtree(start, end) {
                    continue;
                }
                for index in start..end {
                    let proof = log.inclusion_proof(index, start, end).unwrap();
                    let got = evaluate_inclusion(&proof, index, &log.leaf(index), start, end);
                    assert_eq!(got, Ok(want), "{index} [{start}, {end})");
                }
            }
        }
        assert_eq!(log.subtree_hash(0, 71), None);
    }

    #[test]
    fn covering_subtrees_are_the_drafts_example_and_valid() {
        assert_eq!(covering_subtrees(5, 13), [(4, 8), (8, 13)]);
        assert_eq!(covering_subtrees(7, 9), [(7, 8), (8, 9)]);
        for end in 0..70u64 {
            for start in 0..=end {
                let [(ls, mid), (m2, e)] = covering_subtrees(start, end);
                assert!(is_valid_subtree(ls, mid) && is_valid_subtree(m2, e));
                assert!(mid == m2 && e == end && ls <= start);
            }
        }
    }
}
