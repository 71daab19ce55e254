//! Chrome's CRLSet, written: the file `CRLSet::Parse` (Chromium's `net/cert/crl_set.cc`,
//! read by `certbench_core::revocation::crlset::CrlSet::parse`) reads, from a [`Spec`]
//! ([`write`]), or from the corpus' and the mirror's issuers padded with synthetic parents and
//! serials to the scale of Chrome's real set ([`generate`], [`Scale`]).
//!
//! Invariant: a file written here parses, and lists each parent once (a parent written twice
//! would keep only its later list in Chrome), each serial without its leading zero bytes (as
//! Chrome's generator stores them and `CRLSet::CheckSerial` compares them).

use certbench_core::ct::sha256;
use certbench_core::der;
use serde_json::json;

use super::Issuer;

/// A SHA-256 hash of a SubjectPublicKeyInfo.
pub type SpkiHash = [u8; 32];

/// What a CRLSet file holds.
#[derive(Clone, Debug, Default)]
pub struct Spec {
    /// The header's `Sequence` (Chromium reads it as an `int`: at most `i32::MAX`).
    pub sequence: u32,
    /// The header's `NotAfter`, seconds since the epoch (0: none written).
    pub not_after: u64,
    /// Per parent, its SPKI's SHA-256 and its revoked serials (DER INTEGER contents).
    pub parents: Vec<(SpkiHash, Vec<Vec<u8>>)>,
    /// The header's `BlockedSPKIs`.
    pub blocked_spkis: Vec<SpkiHash>,
}

/// Why a CRLSet cannot be written from the input given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CrlSetError {
    /// An issuer's key that is not a DER SubjectPublicKeyInfo.
    #[error("CRLSet: issuer `{issuer}`: its SPKI is not a DER SubjectPublicKeyInfo ({cause})")]
    BadSpki {
        /// The issuer's name.
        issuer: String,
        /// What the DER reader said.
        cause: String,
    },
    /// A serial a CRLSet cannot hold: longer than 255 bytes (its length is one byte), empty,
    /// or negative (Chrome's generator rejects those certificates; `CheckSerial` says UNKNOWN).
    #[error("CRLSet: issuer `{issuer}`: serial {serial} cannot be listed: {why}")]
    BadSerial {
        /// The issuer's name (or the parent's hash in hex, from a [`Spec`]).
        issuer: String,
        /// The serial in hex (its first 32 bytes).
        serial: String,
        /// Why.
        why: &'static str,
    },
    /// A sequence number Chromium's `FindInt` would not read.
    #[error("CRLSet: Sequence {0} does not fit the header's int")]
    Sequence(u32),
    /// A header longer than its 16-bit length can say.
    #[error("CRLSet: header of {0} bytes (at most 65535)")]
    HeaderTooLong(usize),
    /// More serials under one parent than a `uint32` count holds.
    #[error("CRLSet: {0} serials under one parent")]
    TooManySerials(usize),
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().take(32).map(|b| format!("{b:02x}")).collect()
}

/// A serial as a CRLSet stores it: leading zero bytes stripped (one kept), checked.
fn stored(serial: &[u8], issuer: impl Fn() -> String) -> Result<&[u8], CrlSetError> {
    let bad = |why| CrlSetError::BadSerial {
        issuer: issuer(),
        serial: hex(serial),
        why,
    };
    match serial.first() {
        None => return Err(bad("it is empty")),
        Some(b) if b & 0x80 != 0 => return Err(bad("it is negative")),
        _ => {}
    }
    let zeros = serial
        .iter()
        .take(serial.len() - 1)
        .take_while(|&&b| b == 0)
        .count();
    let s = &serial[zeros..];
    if s.len() > 255 {
        return Err(bad("it is longer than 255 bytes"));
    }
    Ok(s)
}

/// Writes `spec` in the format `CRLSet::Parse` reads: the header's length (`uint16` LE), the
/// header (JSON: `Version` 0, `ContentType` "CRLSet", `Sequence`, `NumParents`,
/// `BlockedSPKIs` in base64, `NotAfter` when not 0), then per parent its hash, its serial
/// count (`uint32` LE) and each serial as a length byte and its bytes.
pub fn write(spec: &Spec) -> Result<Vec<u8>, CrlSetError> {
    if i32::try_from(spec.sequence).is_err() {
        return Err(CrlSetError::Sequence(spec.sequence));
    }
    let mut header = json!({
        "Version": 0,
        "ContentType": "CRLSet",
        "Sequence": spec.sequence,
        "NumParents": spec.parents.len(),
        "BlockedSPKIs": spec.blocked_spkis.iter().map(|h| crate::certs::ct::base64(h)).collect::<Vec<_>>(),
    });
    if spec.not_after != 0 {
        header["NotAfter"] = spec.not_after.into();
    }
    let header = serde_json::to_vec(&header).expect("a JSON value serialises");
    let len = u16::try_from(header.len()).map_err(|_| CrlSetError::HeaderTooLong(header.len()))?;
    let serials: usize = spec.parents.iter().map(|(_, s)| s.len()).sum();
    let mut out = Vec::with_capacity(2 + header.len() + spec.parents.len() * 36 + serials * 17);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&header);
    for (parent, list) in &spec.parents {
        let count =
            u32::try_from(list.len()).map_err(|_| CrlSetError::TooManySerials(list.len()))?;
        out.extend_from_slice(parent);
        out.extend_from_slice(&count.to_le_bytes());
        for serial in list {
            let s = stored(serial, || hex(parent))?;
            out.push(s.len() as u8);
            out.extend_from_slice(s);
        }
    }
    Ok(out)
}

/// How big a generated CRLSet is: parents, serials and blocked SPKIs in all, the given
/// issuers' included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale {
    /// Parents (issuer SPKI hashes).
    pub parents: usize,
    /// Serials over all parents.
    pub serials: usize,
    /// Blocked SPKI hashes.
    pub blocked_spkis: usize,
}

impl Scale {
    /// Chrome's CRLSet as served in July 2025: sequence 9941 (`NotAfter` 1754300059,
    /// 2025-08-04), 21,740 bytes, 184 parents, 850 serials, 34 `BlockedSPKIs` and 9
    /// `BlockedInterceptionSPKIs` (which Chrome adds to the blocked ones), a 2,202-byte
    /// header. Source: the `crl-set` file inside the CRX fixture
    /// `test/testdata/crlset.crx` of github.com/Gldywn/crlset.js (commit 91d1f2b, 2025-07-31),
    /// fetched from Google's update service; counted by walking the file as `CRLSet::Parse`
    /// does. Far below the 250 KB limit Chromium's CRLSets page states
    /// (chromium.org/Home/chromium-security/crlsets; ~24 k serials from 53 CAs in 2014,
    /// grc.com/revocation/crlsets.htm): empty CRLs are pruned and only a subset of revoked
    /// certificates is kept.
    pub const CHROME: Scale = Scale {
        parents: 184,
        serials: 850,
        blocked_spkis: 43,
    };
    /// Chrome's size limit: the 250 KB Chromium's CRLSets page gives as the most a CRLSet
    /// may weigh, as 184 parents and the serials that fill it at the real serial lengths
    /// (about 248 KB written; [`Scale::CHROME`] writes about 21.7 KB, as the real set).
    pub const LIMIT: Scale = Scale {
        parents: 184,
        serials: 15_800,
        blocked_spkis: 43,
    };
    /// Only the issuers given.
    pub const GIVEN: Scale = Scale {
        parents: 0,
        serials: 0,
        blocked_spkis: 0,
    };
}

/// Serial lengths in Chrome's CRLSet 9941 (see [`Scale::CHROME`]): (bytes, serials).
const SERIAL_LENGTHS: [(usize, u32); 16] = [
    (1, 27),
    (4, 6),
    (6, 6),
    (8, 121),
    (9, 55),
    (10, 6),
    (11, 10),
    (12, 6),
    (13, 32),
    (14, 12),
    (15, 55),
    (16, 344),
    (17, 1),
    (18, 4),
    (19, 32),
    (20, 133),
];

fn serial_length(rng: &mut fastrand::Rng) -> usize {
    let mut pick = rng.u32(0..SERIAL_LENGTHS.iter().map(|(_, n)| n).sum());
    for (len, n) in SERIAL_LENGTHS {
        if pick < n {
            return len;
        }
        pick -= n;
    }
    unreachable!("pick is below the total")
}

/// A CRLSet holding `issuers` (each a parent, with its revoked serials; an issuer with none
/// is kept so that its leaves are covered, which Chrome's generator would prune) padded to
/// `scale` with synthetic parents (random hashes) and serials (the real lengths, a parent's
/// share skewed as in the real set: at least one each, the largest ~50), and `scale`'s blocked
/// SPKIs (random hashes, which no real key has). Deterministic in `seed`; `Sequence` 1.
/// Issuers sharing a key are one parent. Synthetic serials go under synthetic parents only, so
/// no given issuer's certificate is listed unless it is revoked.
pub fn generate(
    issuers: &[Issuer],
    scale: Scale,
    seed: u64,
    not_after: u64,
) -> Result<Vec<u8>, CrlSetError> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut spec = Spec {
        sequence: 1,
        not_after,
        ..Spec::default()
    };
    for issuer in issuers {
        der::sequence_contents(&issuer.spki)
            .and_then(der::Spki::from_contents)
            .map_err(|e| CrlSetError::BadSpki {
                issuer: issuer.name.clone(),
                cause: e.to_string(),
            })?;
        let hash = sha256(&issuer.spki);
        let mut revoked = Vec::new();
        for issued in issuer.issued.iter().filter(|i| i.revoked) {
            stored(&issued.serial, || issuer.name.clone())?; // checked here, stripped by `write`
            revoked.push(issued.serial.clone());
        }
        match spec.parents.iter_mut().find(|(h, _)| *h == hash) {
            Some((_, list)) => list.extend(revoked),
            None => spec.parents.push((hash, revoked)),
        }
    }
    let given: usize = spec.parents.iter().map(|(_, s)| s.len()).sum();
    let serials = scale.serials.saturating_sub(given);
    let mut synthetic = scale.parents.saturating_sub(spec.parents.len());
    if serials > 0 {
        synthetic = synthetic.max(1);
    }
    let first = spec.parents.len();
    for _ in 0..synthetic {
        let mut hash = [0u8; 32];
        rng.fill(&mut hash);
        spec.parents.push((hash, Vec::new()));
    }
    for i in 0..serials {
        // The first `synthetic` serials give each synthetic parent one; the rest skew towards
        // the first parents (index n·u², as the real set's long tail).
        let parent = if i < synthetic {
            i
        } else {
            let u = rng.f64();
            ((synthetic as f64 * u * u) as usize).min(synthetic - 1)
        };
        let mut serial = vec![0u8; serial_length(&mut rng)];
        rng.fill(&mut serial);
        serial[0] = rng.u8(1..0x80); // positive, minimal
        spec.parents[first + parent].1.push(serial);
    }
    spec.blocked_spkis = (0..scale.blocked_spkis)
        .map(|_| {
            let mut h = [0u8; 32];
            rng.fill(&mut h);
            h
        })
        .collect();
    write(&spec)
}

#[cfg(test)]
#[path = "crlset_tests.rs"]
mod tests;
