// certbench's `chrome` method: Chrome's certificate verifier, BoringSSL's libpki path builder
// (bssl::CertPathBuilder), set up the way Chromium's CertVerifyProcBuiltin sets it up
// (net/cert/cert_verify_proc_builtin.cc: VerifyInternal, TryBuildPath), and the host checked the
// way Chromium's X509Certificate::VerifyHostname checks it (net/cert/x509_certificate.cc).
//
// Implements core/native/certbench_verifier.h (ABI v4). Built by core/build/chrome.rs from the
// BoringSSL tree that the crates.io crate boring-sys ships, with every symbol hidden but the
// table's.
//
// The EV attempt (VerifyEv), as CertVerifyProcBuiltin::VerifyInternal makes it before its DV
// attempt: only for a leaf that IsEVCandidate (a certificatePolicies OID that the EV table lists
// for some root); TryBuildPath with VerificationType::kEV, whose user_initial_policy_set is the
// leaf's EV OIDs (GetEVPolicyOids) with InitialExplicitPolicy::kFalse and no policy-mapping or
// anyPolicy inhibition, the same delegate limits as DV (RSA >= 1024, strong digests, 20
// iterations); and PathBuilderDelegateImpl::CheckPathAfterVerification's ConformsToEVPolicy on
// every valid path: the SHA-256 of the path's trust anchor must be listed in the table for one
// of the OIDs of the path's user_constrained_policy_set, else the path gets kPathLacksEVPolicy.
// A valid path is CERT_STATUS_IS_EV (AssignVerifyResult) and Chrome stops there; otherwise it
// goes on to the DV attempt. The table (ev_roots.inc) is the Chrome Root Store's ev_policy_oids,
// which is what current Chromium compiles into its EVRootCAMetadata. Unlike the Chrome Root
// Store, where only the roots it ships are EV roots, here a root of the store is an EV root when
// its SHA-256 is in the table (the store's roots play Chrome's own).
//
// Revocation and EV: the Chromium read (github.com/chromium/chromium,
// net/cert/cert_verify_proc_builtin.cc at 28f5cfad21431e71fd362206dd4e2c0600eb5365)
// requires nothing more of an EV path than of a DV one: ChooseRevocationPolicy has no EV case
// (the old "EV requires revocation checking" branch is gone), so an EV path gets the CRLSet check
// and, only under VERIFY_REV_CHECKING_ENABLED (off by default), soft-fail online revocation, as a
// DV path; CertVerifyProc::Verify has no EV step either. certbench leaves out, for EV as for DV:
// OCSP/CRL fetching, and the Chrome Root Store's per-root constraints that
// CheckPathAfterVerification applies to a path before the EV check; CT is checked for an EV
// path as for a DV one, by VerifyCt (below), then certbench's CRLSet check, both by default.
//
// Certificate Transparency (VerifyCt, run by certbench by default, off with --path-only; read at
// github.com/chromium/chromium: net/cert/ct_log_verifier.cc
// (14a065bbdb216d92f4a5c4bea98e4dd0e7fd6e96), multi_log_ct_verifier.cc
// (f24a8e130d36c035286d0b664743111ac6b10749), ct_objects_extractor.cc
// (0e4923935ca2da3bd9fb0435354ed0f8e16d4013), ct_serialization.cc
// (2c0a5042676c9bd223b0202f417fd2f4331c4dad),
// components/certificate_transparency/chrome_ct_policy_enforcer.cc
// (d3399a9bf0b7dd723694e66f789d88d761e421ae), net/http/transport_security_state.cc's
// CheckCTRequirements): the log set is CTLogVerifier::Create per log (EVP_parse_public_key,
// RSA >= 2048 or EC, SHA-256); the check is CheckPathAfterVerification's: MultiLogCTVerifier::
// Verify over the target with the accepted path's certs[1] as the issuer (the embedded SCT list
// against the precertificate entry: the TBSCertificate without the SCT list extension and the
// SHA-256 of the issuer's SubjectPublicKeyInfo; the TLS extension's list against the X.509
// entry), then ChromeCTPolicyEnforcer::CheckCTPolicyCompliance, then CheckCTRequirements, which
// turns anything but CT_POLICY_COMPLIES_VIA_SCTS into ERR_CERTIFICATE_TRANSPARENCY_REQUIRED.
// Chromium checks CT inside path building, on every candidate path; certbench checks the one
// path Verify/VerifyEv accepted, after it (a path that fails CT is not a rejected path in
// Chromium either: the policy result only decides the net error).
// Left out of CT: SCTs from a stapled OCSP response (ExtractSCTListFromOCSPResponse); the log
// list's timeliness (CT_POLICY_BUILD_NOT_TIMELY after 70 days: certbench models a browser with
// a timely list); the log operators' history (GetOperatorForLog: the current operator is used);
// the static-CT-API rule (kEnableStaticCTAPIEnforcement: an SCT from an RFC 6962 log; the ABI
// carries no log type, so every log counts as RFC 6962 and the rule always holds); the CT
// emergency disable, the RequireCTDelegate's enterprise and per-host/per-SPKI exemptions, and
// the known-root test (every root of the store is taken for a publicly trusted one); the Chrome
// Root Store constraints on SCTs (sct_not_after, sct_all_after); SCT auditing and the NetLog.
//
// What Chromium does that this leaves out (docs/verifiers.md lists it for users):
//  - CheckPathAfterVerification: OCSP/CRL revocation (the CRLSet is certbench's, in Rust, on
//    the path VerifiedPath hands out), the Chrome Root Store's per-root constraints, QWAC
//    policies; CT on every candidate path (certbench checks it once, on the accepted path);
//  - AIA fetching of missing intermediates (CertIssuerSourceAia);
//  - the retries: with SHA-1 allowed (DigestPolicy::kWeakAllowSha1, queued after a failed EV or
//    DV attempt whose paths had a weak signature algorithm), with the system time when network
//    time was used;
//  - CertVerifyProc::Verify's checks after path building: for a known root only, validity too
//    long and a non-unique host name; for every chain, the hash-pinned legacy name constraints,
//    weak (under 1024-bit) keys, SHA-1, the legacy Symantec roots, CRLSet interception keys;
//  - the public suffix list in the wildcard rule (see CheckName).//
// The shim's files (internal.h lists them with their jobs): this one is the C ABI, the table of
// ../certbench_verifier.h and its one exported symbol.

#include "internal.h"

namespace certbench_chrome {

// Chrome's CRLSet reads no SCT: no list is kept (see the header).
int VerifiedScts(void *, certbench_verified_sct *, size_t) { return -1; }

#ifndef CERTBENCH_CHROME_VERSION
#define CERTBENCH_CHROME_VERSION "unknown"
#endif

const certbench_verifier_v4 kTable = {
    CERTBENCH_VERIFIER_ABI,
    "BoringSSL pki",
    CERTBENCH_CHROME_VERSION,
    "CertPathBuilder as CertVerifyProcBuiltin: an EV attempt first for a leaf with an EV OID of "
    "the Chrome Root Store's table (its EV OIDs as the initial policy set, the anchor's SHA-256 "
    "listed for a surviving OID), then DV: server auth, any policy, RSA >= 1024, SHA-256+, 20 "
    "iterations; roots as local anchors (constraints, expiry); SAN-only host check; CT by "
    "default (Chrome's policy: embedded and TLS SCTs, 2 operators, 2 or 3 embedded logs by "
    "lifetime, every root publicly trusted), once on the accepted path, then certbench's CRLSet "
    "check (by default); no AIA",
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

}  // namespace certbench_chrome

extern "C" __attribute__((visibility("default"))) const certbench_verifier_v4 *
certbench_verifier_v4_table(void) {
  return &certbench_chrome::kTable;
}
