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
//  - the public suffix list in the wildcard rule (see CheckName).

#include <openssl/bytestring.h>
#include <openssl/digest.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pki/verify_error.h>
#include <openssl/pool.h>
#include <openssl/sha.h>

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "../certbench_verifier.h"
#include "pki/cert_error_id.h"
#include "pki/cert_errors.h"
#include "pki/cert_issuer_source_static.h"
#include "pki/encode_values.h"
#include "pki/general_names.h"
#include "pki/input.h"
#include "pki/parse_values.h"
#include "pki/parsed_certificate.h"
#include "pki/path_builder.h"
#include "pki/simple_path_builder_delegate.h"
#include "pki/trust_store_in_memory.h"

namespace {

// As Chromium's cert_verify_proc_builtin.cc: "To avoid a denial-of-service risk, cap
// iterations by the path builder" (kPathBuilderIterationLimit).
constexpr uint32_t kPathBuilderIterationLimit = 20;
// As Chromium's kMinRsaModulusLengthBits, given to SimplePathBuilderDelegate.
constexpr size_t kMinRsaModulusLengthBits = 1024;

void Fail(char *reason, size_t cap, std::string_view why) {
  if (reason == nullptr || cap == 0) {
    return;
  }
  size_t n = why.size() < cap - 1 ? why.size() : cap - 1;
  std::memcpy(reason, why.data(), n);
  reason[n] = '\0';
}

// The fail-closed test hook (tests/it/browsers.rs): throws where the test asks, so that the test
// sees the exception caught and turned into a failure.
void MaybeThrow(const char *where) {
  // Read once per process (the tests set it per process): no getenv inside the timed calls.
  static const std::string at = [] {
    const char *value = std::getenv("CERTBENCH_NATIVE_THROW");
    return std::string(value != nullptr ? value : "");
  }();
  if (!at.empty() && at == where) {
    throw std::runtime_error(std::string("CERTBENCH_NATIVE_THROW=") + where);
  }
}

// As Chromium's x509_util::DefaultParseCertificateOptions.
bssl::ParseCertificateOptions ParseOptions() {
  bssl::ParseCertificateOptions options;
  options.allow_invalid_serial_numbers = true;
  return options;
}

std::shared_ptr<const bssl::ParsedCertificate> Parse(const certbench_der &der,
                                                     std::string *why) {
  bssl::UniquePtr<CRYPTO_BUFFER> buffer(CRYPTO_BUFFER_new(der.der, der.len, nullptr));
  if (!buffer) {
    *why = "out of memory";
    return nullptr;
  }
  bssl::CertErrors errors;
  auto cert = bssl::ParsedCertificate::Create(std::move(buffer), ParseOptions(), &errors);
  if (!cert) {
    *why = errors.ToDebugString();
    if (why->empty()) {
      *why = "the certificate does not parse";
    }
  }
  return cert;
}

// A trust store: the roots as Chrome trusts a root it does not ship, a locally trusted anchor
// (the platform's or an enterprise's, and what a test's roots are): its X.509 constraints and
// its expiry enforced (CertificateTrust ForTrustAnchor().WithEnforceAnchorConstraints()
// .WithEnforceAnchorExpiry(), as TrustStoreNSS/TrustStoreMac under the default-on
// kEnforceLocalAnchorConstraints, and as CertVerifyProcBuiltin adds additional anchors). The
// Chrome Root Store enforces them only for the roots it marks so (TrustStoreChrome).
struct Store {
  bssl::TrustStoreInMemory anchors;
};

// The outcome of the last VerifyCt on a chain, kept raw for Explain.
enum class CtOutcome {
  kNone,         // no VerifyCt since the last Verify/VerifyEv (or it complied)
  kNoPath,       // VerifyCt without an accepted path
  kNotEnough,    // CTPolicyCompliance::CT_POLICY_NOT_ENOUGH_SCTS
  kNotDiverse,   // CTPolicyCompliance::CT_POLICY_NOT_DIVERSE_SCTS
  kError,        // an exception; its text in `ct_error`
};

// One SCT that MultiLogCTVerifier gave SCT_STATUS_OK: what the CT policy reads of it.
struct VerifiedSct {
  size_t log;            // index into CtLogs::logs
  int64_t timestamp_ms;  // the SCT's timestamp, milliseconds since the Unix epoch
  bool embedded;         // SCT_EMBEDDED, else SCT_FROM_TLS_EXTENSION
};

// A chain as sent: the target and the other certificates as an issuer source, as
// CertVerifyProcBuiltin's AddIntermediatesToIssuerSource makes it (a certificate that does not
// parse is left out of the source, as there).
struct Chain {
  std::shared_ptr<const bssl::ParsedCertificate> target;
  bssl::CertIssuerSourceStatic intermediates;
  // The last rejection by Verify, kept raw for Explain: the path builder's result, or the text
  // of an exception (an error path) when `error` is not empty.
  bssl::CertPathBuilder::Result rejected;
  bool has_rejection = false;
  std::string error;

  // Set when the last Verify or VerifyEv accepted: the accepted path's certs[1], the target's
  // issuer that CheckPathAfterVerification hands to the CT verifier as the only intermediate
  // (null for a one-certificate path, whose target is itself the anchor: Chromium then has no
  // issuer and checks no embedded SCT). A shared_ptr copy, so the timed verify barely notices.
  bool accepted = false;
  std::shared_ptr<const bssl::ParsedCertificate> issuer;
  // Set with `accepted`: the accepted path (the CertPathBuilder result's best valid path,
  // `certs`: target first, the trust anchor last), as CertVerifyProcBuiltin hands it on to
  // its revocation check (the CRLSet's, CheckChainRevocationUsingCRLSet) and VerifiedPath
  // returns it. `pinned` keeps every certificate a path returned by VerifiedPath ever held,
  // until ChainFree, so that the DER handed out stays valid after a later Verify and after
  // the store is freed (the anchor is the store's); shared_ptr copies, no DER copied.
  std::vector<std::shared_ptr<const bssl::ParsedCertificate>> path;
  std::vector<std::shared_ptr<const bssl::ParsedCertificate>> pinned;

  // The last VerifyCt: its outcome and counts, rendered by Explain only; and scratch space
  // reused across calls (cleared, never shrunk), so that a warm VerifyCt allocates nothing of
  // its own.
  CtOutcome ct_outcome = CtOutcome::kNone;
  certbench_ct_counts ct_counts = {};
  uint32_t ct_future = 0;  // of ct_counts.invalid: good signatures timestamped after the check
  std::string ct_error;
  std::vector<uint8_t> precert_tbs;
  std::vector<VerifiedSct> verified;
  std::vector<size_t> embedded_logs;
};

// Chrome's EV table (ev_roots.inc: the Chrome Root Store's ev_policy_oids), as
// EVRootCAMetadata holds it: root SHA-256 -> EV policy OIDs (DER contents), and the set of every
// EV policy OID. Built once, before any timed call (Init and StoreNew build it).
#include "../ev_table.h"

static_assert(SHA256_DIGEST_LENGTH == std::tuple_size<Sha256>::value, "a SHA-256 is 32 bytes");

constexpr EvEntry kEvRoots[] = {
#include "ev_roots.inc"
};

std::string Bytes(bssl::der::Input in) {
  return std::string(reinterpret_cast<const char *>(in.data()), in.size());
}

struct EvTable {
  std::map<Sha256, std::set<std::string>> policies_by_root;
  std::set<std::string> policies;

  EvTable() {
    for (const EvEntry &entry : kEvRoots) {
      Sha256 root;
      std::string oid = OidToDer(entry.policy_oid);
      if (HexToSha256(entry.sha256_hex, &root) && !oid.empty()) {
        policies_by_root[root].insert(oid);
        policies.insert(std::move(oid));
      }
    }
  }

  // EVRootCAMetadata::IsEVPolicyOID.
  bool IsEvPolicy(bssl::der::Input oid) const {
    return policies.count(Bytes(oid)) != 0;
  }

  // EVRootCAMetadata::HasEVPolicyOID.
  bool HasEvPolicy(const Sha256 &root, bssl::der::Input oid) const {
    auto it = policies_by_root.find(root);
    return it != policies_by_root.end() && it->second.count(Bytes(oid)) != 0;
  }
};

const EvTable &Ev() {
  static const EvTable table;  // thread-safe initialisation
  return table;
}

// GetEVPolicyOids: the leaf's policy OIDs that the table lists for some root.
std::set<bssl::der::Input> EvPolicyOids(const bssl::ParsedCertificate &cert) {
  std::set<bssl::der::Input> oids;
  if (cert.has_policy_oids()) {
    for (const bssl::der::Input &oid : cert.policy_oids()) {
      if (Ev().IsEvPolicy(oid)) {
        oids.insert(oid);
      }
    }
  }
  return oids;
}

using bssl::CertErrorId;
DEFINE_CERT_ERROR_ID(kPathLacksEVPolicy, "Path does not have an EV policy");

// PathBuilderDelegateImpl for VerificationType::kEV, reduced to what certbench keeps of it: the
// SimplePathBuilderDelegate limits, then ConformsToEVPolicy on each valid path (the CT, CRLSet,
// Chrome Root Store constraints and revocation steps around it are left out, as for DV).
class EvDelegate final : public bssl::SimplePathBuilderDelegate {
 public:
  EvDelegate(size_t min_rsa_modulus_length_bits, DigestPolicy digest_policy)
      : bssl::SimplePathBuilderDelegate(min_rsa_modulus_length_bits, digest_policy) {}

  void CheckPathAfterVerification(const bssl::CertPathBuilder &path_builder,
                                  bssl::CertPathBuilderResultPath *path) override {
    bssl::SimplePathBuilderDelegate::CheckPathAfterVerification(path_builder, path);
    if (!path->IsValid()) {
      return;
    }
    if (!ConformsToEvPolicy(*path)) {
      path->errors.GetErrorsForCert(0)->AddError(kPathLacksEVPolicy);
    }
  }

 private:
  // The path's anchor must be an EV root for one of the policies the path is valid for (the
  // requested EV OIDs that survived policy processing).
  static bool ConformsToEvPolicy(const bssl::CertPathBuilderResultPath &path) {
    const bssl::ParsedCertificate *root = path.GetTrustedCert();
    if (root == nullptr) {
      return false;
    }
    Sha256 fingerprint;
    bssl::der::Input der = root->der_cert();
    SHA256(der.data(), der.size(), fingerprint.data());
    for (const bssl::der::Input &oid : path.user_constrained_policy_set) {
      if (Ev().HasEvPolicy(fingerprint, oid)) {
        return true;
      }
    }
    return false;
  }
};

// The best path's error in one line: its status code's name, then the first error the path
// builder wrote ("CERTIFICATE_EXPIRED: Time is after notAfter").
std::string Describe(const bssl::VerifyError &error) {
  using Code = bssl::VerifyError::StatusCode;
  const char *name = "VERIFICATION_FAILURE";
  switch (error.Code()) {
    case Code::PATH_VERIFIED: name = "PATH_VERIFIED"; break;
    case Code::CERTIFICATE_INVALID_SIGNATURE: name = "CERTIFICATE_INVALID_SIGNATURE"; break;
    case Code::CERTIFICATE_UNSUPPORTED_KEY: name = "CERTIFICATE_UNSUPPORTED_KEY"; break;
    case Code::CERTIFICATE_UNSUPPORTED_SIGNATURE_ALGORITHM:
      name = "CERTIFICATE_UNSUPPORTED_SIGNATURE_ALGORITHM";
      break;
    case Code::CERTIFICATE_REVOKED: name = "CERTIFICATE_REVOKED"; break;
    case Code::CERTIFICATE_NO_REVOCATION_MECHANISM:
      name = "CERTIFICATE_NO_REVOCATION_MECHANISM";
      break;
    case Code::CERTIFICATE_UNABLE_TO_CHECK_REVOCATION:
      name = "CERTIFICATE_UNABLE_TO_CHECK_REVOCATION";
      break;
    case Code::CERTIFICATE_EXPIRED: name = "CERTIFICATE_EXPIRED"; break;
    case Code::CERTIFICATE_NOT_YET_VALID: name = "CERTIFICATE_NOT_YET_VALID"; break;
    case Code::CERTIFICATE_NO_MATCHING_EKU: name = "CERTIFICATE_NO_MATCHING_EKU"; break;
    case Code::CERTIFICATE_INVALID: name = "CERTIFICATE_INVALID"; break;
    case Code::PATH_NOT_FOUND: name = "PATH_NOT_FOUND"; break;
    case Code::PATH_ITERATION_COUNT_EXCEEDED: name = "PATH_ITERATION_COUNT_EXCEEDED"; break;
    case Code::PATH_DEADLINE_EXCEEDED: name = "PATH_DEADLINE_EXCEEDED"; break;
    case Code::PATH_DEPTH_LIMIT_REACHED: name = "PATH_DEPTH_LIMIT_REACHED"; break;
    case Code::PATH_MULTIPLE_ERRORS: name = "PATH_MULTIPLE_ERRORS"; break;
    case Code::VERIFICATION_FAILURE: name = "VERIFICATION_FAILURE"; break;
  }
  std::string out = name;
  const std::string &text = error.DiagnosticString();
  size_t at = text.find("ERROR: ");
  if (at != std::string::npos) {
    size_t end = text.find('\n', at);
    out += ": " + text.substr(at + 7, end == std::string::npos ? std::string::npos : end - at - 7);
  }
  return out;
}

void *StoreNew(const certbench_der *roots, size_t n, size_t *used, char *reason,
               size_t cap) {
  try {
    MaybeThrow("store");
    Ev();  // built once, outside the timed EV attempt (Init builds it too)
    auto store = std::make_unique<Store>();
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
      std::string why;
      auto root = Parse(roots[i], &why);
      if (root && !store->anchors.Contains(root.get())) {
        store->anchors.AddCertificate(std::move(root),
                                      bssl::CertificateTrust::ForTrustAnchor()
                                          .WithEnforceAnchorConstraints()
                                          .WithEnforceAnchorExpiry());
        kept++;
      }
    }
    if (used != nullptr) {
      *used = kept;
    }
    if (kept == 0) {
      Fail(reason, cap, "no root parses");
      return nullptr;
    }
    return store.release();
  } catch (const std::exception &e) {
    Fail(reason, cap, e.what());
  } catch (...) {
    Fail(reason, cap, "an unknown C++ exception");
  }
  return nullptr;
}

void StoreFree(void *store) { delete static_cast<Store *>(store); }

void *ChainNew(const certbench_der *certs, size_t n, char *reason, size_t cap) {
  try {
    MaybeThrow("chain");
    if (n == 0) {
      Fail(reason, cap, "no certificate");
      return nullptr;
    }
    auto chain = std::make_unique<Chain>();
    std::string why;
    chain->target = Parse(certs[0], &why);
    if (!chain->target) {
      Fail(reason, cap, "end-entity certificate: " + why);
      return nullptr;
    }
    for (size_t i = 1; i < n; i++) {
      if (auto cert = Parse(certs[i], &why)) {
        chain->intermediates.AddCert(std::move(cert));
      }
    }
    return chain.release();
  } catch (const std::exception &e) {
    Fail(reason, cap, e.what());
  } catch (...) {
    Fail(reason, cap, "an unknown C++ exception");
  }
  return nullptr;
}

void ChainFree(void *chain) { delete static_cast<Chain *>(chain); }

// The DER time of a validation time, or false (then the attempt is a rejection).
bool EncodeTime(int64_t time, bssl::der::GeneralizedTime *at) {
  return bssl::der::EncodePosixTimeAsGeneralizedTime(time, at);
}

// TryBuildPath: one path-building attempt, EV (the leaf's EV OIDs as the initial policy set, and
// EvDelegate) or DV (anyPolicy, SimplePathBuilderDelegate), the strong digest policy, server auth.
bssl::CertPathBuilder::Result TryBuildPath(Store *store, Chain *chain,
                                           const bssl::der::GeneralizedTime &at,
                                           const std::set<bssl::der::Input> &policies,
                                           bssl::CertPathBuilderDelegate *delegate) {
  bssl::CertPathBuilder builder(chain->target, &store->anchors, delegate, at,
                                bssl::KeyPurpose::SERVER_AUTH, bssl::InitialExplicitPolicy::kFalse,
                                policies, bssl::InitialPolicyMappingInhibit::kFalse,
                                bssl::InitialAnyPolicyInhibit::kFalse);
  builder.AddCertIssuerSource(&chain->intermediates);
  builder.SetIterationLimit(kPathBuilderIterationLimit);
  return builder.Run();
}

// A new Verify/VerifyEv: no accepted path yet, and the last VerifyCt's outcome is stale.
void ForgetAcceptedPath(Chain *chain) {
  chain->accepted = false;
  chain->issuer.reset();  // the certificate stays owned by the chain's issuer source or store
  chain->path.clear();    // keeps its capacity; `pinned` keeps what VerifiedPath handed out
  chain->ct_outcome = CtOutcome::kNone;
}

// An accepted path: its certs[1] kept for VerifyCt, and the whole path for VerifiedPath
// (shared_ptr copies).
void KeepAcceptedPath(Chain *chain, const bssl::CertPathBuilder::Result &result) {
  const bssl::CertPathBuilderResultPath *path = result.GetBestValidPath();
  if (path == nullptr) {
    return;
  }
  if (path->certs.size() > 1) {
    chain->issuer = path->certs[1];
  }
  chain->path.assign(path->certs.begin(), path->certs.end());
  chain->accepted = true;  // last: a throwing copy leaves it unset
}

// The EV attempt of CertVerifyProcBuiltin::VerifyInternal (see the header comment).
int VerifyEv(const void *store_ptr, void *chain_ptr, int64_t time) {
  try {
    auto *chain = static_cast<Chain *>(chain_ptr);
    ForgetAcceptedPath(chain);
    // The test hook: "ev" throws here only; "verify" throws in both path-building calls, so
    // that an EV grant cannot step around it (this one falls back, then `verify` rejects).
    MaybeThrow("ev");
    MaybeThrow("verify");
    auto *store = const_cast<Store *>(static_cast<const Store *>(store_ptr));
    // IsEVCandidate / GetEVPolicyOids.
    std::set<bssl::der::Input> ev_policies = EvPolicyOids(*chain->target);
    if (ev_policies.empty()) {
      return CERTBENCH_EV_NOT_CANDIDATE;
    }
    bssl::der::GeneralizedTime at;
    if (!EncodeTime(time, &at)) {
      return CERTBENCH_EV_FALLBACK;
    }
    EvDelegate delegate(kMinRsaModulusLengthBits,
                        bssl::SimplePathBuilderDelegate::DigestPolicy::kStrong);
    bssl::CertPathBuilder::Result result = TryBuildPath(store, chain, at, ev_policies, &delegate);
    if (!result.HasValidPath()) {
      return CERTBENCH_EV_FALLBACK;
    }
    KeepAcceptedPath(chain, result);
    return CERTBENCH_EV_GRANTED;
  } catch (...) {
    // Fail closed: an error is no EV path.
  }
  return CERTBENCH_EV_FALLBACK;
}

// The DV attempt. Nothing is rendered here: a rejection's result is kept for Explain.
int Verify(const void *store_ptr, void *chain_ptr, int64_t time) {
  auto *chain = static_cast<Chain *>(chain_ptr);
  try {
    ForgetAcceptedPath(chain);
    chain->error.clear();  // keeps its buffer: nothing freed in the timed call
    if (chain->has_rejection) {  // a rejection Explain was not asked about
      chain->rejected = bssl::CertPathBuilder::Result();
      chain->has_rejection = false;
    }
    MaybeThrow("verify");
    // The trust store is only read during path building (TrustStoreInMemory's lookups are
    // const in effect), so one store serves several threads.
    auto *store = const_cast<Store *>(static_cast<const Store *>(store_ptr));
    bssl::der::GeneralizedTime at;
    if (!EncodeTime(time, &at)) {
      chain->error = "the validation time cannot be encoded";
      return 0;
    }
    // TryBuildPath for a DV attempt: the strong digest policy (the SHA-1 retry, made after an
    // attempt failed on a weak signature algorithm whatever the anchor, left out), any
    // policy, server auth.
    bssl::SimplePathBuilderDelegate delegate(
        kMinRsaModulusLengthBits, bssl::SimplePathBuilderDelegate::DigestPolicy::kStrong);
    const std::set<bssl::der::Input> any_policy = {bssl::der::Input(bssl::kAnyPolicyOid)};
    bssl::CertPathBuilder::Result result = TryBuildPath(store, chain, at, any_policy, &delegate);
    if (result.HasValidPath()) {
      KeepAcceptedPath(chain, result);
      return 1;
    }
    chain->rejected = std::move(result);
    chain->has_rejection = true;
    return 0;
  } catch (const std::exception &e) {
    chain->error = e.what();
  } catch (...) {
    chain->error = "an unknown C++ exception";
  }
  if (chain->error.empty()) {
    chain->error = "an internal error";
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Certificate Transparency: Chromium's CTLogVerifier (the log set), MultiLogCTVerifier (the SCTs
// of a verified path), ChromeCTPolicyEnforcer (the policy) and TransportSecurityState's
// CheckCTRequirements (the net error). See the header comment for what is left out.

// The SCT list extension's OID, 1.3.6.1.4.1.11129.2.4.2 (RFC 6962 3.3; Chromium's
// kEmbeddedSCTOid), in DER.
constexpr uint8_t kEmbeddedSctOid[] = {0x2b, 0x06, 0x01, 0x04, 0x01, 0xd6, 0x79, 0x02, 0x04, 0x02};

// ct::DigitallySigned's values (RFC 5246 7.4.1.4.1): the hash and signature algorithms an SCT
// names, of which a log's key accepts exactly one pair (SHA-256 with RSA or with ECDSA).
constexpr uint8_t kHashSha256 = 4;
constexpr uint8_t kMaxHashAlgorithm = 6;  // sha512
constexpr uint8_t kSignatureRsa = 1;
constexpr uint8_t kSignatureEcdsa = 3;
constexpr uint8_t kMaxSignatureAlgorithm = 3;  // ecdsa

// One log of the set, as CTLogVerifier holds it.
struct CtLog {
  Sha256 id;  // SHA-256 of the key's DER (key_id)
  bssl::UniquePtr<EVP_PKEY> key;
  uint8_t signature_algorithm = 0;  // kSignatureRsa or kSignatureEcdsa; the hash is SHA-256
  std::string description;
  size_t operator_index = 0;  // into CtLogs::operators
  bool retired = false;       // in ChromeCTPolicyEnforcer's disqualified_logs
  int64_t retired_at_ms = 0;  // its disqualification time
};

// The log set, as MultiLogCTVerifier's logs_ map (by key id) and the policy enforcer's log info
// (operators interned, compared by index). Read-only once built: shared by threads.
struct CtLogs {
  std::vector<CtLog> logs;  // sorted by id, ids unique
  std::vector<std::string> operators;

  // The log with this id, or nullptr (an unknown log).
  const CtLog *Find(const uint8_t *id, size_t len) const {
    if (len != std::tuple_size<Sha256>::value) {
      return nullptr;
    }
    auto it = std::lower_bound(logs.begin(), logs.end(), id, [](const CtLog &log, const uint8_t *key) {
      return std::memcmp(log.id.data(), key, log.id.size()) < 0;
    });
    if (it == logs.end() || std::memcmp(it->id.data(), id, it->id.size()) != 0) {
      return nullptr;
    }
    return &*it;
  }
};

// Seconds to milliseconds (an SCT's unit), saturated.
int64_t ToMillis(int64_t seconds) {
  if (seconds > INT64_MAX / 1000) {
    return INT64_MAX;
  }
  if (seconds < INT64_MIN / 1000) {
    return INT64_MIN;
  }
  return seconds * 1000;
}

// CTLogVerifier::Create/Init for each log: the SPKI parsed once (EVP_parse_public_key, nothing
// after it), RSA (at least 2048 bits) or EC only, each with SHA-256. A log whose key does not
// parse or is of another kind, or whose id is not the SHA-256 of its key, is skipped, as Chromium
// skips a log whose CTLogVerifier::Create fails; its SCTs are then from an unknown log.
//
// `cache_signatures` is ignored: Chrome keeps no cache of SCT signature results (its
// MultiLogCTVerifier verifies every SCT of every path); it caches whole verification results
// above the verifier (CachingCertVerifier, which certbench's CachingVerifier models).
void *CtLogsNew(const certbench_ct_log *in, size_t n, int cache_signatures, char *reason,
                size_t cap) {
  (void)cache_signatures;
  try {
    MaybeThrow("ct-logs");
    if (n > 0 && in == nullptr) {
      Fail(reason, cap, "no logs given");
      return nullptr;
    }
    auto set = std::make_unique<CtLogs>();
    for (size_t i = 0; i < n; i++) {
      const certbench_ct_log &log = in[i];
      if (log.state != CERTBENCH_CT_LOG_ADMISSIBLE && log.state != CERTBENCH_CT_LOG_RETIRED) {
        Fail(reason, cap, "log " + std::to_string(i) + ": unknown state " + std::to_string(log.state));
        return nullptr;
      }
      if (log.key == nullptr || log.log_id == nullptr) {
        continue;
      }
      CBS cbs;
      CBS_init(&cbs, log.key, log.key_len);
      bssl::UniquePtr<EVP_PKEY> key(EVP_parse_public_key(&cbs));
      if (!key || CBS_len(&cbs) != 0) {
        ERR_clear_error();
        continue;
      }
      CtLog parsed;
      SHA256(log.key, log.key_len, parsed.id.data());
      if (std::memcmp(parsed.id.data(), log.log_id, parsed.id.size()) != 0) {
        continue;
      }
      switch (EVP_PKEY_id(key.get())) {
        case EVP_PKEY_RSA:
          parsed.signature_algorithm = kSignatureRsa;
          break;
        case EVP_PKEY_EC:
          parsed.signature_algorithm = kSignatureEcdsa;
          break;
        default:
          continue;
      }
      if (parsed.signature_algorithm == kSignatureRsa && EVP_PKEY_size(key.get()) < 256) {
        continue;
      }
      parsed.key = std::move(key);
      parsed.description = log.description != nullptr ? log.description : "";
      std::string op = log.operator_name != nullptr ? log.operator_name : "";
      auto known = std::find(set->operators.begin(), set->operators.end(), op);
      parsed.operator_index = static_cast<size_t>(known - set->operators.begin());
      if (known == set->operators.end()) {
        set->operators.push_back(std::move(op));
      }
      parsed.retired = log.state == CERTBENCH_CT_LOG_RETIRED;
      parsed.retired_at_ms = parsed.retired ? ToMillis(log.retired_at) : 0;
      set->logs.push_back(std::move(parsed));
    }
    // One log per id (the first given), sorted for the lookups.
    std::stable_sort(set->logs.begin(), set->logs.end(),
                     [](const CtLog &a, const CtLog &b) { return a.id < b.id; });
    set->logs.erase(std::unique(set->logs.begin(), set->logs.end(),
                                [](const CtLog &a, const CtLog &b) { return a.id == b.id; }),
                    set->logs.end());
    return set.release();
  } catch (const std::exception &e) {
    Fail(reason, cap, e.what());
  } catch (...) {
    Fail(reason, cap, "an unknown C++ exception");
  }
  return nullptr;
}

void CtLogsFree(void *logs) { delete static_cast<CtLogs *>(logs); }

// ct_objects_extractor.cc's SkipTBSCertificateToExtensions: past the optional version, the six
// fields serialNumber..subjectPublicKeyInfo, and the optional issuer/subject unique ids.
bool SkipOptional(CBS *cbs, CBS_ASN1_TAG tag) {
  CBS unused;
  return !CBS_peek_asn1_tag(cbs, tag) || CBS_get_asn1(cbs, &unused, tag);
}

bool SkipTbsToExtensions(CBS *tbs) {
  if (!SkipOptional(tbs, CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 0)) {
    return false;
  }
  for (int i = 0; i < 6; i++) {
    if (!CBS_get_any_asn1_element(tbs, nullptr, nullptr, nullptr)) {
      return false;
    }
  }
  return SkipOptional(tbs, CBS_ASN1_CONTEXT_SPECIFIC | 1) &&
         SkipOptional(tbs, CBS_ASN1_CONTEXT_SPECIFIC | 2);
}

constexpr CBS_ASN1_TAG kExtensionsTag = CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 3;

// The certificate's TBSCertificate cut where the SCT list extension sits.
struct TbsWithSctExtension {
  CBS tbs;            // the TBSCertificate's contents
  CBS before_ext;     // the TBSCertificate's contents from the [3] extensions on
  CBS extensions;     // the Extensions SEQUENCE's contents
  CBS sct_extension;  // the SCT list Extension element, within `extensions`
};

enum class SctExtension { kAbsent, kFound, kMalformed };

// ExtractEmbeddedSCTList's and GetPrecertSignedEntry's walk: the TBSCertificate down to its
// extensions, then the one extension with the SCT list OID (FindExtensionElement: a second one is
// malformed).
SctExtension FindSctExtension(bssl::der::Input der, TbsWithSctExtension *out) {
  CBS cert, body, wrap;
  CBS_init(&cert, der.data(), der.size());
  if (!CBS_get_asn1(&cert, &body, CBS_ASN1_SEQUENCE) || CBS_len(&cert) != 0 ||
      !CBS_get_asn1(&body, &out->tbs, CBS_ASN1_SEQUENCE)) {
    return SctExtension::kMalformed;
  }
  CBS rest = out->tbs;
  if (!SkipTbsToExtensions(&rest)) {
    return SctExtension::kMalformed;
  }
  out->before_ext = rest;
  if (CBS_len(&rest) == 0) {
    return SctExtension::kAbsent;  // no extensions at all
  }
  if (!CBS_get_asn1(&rest, &wrap, kExtensionsTag) ||
      !CBS_get_asn1(&wrap, &out->extensions, CBS_ASN1_SEQUENCE) || CBS_len(&wrap) != 0 ||
      CBS_len(&rest) != 0) {
    return SctExtension::kMalformed;
  }
  CBS extensions = out->extensions;
  bool found = false;
  while (CBS_len(&extensions) > 0) {
    CBS element, extension, oid;
    if (!CBS_get_asn1_element(&extensions, &element, CBS_ASN1_SEQUENCE)) {
      return SctExtension::kMalformed;
    }
    CBS copy = element;
    if (!CBS_get_asn1(&copy, &extension, CBS_ASN1_SEQUENCE) ||
        !CBS_get_asn1(&extension, &oid, CBS_ASN1_OBJECT)) {
      return SctExtension::kMalformed;
    }
    if (CBS_mem_equal(&oid, kEmbeddedSctOid, sizeof(kEmbeddedSctOid))) {
      if (found) {
        return SctExtension::kMalformed;
      }
      found = true;
      out->sct_extension = element;
    }
  }
  return found ? SctExtension::kFound : SctExtension::kAbsent;
}

// ParseSCTListFromExtensions: the extension's value is an OCTET STRING holding an OCTET STRING,
// the TLS-encoded SignedCertificateTimestampList.
bool SctListOfExtension(CBS element, CBS *list) {
  CBS extension, oid, value;
  return CBS_get_asn1(&element, &extension, CBS_ASN1_SEQUENCE) &&
         CBS_get_asn1(&extension, &oid, CBS_ASN1_OBJECT) &&
         SkipOptional(&extension, CBS_ASN1_BOOLEAN) &&
         CBS_get_asn1(&extension, &value, CBS_ASN1_OCTETSTRING) && CBS_len(&extension) == 0 &&
         CBS_get_asn1(&value, list, CBS_ASN1_OCTETSTRING) && CBS_len(&value) == 0;
}

// A SignedEntryData, serialized as EncodeSignedEntry does, in two parts: `head` (the entry type,
// for a precertificate the issuer key hash, then the 24-bit length) and `body` (the certificate
// or the TBSCertificate), so that the body is hashed where it lies.
struct SignedEntry {
  uint8_t head[2 + SHA256_DIGEST_LENGTH + 3];
  size_t head_len = 0;
  const uint8_t *body = nullptr;
  size_t body_len = 0;
};

bool PutU24Length(size_t len, uint8_t *out) {
  if (len > 0xffffff) {
    return false;
  }
  out[0] = static_cast<uint8_t>(len >> 16);
  out[1] = static_cast<uint8_t>(len >> 8);
  out[2] = static_cast<uint8_t>(len);
  return true;
}

// GetX509SignedEntry: the certificate as sent (LogEntryType x509_entry).
bool X509Entry(const bssl::ParsedCertificate &leaf, SignedEntry *entry) {
  entry->head[0] = 0;
  entry->head[1] = 0;
  entry->body = leaf.der_cert().data();
  entry->body_len = leaf.der_cert().size();
  entry->head_len = 5;
  return PutU24Length(entry->body_len, entry->head + 2);
}

// GetPrecertSignedEntry (LogEntryType precert_entry): the TBSCertificate re-encoded without the
// SCT list extension (into the chain's reused buffer), and the SHA-256 of the issuer's
// SubjectPublicKeyInfo.
bool PrecertEntry(const TbsWithSctExtension &parts, const bssl::ParsedCertificate &issuer,
                  std::vector<uint8_t> *buffer, SignedEntry *entry) {
  // The new TBSCertificate is shorter than the certificate it comes from.
  size_t capacity = CBS_len(&parts.tbs) + 16;
  if (buffer->size() < capacity) {
    buffer->resize(capacity);
  }
  CBB cbb, tbs, wrap, extensions;
  CBB_init_fixed(&cbb, buffer->data(), buffer->size());
  const uint8_t *sct_start = CBS_data(&parts.sct_extension);
  const uint8_t *sct_end = sct_start + CBS_len(&parts.sct_extension);
  const uint8_t *extensions_end = CBS_data(&parts.extensions) + CBS_len(&parts.extensions);
  uint8_t *data = nullptr;
  size_t len = 0;
  if (!CBB_add_asn1(&cbb, &tbs, CBS_ASN1_SEQUENCE) ||
      !CBB_add_bytes(&tbs, CBS_data(&parts.tbs),
                     static_cast<size_t>(CBS_data(&parts.before_ext) - CBS_data(&parts.tbs))) ||
      !CBB_add_asn1(&tbs, &wrap, kExtensionsTag) ||
      !CBB_add_asn1(&wrap, &extensions, CBS_ASN1_SEQUENCE) ||
      !CBB_add_bytes(&extensions, CBS_data(&parts.extensions),
                     static_cast<size_t>(sct_start - CBS_data(&parts.extensions))) ||
      !CBB_add_bytes(&extensions, sct_end, static_cast<size_t>(extensions_end - sct_end)) ||
      !CBB_finish(&cbb, &data, &len)) {
    CBB_cleanup(&cbb);
    return false;
  }
  entry->head[0] = 0;
  entry->head[1] = 1;
  bssl::der::Input spki = issuer.tbs().spki_tlv;
  SHA256(spki.data(), spki.size(), entry->head + 2);
  entry->body = data;
  entry->body_len = len;
  entry->head_len = 2 + SHA256_DIGEST_LENGTH + 3;
  return PutU24Length(len, entry->head + 2 + SHA256_DIGEST_LENGTH);
}

// DecodeSCTList's checks, before any SCT is read: a 16-bit length-prefixed list that is the
// whole input, of at least one non-empty 16-bit length-prefixed item.
bool SctList(const uint8_t *data, size_t len, CBS *items) {
  CBS in, list;
  CBS_init(&in, data, len);
  if (!CBS_get_u16_length_prefixed(&in, &list) || CBS_len(&in) != 0 || CBS_len(&list) == 0) {
    return false;
  }
  *items = list;
  while (CBS_len(&list) > 0) {
    CBS item;
    if (!CBS_get_u16_length_prefixed(&list, &item) || CBS_len(&item) == 0) {
      return false;
    }
  }
  return true;
}

// A SignedCertificateTimestamp, as DecodeSignedCertificateTimestamp reads it (views into the
// input; bytes after the signature are ignored, as there).
struct Sct {
  CBS log_id;
  uint64_t timestamp = 0;  // milliseconds since the Unix epoch
  CBS extensions;
  uint8_t hash_algorithm = 0;
  uint8_t signature_algorithm = 0;
  CBS signature;
};

bool DecodeSct(CBS in, Sct *sct) {
  uint8_t version;
  return CBS_get_u8(&in, &version) && version == 0 /* v1 */ &&
         CBS_get_bytes(&in, &sct->log_id, SHA256_DIGEST_LENGTH) &&
         CBS_get_u64(&in, &sct->timestamp) && sct->timestamp <= static_cast<uint64_t>(INT64_MAX) &&
         CBS_get_u16_length_prefixed(&in, &sct->extensions) &&
         CBS_get_u8(&in, &sct->hash_algorithm) && sct->hash_algorithm <= kMaxHashAlgorithm &&
         CBS_get_u8(&in, &sct->signature_algorithm) &&
         sct->signature_algorithm <= kMaxSignatureAlgorithm &&
         CBS_get_u16_length_prefixed(&in, &sct->signature);
}

// CTLogVerifier::Verify: the SCT's hash and signature algorithms must be the log's (SHA-256 and
// its key's kind), then VerifySignature over EncodeV1SCTSignedData (version, signature type
// certificate_timestamp, timestamp, the entry, the extensions), hashed in parts.
bool VerifySctSignature(const CtLog &log, const SignedEntry &entry, const Sct &sct,
                        uint32_t *checked) {
  if (sct.hash_algorithm != kHashSha256 || sct.signature_algorithm != log.signature_algorithm) {
    return false;
  }
  uint8_t head[10] = {0 /* v1 */, 0 /* certificate_timestamp */};
  for (int i = 0; i < 8; i++) {
    head[2 + i] = static_cast<uint8_t>(sct.timestamp >> (56 - 8 * i));
  }
  size_t extensions_len = CBS_len(&sct.extensions);
  uint8_t extensions_head[2] = {static_cast<uint8_t>(extensions_len >> 8),
                                static_cast<uint8_t>(extensions_len)};
  ++*checked;
  bssl::ScopedEVP_MD_CTX ctx;
  bool ok = EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, log.key.get()) &&
            EVP_DigestVerifyUpdate(ctx.get(), head, sizeof(head)) &&
            EVP_DigestVerifyUpdate(ctx.get(), entry.head, entry.head_len) &&
            EVP_DigestVerifyUpdate(ctx.get(), entry.body, entry.body_len) &&
            EVP_DigestVerifyUpdate(ctx.get(), extensions_head, sizeof(extensions_head)) &&
            EVP_DigestVerifyUpdate(ctx.get(), CBS_data(&sct.extensions), extensions_len) &&
            EVP_DigestVerifyFinal(ctx.get(), CBS_data(&sct.signature), CBS_len(&sct.signature));
  if (!ok) {
    ERR_clear_error();
  }
  return ok;
}

// MultiLogCTVerifier::VerifySCTs and VerifySingleSCT over one encoded list: each SCT from a log
// of the set whose signature is good over `entry` and whose timestamp is not after `now_ms` is
// SCT_STATUS_OK, kept for the policy. Counted: SCT_STATUS_LOG_UNKNOWN as unknown_log;
// SCT_STATUS_INVALID_SIGNATURE, SCT_STATUS_INVALID_TIMESTAMP and an SCT that does not decode
// (which Chromium drops uncounted) as invalid; a list that does not decode (which Chromium drops
// whole) as one invalid SCT. `entry` null: the entry could not be built (GetPrecertSignedEntry
// failed), and no SCT of the list is verified. Unlike Chromium, which returns before decoding
// anything when it knows no log, the SCTs are read with an empty set too (all unknown: the same
// policy outcome, and honest counts).
void VerifySctList(const uint8_t *data, size_t len, const SignedEntry *entry, bool embedded,
                   const CtLogs &logs, int64_t now_ms, Chain *chain) {
  certbench_ct_counts &counts = chain->ct_counts;
  CBS list;
  if (!SctList(data, len, &list)) {
    counts.scts++;
    counts.invalid++;
    return;
  }
  while (CBS_len(&list) > 0) {
    CBS item;
    CBS_get_u16_length_prefixed(&list, &item);  // checked by SctList
    counts.scts++;
    Sct sct;
    if (!DecodeSct(item, &sct)) {
      counts.invalid++;
      continue;
    }
    const CtLog *log = logs.Find(CBS_data(&sct.log_id), CBS_len(&sct.log_id));
    if (log == nullptr) {
      counts.unknown_log++;
      continue;
    }
    if (entry == nullptr || !VerifySctSignature(*log, *entry, sct, &counts.checked)) {
      counts.invalid++;
      continue;
    }
    if (static_cast<int64_t>(sct.timestamp) > now_ms) {
      counts.invalid++;
      chain->ct_future++;
      continue;
    }
    counts.valid++;
    chain->verified.push_back(VerifiedSct{static_cast<size_t>(log - logs.logs.data()),
                                          static_cast<int64_t>(sct.timestamp), embedded});
  }
}

enum class Compliance { kComplies, kNotEnoughScts, kNotDiverseScts };

// ChromeCTPolicyEnforcer::CheckCTPolicyCompliance (the "on-or-after 15 April 2022" policy) over
// the SCT_STATUS_OK SCTs, at `now_ms`. A log is disqualified when it is retired and `now_ms` is
// at or after its retirement. `embedded_logs` is scratch space.
Compliance CheckCtPolicy(const bssl::ParsedCertificate &leaf, const std::vector<VerifiedSct> &scts,
                         const CtLogs &logs, int64_t now_ms, std::vector<size_t> *embedded_logs) {
  int64_t not_before = 0, not_after = 0;
  if (!bssl::der::GeneralizedTimeToPosixTime(leaf.tbs().validity_not_before, &not_before) ||
      !bssl::der::GeneralizedTimeToPosixTime(leaf.tbs().validity_not_after, &not_after)) {
    return Compliance::kNotEnoughScts;  // validity outside what base::Time holds
  }
  auto disqualified = [&](const CtLog &log, int64_t *at) {
    if (!log.retired) {
      return false;
    }
    *at = log.retired_at_ms;
    return now_ms >= log.retired_at_ms;
  };
  // The issuance date: the earliest SCT from a log not disqualified now.
  int64_t issuance = INT64_MAX;
  for (const VerifiedSct &sct : scts) {
    int64_t unused;
    if (!disqualified(logs.logs[sct.log], &unused)) {
      issuance = std::min(issuance, sct.timestamp_ms);
    }
  }
  bool valid_embedded = false, valid_nonembedded = false, diverse_operators = false;
  bool seen_operator = false;
  size_t first_operator = 0;
  embedded_logs->clear();
  for (const VerifiedSct &sct : scts) {
    const CtLog &log = logs.logs[sct.log];
    int64_t disqualified_at = 0;
    bool is_disqualified = disqualified(log, &disqualified_at);
    if (is_disqualified && !sct.embedded) {
      continue;  // a TLS SCT counts only from a log qualified now
    }
    if (!sct.embedded) {
      valid_nonembedded = true;
    } else {
      valid_embedded |= !is_disqualified;
      // A disqualified log's embedded SCT counts towards the quorum only if both the
      // certificate (the issuance date) and the SCT predate the disqualification.
      if (!is_disqualified ||
          (issuance < disqualified_at && sct.timestamp_ms < disqualified_at)) {
        embedded_logs->push_back(sct.log);
      }
    }
    // Operator diversity over every SCT counted so far, embedded or not (the log's current
    // operator: the list's operator history is not in the ABI).
    if (!diverse_operators) {
      if (!seen_operator) {
        seen_operator = true;
        first_operator = log.operator_index;
      } else {
        diverse_operators = first_operator != log.operator_index;
      }
    }
  }
  // Option 1: an SCT from TLS from a log qualified now, and SCTs of two operators.
  if (valid_nonembedded && diverse_operators) {
    return Compliance::kComplies;
  }
  // Option 2: an embedded SCT from a log qualified now ...
  if (!valid_embedded) {
    return valid_nonembedded ? Compliance::kNotDiverseScts : Compliance::kNotEnoughScts;
  }
  // ... SCTs of two operators ...
  if (!diverse_operators) {
    return Compliance::kNotDiverseScts;
  }
  // ... and embedded SCTs from distinct logs: 2 for a lifetime (notAfter - notBefore) of at
  // most 180 days, else 3.
  size_t required = not_after - not_before > int64_t{180} * 86400 ? 3 : 2;
  std::sort(embedded_logs->begin(), embedded_logs->end());
  size_t distinct = static_cast<size_t>(
      std::unique(embedded_logs->begin(), embedded_logs->end()) - embedded_logs->begin());
  if (distinct >= required) {
    return Compliance::kComplies;
  }
  return valid_nonembedded ? Compliance::kNotDiverseScts : Compliance::kNotEnoughScts;
}

// The CT check of the path the last Verify/VerifyEv accepted: as CheckPathAfterVerification,
// MultiLogCTVerifier::Verify over the target with the path's certs[1] as its only intermediate
// (the embedded SCTs against the precertificate entry, only when there is that issuer; the TLS
// SCTs against the X.509 entry), then CheckCompliance, then CheckCTRequirements: CT is required,
// every root of the store being taken for a known (publicly trusted) root, as certbench trusts
// the corpus's public roots and the mirror's stand-ins for them; a result other than
// CT_POLICY_COMPLIES_VIA_SCTS is CT_REQUIREMENTS_NOT_MET, the net error
// ERR_CERTIFICATE_TRANSPARENCY_REQUIRED. The log list is taken as timely (no
// CT_POLICY_BUILD_NOT_TIMELY): certbench models a browser whose list is under 70 days old.
// Nothing is rendered: the outcome and counts are kept for Explain.
int VerifyCt(const void *logs_ptr, void *chain_ptr, const uint8_t *tls_scts, size_t tls_len,
             int64_t time, certbench_ct_counts *out) {
  if (out != nullptr) {
    *out = certbench_ct_counts{};
  }
  auto *chain = static_cast<Chain *>(chain_ptr);
  if (chain == nullptr) {
    return 0;
  }
  try {
    chain->ct_counts = certbench_ct_counts{};
    chain->ct_future = 0;
    chain->ct_outcome = CtOutcome::kNone;
    chain->verified.clear();
    MaybeThrow("ct");
    if (!chain->accepted) {
      chain->ct_outcome = CtOutcome::kNoPath;
      return 0;
    }
    if (logs_ptr == nullptr) {
      throw std::invalid_argument("no CT log set");
    }
    const CtLogs &logs = *static_cast<const CtLogs *>(logs_ptr);
    const bssl::ParsedCertificate &leaf = *chain->target;
    const int64_t now_ms = ToMillis(time);

    if (chain->issuer) {
      TbsWithSctExtension parts;
      switch (FindSctExtension(leaf.der_cert(), &parts)) {
        case SctExtension::kAbsent:
          break;
        case SctExtension::kMalformed:
          chain->ct_counts.scts++;  // an SCT list that cannot be read: one invalid SCT
          chain->ct_counts.invalid++;
          break;
        case SctExtension::kFound: {
          CBS list;
          if (!SctListOfExtension(parts.sct_extension, &list)) {
            chain->ct_counts.scts++;
            chain->ct_counts.invalid++;
            break;
          }
          SignedEntry precert;
          bool have_entry = PrecertEntry(parts, *chain->issuer, &chain->precert_tbs, &precert);
          VerifySctList(CBS_data(&list), CBS_len(&list), have_entry ? &precert : nullptr,
                        /*embedded=*/true, logs, now_ms, chain);
          break;
        }
      }
    }
    if (tls_scts != nullptr && tls_len > 0) {
      SignedEntry x509;
      bool have_entry = X509Entry(leaf, &x509);
      VerifySctList(tls_scts, tls_len, have_entry ? &x509 : nullptr, /*embedded=*/false, logs,
                    now_ms, chain);
    }

    Compliance compliance =
        CheckCtPolicy(leaf, chain->verified, logs, now_ms, &chain->embedded_logs);
    if (out != nullptr) {
      *out = chain->ct_counts;
    }
    switch (compliance) {
      case Compliance::kComplies:
        return 1;
      case Compliance::kNotEnoughScts:
        chain->ct_outcome = CtOutcome::kNotEnough;
        return 0;
      case Compliance::kNotDiverseScts:
        chain->ct_outcome = CtOutcome::kNotDiverse;
        return 0;
    }
    throw std::logic_error("unknown CT policy compliance");
  } catch (const std::exception &e) {
    chain->ct_error = e.what();
  } catch (...) {
    chain->ct_error = "an unknown C++ exception";
  }
  chain->ct_outcome = CtOutcome::kError;
  if (out != nullptr) {
    *out = chain->ct_counts;
  }
  return 0;
}

// The last VerifyCt's rejection in one line (Explain, untimed).
std::string DescribeCt(const Chain &chain) {
  const certbench_ct_counts &c = chain.ct_counts;
  std::string counts = " (" + std::to_string(c.scts) + " SCTs: " + std::to_string(c.valid) +
                       " valid, " + std::to_string(c.unknown_log) + " from unknown logs, " +
                       std::to_string(c.invalid) + " invalid" +
                       (chain.ct_future > 0 ? " (" + std::to_string(chain.ct_future) +
                                                  " timestamped after the check time)"
                                            : std::string()) +
                       "; " + std::to_string(c.checked) + " signatures checked)";
  switch (chain.ct_outcome) {
    case CtOutcome::kNone:
      break;
    case CtOutcome::kNoPath:
      return "CT not checked: the last verify or verify_ev accepted no path";
    case CtOutcome::kNotEnough:
      return "ERR_CERTIFICATE_TRANSPARENCY_REQUIRED: CT_POLICY_NOT_ENOUGH_SCTS" + counts;
    case CtOutcome::kNotDiverse:
      return "ERR_CERTIFICATE_TRANSPARENCY_REQUIRED: CT_POLICY_NOT_DIVERSE_SCTS" + counts;
    case CtOutcome::kError:
      return "CT check failed: " + (chain.ct_error.empty() ? std::string("an internal error")
                                                            : chain.ct_error);
  }
  return "no CT rejection recorded";
}

// The last rejection by Verify, or by VerifyCt when it was the last call, rendered now
// (untimed).
void Explain(void *chain_ptr, char *reason, size_t cap) {
  try {
    auto *chain = static_cast<Chain *>(chain_ptr);
    if (chain->ct_outcome != CtOutcome::kNone) {
      Fail(reason, cap, DescribeCt(*chain));
      return;
    }
    if (chain->error.empty() && chain->has_rejection) {
      // Rendered once, and the path builder's result freed here, outside the timed calls.
      chain->error = Describe(chain->rejected.GetBestPathVerifyError());
      chain->rejected = bssl::CertPathBuilder::Result();
      chain->has_rejection = false;
    }
    Fail(reason, cap, chain->error.empty() ? "no rejection recorded" : chain->error);
  } catch (const std::exception &e) {
    Fail(reason, cap, e.what());
  } catch (...) {
    Fail(reason, cap, "an unknown C++ exception");
  }
}

// The path the last Verify or VerifyEv accepted (see the header): CertVerifyProcBuiltin's
// revocation check reads the verified chain (the best valid path's certs, target first, the
// trust anchor last), and so does certbench's CRLSet check. Every certificate handed out is
// pinned in the chain first (see Chain::pinned).
int VerifiedPath(void *chain_ptr, certbench_der *out, size_t cap) {
  try {
    auto *chain = static_cast<Chain *>(chain_ptr);
    if (!chain->accepted || chain->path.empty() ||
        chain->path.size() > static_cast<size_t>(INT_MAX)) {
      return -1;
    }
    size_t n = chain->path.size();
    if (n > cap || out == nullptr) {
      return static_cast<int>(n);
    }
    // Pinned before anything is written: a throwing push_back leaves `out` untouched.
    for (const auto &cert : chain->path) {
      if (std::find(chain->pinned.begin(), chain->pinned.end(), cert) == chain->pinned.end()) {
        chain->pinned.push_back(cert);
      }
    }
    for (size_t i = 0; i < n; i++) {
      bssl::der::Input der = chain->path[i]->der_cert();
      out[i].der = der.data();
      out[i].len = der.size();
    }
    return static_cast<int>(n);
  } catch (...) {
    // Only pinning allocates: out of memory is no path (nothing written).
  }
  return -1;
}

// Nothing to start for BoringSSL; the EV table is built here, before anything is timed.
int Init(char *reason, size_t cap) {
  try {
    Ev();
    return 1;
  } catch (const std::exception &e) {
    Fail(reason, cap, e.what());
  } catch (...) {
    Fail(reason, cap, "an unknown C++ exception");
  }
  return 0;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char &c : out) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return out;
}

// Splits "www.f.com" into "www" and ".f.com" (the domain keeps its dot; empty if none), as
// Chromium's SplitOnChar.
void SplitOnDot(std::string_view name, std::string_view *host, std::string_view *domain) {
  size_t dot = name.find('.');
  if (dot == std::string_view::npos) {
    *host = name;
    *domain = std::string_view();
  } else {
    *host = name.substr(0, dot);
    *domain = name.substr(dot);
  }
}

// As Chromium's IsCanonicalizedHostCompliant (net/base/url_util.cc): labels of letters,
// digits, '-' and '_', 1-63 characters, the name at most 253 (254 with a final dot), and the
// last label starting with a letter or digit.
bool HostCompliant(std::string_view host) {
  if (host.empty() || host.size() > 254 || (host.back() != '.' && host.size() == 254)) {
    return false;
  }
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  bool in_label = false, last_started_alnum = false;
  size_t label = 0;
  for (char c : host) {
    ++label;
    if (!in_label) {
      last_started_alnum = alnum(c);
      if (!last_started_alnum && c != '-' && c != '_') {
        return false;
      }
      in_label = true;
    } else if (c == '.') {
      if (label - 1 > 63 || label - 1 == 0) {
        return false;
      }
      in_label = false;
      label = 0;
    } else if (!alnum(c) && c != '-' && c != '_') {
      return false;
    }
  }
  return label <= 63 && last_started_alnum;
}

// Chromium's X509Certificate::VerifyHostname over the end-entity certificate's
// subjectAltName (no common-name fallback). One departure: Chromium refuses a wildcard whose
// domain is a registry (public suffix list, e.g. *.co.uk); without the list, this refuses only
// a wildcard whose domain is a single label (e.g. *.com).
int CheckName(void *chain_ptr, int kind, const uint8_t *name, size_t len, char *reason,
              size_t cap) {
  try {
    MaybeThrow("name");
    auto *chain = static_cast<Chain *>(chain_ptr);
    const bssl::GeneralNames *sans = chain->target->subject_alt_names();
    if (sans == nullptr || (sans->dns_names.empty() && sans->ip_addresses.empty())) {
      Fail(reason, cap, "no dNSName or iPAddress subjectAltName");
      return 0;
    }
    if (kind == CERTBENCH_NAME_IP) {
      std::string_view ip(reinterpret_cast<const char *>(name), len);
      for (const bssl::der::Input &presented : sans->ip_addresses) {
        if (presented.size() == len && std::memcmp(presented.data(), name, len) == 0) {
          return 1;
        }
      }
      Fail(reason, cap, "the IP address is not among the certificate's iPAddress names");
      return 0;
    }
    if (kind != CERTBENCH_NAME_DNS) {
      Fail(reason, cap, "unknown name kind");
      return 0;
    }
    std::string reference =
        Lower(std::string_view(reinterpret_cast<const char *>(name), len));
    if (reference == "." || !HostCompliant(reference)) {
      Fail(reason, cap, "the host is not a compliant DNS name");
      return 0;
    }
    if (reference.back() == '.') {
      reference.pop_back();
    }
    std::string_view reference_host, reference_domain;
    SplitOnDot(reference, &reference_host, &reference_domain);
    bool allow_wildcards =
        reference_domain.size() > 1 &&
        reference_domain.find('.', 1) != std::string_view::npos &&
        reference.find_first_not_of("0123456789.") != std::string::npos;
    for (std::string_view san : sans->dns_names) {
      if (san.empty() || san.find('\0') != std::string_view::npos) {
        continue;
      }
      std::string presented = Lower(san);
      if (presented.back() == '.') {
        presented.pop_back();
      }
      if (presented.size() > reference.size()) {
        continue;
      }
      std::string_view presented_host, presented_domain;
      SplitOnDot(presented, &presented_host, &presented_domain);
      if (presented_domain != reference_domain) {
        continue;
      }
      if (presented_host != "*") {
        if (presented_host == reference_host) {
          return 1;
        }
        continue;
      }
      if (allow_wildcards) {
        return 1;
      }
    }
    Fail(reason, cap, "the host is not among the certificate's dNSName names");
    return 0;
  } catch (const std::exception &e) {
    Fail(reason, cap, e.what());
  } catch (...) {
    Fail(reason, cap, "an unknown C++ exception");
  }
  return 0;
}

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

}  // namespace

extern "C" __attribute__((visibility("default"))) const certbench_verifier_v4 *
certbench_verifier_v4_table(void) {
  return &kTable;
}
