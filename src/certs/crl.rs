//! CRLs per issuer for `--revocation crl`: rcgen's `CertificateRevocationListParams` signed
//! by the issuer's key, as a CA publishes them (v2, AKI and cRLNumber extensions, one entry
//! per revoked serial with its revocationDate, no reason code), and synthetic ones at the
//! scales rustls-webpki PR #108 measured (2 k, 100 k, 1 M serials): the corpus' or mirror's
//! revoked serials plus random 16-byte serials (the form most public CAs issue).

use rcgen::{
    CertificateRevocationListParams, Issuer, KeyIdMethod, RevokedCertParams, SerialNumber,
    SigningKey,
};
use time::OffsetDateTime;

/// The longest serial RFC 5280 §4.1.2.2 lets a CA issue.
pub const MAX_SERIAL_LEN: usize = 20;

/// Why a CRL cannot be made from what was given.
#[derive(Debug, thiserror::Error)]
pub enum CrlGenError {
    /// An empty serial (no INTEGER has zero octets).
    #[error("revoked serial {index} is empty")]
    EmptySerial {
        /// Its position in the list.
        index: usize,
    },
    /// A serial longer than RFC 5280 allows.
    #[error("revoked serial {index} has {len} octets; RFC 5280 allows at most 20")]
    SerialTooLong {
        /// Its position in the list.
        index: usize,
        /// Its length.
        len: usize,
    },
    /// nextUpdate not after thisUpdate, or a time out of range.
    #[error("bad times: {0}")]
    BadTime(String),
    /// rcgen refused (the issuer's KeyUsage lacks cRLSign, …) or could not sign.
    #[error("rcgen: {0}")]
    Rcgen(#[from] rcgen::Error),
}

/// A DER CRL of `issuer` listing `revoked_serials` (each an INTEGER's content bytes, as in the
/// certificate), valid from `this_update` to `next_update` (Unix seconds); every entry's
/// revocationDate is `this_update`.
pub fn crl(
    issuer: &Issuer<'_, impl SigningKey>,
    revoked_serials: &[Vec<u8>],
    this_update: u64,
    next_update: u64,
) -> Result<Vec<u8>, CrlGenError> {
    let params = params(revoked_serials, this_update, next_update)?;
    Ok(params.signed_by(issuer)?.der().to_vec())
}

/// The parameters [`crl`] signs (for a caller that adds an issuing distribution point).
pub fn params(
    revoked_serials: &[Vec<u8>],
    this_update: u64,
    next_update: u64,
) -> Result<CertificateRevocationListParams, CrlGenError> {
    if next_update <= this_update {
        return Err(CrlGenError::BadTime(format!(
            "nextUpdate {next_update} is not after thisUpdate {this_update}"
        )));
    }
    let this = time(this_update)?;
    let mut revoked_certs = Vec::with_capacity(revoked_serials.len());
    for (index, serial) in revoked_serials.iter().enumerate() {
        match serial.len() {
            0 => return Err(CrlGenError::EmptySerial { index }),
            // A DER INTEGER's contents may carry one leading zero octet beyond 20 for the sign.
            len if len > MAX_SERIAL_LEN + usize::from(serial[0] == 0) => {
                return Err(CrlGenError::SerialTooLong { index, len });
            }
            _ => {}
        }
        revoked_certs.push(RevokedCertParams {
            serial_number: SerialNumber::from_slice(serial),
            revocation_time: this,
            reason_code: None,
            invalidity_date: None,
        });
    }
    Ok(CertificateRevocationListParams {
        this_update: this,
        next_update: time(next_update)?,
        crl_number: SerialNumber::from_slice(&this_update.to_be_bytes()),
        issuing_distribution_point: None,
        revoked_certs,
        key_identifier_method: KeyIdMethod::Sha256,
    })
}

/// `n` distinct random serials from `seed`: 16 octets each, the first in 0x01..=0x7f (a
/// positive INTEGER needing no leading zero), the same for the same seed.
pub fn synthetic_serials(n: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut seen = std::collections::HashSet::with_capacity(n);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut s = rng.u128(..).to_be_bytes();
        s[0] = 1 + s[0] % 0x7f;
        if seen.insert(s) {
            out.push(s.to_vec());
        }
    }
    out
}

/// A CRL of `issuer` with `include` (the serials that must be revoked: the corpus' or the
/// mirror's) and `n_serials - include.len()` random ones from `seed`, as [`crl`] makes it.
pub fn synthetic(
    issuer: &Issuer<'_, impl SigningKey>,
    n_serials: usize,
    seed: u64,
    include: &[Vec<u8>],
    this_update: u64,
    next_update: u64,
) -> Result<Vec<u8>, CrlGenError> {
    let mut serials = include.to_vec();
    serials.extend(synthetic_serials(
        n_serials.saturating_sub(include.len()),
        seed,
    ));
    crl(issuer, &serials, this_update, next_update)
}

fn time(unix: u64) -> Result<OffsetDateTime, CrlGenError> {
    i64::try_from(unix)
        .ok()
        .and_then(|t| OffsetDateTime::from_unix_timestamp(t).ok())
        .ok_or_else(|| CrlGenError::BadTime(format!("{unix} is out of range")))
}

#[cfg(test)]
#[path = "crl_tests.rs"]
mod tests;
