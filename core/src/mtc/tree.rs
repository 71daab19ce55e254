//! The Merkle tree math of an MTC issuance log (draft-ietf-plants-merkle-tree-certs §4, over
//! RFC 9162 §2.1 with SHA-256): the hashes of entries and nodes, which intervals are subtrees,
//! the evaluation of a subtree inclusion proof (what a relying party runs), and, for the
//! issuer, a subtree's hash and an entry's inclusion proof.
//!
//! Invariants: every function is total (no input panics: an invalid subtree or index, a proof
//! of the wrong length, are errors or `None`); `evaluate_inclusion` is the draft's procedure
//! step for step, and `inclusion_proof` followed by `evaluate_inclusion` gives back
//! `subtree_hash` for every subtree and index (tested against the draft's test vectors).

use aws_lc_rs::digest;

/// A SHA-256 value: an entry's, a node's or a subtree's hash.
pub type Hash = [u8; HASH_SIZE];

/// The hash size of the SHA-256 profile, the one the draft recommends (and certbench uses).
pub const HASH_SIZE: usize = 32;

fn sha256(parts: &[&[u8]]) -> Hash {
    let mut ctx = digest::Context::new(&digest::SHA256);
    for p in parts {
        ctx.update(p);
    }
    let mut out = [0u8; HASH_SIZE];
    out.copy_from_slice(ctx.finish().as_ref());
    out
}

/// `MTH({d}) = HASH(0x00 || d)`: an entry's hash (RFC 9162 §2.1.1).
pub fn leaf_hash(entry: &[u8]) -> Hash {
    sha256(&[&[0x00], entry])
}

/// `HASH(0x01 || left || right)`: an inner node's hash.
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    sha256(&[&[0x01], left, right])
}

/// Whether `[start, end)` is a subtree: `start <= end` and `start` a multiple of
/// `BIT_CEIL(end - start)` (§4.1), without overflowing at the top of `u64`.
pub fn is_valid_subtree(start: u64, end: u64) -> bool {
    if start > end {
        return false;
    }
    let size = end - start;
    if size > 1 << 63 {
        return start == 0;
    }
    start & (size.next_power_of_two() - 1) == 0
}

/// Why an inclusion proof does not evaluate to a subtree hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    /// `[start, end)` is not a subtree (§4.1).
    #[error("[{start}, {end}) is not a subtree")]
    InvalidSubtree {
        /// The interval's start.
        start: u64,
        /// The interval's end.
        end: u64,
    },
    /// The entry's index lies outside the subtree.
    #[error("entry {index} is not in [{start}, {end})")]
    IndexOutside {
        /// The entry's index.
        index: u64,
        /// The subtree's start.
        start: u64,
        /// The subtree's end.
        end: u64,
    },
    /// The proof has more hashes than the path from the entry to the subtree's root.
    #[error("inclusion proof too long")]
    TooLong,
    /// The proof has fewer hashes than that path.
    #[error("inclusion proof too short")]
    TooShort,
}

/// The subtree hash an inclusion proof for entry `index` (hash `entry_hash`) of `[start, end)`
/// evaluates to (§4.3.2; RFC 9162 §2.1.3.2 with `r` returned rather than compared).
pub fn evaluate_inclusion(
    proof: &[Hash],
    index: u64,
    entry_hash: &Hash,
    start: u64,
    end: u64,
) -> Result<Hash, ProofError> {
    if !is_valid_subtree(start, end) {
        return Err(ProofError::InvalidSubtree { start, end });
    }
    if !(start <= index && index < end) {
        return Err(ProofError::IndexOutside { index, start, end });
    }
    let (mut fnode, mut snode) = (index - start, end - start - 1);
    let mut r = *entry_hash;
    for p in proof {
        if snode == 0 {
            return Err(ProofError::TooLong);
        }
        if fnode & 1 == 1 || fnode == snode {
            r = node_hash(p, &r);
            while fnode & 1 == 0 && fnode != 0 {
                fnode >>= 1;
                snode >>= 1;
            }
        } else {
            r = node_hash(&r, p);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    if snode != 0 {
        return Err(ProofError::TooShort);
    }
    Ok(r)
}

/// `MTH(D)` over entry hashes (RFC 9162 §2.1.1): the hash of a subtree made of `leaves`
/// (`SHA-256("")` for none).
pub fn subtree_hash(leaves: &[Hash]) -> Hash {
    match leaves.len() {
        0 => sha256(&[]),
        1 => leaves[0],
        n => {
            let k = split(n);
            node_hash(&subtree_hash(&leaves[..k]), &subtree_hash(&leaves[k..]))
        }
    }
}

/// The inclusion proof of leaf `m` in the tree over `leaves` (RFC 9162 §2.1.3.1 `PATH`), or
/// `None` if `m` is not a leaf of it. For a subtree `[start, end)`, `leaves` are its entries'
/// hashes and `m` is `index - start`.
pub fn inclusion_proof(leaves: &[Hash], m: usize) -> Option<Vec<Hash>> {
    if m >= leaves.len() {
        return None;
    }
    let mut path = Vec::new();
    path_into(leaves, m, &mut path);
    Some(path)
}

fn path_into(leaves: &[Hash], m: usize, path: &mut Vec<Hash>) {
    let n = leaves.len();
    if n <= 1 {
        return;
    }
    let k = split(n);
    if m < k {
        path_into(&leaves[..k], m, path);
        path.push(subtree_hash(&leaves[k..]));
    } else {
        path_into(&leaves[k..], m - k, path);
        path.push(subtree_hash(&leaves[..k]));
    }
}

/// The largest power of two smaller than `n` (`n >= 2`): where RFC 9162 splits a tree.
fn split(n: usize) -> usize {
    let mut k = 1;
    while k << 1 < n {
        k <<= 1;
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(h: &[u8]) -> String {
        h.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The draft's tree `D_n`: `d[i]` is the single byte `i`.
    fn leaves(n: usize) -> Vec<Hash> {
        (0..n).map(|i| leaf_hash(&[i as u8])).collect()
    }

    #[test]
    fn subtree_hashes_match_the_drafts_accumulated_vector() {
        let d = leaves(130);
        let mut acc = digest::Context::new(&digest::SHA256);
        for end in 0..=130u64 {
            for start in 0..=end {
                if is_valid_subtree(start, end) {
                    let h = subtree_hash(&d[start as usize..end as usize]);
                    acc.update(format!("[{start}, {end}) {}\n", hex(&h)).as_bytes());
                }
            }
        }
        assert_eq!(
            hex(acc.finish().as_ref()),
            "b82806ad4265bb151c1119c0f4db437bb4d1a1f887b3a7fba1cd4ebf552e3e81"
        );
    }

    #[test]
    fn inclusion_proofs_match_the_drafts_vector_and_evaluate_to_their_subtree() {
        let d = leaves(130);
        let mut acc = digest::Context::new(&digest::SHA256);
        for end in 0..=130u64 {
            for start in 0..=end {
                if !is_valid_subtree(start, end) {
                    continue;
                }
                let sub = &d[start as usize..end as usize];
                let root = subtree_hash(sub);
                for index in start..end {
                    let m = (index - start) as usize;
                    let proof = inclusion_proof(sub, m).unwrap();
                    let mut line = format!("{index} [{start}, {end})");
                    for p in &proof {
                        line.push(' ');
                        line.push_str(&hex(p));
                    }
                    acc.update(format!("{line}\n").as_bytes());
                    let got = evaluate_inclusion(&proof, index, &sub[m], start, end);
                    assert_eq!(got, Ok(root), "{index} [{start}, {end})");
                }
            }
        }
        assert_eq!(
            hex(acc.finish().as_ref()),
            "ac2a8f989e44d99e399db448050ff5f19757df53cfb716aa81015d3955d8163f"
        );
    }

    #[test]
    fn a_changed_proof_does_not_evaluate_to_the_subtree() {
        let d = leaves(13);
        let sub = &d[8..13];
        let root = subtree_hash(sub);
        let mut proof = inclusion_proof(sub, 2).unwrap();
        assert_eq!(proof.len(), 3, "the draft's example: 11, [8,10), 12");
        proof[1][0] ^= 1;
        assert_ne!(evaluate_inclusion(&proof, 10, &d[10], 8, 13), Ok(root));
        proof.pop();
        assert_eq!(
            evaluate_inclusion(&proof, 10, &d[10], 8, 13),
            Err(ProofError::TooShort)
        );
        let long = [d[0]; 4];
        assert_eq!(
            evaluate_inclusion(&long, 10, &d[10], 8, 13),
            Err(ProofError::TooLong)
        );
        assert!(matches!(
            evaluate_inclusion(&[], 3, &d[3], 2, 6),
            Err(ProofError::InvalidSubtree { .. })
        ));
        assert!(matches!(
            evaluate_inclusion(&[], 13, &d[3], 8, 13),
            Err(ProofError::IndexOutside { .. })
        ));
        assert!(is_valid_subtree(0, u64::MAX) && !is_valid_subtree(1, u64::MAX));
    }
}
