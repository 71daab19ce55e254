// certbench's `chrome` method: Chrome's certificate verifier, BoringSSL's libpki path builder
// (bssl::CertPathBuilder), set up the way Chromium's CertVerifyProcBuiltin sets it up
// (net/cert/cert_verify_proc_builtin.cc: TryBuildPath), and the host checked the way Chromium's
// X509Certificate::VerifyHostname checks it (net/cert/x509_certificate.cc).
//
// Implements core/native/certbench_verifier.h. Built by core/build/chrome.rs from the BoringSSL
// tree that the crates.io crate boring-sys ships, with every symbol hidden but the table's.
//
// What Chromium does that this leaves out (docs/verifiers.md lists it for users):
//  - CheckPathAfterVerification: CRLSet and OCSP/CRL revocation, the CT policy, the Chrome Root
//    Store's per-root constraints, EV and QWAC policies;
//  - AIA fetching of missing intermediates (CertIssuerSourceAia);
//  - the retries: with SHA-1 allowed for locally trusted anchors, with the system time when
//    network time was used;
//  - CertVerifyProc::Verify's checks after path building (validity too long for a known root,
//    the legacy name constraints for some known roots, weak keys in the whole chain);
//  - the public suffix list in the wildcard rule (see CheckName).

#include <openssl/pki/verify_error.h>
#include <openssl/pool.h>

#include <arpa/inet.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../certbench_verifier.h"
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
  const char *at = std::getenv("CERTBENCH_NATIVE_THROW");
  if (at != nullptr && std::strcmp(at, where) == 0) {
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

int Verify(const void *store_ptr, void *chain_ptr, int64_t time, char *reason, size_t cap) {
  try {
    MaybeThrow("verify");
    // The trust store is only read during path building (TrustStoreInMemory's lookups are
    // const in effect), so one store serves several threads.
    auto *store = const_cast<Store *>(static_cast<const Store *>(store_ptr));
    auto *chain = static_cast<Chain *>(chain_ptr);
    bssl::der::GeneralizedTime at;
    if (!bssl::der::EncodePosixTimeAsGeneralizedTime(time, &at)) {
      Fail(reason, cap, "the validation time cannot be encoded");
      return 0;
    }
    // TryBuildPath for a DV attempt: the strong digest policy first (SHA-1 only on a retry
    // for local anchors, left out), any policy, server auth.
    bssl::SimplePathBuilderDelegate delegate(
        kMinRsaModulusLengthBits, bssl::SimplePathBuilderDelegate::DigestPolicy::kStrong);
    std::set<bssl::der::Input> any_policy = {bssl::der::Input(bssl::kAnyPolicyOid)};
    bssl::CertPathBuilder builder(chain->target, &store->anchors, &delegate, at,
                                  bssl::KeyPurpose::SERVER_AUTH,
                                  bssl::InitialExplicitPolicy::kFalse, any_policy,
                                  bssl::InitialPolicyMappingInhibit::kFalse,
                                  bssl::InitialAnyPolicyInhibit::kFalse);
    builder.AddCertIssuerSource(&chain->intermediates);
    builder.SetIterationLimit(kPathBuilderIterationLimit);
    bssl::CertPathBuilder::Result result = builder.Run();
    if (result.HasValidPath()) {
      return 1;
    }
    Fail(reason, cap, Describe(result.GetBestPathVerifyError()));
    return 0;
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

const certbench_verifier_v1 kTable = {
    CERTBENCH_VERIFIER_ABI,
    "BoringSSL pki",
    CERTBENCH_CHROME_VERSION,
    "CertPathBuilder as CertVerifyProcBuiltin: server auth, any policy, RSA >= 1024, "
    "SHA-256+, 20 iterations; roots as local anchors (constraints, expiry); SAN-only host check; no revocation, CT, "
    "AIA",
    StoreNew,
    StoreFree,
    ChainNew,
    ChainFree,
    Verify,
    CheckName,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const certbench_verifier_v1 *
certbench_verifier_v1_table(void) {
  return &kTable;
}
