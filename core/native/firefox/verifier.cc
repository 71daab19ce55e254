// certbench's `firefox` method: Firefox's certificate verifier, mozilla::pkix, with a trust
// domain of certbench's own that makes Firefox's choices for a TLS server certificate
// (security/certverifier/CertVerifier.cpp: CertVerifier::VerifyCert, VerifyUsage::TLSServer,
// non-EV; NSSCertDBTrustDomain.cpp), and the host checked as CertVerifier::VerifySSLServerCert
// checks it (CheckCertHostnameHelper). The store plays Firefox's built-in roots module.
//
// Implements core/native/certbench_verifier.h. Built by core/build/firefox.rs from Debian's
// `nss` source package (nss/lib/mozpkix) over the system NSS (libnss3), with every symbol
// hidden but the table's.
//
// What Firefox does that this leaves out (docs/verifiers.md lists it for users): revocation
// (OneCRL in GetCertTrust, CRLite and OCSP in CheckRevocation, OCSP stapling); key pinning and
// the distrust-after dates of some roots (IsChainValid); the CT policy
// (VerifyCertificateTransparencyPolicy); EV; third-party (enterprise) roots and
// intermediates, the preloaded intermediates and the NSS database as issuer sources; imposed
// name constraints on some roots (CERT_GetImposedNameConstraints); the signature and trust
// caches beyond one verification (see SignatureCache); VerifySSLServerCert's error
// refinements (ERROR_SELF_SIGNED_CERT, ERROR_MITM_DETECTED, the host checked first for an
// expired certificate), delegated credentials and TLS features (must-staple).

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
#include <unordered_set>
#include <vector>

#include "../certbench_verifier.h"
#include "mozpkix/pkix.h"
#include "mozpkix/pkixnss.h"
#include "mozpkix/pkixutil.h"
#include "nss.h"

using namespace mozilla::pkix;

namespace {

// Firefox's key sizes for TLS servers (CertVerifier.h): MIN_RSA_BITS first, then
// MIN_RSA_BITS_WEAK (VerifyCert's keySizeOptions), whose success VerifyCert turns into
// ERROR_INADEQUATE_KEY_SIZE when the root is built in, as every root of a store is here.
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

// mozilla::pkix's name of a result without its "Result::" ("ERROR_EXPIRED_CERTIFICATE").
std::string Name(Result rv) {
  std::string_view name = MapResultToName(rv);
  return std::string(name.substr(name.rfind(':') + 1));  // npos + 1: the whole name
}

using Der = std::vector<uint8_t>;

bool ToInput(const Der &der, Input *input) { return input->Init(der.data(), der.size()) == Success; }

// The roots, unchanged after StoreNew: shared by threads. They play the part of Firefox's
// built-in roots module, which FindIssuer searches by subject (PK11_FindRawCertsWithSubject)
// and whose certificates GetCertTrust finds trusted: an index by subject, a set by DER.
struct Store {
  std::vector<Der> roots;
  // Views into `roots`: subject -> indices in the order given, and every root's DER.
  std::unordered_map<std::string_view, std::vector<size_t>> by_subject;
  std::unordered_set<std::string_view> ders;
};

std::string_view View(Input in) {
  return {reinterpret_cast<const char *>(in.UnsafeGetData()), in.GetLength()};
}

// A chain as sent: the end entity, then the other certificates.
struct Chain {
  Der leaf;
  std::vector<Der> intermediates;
};

// Signature checks already made in this verification, keyed by the tuple that defines a
// signature, as Firefox's SignatureCache (CertVerifier.cpp: VerifySignedDataWithCache). Firefox's
// lives as long as the process and keeps successes; this one lives for one verification (all
// its attempts), so that each verification of a chain is priced in full, and keeps failures
// too (the pathological chains of one subject and many keys: minutes without).
using SignatureCache = std::unordered_map<std::string, Result>;

// The trust domain of one verification: NSSCertDBTrustDomain's choices for trustSSL, non-EV.
class TrustDomainImpl final : public TrustDomain {
 public:
  TrustDomainImpl(const Store &store, const Chain &chain, unsigned int min_rsa_bits,
                  SignatureCache &cache)
      : store_(store), chain_(chain), min_rsa_bits_(min_rsa_bits), cache_(cache) {}

  // GetCertTrust: a candidate equal to a root is a trust anchor, anything else inherits
  // trust (OneCRL, NSS's distrust records and the trust cache left out).
  Result GetCertTrust(EndEntityOrCA, const CertPolicyId &, Input candidate,
                      TrustLevel &trust) override {
    trust = store_.ders.count(View(candidate)) != 0 ? TrustLevel::TrustAnchor
                                                    : TrustLevel::InheritsTrust;
    return Success;
  }

  // FindIssuer: the roots with that subject first, then the certificates the server sent
  // whose subject is the issuer's name ("Try all root certs first and then all (presumably)
  // intermediates"), skipping a self-signed certificate that is not a trust anchor
  // (CheckCandidates' ShouldSkipSelfSignedNonTrustAnchor). Left out: third-party roots and
  // intermediates, the preloaded intermediates (cert_storage), the NSS database searched last,
  // and the name constraints imposed on some roots (CERT_GetImposedNameConstraints).
  Result FindIssuer(Input issuer_name, IssuerChecker &checker, Time) override {
    bool keep_going = true;
    auto roots = store_.by_subject.find(View(issuer_name));
    if (roots != store_.by_subject.end()) {
      // A root is a trust anchor, which ShouldSkipSelfSignedNonTrustAnchor never skips.
      for (size_t i : roots->second) {
        Input root;
        if (!ToInput(store_.roots[i], &root)) {
          continue;
        }
        Result rv = checker.Check(root, nullptr, keep_going);
        if (rv != Success || !keep_going) {
          return rv;
        }
      }
    }
    for (const Der &der : chain_.intermediates) {
      Input sent;
      if (!ToInput(der, &sent)) {
        continue;
      }
      BackCert cert(sent, EndEntityOrCA::MustBeCA, nullptr);
      if (cert.Init() != Success || !InputsAreEqual(issuer_name, cert.GetSubject()) ||
          SkipSelfSignedNonAnchor(cert, sent)) {
        continue;
      }
      Result rv = checker.Check(sent, nullptr, keep_going);
      if (rv != Success || !keep_going) {
        return rv;
      }
    }
    return Success;
  }

  // IsChainValid: Firefox checks key pins and the distrust-after dates of built-in roots here
  // (CT comes after, in CertVerifier::VerifyCertificateTransparencyPolicy); all left out.
  Result IsChainValid(const DERArray &, Time, const CertPolicyId &) override { return Success; }

  // CheckRevocation: CRLite, OCSP (fetched, cached, stapled) left out; OneCRL would be in
  // GetCertTrust.
  Result CheckRevocation(EndEntityOrCA, const CertID &, Time, Duration, const Input *,
                         const Input *, const Input *) override {
    return Success;
  }

  // SHA-256/384/512 only: SHA-1 is refused for every certificate (as NSSCertDBTrustDomain).
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

  // No limit on a validity period (NSSCertDBTrustDomain::CheckValidityIsAcceptable).
  Result CheckValidityIsAcceptable(Time, Time, EndEntityOrCA, KeyPurposeId) override {
    return Success;
  }

  // NetscapeStepUpPolicy::NeverMatch (current Gecko's mozilla::pkix has dropped the hook).
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

  // NSSCertDBTrustDomain::ShouldSkipSelfSignedNonTrustAnchor (bug 1056341).
  bool SkipSelfSignedNonAnchor(const BackCert &cert, Input der) {
    TrustLevel trust;
    if (!InputsAreEqual(cert.GetIssuer(), cert.GetSubject()) ||
        GetCertTrust(EndEntityOrCA::MustBeCA, CertPolicyId::anyPolicy, der, trust) != Success ||
        trust != TrustLevel::InheritsTrust) {
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
// failed for an inadequate key usage; any failure of the last is an inadequate key usage.
Result BuildForServer(TrustDomain &domain, Input leaf, Time time) {
  const KeyUsage usages[] = {KeyUsage::digitalSignature, KeyUsage::keyEncipherment,
                             KeyUsage::keyAgreement};
  for (KeyUsage ku : usages) {
    Result rv = BuildCertChain(domain, leaf, time, EndEntityOrCA::MustBeEndEntity, ku,
                               KeyPurposeId::id_kp_serverAuth, CertPolicyId::anyPolicy,
                               nullptr);
    if (rv != Result::ERROR_INADEQUATE_KEY_USAGE) {
      return rv == Success || ku != KeyUsage::keyAgreement ? rv
                                                           : Result::ERROR_INADEQUATE_KEY_USAGE;
    }
  }
  return Result::ERROR_INADEQUATE_KEY_USAGE;
}

// Runs an entry point's body: any C++ exception becomes `failed` with its reason, so nothing
// is thrown across the C ABI and an internal error is a rejection.
template <typename T, typename F>
T Guarded(char *reason, size_t cap, T failed, F body) {
  try {
    return body();
  } catch (const std::exception &e) {
    Fail(reason, cap, e.what());
  } catch (...) {
    Fail(reason, cap, "an unknown C++ exception");
  }
  return failed;
}

// Keeps the roots mozilla::pkix parses (BackCert, as the path builder parses every candidate).
void *StoreNew(const certbench_der *roots, size_t n, size_t *used, char *reason, size_t cap) {
  return Guarded<void *>(reason, cap, nullptr, [&]() -> void * {
    MaybeThrow("store");
    std::string why;
    if (!NssReady(&why)) {
      Fail(reason, cap, why);
      return nullptr;
    }
    auto store = std::make_unique<Store>();
    store->roots.reserve(n);  // never moves: the index holds views into it
    for (size_t i = 0; i < n; i++) {
      const Der &root = store->roots.emplace_back(roots[i].der, roots[i].der + roots[i].len);
      Input kept;
      ToInput(root, &kept);  // left empty when too long: then it does not parse
      BackCert cert(kept, EndEntityOrCA::MustBeCA, nullptr);
      if (cert.Init() != Success) {
        store->roots.pop_back();
      } else if (store->ders.insert(View(kept)).second) {
        store->by_subject[View(cert.GetSubject())].push_back(store->roots.size() - 1);
      }
    }
    if (used != nullptr) {
      *used = store->roots.size();
    }
    if (store->roots.empty()) {
      Fail(reason, cap, "no root parses");
      return nullptr;
    }
    return store.release();
  });
}

void StoreFree(void *store) { delete static_cast<Store *>(store); }

// Copies the DER as sent; the end entity must at least parse as a certificate (BackCert, as
// BuildCertChain parses it first).
void *ChainNew(const certbench_der *certs, size_t n, char *reason, size_t cap) {
  return Guarded<void *>(reason, cap, nullptr, [&]() -> void * {
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
    Result rv = BackCert(leaf, EndEntityOrCA::MustBeEndEntity, nullptr).Init();
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
  });
}

void ChainFree(void *chain) { delete static_cast<Chain *>(chain); }

int Verify(const void *store_ptr, void *chain_ptr, int64_t time, char *reason, size_t cap) {
  return Guarded(reason, cap, 0, [&]() -> int {
    MaybeThrow("verify");
    const auto &store = *static_cast<const Store *>(store_ptr);
    const auto &chain = *static_cast<const Chain *>(chain_ptr);
    Input leaf;
    if (time < 0 || !ToInput(chain.leaf, &leaf)) {
      Fail(reason, cap, time < 0 ? "a validation time before 1970" : Name(Result::ERROR_BAD_DER));
      return 0;
    }
    Time at = TimeFromEpochInSeconds(static_cast<uint64_t>(time));
    // VerifyCert's keySizeOptions: the strong minimum first, then the weak one, whose success
    // is ERROR_INADEQUATE_KEY_SIZE ("Enforce the minimum (non-weak) RSA key size for
    // certificates issued from built-in roots"): every root here plays a built-in one.
    Result rv = Result::FATAL_ERROR_LIBRARY_FAILURE;
    SignatureCache cache;
    for (unsigned int bits : {kMinRsaBits, kMinRsaBitsWeak}) {
      TrustDomainImpl domain(store, chain, bits, cache);
      rv = BuildForServer(domain, leaf, at);
      if (rv == Success) {
        if (bits == kMinRsaBits) {
          return 1;
        }
        rv = Result::ERROR_INADEQUATE_KEY_SIZE;
      }
    }
    Fail(reason, cap, Name(rv));
    return 0;
  });
}

// CertVerifier.cpp's CheckCertHostnameHelper: CheckCertHostname, malformed name information
// reported as a domain mismatch. Its policy, SkipInvalidSANsForNonBuiltInRootsPolicy, is strict
// under a built-in root, as here: StrictNameMatchingPolicy (no common-name fallback) in this
// mozilla::pkix. An IP address is checked as Firefox passes the host, as text.
int CheckName(void *chain_ptr, int kind, const uint8_t *name, size_t len, char *reason,
              size_t cap) {
  return Guarded(reason, cap, 0, [&]() -> int {
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
    if (rv == Success) {
      return 1;
    }
    Fail(reason, cap, Name(rv == Result::ERROR_BAD_DER ? Result::ERROR_BAD_CERT_DOMAIN : rv));
    return 0;
  });
}

#ifndef CERTBENCH_FIREFOX_VERSION
#define CERTBENCH_FIREFOX_VERSION "NSS " NSS_VERSION
#endif

const certbench_verifier_v1 kTable = {
    CERTBENCH_VERIFIER_ABI,
    "mozilla::pkix",
    CERTBENCH_FIREFOX_VERSION,
    "BuildCertChain as CertVerifier (TLS server, non-EV): serverAuth, digitalSignature then "
    "keyEncipherment then keyAgreement, RSA >= 2048 (roots as built-in: the 1024 retry refused), "
    "no SHA-1, P-256/384/521; roots then sent certs as issuers; CheckCertHostname without CN; "
    "no revocation, CT, pinning",
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
