//! Path prediction: which trust anchors webpki's walk could use, and which signature checks
//! the path it will try first needs.
//!
//! Both follow rustls-webpki's `build_chain_inner` (anchors before sent intermediates, the
//! first match by subject); a prediction that turns out wrong costs only the checks made for
//! it, never a verdict (see the module docs of `rustls_parallel`).

use arrayvec::ArrayVec;
use rustls_pki_types::{SignatureVerificationAlgorithm, TrustAnchor};

use std::collections::HashMap;

use super::check::Check;
use super::measure::{Class, MEASURED};
use crate::chain::Chain;
use crate::der::{SignedParts, Spki};

/// The most signature checks done ahead of webpki's walk. A real server chain has a few (one
/// per certificate, a few more with cross-signs); beyond this the chain is not one a browser
/// meets, and the serial walk, bounded by webpki's own budget, decides it.
pub const MAX_PRECHECKS: usize = 16;

/// Trust anchors plus an index from subject to anchors, to find candidate issuers quickly.
pub struct ParallelRoots {
    pub(super) anchors: Vec<TrustAnchor<'static>>,
    pub(super) by_subject: HashMap<Vec<u8>, Vec<usize>>,
}

/// The candidate checks of one chain, on the stack.
pub(super) type Checks<'a> = ArrayVec<Check<'a>, MAX_PRECHECKS>;

/// The most trust anchors [`relevant_anchors`] hands webpki; a chain whose issuers name more
/// (same-subject decoys, say) is walked against the whole store.
const MAX_ANCHORS: usize = 16;

/// The trust anchors whose subject is the issuer of a certificate of `chain` (the leaf or a
/// sent intermediate), borrowed, in the store's order; `None` (walk the whole store) when a
/// certificate's issuer cannot be read or more than [`MAX_ANCHORS`] anchors match.
///
/// Invariant: webpki's walk over these gives what it gives over the whole store. The walk
/// only considers an anchor whose subject equals the head's issuer byte for byte
/// (`build_chain_inner`), every head is one of these certificates, and an anchor it skips
/// adds `UnknownIssuer`, the least specific error, which never displaces another
/// (`Error::most_specific`) and consumes no budget. So the anchors left out are exactly the
/// ones the walk would have skipped, and the ones kept are met in the same order. rustls-webpki
/// compares subjects by a linear scan of the store per head (briansmith/webpki#38); this is
/// the index the store has ([`ParallelRoots`]), looked up once per certificate.
pub(super) fn relevant_anchors<'r>(
    chain: &Chain,
    roots: &'r ParallelRoots,
) -> Option<ArrayVec<TrustAnchor<'r>, MAX_ANCHORS>> {
    let mut found: ArrayVec<usize, MAX_ANCHORS> = ArrayVec::new();
    for cert in chain.iter() {
        let issuer = crate::der::issuer(cert)?;
        for &i in roots.by_subject.get(issuer).map_or(&[][..], Vec::as_slice) {
            if !found.contains(&i) {
                found.try_push(i).ok()?;
            }
        }
    }
    found.sort_unstable();
    Some(
        found
            .iter()
            .map(|&i| {
                let a = &roots.anchors[i];
                TrustAnchor {
                    subject: a.subject.as_ref().into(),
                    subject_public_key_info: a.subject_public_key_info.as_ref().into(),
                    name_constraints: a.name_constraints.as_ref().map(|n| n.as_ref().into()),
                }
            })
            .collect(),
    )
}

/// The signature checks of the path webpki's walk will try first (below), each with the
/// algorithm webpki would pick (the first whose signature and public-key algorithm
/// identifiers both match). Checking every candidate instead (each sent certificate against
/// every issuer it could have) did work the walk never asks for — a sent cross-signed root
/// beside the anchor it duplicates, say — and made chains slower than the serial walk. A
/// certificate that does not parse ends the path: webpki will reject or skip it itself.
/// `None` when the path has more than [`MAX_PRECHECKS`] links.
/// Allocates nothing: the parsed certificates and the checks are on the stack.
pub(super) fn candidate_checks<'a>(
    chain: &'a Chain,
    roots: &'a ParallelRoots,
    algs: &[&dyn SignatureVerificationAlgorithm],
) -> Option<Checks<'a>> {
    if chain.len() > MAX_PRECHECKS + 1 {
        return None; // at least one candidate per certificate that has an issuer here
    }
    let parsed: ArrayVec<Option<SignedParts<'a>>, { MAX_PRECHECKS + 1 }> =
        chain.iter().map(|c| SignedParts::parse(c).ok()).collect();
    let mut checks = Checks::new();
    // Err when there are more candidates than MAX_PRECHECKS.
    let add = |checks: &mut Checks<'a>, child: &SignedParts<'a>, issuer: Spki<'a>| {
        let Some(alg) = algs.iter().position(|a| {
            a.signature_alg_id().as_ref() == child.sig_alg
                && a.public_key_alg_id().as_ref() == issuer.alg
        }) else {
            return Ok(());
        };
        let dup = checks
            .iter()
            .any(|c| c.alg == alg && c.key == issuer.key && c.msg == child.tbs);
        if dup {
            return Ok(());
        }
        let class = Class::of_key(algs[alg].public_key_alg_id(), issuer.key);
        checks
            .try_push(Check::new(
                alg,
                class,
                issuer.key,
                child.tbs,
                child.signature,
            ))
            .map_err(|_| ())
    };
    // The path webpki's walk will try first (rustls-webpki's `build_chain_inner`): from the
    // leaf, a head whose issuer is a trust anchor's subject ends the path at the first such
    // anchor (anchors are tried before intermediates); otherwise the first sent certificate
    // whose subject is the head's issuer, not already on the path, extends it. Its links are
    // the signatures the walk checks when that path is good; anything else it asks (a path
    // that fails, then another) goes to the real algorithm.
    let mut head = parsed.first()?.as_ref()?;
    let mut on_path: ArrayVec<usize, { MAX_PRECHECKS + 1 }> = ArrayVec::new();
    on_path.push(0);
    loop {
        if let Some(&a) = roots.by_subject.get(head.issuer).and_then(|v| v.first()) {
            if let Ok(spki) = Spki::from_contents(&roots.anchors[a].subject_public_key_info) {
                add(&mut checks, head, spki).ok()?;
            }
            break;
        }
        let next = (1..parsed.len()).find(|j| {
            !on_path.contains(j)
                && parsed[*j]
                    .as_ref()
                    .is_some_and(|p| p.subject == head.issuer)
        });
        let Some(j) = next else { break };
        let Some(issuer) = parsed[j].as_ref() else {
            break;
        };
        add(&mut checks, head, issuer.spki).ok()?;
        on_path.try_push(j).ok()?;
        head = issuer;
    }
    // Largest first, by this machine's measured costs (unmeasured classes last; the decision
    // overlaps only measured ones). Unstable sort: in place, no buffer.
    checks.sort_unstable_by_key(|c| std::cmp::Reverse(MEASURED.cost(c.class).unwrap_or(0)));
    Some(checks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::load_chain_dir;
    use crate::methods::rustls_parallel::RustlsParallel;
    use crate::methods::rustls_serial::signature_algorithms;
    use crate::verifier::Verifier;

    #[test]
    fn the_walk_gets_exactly_the_anchors_named_as_an_issuer_in_store_order() {
        let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/real-chains");
        let mut dirs: Vec<_> = std::fs::read_dir(&base)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("leaf.pem").exists())
            .collect();
        dirs.sort();
        // Every corpus root: a store where most anchors are someone else's.
        let mut all_roots = Vec::new();
        for d in &dirs {
            all_roots.extend(crate::chain::read_pem_certs(&d.join("root.pem")).unwrap());
        }
        let roots = RustlsParallel::new().build_roots(&all_roots).unwrap();
        for d in &dirs {
            let chain = load_chain_dir(d).unwrap();
            let issuers: Vec<&[u8]> = chain
                .iter()
                .map(|c| SignedParts::parse(c).unwrap().issuer)
                .collect();
            let want: Vec<&[u8]> = roots
                .anchors
                .iter()
                .map(|a| a.subject.as_ref())
                .filter(|s| issuers.contains(s))
                .collect();
            let got = relevant_anchors(&chain, &roots).unwrap();
            let got: Vec<&[u8]> = got.iter().map(|a| a.subject.as_ref()).collect();
            assert_eq!(got, want, "{}", d.display());
            assert!(!got.is_empty(), "{}: its own root", d.display());
        }
        // More same-subject anchors than the subset holds: the whole store is walked.
        let reddit = base.join("reddit.com__rustls-bench");
        let root = crate::chain::read_pem_certs(&reddit.join("root.pem")).unwrap();
        let many: Vec<_> = (0..=MAX_ANCHORS).map(|_| root[0].clone()).collect();
        let roots = RustlsParallel::new().build_roots(&many).unwrap();
        assert!(relevant_anchors(&load_chain_dir(&reddit).unwrap(), &roots).is_none());
    }

    #[test]
    fn candidates_cover_the_path_of_a_two_certificate_chain() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../corpus/real-chains/reddit.com__rustls-bench");
        let chain = load_chain_dir(&dir).unwrap();
        let root = crate::chain::read_pem_certs(&dir.join("root.pem")).unwrap();
        let roots = RustlsParallel::new().build_roots(&root).unwrap();
        let checks = candidate_checks(&chain, &roots, signature_algorithms()).unwrap();
        // leaf ← intermediate, intermediate ← root.
        assert_eq!(checks.len(), 2);
        for c in &checks {
            assert!(
                signature_algorithms()[c.alg]
                    .verify_signature(c.key, c.msg, c.sig)
                    .is_ok()
            );
        }
    }
}
