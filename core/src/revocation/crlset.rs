//! Chrome's CRLSet: the file's format and the check Chrome makes with it, read from Chromium's
//! source (`net/cert/crl_set.{h,cc}`, `net/cert/internal/revocation_checker.cc`) and written
//! here anew.
//!
//! The file (`CRLSet::Parse`): a `uint16` little-endian header length, that many bytes of a
//! JSON object (`Version` 0, `ContentType` `"CRLSet"`, `Sequence`, optional `NotAfter`,
//! `BlockedSPKIs`, `LimitedSubjects`, `KnownInterceptionSPKIs`, `BlockedInterceptionSPKIs`),
//! then, to the end of the file, one record per parent: the SHA-256 of the parent's
//! SubjectPublicKeyInfo (32 bytes), a `uint32` little-endian count, and that many serials,
//! each a `uint8` length and the serial's bytes (leading zero bytes stripped).
//!
//! Invariants of a parsed [`CrlSet`]: every parent's serial list is well formed (a length
//! byte, then that many bytes, to the end of the list), so a lookup never reads past it;
//! `blocked_spkis` and `known_interception_spkis` are sorted (they are binary-searched, as
//! Chromium's are); every hash kept is 32 bytes (a hash of another length can never equal a
//! SHA-256, so Chromium's keeping it changes no answer).

use std::collections::HashMap;
use std::mem::size_of;

use base64::Engine;
use serde_json::{Map, Value};

use super::types::{Mechanism, RevocationError, SoftFail, Status, VerifiedPath};
use crate::ct::sha256;

/// A SHA-256 hash (of an SPKI or a subject `Name`).
pub type Hash = [u8; 32];

/// The most serials one parent may list (`ReadCRL`'s "sanity check": 32 Mi).
const MAX_SERIALS: u32 = 32 * 1024 * 1024;

/// What Chromium's `CRLSet::Result` says of one certificate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// `REVOKED`: the certificate must be rejected.
    Revoked,
    /// `UNKNOWN`: the set does not cover the certificate's issuer (or the serial is negative).
    Unknown,
    /// `GOOD`: covered and not listed.
    Good,
}

/// A parsed CRLSet (see the module docs for its invariants).
///
/// Data structures follow `crl_set.h`: `crls_` is an `unordered_map` from parent SPKI hash to
/// a `vector<string>` of serials searched linearly by `CheckSerial`; here a `HashMap` from the
/// same key to the parent's serials kept as in the file (length byte + bytes, one allocation
/// per parent instead of one `std::string` per serial), searched linearly the same way.
#[derive(Debug)]
pub struct CrlSet {
    sequence: u32,
    /// Seconds since the epoch after which the set is stale; 0: no `NotAfter`.
    not_after: u64,
    crls: HashMap<Hash, Vec<u8>>,
    serials: usize,
    blocked_spkis: Vec<Hash>,
    known_interception_spkis: Vec<Hash>,
    limited_subjects: HashMap<Hash, Vec<Hash>>,
    /// Chrome's built-in set (`CRLSet::BuiltinCRLSet`), used when none was downloaded.
    builtin: bool,
    bytes: u64,
}

fn corrupt(detail: impl Into<String>) -> RevocationError {
    RevocationError::Corrupt {
        mechanism: Mechanism::CrlSet,
        detail: detail.into(),
    }
}

/// `base::Value::FindInt`: an integer (a JSON number without fraction or exponent that fits
/// an `int`), or `None`.
fn find_int(h: &Map<String, Value>, key: &str) -> Option<i32> {
    h.get(key)?.as_i64().and_then(|n| i32::try_from(n).ok())
}

/// Base64 (standard alphabet, padded, as `base::Base64Decode` wants it) of a 32-byte hash;
/// `Ok(None)` for a decodable value of another length (it can never match).
fn hash_b64(v: &Value, what: &str) -> Result<Option<Hash>, RevocationError> {
    let s = v
        .as_str()
        .ok_or_else(|| corrupt(format!("{what}: an entry is not a string")))?;
    decode_hash(s, what)
}

/// [`hash_b64`] of a string.
fn decode_hash(s: &str, what: &str) -> Result<Option<Hash>, RevocationError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(s)
        .map_err(|e| corrupt(format!("{what}: `{s}` is not base64: {e}")))?;
    Ok(Hash::try_from(bytes.as_slice()).ok())
}

/// `CopyHashListFromHeader`: a missing key, or one that is not a list, is an empty list
/// (`FindList` returns null for both); an entry that is not base64 is an error.
fn hash_list(h: &Map<String, Value>, key: &str) -> Result<Vec<Hash>, RevocationError> {
    let Some(list) = h.get(key).and_then(Value::as_array) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::with_capacity(list.len());
    for v in list {
        out.extend(hash_b64(v, key)?);
    }
    Ok(out)
}

/// Estimated heap of a `HashMap` (hashbrown: one slot and one control byte per bucket, plus
/// a 16-byte group), from its capacity (`buckets * 7 / 8` from 8 buckets, else `buckets - 1`).
fn map_heap<K, V>(m: &HashMap<K, V>) -> usize {
    let cap = m.capacity();
    let buckets = match cap {
        0 => return 0,
        c if c < 8 => c + 1,
        c => c / 7 * 8,
    };
    buckets * (size_of::<(K, V)>() + 1) + 16
}

impl CrlSet {
    /// Parses a CRLSet file as `CRLSet::Parse` (`net/cert/crl_set.cc`) does: the header
    /// (`ReadHeader`: a JSON dictionary), `ContentType` exactly `"CRLSet"`, `Version` the
    /// integer 0, `Sequence` an integer, `NotAfter` a number ≥ 0 (absent or not a number: no
    /// expiry); then parent records to the very end of the file (`ReadCRL`: a record cut
    /// short, trailing bytes too few for a record, or a count above 32 Mi is an error; a
    /// parent listed twice keeps its later list, as `crls_[hash] = ...` does; serials need not
    /// be sorted or unique); then the hash lists, `BlockedInterceptionSPKIs` added to both
    /// the blocked and the known-interception lists, both sorted. `NumParents` is not read
    /// (Chromium does not read it either).
    ///
    /// Differences: Chromium's JSON reader allows trailing commas (`JSON_ALLOW_TRAILING_COMMAS`)
    /// and serde_json does not; Chromium also appends its compiled-in `kSPKIBlockList` (from
    /// `cert_verify_proc_blocklist.inc`) to the blocked SPKIs, which is not copied here.
    pub fn parse(bytes: &[u8]) -> Result<CrlSet, RevocationError> {
        let (len, rest) = bytes
            .split_first_chunk::<2>()
            .ok_or_else(|| corrupt("shorter than its 2-byte header length"))?;
        let header_len = usize::from(u16::from_le_bytes(*len));
        if rest.len() < header_len {
            return Err(corrupt(format!(
                "header length {header_len} beyond the {} bytes after it",
                rest.len()
            )));
        }
        let (header, mut body) = rest.split_at(header_len);
        let header: Value = serde_json::from_slice(header)
            .map_err(|e| corrupt(format!("header is not JSON: {e}")))?;
        let Value::Object(h) = header else {
            return Err(corrupt("header is not a JSON object"));
        };
        if h.get("ContentType").and_then(Value::as_str) != Some("CRLSet") {
            return Err(corrupt("header's ContentType is not \"CRLSet\""));
        }
        if find_int(&h, "Version") != Some(0) {
            return Err(corrupt("header's Version is not 0"));
        }
        let sequence =
            find_int(&h, "Sequence").ok_or_else(|| corrupt("header has no integer Sequence"))?;
        let not_after = h.get("NotAfter").and_then(Value::as_f64).unwrap_or(0.0);
        if not_after < 0.0 {
            return Err(corrupt(format!(
                "header's NotAfter {not_after} is negative"
            )));
        }

        let mut crls = HashMap::with_capacity(64); // Chromium's `crls_.reserve(64)`.
        let mut serials = 0;
        while !body.is_empty() {
            let at = bytes.len() - body.len();
            let (parent, rest) = body
                .split_first_chunk::<32>()
                .ok_or_else(|| corrupt(format!("parent record at byte {at} cut short")))?;
            let (count, mut list) = rest
                .split_first_chunk::<4>()
                .ok_or_else(|| corrupt(format!("parent record at byte {at}: no count")))?;
            let count = u32::from_le_bytes(*count);
            if count > MAX_SERIALS {
                return Err(corrupt(format!(
                    "parent at byte {at} lists {count} serials"
                )));
            }
            let start = list;
            for i in 0..count {
                let n = list.first().map(|&n| usize::from(n) + 1);
                list = n.and_then(|n| list.get(n..)).ok_or_else(|| {
                    corrupt(format!(
                        "parent at byte {at}: serial {i} of {count} cut short"
                    ))
                })?;
            }
            let used = start.len() - list.len();
            serials += count as usize;
            if let Some(replaced) = crls.insert(*parent, start[..used].to_vec()) {
                serials -= Self::entries(&replaced).count();
            }
            body = list;
        }

        let mut blocked_spkis = hash_list(&h, "BlockedSPKIs")?;
        let mut limited_subjects = HashMap::new();
        if let Some(dict) = h.get("LimitedSubjects").and_then(Value::as_object) {
            for (subject, allowed) in dict {
                let allowed = allowed
                    .as_array()
                    .ok_or_else(|| corrupt("LimitedSubjects: a subject's value is not a list"))?;
                let mut spkis = Vec::with_capacity(allowed.len());
                for v in allowed {
                    spkis.extend(hash_b64(v, "LimitedSubjects")?);
                }
                if let Some(subject) = decode_hash(subject, "LimitedSubjects")? {
                    limited_subjects.insert(subject, spkis);
                }
            }
        }
        let mut known_interception_spkis = hash_list(&h, "KnownInterceptionSPKIs")?;
        let blocked_interception = hash_list(&h, "BlockedInterceptionSPKIs")?;
        blocked_spkis.extend_from_slice(&blocked_interception);
        known_interception_spkis.extend_from_slice(&blocked_interception);
        blocked_spkis.sort_unstable();
        known_interception_spkis.sort_unstable();

        Ok(CrlSet {
            sequence: sequence as u32, // `static_cast<uint32_t>`
            not_after: not_after as u64,
            crls,
            serials,
            blocked_spkis,
            known_interception_spkis,
            limited_subjects,
            builtin: false,
            bytes: bytes.len() as u64,
        })
    }

    /// The set Chrome uses when it has downloaded none (`CRLSet::BuiltinCRLSet`: a header
    /// with `ContentType`, `Sequence` 0 and `Version` 0 and no parents; Chromium adds its
    /// compiled-in block list, not copied here). A check over it soft-fails with
    /// [`SoftFail::NoData`].
    pub fn builtin() -> CrlSet {
        let header = br#"{"ContentType":"CRLSet","Sequence":0,"Version":0}"#;
        let mut file = (header.len() as u16).to_le_bytes().to_vec();
        file.extend_from_slice(header);
        let mut set = CrlSet::parse(&file).expect("the built-in CRLSet parses");
        set.builtin = true;
        set
    }

    /// The parent's serials, each as stored (by the invariant, well formed).
    fn entries(list: &[u8]) -> impl Iterator<Item = &[u8]> {
        let mut rest = list;
        std::iter::from_fn(move || {
            let (&n, tail) = rest.split_first()?;
            let serial = tail.get(..usize::from(n))?;
            rest = &tail[serial.len()..];
            Some(serial)
        })
    }

    /// `CRLSet::CheckSPKI`: a binary search of the blocked SPKI hashes.
    pub fn check_spki(&self, spki_hash: &Hash) -> Lookup {
        match self.blocked_spkis.binary_search(spki_hash) {
            Ok(_) => Lookup::Revoked,
            Err(_) => Lookup::Good,
        }
    }

    /// `CRLSet::CheckSubject`: the subject's SHA-256 (computed on every call, as Chromium
    /// does) looked up in `LimitedSubjects`; a listed subject under an SPKI not allowed for
    /// it is revoked.
    pub fn check_subject(&self, subject_tlv: &[u8], spki_hash: &Hash) -> Lookup {
        match self.limited_subjects.get(&sha256(subject_tlv)) {
            Some(allowed) if !allowed.contains(spki_hash) => Lookup::Revoked,
            _ => Lookup::Good,
        }
    }

    /// `CRLSet::CheckSerial`: a negative serial (its first byte's high bit set) is `UNKNOWN`
    /// (the generator drops such certificates); leading zero bytes are stripped (keeping one
    /// byte); an issuer not in the set is `UNKNOWN`; then a linear search of its serials.
    /// `serial` is the DER INTEGER's contents.
    pub fn check_serial(&self, serial: &[u8], issuer_spki_hash: &Hash) -> Lookup {
        if serial.first().is_some_and(|b| b & 0x80 != 0) {
            return Lookup::Unknown;
        }
        let mut serial = serial;
        while serial.len() > 1 && serial[0] == 0 {
            serial = &serial[1..];
        }
        let Some(list) = self.crls.get(issuer_spki_hash) else {
            return Lookup::Unknown;
        };
        if Self::entries(list).any(|s| s == serial) {
            Lookup::Revoked
        } else {
            Lookup::Good
        }
    }

    /// `CRLSet::IsExpired`: past `NotAfter` (a set without one never expires).
    pub fn is_expired(&self, now_unix: u64) -> bool {
        self.not_after != 0 && now_unix > self.not_after
    }

    /// Checks a verified path as Chrome does after path building
    /// (`CheckChainRevocationUsingCRLSet`, `net/cert/internal/revocation_checker.cc`, called
    /// from `PathBuilderDelegateImpl::CheckPathAfterVerification` in
    /// `cert_verify_proc_builtin.cc`): from the anchor down to the leaf, each certificate's
    /// SPKI hash against the blocked SPKIs, its subject against `LimitedSubjects`, and, below
    /// the anchor, its serial under its issuer's SPKI hash. The first `REVOKED` is
    /// [`Status::Revoked`] at its depth, even when the set is expired (Chromium checks expiry
    /// only for a `GOOD` leaf). A `GOOD` leaf of an unexpired set is [`Status::Good`] (the
    /// intermediates may be `UNKNOWN`). Otherwise the result is `UNKNOWN`, on which Chrome,
    /// with no revocation-checking policy set, goes on and accepts: here a soft-fail,
    /// [`SoftFail::NoData`] over the built-in set, [`SoftFail::Stale`] when the set is past its
    /// `NotAfter`, else [`SoftFail::NotCovered`].
    pub fn check_path(
        &self,
        path: &VerifiedPath,
        now_unix: u64,
    ) -> Result<Status, RevocationError> {
        let expired = self.is_expired(now_unix);
        let anchor = path.certs.len();
        // The anchor: its SPKI and subject only (`!is_root` guards the serial check).
        let mut issuer = sha256(path.anchor_spki);
        let mut lookup = self.check_spki(&issuer);
        if lookup != Lookup::Revoked {
            lookup = self.check_subject(path.anchor_subject, &issuer);
        }
        if lookup == Lookup::Revoked {
            return Ok(Status::Revoked { depth: anchor });
        }
        if anchor == 0 && lookup == Lookup::Good && !expired {
            return Ok(Status::Good);
        }
        for depth in (0..anchor).rev() {
            let cert = CertFields::read(path.certs[depth]).ok_or_else(|| {
                RevocationError::BadPath(format!("certificate at depth {depth} does not parse"))
            })?;
            let spki = sha256(cert.spki);
            let mut lookup = self.check_spki(&spki);
            if lookup != Lookup::Revoked {
                lookup = self.check_subject(cert.subject, &spki);
            }
            if lookup != Lookup::Revoked {
                lookup = self.check_serial(cert.serial, &issuer);
            }
            issuer = spki;
            match lookup {
                Lookup::Revoked => return Ok(Status::Revoked { depth }),
                Lookup::Good if depth == 0 && !expired => return Ok(Status::Good),
                _ => {}
            }
        }
        Ok(Status::SoftFail(if self.builtin {
            SoftFail::NoData
        } else if expired {
            SoftFail::Stale
        } else {
            SoftFail::NotCovered
        }))
    }

    /// The header's `Sequence`.
    pub fn sequence(&self) -> u32 {
        self.sequence
    }

    /// The header's `NotAfter` (0: none).
    pub fn not_after(&self) -> u64 {
        self.not_after
    }

    /// Parents (issuer SPKI hashes) and serials listed.
    pub fn counts(&self) -> (usize, usize) {
        (self.crls.len(), self.serials)
    }

    /// Bytes read: the file's size.
    pub fn data_bytes(&self) -> u64 {
        self.bytes
    }

    /// Heap the parsed set holds, counted from capacities: the parent map (slots, control
    /// bytes) and each parent's serial bytes, the sorted hash lists, `LimitedSubjects`, and
    /// the struct itself. Chromium's layout holds more per serial (a 24-byte `std::string`
    /// each, inline up to 22 bytes in libc++); this counts ours, what the method keeps.
    pub fn resident_bytes(&self) -> u64 {
        let lists: usize = self.crls.values().map(Vec::capacity).sum();
        let limited: usize = self
            .limited_subjects
            .values()
            .map(|v| v.capacity() * 32)
            .sum();
        (size_of::<CrlSet>()
            + map_heap(&self.crls)
            + lists
            + (self.blocked_spkis.capacity() + self.known_interception_spkis.capacity()) * 32
            + map_heap(&self.limited_subjects)
            + limited) as u64
    }
}

/// The fields of a certificate the check reads (`ParsedCertificate::tbs()`'s
/// `serial_number`, `subject_tlv`, `spki_tlv`), from its DER headers alone.
struct CertFields<'a> {
    /// The serial INTEGER's contents.
    serial: &'a [u8],
    /// The whole subject `Name` TLV.
    subject: &'a [u8],
    /// The whole SubjectPublicKeyInfo TLV.
    spki: &'a [u8],
}

impl<'a> CertFields<'a> {
    fn read(der: &'a [u8]) -> Option<CertFields<'a>> {
        let (_, cert, _) = tlv(der, 0x30)?;
        let (_, mut t, _) = tlv(cert, 0x30)?;
        if t.first() == Some(&0xa0) {
            t = tlv(t, 0xa0)?.2;
        }
        let (_, serial, t) = tlv(t, 0x02)?;
        let t = tlv(t, 0x30)?.2; // signature
        let t = tlv(t, 0x30)?.2; // issuer
        let t = tlv(t, 0x30)?.2; // validity
        let (subject, _, t) = tlv(t, 0x30)?;
        let (spki, _, _) = tlv(t, 0x30)?;
        Some(CertFields {
            serial,
            subject,
            spki,
        })
    }
}

/// One TLV with tag `tag` at the start of `b`: (whole TLV, contents, rest).
fn tlv(b: &[u8], tag: u8) -> Option<(&[u8], &[u8], &[u8])> {
    let (&t, rest) = b.split_first()?;
    let (&first, rest) = rest.split_first()?;
    if t != tag {
        return None;
    }
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |l, &b| l << 8 | usize::from(b));
        (len, &rest[n..])
    };
    let contents = rest.get(..len)?;
    let header = b.len() - rest.len();
    Some((&b[..header + len], contents, &rest[len..]))
}

#[cfg(test)]
#[path = "crlset_tests.rs"]
mod tests;
