//! The crypto floor of a chain: the signature checks its verification cannot avoid — one per
//! certificate on the path from the leaf to a trust anchor — made with the same library
//! (rustls' aws-lc-rs algorithms) on the same bytes, and nothing else. A verifier's cost over
//! this floor is what its parsing, path building and policy checks add.

use rustls_pki_types::CertificateDer;

use certbench_core::chain::Chain;
use certbench_core::der::{SignedParts, Spki};
use certbench_core::methods::rustls_serial::signature_algorithms;

/// One signature check on the path, its inputs owned.
#[derive(Clone, Debug)]
pub struct PathSignature {
    alg: usize,
    key: Vec<u8>,
    msg: Vec<u8>,
    sig: Vec<u8>,
}

impl PathSignature {
    /// Makes the check (`Ok` if the signature is valid).
    pub fn verify(&self) -> Result<(), rustls_pki_types::InvalidSignature> {
        signature_algorithms()[self.alg].verify_signature(&self.key, &self.msg, &self.sig)
    }
}

/// The signatures on the path from `chain`'s leaf to one of `roots`: each certificate's
/// issuer is the first sent certificate (then root) whose subject is its issuer name, as
/// webpki tries them. `None` when no path reaches a root or an algorithm is not supported.
pub fn path_signatures(
    chain: &Chain,
    roots: &[CertificateDer<'static>],
) -> Option<Vec<PathSignature>> {
    let algs = signature_algorithms();
    let sent: Vec<SignedParts<'_>> = chain
        .intermediates
        .iter()
        .filter_map(|c| SignedParts::parse(c).ok())
        .collect();
    let anchors: Vec<SignedParts<'_>> = roots
        .iter()
        .filter_map(|c| SignedParts::parse(c).ok())
        .collect();
    let mut out = Vec::new();
    let mut child = SignedParts::parse(&chain.leaf).ok()?;
    for _ in 0..=sent.len() {
        let check = |issuer: Spki<'_>| -> Option<PathSignature> {
            let alg = algs.iter().position(|a| {
                a.signature_alg_id().as_ref() == child.sig_alg
                    && a.public_key_alg_id().as_ref() == issuer.alg
            })?;
            Some(PathSignature {
                alg,
                key: issuer.key.to_vec(),
                msg: child.tbs.to_vec(),
                sig: child.signature.to_vec(),
            })
        };
        if let Some(root) = anchors.iter().find(|r| r.subject == child.issuer) {
            out.push(check(root.spki)?);
            return Some(out);
        }
        let next = *sent.iter().find(|s| s.subject == child.issuer)?;
        out.push(check(next.spki)?);
        child = next;
    }
    None
}

/// What each path check costs alone, in nanoseconds: for every chain (with its own roots),
/// the median of `reps` timings of each of its path's checks, the chains' checks interleaved
/// rep by rep as the tool interleaves its methods. `None` for a chain without a path to a root.
pub fn check_costs(
    chains: &[(&Chain, &[CertificateDer<'static>])],
    reps: usize,
) -> Vec<Option<Vec<u64>>> {
    let paths: Vec<Option<Vec<PathSignature>>> = chains
        .iter()
        .map(|(c, roots)| path_signatures(c, roots))
        .collect();
    let mut times: Vec<Vec<Vec<u64>>> = paths
        .iter()
        .map(|p| {
            p.iter()
                .flatten()
                .map(|_| Vec::with_capacity(reps))
                .collect()
        })
        .collect();
    for _ in 0..reps {
        for (path, t) in paths.iter().zip(&mut times) {
            for (check, t) in path.iter().flatten().zip(t.iter_mut()) {
                let start = std::time::Instant::now();
                let _ = std::hint::black_box(check.verify());
                t.push(start.elapsed().as_nanos() as u64);
            }
        }
    }
    paths
        .iter()
        .zip(times)
        .map(|(p, t)| {
            p.as_ref()?;
            Some(
                t.into_iter()
                    .map(|mut v| {
                        v.sort_unstable();
                        v.get(v.len() / 2).copied().unwrap_or(0)
                    })
                    .collect(),
            )
        })
        .collect()
}

/// The least time `threads` threads can take to make checks costing `checks` (any unit), each
/// check whole on one thread: no schedule on that many threads ends sooner, so serial ÷
/// (serial − floor + this) bounds a parallel verifier's speed-up there. Exact for one or two
/// threads (the best split of the checks in two, found by trying every split of up to 20
/// checks) and for at least as many threads as checks (the largest check); otherwise the
/// larger of the largest check and an even share of the sum, which no schedule beats either.
pub fn makespan_bound(checks: &[u64], threads: usize) -> u64 {
    let sum: u64 = checks.iter().sum();
    let largest = checks.iter().copied().max().unwrap_or(0);
    match threads {
        0 | 1 => sum,
        t if t >= checks.len() => largest,
        2 if checks.len() <= 20 => (0u32..1 << checks.len())
            .map(|set| {
                let one: u64 = (0..checks.len())
                    .filter(|i| set & (1 << i) != 0)
                    .map(|i| checks[i])
                    .sum();
                one.max(sum - one)
            })
            .min()
            .unwrap_or(sum),
        t => largest.max(sum.div_ceil(t as u64)),
    }
}

/// Makes every check; `Ok` if all signatures are valid.
pub fn verify_all(path: &[PathSignature]) -> Result<(), rustls_pki_types::InvalidSignature> {
    path.iter().try_for_each(PathSignature::verify)
}

#[cfg(test)]
mod tests {
    use super::*;
    use certbench_core::corpus::Corpus;

    #[test]
    fn the_makespan_bound_is_the_best_split_of_whole_checks() {
        // bing.com's path: two RSA-4096 checks and an RSA-2048 one.
        assert_eq!(makespan_bound(&[78, 78, 21], 1), 177);
        assert_eq!(
            makespan_bound(&[78, 78, 21], 2),
            99,
            "{{78, 21}} and {{78}}"
        );
        assert_eq!(makespan_bound(&[78, 78, 21], 3), 78);
        assert_eq!(makespan_bound(&[78, 78, 21], 8), 78);
        // Two equal P-384 checks: one each.
        assert_eq!(makespan_bound(&[230, 230], 2), 230);
        // A split that is not largest-first: {5, 4} against {3, 3, 3}.
        assert_eq!(makespan_bound(&[5, 4, 3, 3, 3], 2), 9);
        // More checks than threads, beyond two: the larger of the largest and an even share.
        assert_eq!(makespan_bound(&[10, 10, 10, 10], 3), 14);
        assert_eq!(makespan_bound(&[40, 1, 1, 1], 3), 40);
        assert_eq!(makespan_bound(&[], 2), 0);
    }

    #[test]
    fn every_corpus_chain_has_a_valid_floor_path() {
        let corpus = Corpus::bundled().unwrap();
        let mut found = 0;
        for c in &corpus.chains {
            // sanofi's leaf uses the absent-parameters RSA identifier: in rustls' list too.
            if let Some(path) = path_signatures(&c.chain, &c.roots) {
                assert!(!path.is_empty());
                assert!(path.len() <= c.chain.len(), "{}", c.id);
                verify_all(&path).unwrap_or_else(|_| panic!("{}: a bad signature", c.id));
                found += 1;
            }
        }
        assert!(
            found >= 30,
            "{found} of 34 chains have a path to their root"
        );
    }
}
