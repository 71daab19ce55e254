//! The mirror's revocation data, signed while the CA clones' keys exist (they are never
//! cached): per host an OCSP response its server staples, per issuing CA a CRL.
//!
//! - `DIR/<host>/stapled.ocsp`: a DER OCSPResponse ([`super::ocsp::response`])
//!   signed by the leaf's issuing CA (no delegated responder), `good`, or `revoked` for the
//!   hosts of [`REVOKED_HOSTS`] (revoked.badssl.com's clone); thisUpdate one hour before
//!   generation, nextUpdate the leaf's notAfter. A real CA's response lives a week or so; this
//!   one lives as long as its leaf, because the cache is reused until its first leaf expires
//!   and a staple gone stale would turn every `ocsp` check into an error. A leaf already
//!   expired at generation gets none.
//! - `DIR/crls/<CA>.crl`: one CRL per issuing CA ([`super::crl::synthetic`]):
//!   its revoked leaves plus random serials up to [`CRL_SERIALS`] entries (Let's Encrypt's CRL
//!   shards hold a few thousand), thisUpdate one hour before generation, nextUpdate the last
//!   notAfter of its leaves (at least a day on): the cache is made anew before that.
//!
//! Post-quantum twins get neither: their CAs' ML-DSA keys have no signature algorithm in the
//! OCSP generator, and `--revocation` is not measured on twins.

use std::collections::BTreeMap;

use rcgen::{Issuer, KeyPair};
use sha2::{Digest, Sha256};

use super::crl::{self, CrlGenError};
use super::ocsp::{self, OcspGenError, OcspStatus};

/// The hosts whose leaves are revoked, in the mirror (their clones) and in the revocation data
/// made from the corpus (`crate::revocation::issuers`): revoked.badssl.com's, which its CA
/// revoked (the real OCSP response in its corpus folder says so); every other leaf is not.
pub const REVOKED_HOSTS: &[&str] = &["revoked.badssl.com"];

/// Entries of each CA's CRL: its revoked leaves and random serials up to this many.
pub const CRL_SERIALS: usize = 2_000;
/// thisUpdate of every response and CRL: this long before generation (seconds).
pub const THIS_UPDATE_AGO: u64 = 3_600;

/// Why a staple or a CRL could not be signed.
#[derive(Debug, thiserror::Error)]
pub enum RevocationGenError {
    /// The OCSP response.
    #[error("OCSP response: {0}")]
    Ocsp(#[from] OcspGenError),
    /// The CRL.
    #[error("CRL: {0}")]
    Crl(#[from] CrlGenError),
}

/// Whether `host`'s leaf is revoked in the mirror's data.
pub fn is_revoked(host: &str) -> bool {
    REVOKED_HOSTS.iter().any(|h| h.eq_ignore_ascii_case(host))
}

/// The response `host`'s server staples for `leaf`, signed by its issuer (`issuer_der`, with
/// `issuer_key`), made at `now` (see the module docs); `None` for a leaf expired by then.
pub fn staple(
    issuer_der: &[u8],
    issuer_key: &KeyPair,
    leaf: &[u8],
    host: &str,
    now: u64,
) -> Result<Option<Vec<u8>>, RevocationGenError> {
    let this_update = now.saturating_sub(THIS_UPDATE_AGO);
    let Some((_, not_after)) = certbench_core::der::validity(leaf) else {
        return Ok(None);
    };
    if not_after <= this_update {
        return Ok(None);
    }
    let status = match is_revoked(host) {
        true => OcspStatus::Revoked {
            at: this_update.saturating_sub(THIS_UPDATE_AGO),
        },
        false => OcspStatus::Good,
    };
    let der = ocsp::response(
        issuer_der,
        issuer_key,
        leaf,
        status,
        this_update,
        Some(not_after),
    )?;
    Ok(Some(der))
}

/// What one CA's CRL lists, gathered as its leaves are issued.
#[derive(Clone, Debug, Default)]
pub struct CaLeaves {
    /// The serials of its revoked leaves.
    pub revoked: Vec<Vec<u8>>,
    /// The last notAfter of its leaves.
    pub last_not_after: u64,
}

impl CaLeaves {
    /// Counts `host`'s `leaf` in.
    pub fn add(&mut self, leaf: &[u8], host: &str) {
        if let Some((_, not_after)) = certbench_core::der::validity(leaf) {
            self.last_not_after = self.last_not_after.max(not_after);
        }
        if is_revoked(host)
            && let Some(serial) = certbench_core::der::serial(leaf)
            && !self.revoked.iter().any(|s| s == serial)
        {
            self.revoked.push(serial.to_vec());
        }
    }
}

/// The CA's CRL, as (file name, DER): `leaves`' revoked serials and random ones up to
/// [`CRL_SERIALS`], signed by `issuer` (whose certificate is `issuer_der`) at `now`.
pub fn ca_crl(
    issuer_der: &[u8],
    issuer: &Issuer<'_, &KeyPair>,
    leaves: &CaLeaves,
    now: u64,
) -> Result<(String, Vec<u8>), RevocationGenError> {
    let hash: [u8; 32] = Sha256::digest(issuer_der).into();
    let seed = u64::from_be_bytes(hash[..8].try_into().expect("8 bytes"));
    let this_update = now.saturating_sub(THIS_UPDATE_AGO);
    let next_update = leaves.last_not_after.max(now + 86_400);
    let der = crl::synthetic(
        issuer,
        CRL_SERIALS,
        seed,
        &leaves.revoked,
        this_update,
        next_update,
    )?;
    Ok((file_name(issuer_der, &hash), der))
}

/// `<CA common name>-<8 hex digits of its certificate's SHA-256>.crl`, the name made of
/// letters, digits and dashes.
fn file_name(issuer_der: &[u8], hash: &[u8; 32]) -> String {
    let cn = x509_parser::parse_x509_certificate(issuer_der)
        .ok()
        .and_then(|(_, c)| {
            let cn = c.subject().iter_common_name().next()?;
            cn.as_str().ok().map(str::to_owned)
        })
        .unwrap_or_else(|| "ca".to_owned());
    let mut name: String = cn
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    while name.contains("--") {
        name = name.replace("--", "-");
    }
    let name = name.trim_matches('-');
    let short: String = hash[..4].iter().map(|b| format!("{b:02x}")).collect();
    format!("{name}-{short}.crl")
}

/// The CRLs of a set, by file name.
pub type Crls = BTreeMap<String, Vec<u8>>;
