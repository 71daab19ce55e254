//! The `trimmed` scenario's chain: what a server configured for a post-quantum root would send.
//!
//! Today's servers often send a third certificate (a cross-sign of their CA's root by a legacy
//! root, or the root itself) so that old clients find a path; a client trusting the PQ root
//! needs none of it. A trimmed chain is the leaf and the first intermediate; the intermediate's
//! issuer becomes the trusted root: the real root when it is that issuer, else the sent
//! certificate that is (a cross-sign, whose twin the cloner then makes self-signed under the
//! cross-sign's own subject and with its own fresh key: [`super::clone`] makes the chain's last
//! certificate a root).
//!
//! Invariants: a chain of the leaf and one intermediate, or of the leaf alone, is left as it
//! is (trimmed = served); a trimmed chain keeps `sent[0]` and `sent[1]` byte for byte; when
//! neither the root nor a sent certificate names the intermediate's issuer, the real root is
//! kept as the root (the twin then is as unverifiable as the real chain).

use rustls_pki_types::CertificateDer;
use x509_parser::prelude::{FromDer, X509Certificate};

/// What a trimmed twin is made from: the certificates to send (leaf first) and the root to
/// make them under. `sent` and `root` as [`super::clone::Cloner::clone_chain`] takes them.
pub fn trimmed(
    sent: &[CertificateDer<'static>],
    root: &CertificateDer<'static>,
) -> (Vec<CertificateDer<'static>>, CertificateDer<'static>) {
    if sent.len() <= 2 {
        return (sent.to_vec(), root.clone());
    }
    let subject = |der: &CertificateDer<'_>| {
        X509Certificate::from_der(der)
            .ok()
            .map(|(_, x)| x.subject().as_raw().to_vec())
    };
    let Some(wanted) = X509Certificate::from_der(&sent[1])
        .ok()
        .map(|(_, x)| x.issuer().as_raw().to_vec())
    else {
        return (sent[..2].to_vec(), root.clone());
    };
    let issuer = std::iter::once(root)
        .chain(&sent[2..])
        .find(|c| subject(c).as_ref() == Some(&wanted))
        .unwrap_or(root);
    (sent[..2].to_vec(), issuer.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certs::clone::Cloner;
    use crate::certs::ct::CtLogs;
    use crate::pq::Profile;
    use crate::pq::scenario::{ChainShape, Scenario, Scts, TwinSet};
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};

    /// A CA named `cn`, signed by `by` (or itself).
    fn ca(
        cn: &str,
        key: &KeyPair,
        by: Option<(&CertificateParams, &KeyPair)>,
    ) -> (CertificateParams, CertificateDer<'static>) {
        let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
        p.distinguished_name.push(rcgen::DnType::CommonName, cn);
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let cert = match by {
            Some((ip, ik)) => p.signed_by(key, &Issuer::from_params(ip, ik)).unwrap(),
            None => p.self_signed(key).unwrap(),
        };
        (p, cert.der().clone())
    }

    /// leaf ← intermediate ← X (cross-signed by the legacy root Y), Y: sent [leaf, int, X].
    fn cross_signed() -> (Vec<CertificateDer<'static>>, CertificateDer<'static>) {
        let keys: Vec<KeyPair> = (0..4).map(|_| KeyPair::generate().unwrap()).collect();
        let (y, y_der) = ca("Legacy Root Y", &keys[0], None);
        let (x, x_der) = ca("New Root X", &keys[1], Some((&y, &keys[0])));
        let (i, i_der) = ca("Issuing CA", &keys[2], Some((&x, &keys[1])));
        let leaf = CertificateParams::new(vec!["a.example".to_owned()]).unwrap();
        let leaf = leaf
            .signed_by(&keys[3], &Issuer::from_params(&i, &keys[2]))
            .unwrap();
        (vec![leaf.der().clone(), i_der, x_der], y_der)
    }

    fn names(der: &CertificateDer<'_>) -> (String, String) {
        let (_, x) = X509Certificate::from_der(der).unwrap();
        (x.subject().to_string(), x.issuer().to_string())
    }

    #[test]
    fn a_trimmed_chain_is_the_leaf_and_its_issuer_under_the_cross_signed_name() {
        let (sent, root) = cross_signed();
        let (kept, new_root) = trimmed(&sent, &root);
        assert_eq!(kept, sent[..2], "leaf and intermediate, byte for byte");
        assert_eq!(
            new_root, sent[2],
            "the cross-sign's subject becomes the root"
        );
        // Twinned: the new root is self-signed under the cross-sign's name, and its key is
        // the one that signed the intermediate's twin.
        let set = TwinSet::new(
            Profile::MlDsa44,
            Scenario {
                chain: ChainShape::Trimmed,
                scts: Scts::Classical,
            },
        );
        let mut cloner = Cloner::for_set(set, CtLogs::new());
        let twin = cloner.clone_chain(&kept, &new_root, 0).unwrap();
        assert_eq!(twin.sent.len(), 2);
        let (subject, issuer) = names(&twin.root);
        assert_eq!(subject, issuer, "self-signed");
        assert!(
            subject.starts_with("CN=New Root X (certbench mldsa44 twin TC)"),
            "{subject}"
        );
        assert_eq!(names(&twin.sent[1]).1, subject);
        let (_, r) = X509Certificate::from_der(&twin.root).unwrap();
        let (_, i) = X509Certificate::from_der(&twin.sent[1]).unwrap();
        for (signed, by) in [(&i, &r), (&r, &r)] {
            let key = aws_lc_rs::signature::UnparsedPublicKey::new(
                &aws_lc_rs::signature::ML_DSA_44,
                by.public_key().subject_public_key.data.as_ref(),
            );
            key.verify(
                signed.tbs_certificate.as_ref(),
                signed.signature_value.data.as_ref(),
            )
            .expect("signed by the new root's key");
        }
    }

    #[test]
    fn a_chain_of_two_or_one_is_unchanged() {
        let (sent, root) = cross_signed();
        for n in [1, 2] {
            let (kept, r) = trimmed(&sent[..n], &root);
            assert_eq!((kept.as_slice(), &r), (&sent[..n], &root));
        }
        // The root itself names the intermediate's issuer: it stays the root.
        let (kept, r) = trimmed(&[sent[0].clone(), sent[1].clone(), root.clone()], &sent[2]);
        assert_eq!((kept.len(), r), (2, sent[2].clone()));
    }
}
