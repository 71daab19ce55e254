// certbench's `firefox` method: Firefox's certificate verifier, mozilla::pkix, with a trust
// domain of certbench's own that makes Firefox's choices for a TLS server certificate
// (security/certverifier/CertVerifier.cpp: CertVerifier::VerifyCert, VerifyUsage::TLSServer;
// NSSCertDBTrustDomain.cpp), and the host checked as CertVerifier::VerifySSLServerCert checks it
// (CheckCertHostnameHelper). The store plays Firefox's built-in roots module.
//
// Implements core/native/certbench_verifier.h (ABI v2). Built by core/build/firefox.rs from NSS's
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
// What VerifyCert's EV attempt does that this leaves out: the CT policy after a chain is built
// (VerifyCertificateTransparencyPolicy), and the EV revocation requirements. In the Gecko read,
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
// when the DV one is local-only (security.OCSP.enabled = EV only). certbench has no revocation
// data (no stapled response, no OCSP cache, no CRLite filter, no network), so CheckRevocation
// accepts here as for DV: the EV outcome is Firefox's when revocation checking succeeds (or
// soft-fails), and an OCSP fetch's time is not counted.
//
// The "one stated root model": every root of the store plays a built-in root (CKA_NSS_MOZILLA_
// CA_POLICY, trusted for TLS: CERTDB_TRUSTED_CA). Of what a built-in root brings in Gecko, this
// implements: its trust anchor status; the 2048-bit RSA floor with the 1024-bit retry refused
// (VerifyCert: ERROR_INADEQUATE_KEY_SIZE when the built chain's root is built in); strict name
// matching (SkipInvalidSANsForNonBuiltInRootsPolicy is strict for a built-in root); EV
// eligibility (when its SHA-256 is in kEVInfos). Left out: the distrust-after dates
// (IsChainValid: IsDistrustedCertificateChain, CKA_NSS_SERVER_DISTRUST_AFTER, which fails a chain
// whose leaf's notBefore is after the root's date with ERROR_ISSUER_NO_LONGER_TRUSTED), key
// pinning (ChainHasValidPins, for a built-in root too), the CT policy (enforced for chains to
// built-in roots), CRLite (which covers chains to built-in roots, and in enforce mode spares an
// OCSP fetch); Gecko has no Symantec check left (none in IsChainValid).
//
// What Firefox does that this leaves out (docs/verifiers.md lists it for users): revocation
// (OneCRL in GetCertTrust, CRLite and OCSP in CheckRevocation, OCSP stapling); key pinning and
// the distrust-after dates of some roots (IsChainValid); the CT policy
// (VerifyCertificateTransparencyPolicy); third-party (enterprise) roots and
// intermediates, the preloaded intermediates and the NSS database as issuer sources; imposed
// name constraints on some roots (CERT_GetImposedNameConstraints); the signature and trust
// caches beyond one verification (see SignatureCache); VerifySSLServerCert's error
// refinements (ERROR_SELF_SIGNED_CERT, ERROR_MITM_DETECTED, the host checked first for an
// expired certificate), delegated credentials and TLS features (must-staple).

#include <arpa/inet.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
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
#include "mozpkix/pkixder.h"
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
  // Read once per process (the tests set it per process): no getenv inside the timed calls.
  static const std::string at = [] {
    const char *value = std::getenv("CERTBENCH_NATIVE_THROW");
    return std::string(value != nullptr ? value : "");
  }();
  if (!at.empty() && at == where) {
    throw std::runtime_error(std::string("CERTBENCH_NATIVE_THROW=") + where);
  }
}

// NSS initialised once per process, without a database (NSS_NoDB_Init), for its signature
// checks and digests; and only the NSS this shim was compiled against: the version string the
// samples record names it, so another one loaded in its place (the system's libnss3 found
// before the build's) is a failure, never a figure under the wrong name.
bool NssReady(std::string *why) {
  static std::once_flag once;
  static bool ok = false;
  static std::string failed;
  std::call_once(once, [] {
    const char *loaded = NSS_GetVersion();
    if (loaded == nullptr || std::strcmp(loaded, NSS_VERSION) != 0) {
      failed = std::string("NSS ") + (loaded != nullptr ? loaded : "?") +
               " is loaded where this shim was built for NSS " NSS_VERSION;
      return;
    }
    ok = NSS_IsInitialized() || NSS_NoDB_Init(nullptr) == SECSuccess;
    if (!ok) {
      failed = "NSS_NoDB_Init failed";
    }
  });
  if (!ok) {
    *why = failed;
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

// Signature checks already made in this verification, keyed by the tuple that defines a
// signature, as Firefox's SignatureCache (CertVerifier.cpp: VerifySignedDataWithCache). Firefox's
// lives as long as the process and keeps successes; this one lives for one verification (all
// its attempts), so that each verification of a chain is priced in full, and keeps failures
// too (the pathological chains of one subject and many keys: minutes without).
using SignatureCache = std::unordered_map<std::string, Result>;

// A chain as sent: the end entity, then the other certificates; and the last rejection by
// Verify, kept raw for Explain: mozilla::pkix's result, or a text (an exception's, an error path)
// when `error` is not empty.
struct Chain {
  Der leaf;
  std::vector<Der> intermediates;
  Result rejected = Success;  // Success: no rejection recorded
  // The signatures checked by this verification's attempts, EV and DV alike (VerifyEv starts
  // a verification and empties it; Verify goes on with it).
  SignatureCache signatures;
  std::string error;
};

// Firefox's EV table (ev_roots.inc: kEVInfos), as ExtendedValidation.cpp holds it after
// LoadExtendedValidationInfo: each row's root SHA-256 and policy OID (DER contents, as
// SEC_StringToOID makes a CertPolicyId), and the CA/Browser Forum EV OID. Built once, before any
// timed call (Init and StoreNew build it).
#include "../ev_table.h"

constexpr EvEntry kEvInfos[] = {
#include "ev_roots.inc"
};

// A dotted OID ("2.23.140.1.1") as a CertPolicyId (the contents of its DER encoding); false if
// malformed or too long.
bool OidToPolicy(std::string_view dotted, CertPolicyId *out) {
  std::string der = OidToDer(dotted);
  if (der.empty() || der.size() > CertPolicyId::MAX_BYTES) {
    return false;
  }
  out->numBytes = static_cast<uint16_t>(der.size());
  std::memcpy(out->bytes, der.data(), der.size());
  return true;
}

struct EvTable {
  struct Row {
    Sha256 root;
    CertPolicyId policy;
  };
  std::vector<Row> rows;  // kEVInfos' order
  CertPolicyId cabforum{};

  EvTable() {
    OidToPolicy("2.23.140.1.1", &cabforum);
    for (const EvEntry &entry : kEvInfos) {
      Row row{};
      if (HexToSha256(entry.sha256_hex, &row.root) && OidToPolicy(entry.policy_oid, &row.policy)) {
        rows.push_back(row);
      }
    }
  }

  // FindMatchingEVPolicy: the CA/Browser Forum OID, else the first row's OID that matches.
  const CertPolicyId *Match(Input oid) const {
    auto equal = [&oid](const CertPolicyId &id) {
      return oid.GetLength() == id.numBytes &&
             std::memcmp(oid.UnsafeGetData(), id.bytes, id.numBytes) == 0;
    };
    if (equal(cabforum)) {
      return &cabforum;
    }
    for (const Row &row : rows) {
      if (equal(row.policy)) {
        return &row.policy;
      }
    }
    return nullptr;
  }

  // CertIsAuthoritativeForEVPolicy: the certificate's SHA-256 is a row's, and the policy is the
  // CA/Browser Forum OID or that row's.
  bool Authoritative(Input cert, const CertPolicyId &policy) const {
    Sha256 fingerprint;
    if (DigestBufNSS(cert, DigestAlgorithm::sha256, fingerprint.data(), fingerprint.size()) !=
        Success) {
      return false;
    }
    for (const Row &row : rows) {
      if (row.root == fingerprint && (policy == cabforum || policy == row.policy)) {
        return true;
      }
    }
    return false;
  }
};

const EvTable &Ev() {
  static const EvTable table;  // thread-safe initialisation
  return table;
}

// GetKnownEVPolicies: the leaf's certificatePolicies OIDs that are EV policies, in the leaf's
// order (the policy qualifiers are not checked, as there). Nothing when the extension is absent
// or malformed.
std::vector<CertPolicyId> KnownEvPolicies(Input leaf) {
  std::vector<CertPolicyId> policies;
  BackCert cert(leaf, EndEntityOrCA::MustBeEndEntity, nullptr);
  if (cert.Init() != Success || cert.GetCertificatePolicies() == nullptr) {
    return policies;
  }
  Reader extension(*cert.GetCertificatePolicies());
  Reader certificate_policies;
  if (der::ExpectTagAndGetValue(extension, der::SEQUENCE, certificate_policies) != Success ||
      !extension.AtEnd()) {
    return policies;
  }
  do {
    Reader policy_information;
    if (der::ExpectTagAndGetValue(certificate_policies, der::SEQUENCE, policy_information) !=
        Success) {
      return policies;
    }
    Input policy_oid;
    if (der::ExpectTagAndGetValue(policy_information, der::OIDTag, policy_oid) != Success) {
      return policies;
    }
    if (const CertPolicyId *ev = Ev().Match(policy_oid)) {
      policies.push_back(*ev);
    }
  } while (!certificate_policies.AtEnd());
  return policies;
}


// The trust domain of one attempt: NSSCertDBTrustDomain's choices for trustSSL, DV or EV (the
// policy given to GetCertTrust is the attempt's required policy).
class TrustDomainImpl final : public TrustDomain {
 public:
  TrustDomainImpl(const Store &store, const Chain &chain, unsigned int min_rsa_bits,
                  SignatureCache &cache)
      : store_(store), chain_(chain), min_rsa_bits_(min_rsa_bits), cache_(cache) {}

  // GetCertTrust: a candidate equal to a root (a built-in root, CERTDB_TRUSTED_CA) is a trust
  // anchor for anyPolicy, and for an EV policy only if CertIsAuthoritativeForEVPolicy; anything
  // else inherits trust (OneCRL, NSS's distrust records and the trust cache left out).
  Result GetCertTrust(EndEntityOrCA, const CertPolicyId &policy, Input candidate,
                      TrustLevel &trust) override {
    trust = TrustLevel::InheritsTrust;
    if (store_.ders.count(View(candidate)) != 0 &&
        (policy.IsAnyPolicy() || Ev().Authoritative(candidate, policy))) {
      trust = TrustLevel::TrustAnchor;
    }
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
Result BuildForServer(TrustDomain &domain, Input leaf, Time time, const CertPolicyId &policy) {
  const KeyUsage usages[] = {KeyUsage::digitalSignature, KeyUsage::keyEncipherment,
                             KeyUsage::keyAgreement};
  for (KeyUsage ku : usages) {
    Result rv = BuildCertChain(domain, leaf, time, EndEntityOrCA::MustBeEndEntity, ku,
                               KeyPurposeId::id_kp_serverAuth, policy, nullptr);
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
    if (!NssReady(&why)) {  // when Init was not called
      Fail(reason, cap, why);
      return nullptr;
    }
    Ev();  // built once, outside the timed EV attempt (Init builds it too)
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

// The EV attempt of CertVerifier::VerifyCert (see the header comment).
int VerifyEv(const void *store_ptr, void *chain_ptr, int64_t time) {
  try {
    // The test hook: "ev" throws here only; "verify" throws in both path-building calls, so
    // that an EV grant cannot step around it (this one falls back, then `verify` rejects).
    MaybeThrow("ev");
    MaybeThrow("verify");
    const auto &store = *static_cast<const Store *>(store_ptr);
    auto &chain = *static_cast<Chain *>(chain_ptr);
    chain.signatures.clear();
    Input leaf;
    if (!ToInput(chain.leaf, &leaf)) {
      return CERTBENCH_EV_FALLBACK;
    }
    std::vector<CertPolicyId> ev_policies = KnownEvPolicies(leaf);
    if (ev_policies.empty()) {
      return CERTBENCH_EV_NOT_CANDIDATE;
    }
    if (time < 0) {
      return CERTBENCH_EV_FALLBACK;
    }
    Time at = TimeFromEpochInSeconds(static_cast<uint64_t>(time));
    for (const CertPolicyId &policy : ev_policies) {
      TrustDomainImpl domain(store, chain, kMinRsaBits, chain.signatures);
      if (BuildForServer(domain, leaf, at, policy) == Success) {
        return CERTBENCH_EV_GRANTED;
      }
    }
  } catch (...) {
    // Fail closed: an error is no EV chain.
  }
  return CERTBENCH_EV_FALLBACK;
}

// The DV attempt. Nothing is rendered here: a rejection's result is kept for Explain.
int Verify(const void *store_ptr, void *chain_ptr, int64_t time) {
  auto &chain = *static_cast<Chain *>(chain_ptr);
  try {
    chain.error.clear();
    chain.rejected = Success;
    MaybeThrow("verify");
    const auto &store = *static_cast<const Store *>(store_ptr);
    Input leaf;
    if (time < 0) {
      chain.error = "a validation time before 1970";
      return 0;
    }
    if (!ToInput(chain.leaf, &leaf)) {
      chain.rejected = Result::ERROR_BAD_DER;
      return 0;
    }
    Time at = TimeFromEpochInSeconds(static_cast<uint64_t>(time));
    // VerifyCert's keySizeOptions: the strong minimum first, then the weak one, whose success
    // is ERROR_INADEQUATE_KEY_SIZE ("Enforce the minimum (non-weak) RSA key size for
    // certificates issued from built-in roots"): every root here plays a built-in one.
    Result rv = Result::FATAL_ERROR_LIBRARY_FAILURE;
    for (unsigned int bits : {kMinRsaBits, kMinRsaBitsWeak}) {
      TrustDomainImpl domain(store, chain, bits, chain.signatures);
      rv = BuildForServer(domain, leaf, at, CertPolicyId::anyPolicy);
      if (rv == Success) {
        if (bits == kMinRsaBits) {
          return 1;
        }
        rv = Result::ERROR_INADEQUATE_KEY_SIZE;
      }
    }
    chain.rejected = rv;
    return 0;
  } catch (const std::exception &e) {
    chain.error = e.what();
  } catch (...) {
    chain.error = "an unknown C++ exception";
  }
  if (chain.error.empty()) {
    chain.error = "an internal error";
  }
  return 0;
}

// The last rejection by Verify, rendered now (untimed).
void Explain(void *chain_ptr, char *reason, size_t cap) {
  Guarded(reason, cap, 0, [&]() -> int {
    const auto &chain = *static_cast<const Chain *>(chain_ptr);
    if (!chain.error.empty()) {
      Fail(reason, cap, chain.error);
    } else {
      Fail(reason, cap,
           chain.rejected == Success ? std::string("no rejection recorded") : Name(chain.rejected));
    }
    return 0;
  });
}

// NSS's start-up (NSS_NoDB_Init, once per process) and the EV table, before anything is timed
// apart.
int Init(char *reason, size_t cap) {
  return Guarded(reason, cap, 0, [&]() -> int {
    std::string why;
    if (!NssReady(&why)) {
      Fail(reason, cap, why);
      return 0;
    }
    Ev();
    return 1;
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

const certbench_verifier_v2 kTable = {
    CERTBENCH_VERIFIER_ABI,
    "mozilla::pkix",
    CERTBENCH_FIREFOX_VERSION,
    "BuildCertChain as CertVerifier (TLS server): an EV attempt first for each EV OID of the leaf "
    "(kEVInfos; the OID required, roots anchors only if listed for it, RSA >= 2048), then DV: "
    "serverAuth, digitalSignature then keyEncipherment then keyAgreement, RSA >= 2048 (roots as "
    "built-in: the 1024 retry refused), no SHA-1, P-256/384/521; roots then sent certs as issuers; "
    "CheckCertHostname without CN; no revocation, CT, pinning, distrust-after",
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
