// certbench's `firefox` method: Firefox's certificate verifier, mozilla::pkix, with a trust
// domain of certbench's own that makes Firefox's choices for a TLS server certificate
// (security/certverifier/CertVerifier.cpp: CertVerifier::VerifyCert, certificateUsageSSLServer,
// non-EV; NSSCertDBTrustDomain.cpp), and the host checked as CertVerifier::VerifySSLServerCert
// checks it (CheckCertHostname, no common-name fallback).
//
// Implements core/native/certbench_verifier.h. Built by core/build/firefox.rs from Debian's
// `nss` source package (nss/lib/mozpkix) over the system NSS (libnss3), with every symbol
// hidden but the table's.
//
// What Firefox does that this leaves out (docs/verifiers.md lists it for users): revocation
// (OneCRL in GetCertTrust, CRLite and OCSP in CheckRevocation, OCSP stapling); the CT policy
// and the distrust-after dates of some roots (IsChainValid); EV; the intermediate preloading
// and the NSS database as issuer sources (FindIssuer here offers the roots, then the
// certificates sent); imposed name constraints on some roots (CERT_GetImposedNameConstraints);
// key pinning; the signature cache beyond one verification (see SignatureCache).

#include <arpa/inet.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../certbench_verifier.h"
#include "mozpkix/pkix.h"
#include "mozpkix/pkixnss.h"
#include "mozpkix/pkixutil.h"
#include "nss.h"

using namespace mozilla::pkix;

namespace {

// Firefox's key sizes for TLS servers (CertVerifier.h): MIN_RSA_BITS first, then
// MIN_RSA_BITS_WEAK as a compatibility fallback (VerifyCert's keySizeOptions).
constexpr unsigned int kMinRsaBits = 2048;
constexpr unsigned int kMinRsaBitsWeak = 1024;

void Fail(char *reason, size_t cap, std::string_view why) {
  if (reason == nullptr || cap == 0) {
    return;
  }
  size_t n = why.size() < cap - 1 ? why.size() : cap - 1;
  std::memcpy(reason, why.data(), n);
  reason[n] = '\0';
}

// The fail-closed test hook (tests/it/browsers.rs): throws where the test asks.
void MaybeThrow(const char *where) {
  const char *at = std::getenv("CERTBENCH_NATIVE_THROW");
  if (at != nullptr && std::strcmp(at, where) == 0) {
    throw std::runtime_error(std::string("CERTBENCH_NATIVE_THROW=") + where);
  }
}

// NSS initialised once per process, without a database (NSS_NoDB_Init), for its signature
// checks and digests.
bool NssReady(std::string *why) {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] { ok = NSS_IsInitialized() || NSS_NoDB_Init(nullptr) == SECSuccess; });
  if (!ok) {
    *why = "NSS_NoDB_Init failed";
  }
  return ok;
}

// mozilla::pkix's name of a result, without its "Result::" prefix
// ("ERROR_EXPIRED_CERTIFICATE").
std::string Name(Result rv) {
  std::string name = MapResultToName(rv);
  const std::string prefix = "Result::";
  return name.compare(0, prefix.size(), prefix) == 0 ? name.substr(prefix.size()) : name;
}

using Der = std::vector<uint8_t>;

bool ToInput(const Der &der, Input *input) { return input->Init(der.data(), der.size()) == Success; }

// The roots, unchanged after StoreNew: shared by threads.
struct Store {
  std::vector<Der> roots;
};

// A chain as sent: the end entity, then the other certificates.
struct Chain {
  Der leaf;
  std::vector<Der> intermediates;
};

// The trust domain of one verification: NSSCertDBTrustDomain's choices for trustSSL, non-EV,
// ValidityCheckingMode::CheckingOff, NetscapeStepUpPolicy::NeverMatch.
// Signature checks already made in this verification, keyed by (kind, digest, key, signature,
// data), as Firefox's SignatureCache keys them (CertVerifier.cpp: the tuple that defines a
// signature). Firefox's cache lives as long as the process; this one lives for one
// verification (all its attempts), so that repeated verifications of a chain are each priced
// in full while a path builder that meets the same signature twice checks it once.
using SignatureCache = std::unordered_map<std::string, Result>;

class TrustDomainImpl final : public TrustDomain {
 public:
  TrustDomainImpl(const Store &store, const Chain &chain, unsigned int min_rsa_bits,
                  SignatureCache &cache)
      : store_(store), chain_(chain), min_rsa_bits_(min_rsa_bits), cache_(cache) {}

  // GetCertTrust: a candidate equal to a root is a trust anchor, anything else inherits
  // trust (OneCRL and NSS's trust records left out).
  Result GetCertTrust(EndEntityOrCA, const CertPolicyId &, Input candidate,
                      TrustLevel &trust) override {
    for (const Der &root : store_.roots) {
      Input r;
      if (ToInput(root, &r) && InputsAreEqual(candidate, r)) {
        trust = TrustLevel::TrustAnchor;
        return Success;
      }
    }
    trust = TrustLevel::InheritsTrust;
    return Success;
  }

  // FindIssuer: the roots first, then the certificates the server sent ("Try all root certs
  // first and then all (presumably) intermediates"), each only when its subject is the
  // issuer's name, skipping a self-signed certificate that is not a trust anchor
  // (ShouldSkipSelfSignedNonTrustAnchor).
  Result FindIssuer(Input issuer_name, IssuerChecker &checker, Time) override {
    bool keep_going = true;
    for (const auto *list : {&store_.roots, &chain_.intermediates}) {
      for (const Der &der : *list) {
        Input candidate;
        if (!ToInput(der, &candidate)) {
          continue;
        }
        BackCert cert(candidate, EndEntityOrCA::MustBeCA, nullptr);
        if (cert.Init() != Success || !InputsAreEqual(issuer_name, cert.GetSubject())) {
          continue;
        }
        if (list != &store_.roots && SkipSelfSignedNonAnchor(cert)) {
          continue;
        }
        Result rv = checker.Check(candidate, nullptr, keep_going);
        if (rv != Success) {
          return rv;
        }
        if (!keep_going) {
          return Success;
        }
      }
    }
    return Success;
  }

  // IsChainValid: Firefox checks the distrust-after dates of some roots and CT here; left out.
  Result IsChainValid(const DERArray &, Time, const CertPolicyId &) override { return Success; }

  // CheckRevocation: OCSP, CRLite and stapling are left out.
  Result CheckRevocation(EndEntityOrCA, const CertID &, Time, Duration, const Input *,
                         const Input *, const Input *) override {
    return Success;
  }

  // SHA-1 is refused for every certificate (Firefox no longer accepts it in TLS).
  Result CheckSignatureDigestAlgorithm(DigestAlgorithm alg, EndEntityOrCA, Time) override {
    return alg == DigestAlgorithm::sha1 ? Result::ERROR_CERT_SIGNATURE_ALGORITHM_DISABLED
                                        : Success;
  }

  Result CheckRSAPublicKeyModulusSizeInBits(EndEntityOrCA, unsigned int bits) override {
    return bits < min_rsa_bits_ ? Result::ERROR_INADEQUATE_KEY_SIZE : Success;
  }

  Result VerifyRSAPKCS1SignedData(Input data, DigestAlgorithm alg, Input signature,
                                  Input spki) override {
    return Cached('p', data, alg, signature, spki, VerifyRSAPKCS1SignedDataNSS);
  }

  Result VerifyRSAPSSSignedData(Input data, DigestAlgorithm alg, Input signature,
                                Input spki) override {
    return Cached('s', data, alg, signature, spki, VerifyRSAPSSSignedDataNSS);
  }

  // P-256, P-384 and P-521, as NSSCertDBTrustDomain.
  Result CheckECDSACurveIsAcceptable(EndEntityOrCA, NamedCurve curve) override {
    switch (curve) {
      case NamedCurve::secp256r1:
      case NamedCurve::secp384r1:
      case NamedCurve::secp521r1:
        return Success;
    }
    return Result::ERROR_UNSUPPORTED_ELLIPTIC_CURVE;
  }

  Result VerifyECDSASignedData(Input data, DigestAlgorithm alg, Input signature,
                               Input spki) override {
    return Cached('e', data, alg, signature, spki, VerifyECDSASignedDataNSS);
  }

  // ValidityCheckingMode::CheckingOff: no limit on a validity period (EV only has one).
  Result CheckValidityIsAcceptable(Time, Time, EndEntityOrCA, KeyPurposeId) override {
    return Success;
  }

  // NetscapeStepUpPolicy::NeverMatch.
  Result NetscapeStepUpMatchesServerAuth(Time, bool &matches) override {
    matches = false;
    return Success;
  }

  // SCTs and OCSP responses in extensions feed the CT policy, which is left out.
  void NoteAuxiliaryExtension(AuxiliaryExtension, Input) override {}

  Result DigestBuf(Input item, DigestAlgorithm alg, uint8_t *buf, size_t len) override {
    return DigestBufNSS(item, alg, buf, len);
  }

 private:
  using Check = Result (*)(Input, DigestAlgorithm, Input, Input, void *);

  Result Cached(char kind, Input data, DigestAlgorithm alg, Input signature, Input spki,
                Check check) {
    std::string key(1, kind);
    key.push_back(static_cast<char>(alg));
    for (Input part : {spki, signature, data}) {
      uint16_t len = part.GetLength();
      key.append(reinterpret_cast<const char *>(&len), sizeof len);
      key.append(reinterpret_cast<const char *>(part.UnsafeGetData()), part.GetLength());
    }
    auto hit = cache_.find(key);
    if (hit != cache_.end()) {
      return hit->second;
    }
    Result rv = check(data, alg, signature, spki, nullptr);
    cache_.emplace(std::move(key), rv);
    return rv;
  }

  bool SkipSelfSignedNonAnchor(const BackCert &cert) {
    if (!InputsAreEqual(cert.GetIssuer(), cert.GetSubject())) {
      return false;
    }
    return VerifySignedData(*this, cert.GetSignedData(), cert.GetSubjectPublicKeyInfo()) ==
           Success;
  }

  const Store &store_;
  const Chain &chain_;
  unsigned int min_rsa_bits_;
  SignatureCache &cache_;
};

// CertVerifier.cpp's BuildCertChainForOneKeyUsage: digitalSignature ((EC)DHE), then
// keyEncipherment (RSA), then keyAgreement ((EC)DH), each tried only when the one before
// failed for an inadequate key usage.
Result BuildForServer(TrustDomain &domain, Input leaf, Time time) {
  const KeyUsage usages[] = {KeyUsage::digitalSignature, KeyUsage::keyEncipherment,
                             KeyUsage::keyAgreement};
  Result rv = Result::ERROR_INADEQUATE_KEY_USAGE;
  for (KeyUsage ku : usages) {
    rv = BuildCertChain(domain, leaf, time, EndEntityOrCA::MustBeEndEntity, ku,
                        KeyPurposeId::id_kp_serverAuth, CertPolicyId::anyPolicy, nullptr);
    if (rv != Result::ERROR_INADEQUATE_KEY_USAGE) {
      return rv;
    }
  }
  return rv;
}

void *StoreNew(const certbench_der *roots, size_t n, size_t *used, char *reason, size_t cap) {
  try {
    MaybeThrow("store");
    std::string why;
    if (!NssReady(&why)) {
      Fail(reason, cap, why);
      return nullptr;
    }
    auto store = std::make_unique<Store>();
    for (size_t i = 0; i < n; i++) {
      Input input;
      if (input.Init(roots[i].der, roots[i].len) != Success) {
        continue;
      }
      BackCert cert(input, EndEntityOrCA::MustBeCA, nullptr);
      if (cert.Init() != Success) {
        continue;
      }
      store->roots.emplace_back(roots[i].der, roots[i].der + roots[i].len);
    }
    if (used != nullptr) {
      *used = store->roots.size();
    }
    if (store->roots.empty()) {
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

// Copies the DER as sent; the end entity must at least parse as a certificate (BackCert, as
// BuildCertChain parses it first).
void *ChainNew(const certbench_der *certs, size_t n, char *reason, size_t cap) {
  try {
    MaybeThrow("chain");
    if (n == 0) {
      Fail(reason, cap, "no certificate");
      return nullptr;
    }
    Input leaf;
    if (leaf.Init(certs[0].der, certs[0].len) != Success) {
      Fail(reason, cap, Name(Result::ERROR_BAD_DER));
      return nullptr;
    }
    BackCert parsed(leaf, EndEntityOrCA::MustBeEndEntity, nullptr);
    Result rv = parsed.Init();
    if (rv != Success) {
      Fail(reason, cap, Name(rv));
      return nullptr;
    }
    auto chain = std::make_unique<Chain>();
    chain->leaf.assign(certs[0].der, certs[0].der + certs[0].len);
    for (size_t i = 1; i < n; i++) {
      chain->intermediates.emplace_back(certs[i].der, certs[i].der + certs[i].len);
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
    const auto &store = *static_cast<const Store *>(store_ptr);
    const auto &chain = *static_cast<const Chain *>(chain_ptr);
    if (time < 0) {
      Fail(reason, cap, "a validation time before 1970");
      return 0;
    }
    Input leaf;
    if (!ToInput(chain.leaf, &leaf)) {
      Fail(reason, cap, Name(Result::ERROR_BAD_DER));
      return 0;
    }
    Time at = TimeFromEpochInSeconds(static_cast<uint64_t>(time));
    // VerifyCert's keySizeOptions: the strong minimum first, then the weak one.
    Result rv = Result::FATAL_ERROR_LIBRARY_FAILURE;
    SignatureCache cache;
    for (unsigned int bits : {kMinRsaBits, kMinRsaBitsWeak}) {
      TrustDomainImpl domain(store, chain, bits, cache);
      rv = BuildForServer(domain, leaf, at);
      if (rv == Success) {
        return 1;
      }
    }
    Fail(reason, cap, Name(rv));
    return 0;
  } catch (const std::exception &e) {
    Fail(reason, cap, e.what());
  } catch (...) {
    Fail(reason, cap, "an unknown C++ exception");
  }
  return 0;
}

// CertVerifier's CheckCertHostnameHelper: CheckCertHostname with a policy that never falls
// back to the common name (StrictNameMatchingPolicy), malformed names reported as a domain
// mismatch. An IP address is checked as Firefox passes it, as text.
int CheckName(void *chain_ptr, int kind, const uint8_t *name, size_t len, char *reason,
              size_t cap) {
  try {
    MaybeThrow("name");
    const auto &chain = *static_cast<const Chain *>(chain_ptr);
    std::string host;
    if (kind == CERTBENCH_NAME_DNS) {
      host.assign(reinterpret_cast<const char *>(name), len);
    } else if (kind == CERTBENCH_NAME_IP && (len == 4 || len == 16)) {
      char text[INET6_ADDRSTRLEN] = {0};
      if (inet_ntop(len == 4 ? AF_INET : AF_INET6, name, text, sizeof text) == nullptr) {
        Fail(reason, cap, "the IP address cannot be written as text");
        return 0;
      }
      host = text;
    } else {
      Fail(reason, cap, "unknown name kind");
      return 0;
    }
    Input leaf, hostname;
    if (!ToInput(chain.leaf, &leaf) ||
        hostname.Init(reinterpret_cast<const uint8_t *>(host.data()), host.size()) != Success) {
      Fail(reason, cap, Name(Result::FATAL_ERROR_INVALID_ARGS));
      return 0;
    }
    StrictNameMatchingPolicy policy;
    Result rv = CheckCertHostname(leaf, hostname, policy);
    if (rv == Result::ERROR_BAD_DER) {
      rv = Result::ERROR_BAD_CERT_DOMAIN;
    }
    if (rv == Success) {
      return 1;
    }
    Fail(reason, cap, Name(rv));
    return 0;
  } catch (const std::exception &e) {
    Fail(reason, cap, e.what());
  } catch (...) {
    Fail(reason, cap, "an unknown C++ exception");
  }
  return 0;
}

#ifndef CERTBENCH_FIREFOX_VERSION
#define CERTBENCH_FIREFOX_VERSION "NSS " NSS_VERSION
#endif

const certbench_verifier_v1 kTable = {
    CERTBENCH_VERIFIER_ABI,
    "mozilla::pkix",
    CERTBENCH_FIREFOX_VERSION,
    "BuildCertChain as CertVerifier (TLS server, non-EV): serverAuth, digitalSignature then "
    "keyEncipherment then keyAgreement, RSA >= 2048 then 1024, no SHA-1, P-256/384/521; roots "
    "then sent certs as issuers; CheckCertHostname without CN; no revocation, CT, pinning",
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
