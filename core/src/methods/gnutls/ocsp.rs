//! The `gnutls` method's check of a stapled OCSP response: GnuTLS 3.7.9's
//! `check_ocsp_response` (`lib/cert-session.c`) step for step ([`check_ocsp_response`]), on
//! the safe binding of `crate::ffi::gnutls`, and its verdict as certbench's revocation types
//! ([`check_stapled_ocsp`], [`check_stapled_ocsp_peer`]).
//!
//! Invariant: every exit of `check_ocsp_response` is one [`OcspStep`], and each step maps to
//! one revocation outcome; nothing here accepts what GnuTLS refuses (a GnuTLS failure is an
//! `Invalid` rejection).

use std::ffi::{c_int, c_uint};

use crate::ffi::gnutls::{
    Cert, GNUTLS_CERT_INVALID, GNUTLS_CERT_INVALID_OCSP_STATUS, GNUTLS_CERT_MISSING_OCSP_STATUS,
    GNUTLS_CERT_REVOCATION_DATA_SUPERSEDED, GNUTLS_CERT_REVOKED, GNUTLS_OCSP_CERT_GOOD,
    GNUTLS_OCSP_CERT_REVOKED, GNUTLS_OCSP_RESP_SUCCESSFUL, GNUTLS_OCSP_VERIFY_SIGNER_NOT_FOUND,
    GnutlsError, MAX_OCSP_VALIDITY_SECS, OcspResponse, Peers, Trust, VERIFY_PEERS_FLAGS, strerror,
    with_time,
};
use crate::revocation::{Mechanism, RevocationError, SoftFail, Status};

/// Where GnuTLS's `check_ocsp_response` ended with a stapled response, and why: each variant
/// is one of its exits, named by its audit-log line where it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OcspStep {
    /// `gnutls_ocsp_resp_import` failed (GnuTLS's code): "There was an error parsing the
    /// OCSP response" (`GNUTLS_CERT_INVALID_OCSP_STATUS`).
    Unparsable(c_int),
    /// The responseStatus is not successful (its value): the response is ignored, as if none
    /// had been stapled, unless the certificate demands one ("Missing basic OCSP response
    /// while required": `GNUTLS_CERT_MISSING_OCSP_STATUS`).
    NotSuccessful(c_int),
    /// "Got OCSP response with an unrelated certificate": the first SingleResponse is not for
    /// the certificate (GnuTLS 3.7.9 checks index 0 only; `GNUTLS_CERT_INVALID_OCSP_STATUS`).
    Unrelated,
    /// The signature check itself failed (GnuTLS's code: a key it cannot use, a response
    /// without a signature, …; `GNUTLS_CERT_INVALID_OCSP_STATUS`).
    VerifyFailed(c_int),
    /// The signature was checked and refused: the `gnutls_ocsp_verify_reason_t` bits ("OCSP
    /// rejection reason"; `GNUTLS_CERT_INVALID_OCSP_STATUS`).
    NotVerified(c_uint),
    /// The first SingleResponse cannot be read (GnuTLS's code; `GNUTLS_CERT_INVALID_OCSP_STATUS`).
    SingleUnreadable(c_int),
    /// "The certificate was revoked via OCSP" (`GNUTLS_CERT_REVOKED`), whatever the
    /// response's age: GnuTLS reads the status before the times.
    Revoked,
    /// "The OCSP response is old": no nextUpdate, and thisUpdate more than
    /// [`MAX_OCSP_VALIDITY_SECS`] ago (`GNUTLS_CERT_REVOCATION_DATA_SUPERSEDED`).
    Old,
    /// "There is a newer OCSP response but was not provided by the server": nextUpdate
    /// before now (`GNUTLS_CERT_REVOCATION_DATA_SUPERSEDED`).
    Superseded,
    /// Checked and current: the certificate status (`GNUTLS_OCSP_CERT_GOOD` 0, or
    /// `GNUTLS_OCSP_CERT_UNKNOWN` 2, which GnuTLS accepts alike: it refuses only revoked).
    Current(c_uint),
}

/// What `check_ocsp_response` made of one stapled response: the bits it ORs into
/// `gnutls_certificate_verify_peers3`'s status (0: nothing refused) and where it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OcspCheck {
    /// `GNUTLS_CERT_*` bits.
    pub status: c_uint,
    /// Its exit.
    pub step: OcspStep,
}

/// GnuTLS 3.7.9's `check_ocsp_response` (`lib/cert-session.c`), the check
/// `_gnutls_x509_cert_verify_peers` makes of the response stapled for peer certificate
/// `cert`, at `now` (GnuTLS's `gnutls_time`, here [`with_time`]), step for step:
///
/// 1. `gnutls_ocsp_resp_import`; a failure is `INVALID | INVALID_OCSP_STATUS`;
/// 2. a responseStatus other than successful: the must-staple rule
///    (`_gnutls_ocsp_verify_mandatory_stapling`, [`Cert::requires_stapling`]), else ignored;
/// 3. `gnutls_ocsp_resp_check_crt(resp, 0, cert)`: the first SingleResponse must be `cert`'s;
/// 4. the signature: `gnutls_ocsp_resp_verify` against the trust list (`trust`; `None` is
///    an empty list, where GnuTLS finds no signer), then, if that failed,
///    `gnutls_ocsp_resp_verify_direct` with `cand_issuers[0]` (the peer certificate sent after
///    `cert`), then with each later one until one verifies; a delegated responder's
///    certificate in the response must be issued by the candidate and carry
///    id-kp-OCSPSigning (GnuTLS checks that inside `verify_direct`);
/// 5. `gnutls_ocsp_resp_get_single(resp, 0, ..)`: revoked is `INVALID | REVOKED`;
/// 6. times: without nextUpdate, thisUpdate more than [`MAX_OCSP_VALIDITY_SECS`] before now,
///    or else nextUpdate before now, is `INVALID | REVOCATION_DATA_SUPERSEDED`. Nothing
///    checks that thisUpdate is not in the future: `GNUTLS_CERT_REVOCATION_DATA_ISSUED_IN_FUTURE`
///    is set for CRLs only (`lib/x509/verify.c`), never for a stapled response.
///
/// `flags` are the session's verify flags ([`VERIFY_PEERS_FLAGS`]). `Err` is a negative
/// return of `check_ocsp_response` (`gnutls_ocsp_resp_init` or the must-staple read failed),
/// which `verify_peers3` returns: a rejection.
pub fn check_ocsp_response(
    cert: &Cert,
    trust: Option<&Trust>,
    cand_issuers: &[&Cert],
    response: &[u8],
    flags: c_uint,
    now: i64,
) -> Result<OcspCheck, GnutlsError> {
    with_time(now, || {
        let invalid = GNUTLS_CERT_INVALID | GNUTLS_CERT_INVALID_OCSP_STATUS;
        let done = |status, step| Ok(OcspCheck { status, step });
        let resp = OcspResponse::new()?;
        if let Err(code) = resp.import(response) {
            return done(invalid, OcspStep::Unparsable(code));
        }
        let response_status = resp.status();
        if response_status != GNUTLS_OCSP_RESP_SUCCESSFUL {
            let status = if cert.requires_stapling()? {
                GNUTLS_CERT_INVALID | GNUTLS_CERT_MISSING_OCSP_STATUS
            } else {
                0
            };
            return done(status, OcspStep::NotSuccessful(response_status));
        }
        if resp.check_crt(0, cert) < 0 {
            return done(invalid, OcspStep::Unrelated);
        }
        let (mut rc, mut verify) = match trust {
            Some(trust) => resp.verify(trust, flags),
            None => (0, GNUTLS_OCSP_VERIFY_SIGNER_NOT_FOUND),
        };
        if (rc < 0 || verify != 0)
            && let Some((first, others)) = cand_issuers.split_first()
        {
            (rc, verify) = resp.verify_direct(first, flags);
            if (rc < 0 || verify != 0)
                && let Some(found) = others
                    .iter()
                    .map(|issuer| resp.verify_direct(issuer, flags))
                    .find(|&(rc2, verify2)| rc2 >= 0 && verify2 == 0)
            {
                (rc, verify) = found;
            }
        }
        if rc < 0 {
            return done(invalid, OcspStep::VerifyFailed(rc));
        }
        if verify != 0 {
            return done(invalid, OcspStep::NotVerified(verify));
        }
        let (cert_status, this_update, next_update) = match resp.single(0) {
            Ok(single) => single,
            Err(code) => return done(invalid, OcspStep::SingleUnreadable(code)),
        };
        if cert_status == GNUTLS_OCSP_CERT_REVOKED {
            return done(GNUTLS_CERT_INVALID | GNUTLS_CERT_REVOKED, OcspStep::Revoked);
        }
        let superseded = GNUTLS_CERT_INVALID | GNUTLS_CERT_REVOCATION_DATA_SUPERSEDED;
        if next_update == -1 {
            if now.saturating_sub(this_update) > MAX_OCSP_VALIDITY_SECS {
                return done(superseded, OcspStep::Old);
            }
        } else if next_update < now {
            return done(superseded, OcspStep::Superseded);
        }
        done(0, OcspStep::Current(cert_status))
    })
}

/// The names of `gnutls_ocsp_verify_reason_t` bits, as GnuTLS's header spells them.
fn ocsp_verify_reasons(bits: c_uint) -> String {
    const NAMES: [(c_uint, &str); 7] = [
        (1, "GNUTLS_OCSP_VERIFY_SIGNER_NOT_FOUND"),
        (2, "GNUTLS_OCSP_VERIFY_SIGNER_KEYUSAGE_ERROR"),
        (4, "GNUTLS_OCSP_VERIFY_UNTRUSTED_SIGNER"),
        (8, "GNUTLS_OCSP_VERIFY_INSECURE_ALGORITHM"),
        (16, "GNUTLS_OCSP_VERIFY_SIGNATURE_FAILURE"),
        (32, "GNUTLS_OCSP_VERIFY_CERT_NOT_ACTIVATED"),
        (64, "GNUTLS_OCSP_VERIFY_CERT_EXPIRED"),
    ];
    let names: Vec<&str> = NAMES
        .iter()
        .filter(|(bit, _)| bits & bit != 0)
        .map(|(_, name)| *name)
        .collect();
    if names.is_empty() {
        format!("0x{bits:x}")
    } else {
        names.join(" | ")
    }
}

/// The stapled OCSP response of a connection (`response`; `None`: none stapled) for the leaf
/// `leaf_der` issued by `issuer_der` (the certificate the server sent after it), checked at
/// `now_unix` as `gnutls_certificate_verify_peers3` checks it for WebKitGTK (glib-networking
/// calls it, and its `g_tls_certificate_gnutls_convert_flags` makes `GNUTLS_CERT_REVOKED`
/// `G_TLS_CERTIFICATE_REVOKED` and every other OCSP bit `G_TLS_CERTIFICATE_GENERIC_ERROR`:
/// both refuse the connection). The leaf's check only (GnuTLS checks a response per peer
/// certificate, and TLS 1.2 staples one, for the leaf); glib-networking's trust list is not
/// consulted for the response's signer (an empty list: GnuTLS then verifies with the issuer
/// sent, which is the signer, or issued the delegated responder, of every public CA's
/// response).
///
/// - no response: [`SoftFail::NoData`], unless the leaf carries the TLS feature
///   `status_request` (must-staple), which is [`RevocationError::Invalid`]
///   (`GNUTLS_CERT_MISSING_OCSP_STATUS`);
/// - a response GnuTLS ignores (responseStatus not successful): the same;
/// - revoked: [`Status::Revoked`] at depth 0, however old the response;
/// - good and current: [`Status::Good`]; unknown and current: [`SoftFail::NoData`] (GnuTLS
///   accepts it as it accepts good; only revoked is refused);
/// - a response that does not parse: [`RevocationError::Corrupt`]; for another certificate,
///   not signed by the issuer (or a responder it authorised), past its nextUpdate (or, with
///   none, older than 15 days): [`RevocationError::Invalid`], in GnuTLS's words and with its
///   status bit's name. A thisUpdate in the future is accepted, as GnuTLS accepts it.
///
/// A leaf or issuer GnuTLS cannot parse is [`RevocationError::BadPath`].
pub fn check_stapled_ocsp(
    response: Option<&[u8]>,
    leaf_der: &[u8],
    issuer_der: &[u8],
    now_unix: u64,
) -> Result<Status, RevocationError> {
    let invalid = |detail: String| RevocationError::Invalid {
        mechanism: Mechanism::Ocsp,
        detail,
    };
    let gnutls_failed = |e: GnutlsError| invalid(format!("GnuTLS failed: {e}"));
    let leaf =
        Cert::from_der(leaf_der).map_err(|e| RevocationError::BadPath(format!("the leaf: {e}")))?;
    let issuer = match response {
        Some(_) => Some(
            Cert::from_der(issuer_der)
                .map_err(|e| RevocationError::BadPath(format!("the issuer: {e}")))?,
        ),
        None => None,
    };
    check_stapled_ocsp_of(response, &leaf, issuer.as_ref(), None, now_unix).map_err(|e| match e {
        StapleError::Revocation(e) => e,
        StapleError::Gnutls(e) => gnutls_failed(e),
    })
}

/// [`check_stapled_ocsp`]'s failures before its verdict.
enum StapleError {
    Revocation(RevocationError),
    Gnutls(GnutlsError),
}

/// [`check_stapled_ocsp`] on the peer certificates already imported (as a session holds them),
/// the response's signer looked for in `trust` first, then in the peer at `issuer` (the leaf's
/// issuer among those sent, if any), as `check_ocsp_response` does.
pub fn check_stapled_ocsp_peer(
    response: Option<&[u8]>,
    peers: &Peers,
    issuer: Option<usize>,
    trust: Option<&Trust>,
    now_unix: u64,
) -> Result<Status, RevocationError> {
    let leaf = peers.leaf();
    let issuer = issuer.filter(|&i| i > 0).and_then(|i| peers.get(i));
    check_stapled_ocsp_of(response, leaf, issuer, trust, now_unix).map_err(|e| match e {
        StapleError::Revocation(e) => e,
        StapleError::Gnutls(e) => RevocationError::Invalid {
            mechanism: Mechanism::Ocsp,
            detail: format!("GnuTLS failed: {e}"),
        },
    })
}

fn check_stapled_ocsp_of(
    response: Option<&[u8]>,
    leaf: &Cert,
    issuer: Option<&Cert>,
    trust: Option<&Trust>,
    now_unix: u64,
) -> Result<Status, StapleError> {
    let invalid = |detail: String| {
        StapleError::Revocation(RevocationError::Invalid {
            mechanism: Mechanism::Ocsp,
            detail,
        })
    };
    let missing = || {
        invalid(
            "the certificate requires a stapled OCSP response (TLS feature status_request) \
             and none was received (GNUTLS_CERT_MISSING_OCSP_STATUS)"
                .to_owned(),
        )
    };
    let gnutls_failed = StapleError::Gnutls;
    let Some(response) = response else {
        // `_gnutls_x509_cert_verify_peers`: no response for this certificate.
        return if leaf.requires_stapling().map_err(gnutls_failed)? {
            Err(missing())
        } else {
            Ok(Status::SoftFail(SoftFail::NoData))
        };
    };
    let now = i64::try_from(now_unix).map_err(|_| {
        StapleError::Revocation(RevocationError::BadPath(
            "validation time out of range".into(),
        ))
    })?;
    let issuers: Vec<&Cert> = issuer.into_iter().collect();
    let check = check_ocsp_response(leaf, trust, &issuers, response, VERIFY_PEERS_FLAGS, now)
        .map_err(gnutls_failed)?;
    const INVALID_OCSP: &str = "GNUTLS_CERT_INVALID_OCSP_STATUS";
    const SUPERSEDED: &str = "GNUTLS_CERT_REVOCATION_DATA_SUPERSEDED";
    match check.step {
        OcspStep::Unparsable(code) => Err(StapleError::Revocation(RevocationError::Corrupt {
            mechanism: Mechanism::Ocsp,
            detail: format!(
                "There was an error parsing the OCSP response: {} ({INVALID_OCSP})",
                strerror(code)
            ),
        })),
        OcspStep::NotSuccessful(_) if check.status & GNUTLS_CERT_MISSING_OCSP_STATUS != 0 => {
            Err(missing())
        }
        OcspStep::NotSuccessful(_) => Ok(Status::SoftFail(SoftFail::NoData)),
        OcspStep::Unrelated => Err(invalid(format!(
            "Got OCSP response with an unrelated certificate ({INVALID_OCSP})"
        ))),
        OcspStep::VerifyFailed(code) => Err(invalid(format!(
            "the OCSP response's signature could not be checked: {} ({INVALID_OCSP})",
            strerror(code)
        ))),
        OcspStep::NotVerified(bits) => Err(invalid(format!(
            "OCSP rejection reason: {} ({INVALID_OCSP})",
            ocsp_verify_reasons(bits)
        ))),
        OcspStep::SingleUnreadable(code) => {
            Err(StapleError::Revocation(RevocationError::Corrupt {
                mechanism: Mechanism::Ocsp,
                detail: format!(
                    "There was an error parsing the OCSP response: {} ({INVALID_OCSP})",
                    strerror(code)
                ),
            }))
        }
        OcspStep::Revoked => Ok(Status::Revoked { depth: 0 }),
        OcspStep::Old => Err(invalid(format!("The OCSP response is old ({SUPERSEDED})"))),
        OcspStep::Superseded => Err(invalid(format!(
            "There is a newer OCSP response but was not provided by the server ({SUPERSEDED})"
        ))),
        OcspStep::Current(GNUTLS_OCSP_CERT_GOOD) => Ok(Status::Good),
        OcspStep::Current(_) => Ok(Status::SoftFail(SoftFail::NoData)),
    }
}
