// certbench's `chrome` method: Chrome's certificate verifier, BoringSSL's libpki path builder
// (bssl::CertPathBuilder), set up the way Chromium's CertVerifyProcBuiltin sets it up
// (net/cert/cert_verify_proc_builtin.cc: VerifyInternal, TryBuildPath), and the host checked the
// way Chromium's X509Certificate::VerifyHostname checks it (net/cert/x509_certificate.cc).
//
// Implements core/native/certbench_verifier.h (ABI v2). Built by core/build/chrome.rs from the
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
// the CRLSet, OCSP/CRL fetching, the CT verification and policy, and the Chrome Root Store's
// per-root constraints that CheckPathAfterVerification applies to a path before the EV check.
//
// What Chromium does that this leaves out (docs/verifiers.md lists it for users):
//  - CheckPathAfterVerification: CRLSet and OCSP/CRL revocation, the CT policy, the Chrome Root
//    Store's per-root constraints, QWAC policies;
//  - AIA fetching of missing intermediates (CertIssuerSourceAia);
//  - the retries: with SHA-1 allowed (DigestPolicy::kWeakAllowSha1, queued after a failed EV or
//    DV attempt whose paths had a weak signature algorithm), with the system time when network
//    time was used;
//  - CertVerifyProc::Verify's checks after path building: for a known root only, validity too
//    long and a non-unique host name; for every chain, the hash-pinned legacy name constraints,
//    weak (under 1024-bit) keys, SHA-1, the legacy Symantec roots, CRLSet interception keys;
//  - the public suffix list in the wildcard rule (see CheckName).

#include <openssl/pki/verify_error.h>
#include <openssl/pool.h>
#include <openssl/sha.h>

#include <arpa/inet.h>

#include <array>
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

// The EV attempt of CertVerifyProcBuiltin::VerifyInternal (see the header comment).
int VerifyEv(const void *store_ptr, void *chain_ptr, int64_t time) {
  try {
    // The test hook: "ev" throws here only; "verify" throws in both path-building calls, so
    // that an EV grant cannot step around it (this one falls back, then `verify` rejects).
    MaybeThrow("ev");
    MaybeThrow("verify");
    auto *store = const_cast<Store *>(static_cast<const Store *>(store_ptr));
    auto *chain = static_cast<Chain *>(chain_ptr);
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
    return result.HasValidPath() ? CERTBENCH_EV_GRANTED : CERTBENCH_EV_FALLBACK;
  } catch (...) {
    // Fail closed: an error is no EV path.
  }
  return CERTBENCH_EV_FALLBACK;
}

// The DV attempt. Nothing is rendered here: a rejection's result is kept for Explain.
int Verify(const void *store_ptr, void *chain_ptr, int64_t time) {
  auto *chain = static_cast<Chain *>(chain_ptr);
  try {
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

// The last rejection by Verify, rendered now (untimed).
void Explain(void *chain_ptr, char *reason, size_t cap) {
  try {
    auto *chain = static_cast<Chain *>(chain_ptr);
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

#ifndef CERTBENCH_CHROME_VERSION
#define CERTBENCH_CHROME_VERSION "unknown"
#endif

const certbench_verifier_v2 kTable = {
    CERTBENCH_VERIFIER_ABI,
    "BoringSSL pki",
    CERTBENCH_CHROME_VERSION,
    "CertPathBuilder as CertVerifyProcBuiltin: an EV attempt first for a leaf with an EV OID of "
    "the Chrome Root Store's table (its EV OIDs as the initial policy set, the anchor's SHA-256 "
    "listed for a surviving OID), then DV: server auth, any policy, RSA >= 1024, SHA-256+, 20 "
    "iterations; roots as local anchors (constraints, expiry); SAN-only host check; no "
    "revocation, CT, AIA",
    Init,
    StoreNew,
    StoreFree,
    ChainNew,
    ChainFree,
    VerifyEv,
    Verify,
    Explain,
    CheckName,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const certbench_verifier_v2 *
certbench_verifier_v2_table(void) {
  return &kTable;
}
