// certbench's `firefox` method: Firefox's certificate verifier, mozilla::pkix, with a trust
// domain of certbench's own that makes Firefox's choices for a TLS server certificate
// (security/certverifier/CertVerifier.cpp: CertVerifier::VerifyCert, VerifyUsage::TLSServer;
// NSSCertDBTrustDomain.cpp), and the host checked as CertVerifier::VerifySSLServerCert checks it
// (CheckCertHostnameHelper). The store plays Firefox's built-in roots module.
//
// Implements core/native/certbench_verifier.h (ABI v4). Built by core/build/firefox.rs from NSS's
// source (nss/lib/mozpkix) and NSS, with every symbol hidden but the table's.
//
// The EV attempt (VerifyEv), as VerifyCert makes it for VerifyUsage::TLSServer before its DV
// attempt (ExtendedValidation.cpp, CertVerifier.cpp): GetKnownEVPolicies lists the leaf's
// certificatePolicies OIDs that are EV OIDs (the CA/Browser Forum OID 2.23.140.1.1, or an OID of
// a kEVInfos row: FindMatchingEVPolicy); for each in turn, a trust domain for that policy with
// the strong RSA minimum (MIN_RSA_BITS, 2048; no weak retry) and BuildCertChainForOneKeyUsage
// (digitalSignature, keyEncipherment, keyAgreement) with the policy as the required policy, so
// that mozilla::pkix requires it (or anyPolicy in a CA) in every certificate below the anchor; in
// that trust domain a root is a trust anchor only if CertIsAuthoritativeForEVPolicy (its SHA-256
// is a kEVInfos row's, and the policy is that row's OID or the CA/Browser Forum OID), as
// NSSCertDBTrustDomain::GetCertTrust decides for a non-anyPolicy policy; any other root only
// inherits trust, so no path ends there. The first policy with a chain is EV (EVStatus::EV) and
// VerifyCert stops; otherwise it goes on to DV. The table (ev_roots.inc) is kEVInfos'.
//
// What VerifyCert's EV attempt does that this leaves out: the EV revocation requirements; and
// that in VerifyCert the CT policy is checked inside each attempt, right after its chain is
// built (an EV chain failing CT moves on to the next EV policy, then to DV), where certbench
// checks CT once, after the accepted attempt (VerifyCt, below). In the Gecko read,
// the EV trust domain checks the leaf's revocation with the EV mode (NSSCertDBTrustDomain at
// bolucat/Firefox 0d36d1c7a0dc2b9c0bfdf54da347d34637a7fbe0: OCSPFetching FetchOCSPForEV, or LocalOnlyOCSPForEV with OCSP off or
// FLAG_LOCAL_ONLY): a good stapled or cached OCSP response, a short-lived certificate, or CRLite
// in enforce mode covering the leaf answer it; otherwise a synchronous OCSP fetch with the hard
// timeout, whose failure, or a leaf without an OCSP URI, fails the EV attempt (hard fail, unlike
// DV's soft fail). In a newer CertVerifier.cpp also read (RevocationCheckMode; a
// comment-stripped mirror of Gecko in the source index, beside bolucat/Firefox's
// SSLServerCertVerification.cpp at 45ce84744dab06d51facf90a580da7da9cc753ed, whose
// AuthCertificate still passes &evStatus to VerifySSLServerCert), the EV trust
// domain may fetch OCSP (RevocationCheckMayFetch, soft fail unless security.OCSP.require) even
// when the DV one is local-only (security.OCSP.enabled = EV only). certbench checks CRLite on
// the accepted path after this shim returns (core/src/native_verifier.rs, with the SCTs VerifyCt
// found valid, as CheckRevocationByCRLite does) and fetches nothing (no OCSP cache, no
// network): the EV outcome is Firefox's when revocation checking succeeds (or soft-fails), and
// an OCSP fetch's time is not counted.
//
// The "one stated root model": every root of the store plays a built-in root (CKA_NSS_MOZILLA_
// CA_POLICY, trusted for TLS: CERTDB_TRUSTED_CA). Of what a built-in root brings in Gecko, this
// implements: its trust anchor status; the 2048-bit RSA floor with the 1024-bit retry refused
// (VerifyCert: ERROR_INADEQUATE_KEY_SIZE when the built chain's root is built in); strict name
// matching (SkipInvalidSANsForNonBuiltInRootsPolicy is strict for a built-in root); EV
// eligibility (when its SHA-256 is in kEVInfos); the CT policy, which
// VerifyCertificateTransparencyPolicy enforces only when the built chain's root is built in
// (GetIsBuiltChainRootBuiltInRoot): with every root built in, every chain is subject to it.
// Left out: the distrust-after dates (IsChainValid: IsDistrustedCertificateChain,
// CKA_NSS_SERVER_DISTRUST_AFTER, which fails a chain whose leaf's notBefore is after the root's
// date with ERROR_ISSUER_NO_LONGER_TRUSTED), key pinning (ChainHasValidPins, for a built-in root
// too), CRLite (which covers chains to built-in roots, and in enforce mode spares an OCSP
// fetch); Gecko has no Symantec check left (none in IsChainValid).
//
// What Firefox does that this leaves out (docs/verifiers.md lists it for users): OneCRL in
// GetCertTrust, OCSP in CheckRevocation and OCSP stapling (CRLite is certbench's, in Rust, on
// the path VerifiedPath hands out, with the SCTs VerifiedScts hands out); key pinning and
// the distrust-after dates of some roots (IsChainValid); third-party (enterprise) roots and
// intermediates, the preloaded intermediates and the NSS database as issuer sources; imposed
// name constraints on some roots (CERT_GetImposedNameConstraints); the signature and trust
// caches beyond one verification (see SignatureCache); VerifySSLServerCert's error
// refinements (ERROR_SELF_SIGNED_CERT, ERROR_MITM_DETECTED, the host checked first for an
// expired certificate), delegated credentials and TLS features (must-staple).
//
// Certificate Transparency (VerifyCt, run by certbench by default, off with --path-only), as CertVerifier::
// VerifyCertificateTransparencyPolicy checks it after BuildCertChain succeeds, in enforce mode
// (security.pki.certificate_transparency.mode 2, Firefox's desktop default since Firefox 135),
// for chains to built-in roots, which every root of a store plays here. Gecko read at
// bolucat/Firefox (a Gecko mirror) e9b340c0e9a223c964fa09bedc62eee970e20396
// (security/certverifier/CertVerifier.cpp, security/ct/CTLogVerifier.cpp),
// 95b7d2df7f4055304f51de56aa389cf7cdf33831 (MultiLogCTVerifier.cpp, CTVerifyResult.h),
// 0d36d1c7a0dc2b9c0bfdf54da347d34637a7fbe0 (StaticPrefList.yaml);
// mozilla/gecko-dev ef795bb892d4d43d26b6eb5c2f718a50f7267185 (CTPolicyEnforcer.cpp, checked
// against a newer comment-stripped copy that adds the tiled-log rule),
// a3ad4dfd0b3b8b7f51b74bb583d8f967df647886 (CTSerialization.cpp, SignedCertificateTimestamp.cpp),
// 4e10a310f18c308247ae44fb88cb82c704126011 (signature_cache/src/lib.rs); CTObjectsExtractor.cpp
// and NSSCertDBTrustDomain::IsChainValid from copies in the source index. The steps:
//  - the log list (CtLogsNew), as LoadKnownCTLogs and CTLogVerifier::Init: each key parsed
//    once (ECDSA P-256 or RSA >= 2048 only), its SHA-256 the log id; a log failing either, or
//    whose given id differs, is skipped. State: Admissible, or Retired at a time (ms).
//  - the issuer: the built chain's second certificate (NSSCertDBTrustDomain::IsChainValid keeps
//    the chain), its SubjectPublicKeyInfo hashed for the precertificate entry; the embedded list
//    as mozilla::pkix notes it (NoteAuxiliaryExtension). A built chain of one certificate:
//    NotEnoughScts.
//  - MultiLogCTVerifier::Verify: embedded SCTs over the precertificate entry (TBSCertificate
//    without the SCT list extension, SHA-256 of the issuer's key), then the TLS extension's over
//    the X.509 entry; each SCT: unknown log; signature parameters not the log's, or a bad
//    signature (InvalidSignature); a timestamp after the validation time (InvalidTimestamp); or
//    verified. certbench counts InvalidSignature, InvalidTimestamp and SCTs that do not decode as
//    `invalid`. Signatures through Firefox's SCT signature cache when the log set keeps one.
//  - CTPolicyEnforcer's CheckCTPolicyCompliance on the verified SCTs (see
//    CheckCtPolicyCompliance), the certificate's lifetime from its validity; not Compliant is
//    ERROR_INSUFFICIENT_CERTIFICATE_TRANSPARENCY (MOZILLA_PKIX_ERROR_INSUFFICIENT_CERTIFICATE_
//    TRANSPARENCY), with the CTPolicyCompliance value kept for Explain.
// Left out: SCTs from a stapled OCSP response (certbench staples none); the expiry of the
// built-in log list (kCTExpirationTime: CT is skipped at a time over 12 weeks after the list
// was generated); the per-host and per-SPKI exceptions
// (security.pki.certificate_transparency.disable_for_hosts, disable_for_spki_hashes; empty by
// default); the check that an SCT is not after a root's distrust-after date (left out with
// those dates); the tiled-log rule of the newer CTPolicyEnforcer (an SCT from a static-CT-API
// log counts only with a leaf_index extension: the ABI does not say which logs are tiled; the
// extension is parsed, as Gecko parses it); CT telemetry and the CertificateTransparencyInfo
// kept for the UI.
//
// The shim's files (internal.h lists them with their jobs): this one is the C ABI, the table of
// ../certbench_verifier.h and its one exported symbol.

#include "internal.h"

namespace certbench_firefox {

#ifndef CERTBENCH_FIREFOX_VERSION
#define CERTBENCH_FIREFOX_VERSION "NSS " NSS_VERSION
#endif

const certbench_verifier_v4 kTable = {
    CERTBENCH_VERIFIER_ABI,
    "mozilla::pkix",
    CERTBENCH_FIREFOX_VERSION,
    "BuildCertChain as CertVerifier (TLS server): an EV attempt first for each EV OID of the leaf "
    "(kEVInfos; the OID required, roots anchors only if listed for it, RSA >= 2048), then DV: "
    "serverAuth, digitalSignature then keyEncipherment then keyAgreement, RSA >= 2048 (roots as "
    "built-in: the 1024 retry refused), no SHA-1, P-256/384/521; roots then sent certs as issuers; "
    "CheckCertHostname without CN; CT as Firefox's policy (certbench's CT check, on by default): "
    "after the accepted path, SCTs embedded and from TLS, known logs (P-256/RSA), compliant by TLS SCTs "
    "from 2 admissible logs of 2 operators, else by embedded SCTs from once-qualified logs (1 "
    "admissible; 2 logs, 3 over 180 days' lifetime; 2 operators), SCT signature cache of 256; "
    "the valid SCTs handed to certbench's CRLite check (on by default) before the policy, as "
    "CheckRevocationByCRLite; no OCSP, pinning, distrust-after",
    Init,
    StoreNew,
    StoreFree,
    ChainNew,
    ChainFree,
    VerifyEv,
    Verify,
    Explain,
    CheckName,
    CtLogsNew,
    CtLogsFree,
    VerifyCt,
    VerifiedPath,
    VerifiedScts,
};

}  // namespace certbench_firefox

extern "C" __attribute__((visibility("default"))) const certbench_verifier_v4 *
certbench_verifier_v4_table(void) {
  return &certbench_firefox::kTable;
}
