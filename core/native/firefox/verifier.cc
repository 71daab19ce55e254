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

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iterator>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "../certbench_verifier.h"
#include "mozpkix/pkix.h"
#include "mozpkix/pkixcheck.h"
#include "mozpkix/pkixder.h"
#include "mozpkix/pkixnss.h"
#include "mozpkix/pkixutil.h"
#include "nss.h"
#include "pk11pub.h"

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

  // What VerifyCertificateTransparencyPolicy takes from the accepted path, kept when the last
  // VerifyEv or Verify accepted (`accepted`): the built chain's second certificate, the end
  // entity's issuer (builtChain[1], from the last IsChainValid; empty when the end entity is
  // itself the anchor), and the end entity's embedded SCT list as mozilla::pkix notes it
  // (NoteAuxiliaryExtension(EmbeddedSCTList), NSSCertDBTrustDomain's
  // mSCTListFromCertificate; empty when absent). Copies: a store need not outlive the chain.
  bool accepted = false;
  Der issuer;
  Der embedded_scts;
  // Set with `accepted`: the built chain (NSSCertDBTrustDomain's mBuiltChain: the chain the
  // last IsChainValid was given, reversed, end entity first and the trust anchor last), which
  // Gecko's revocation checks read and VerifiedPath returns. Views into `leaf`, `intermediates`
  // or `kept`, which keeps a copy of every certificate of a path the chain does not own (the
  // store's roots) until ChainFree: what VerifiedPath hands out stays valid after a later
  // Verify and after the store is freed. A chain's first acceptance copies its anchor; later
  // ones find it kept.
  std::vector<certbench_der> path;
  std::list<Der> kept;

  // The last VerifyCt, kept raw for Explain (which reports it when `ct_last`): its counts, and
  // either a fatal result or an error text, or ERROR_INSUFFICIENT_CERTIFICATE_TRANSPARENCY with
  // the CTPolicyCompliance value. Verify and VerifyEv clear `ct_last`.
  bool ct_last = false;
  bool ct_failed = false;
  Result ct_rejected = Success;
  int ct_compliance = 0;  // enum class CtCompliance, below
  std::string ct_error;
  certbench_ct_counts ct_counts{};
  // The last VerifyCt's valid SCTs (VerifiedSCTs), for the CRLite query (VerifiedScts);
  // `ct_verified_kept` is false until a VerifyCt ran since the last Verify/VerifyEv.
  std::vector<certbench_verified_sct> ct_verified;
  bool ct_verified_kept = false;
};

// CTPolicyEnforcer.h's CTPolicyCompliance (Unknown is never a result of CheckCTPolicyCompliance).
enum class CtCompliance { Compliant = 0, NotEnoughScts = 1, NotDiverseScts = 2 };

const char *ComplianceName(int compliance) {
  switch (static_cast<CtCompliance>(compliance)) {
    case CtCompliance::Compliant:
      return "CTPolicyCompliance::Compliant";
    case CtCompliance::NotEnoughScts:
      return "CTPolicyCompliance::NotEnoughScts";
    case CtCompliance::NotDiverseScts:
      return "CTPolicyCompliance::NotDiverseScts";
  }
  return "CTPolicyCompliance::Unknown";
}

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
  // (both left out), and keeps the chain as the built chain (NSSCertDBTrustDomain's
  // mBuiltChain, end entity first), which CT takes its issuer from
  // (VerifyCertificateTransparencyPolicy, after BuildCertChain): the last call before
  // BuildCertChain succeeds is the accepted path's (pkixtypes.h), so its end entity's issuer
  // is kept here (a view: Verify copies it when it accepts). certChain.GetDER(0) is the anchor.
  // The whole chain is kept too (views, anchor first as given; at most
  // NonOwningDERArray::MAX_LENGTH, 8, certificates), for the path VerifiedPath returns.
  Result IsChainValid(const DERArray &cert_chain, Time, const CertPolicyId &) override {
    size_t n = cert_chain.GetLength();
    built_issuer_ = n >= 2 ? Bytes(*cert_chain.GetDER(n - 2)) : Bytes();
    built_len_ = 0;
    if (n <= built_.size()) {  // else no path is kept: VerifiedPath then has none (-1)
      for (size_t i = 0; i < n; i++) {
        const Input *der = cert_chain.GetDER(i);
        built_[i] = der != nullptr ? Bytes(*der) : Bytes();
      }
      built_len_ = n;
    }
    return Success;
  }

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

  // The end entity's embedded SCT list, noted by mozilla::pkix on the path it accepts, for the
  // CT check (NSSCertDBTrustDomain keeps it as mSCTListFromCertificate). SCTs in a stapled OCSP
  // response (SCTListFromOCSPResponse) are never noted here: certbench staples none.
  void NoteAuxiliaryExtension(AuxiliaryExtension extension, Input data) override {
    if (extension == AuxiliaryExtension::EmbeddedSCTList) {
      embedded_scts_ = Bytes(data);
    }
  }

  // NSSCertDBTrustDomain::ResetAccumulatedState, before each BuildCertChain.
  void ResetAccumulatedState() {
    built_issuer_ = Bytes();
    embedded_scts_ = Bytes();
    built_len_ = 0;
  }

  // After a successful BuildCertChain: what the CT check needs, copied into the chain, and
  // the built chain, end entity first (see Chain::path).
  void KeepAccepted(Chain &chain) const {
    chain.issuer.assign(built_issuer_.data, built_issuer_.data + built_issuer_.len);
    chain.embedded_scts.assign(embedded_scts_.data, embedded_scts_.data + embedded_scts_.len);
    chain.path.clear();
    for (size_t i = built_len_; i > 0; i--) {
      if (built_[i - 1].data == nullptr) {
        chain.path.clear();  // never: mozilla::pkix hands over no empty certificate
        break;
      }
      chain.path.push_back(Owned(chain, built_[i - 1]));
    }
    chain.accepted = true;  // last: a throwing copy leaves it unset
  }

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
  // Views (an Input cannot be assigned) into the roots or the chain, valid during the call.
  struct Bytes {
    Bytes() = default;
    explicit Bytes(Input in) : data(in.UnsafeGetData()), len(in.GetLength()) {}
    const uint8_t *data = nullptr;
    size_t len = 0;
  };
  Bytes built_issuer_;
  Bytes embedded_scts_;
  std::array<Bytes, 8> built_;  // the last IsChainValid's chain, anchor first
  size_t built_len_ = 0;

  // `der` as a view the chain owns until ChainFree: the end entity or a certificate it was
  // sent, or else (a root of the store) a copy in `kept`, made once per chain.
  static certbench_der Owned(Chain &chain, Bytes der) {
    auto same = [&](const Der &d) { return d.data() == der.data && d.size() == der.len; };
    if (same(chain.leaf)) {
      return {chain.leaf.data(), chain.leaf.size()};
    }
    for (const Der &d : chain.intermediates) {
      if (same(d)) {
        return {d.data(), d.size()};
      }
    }
    for (const Der &d : chain.kept) {
      if (d.size() == der.len && std::memcmp(d.data(), der.data, der.len) == 0) {
        return {d.data(), d.size()};
      }
    }
    const Der &copy = chain.kept.emplace_back(der.data, der.data + der.len);
    return {copy.data(), copy.size()};
  }
};

// CertVerifier.cpp's BuildCertChainForOneKeyUsage: digitalSignature ((EC)DHE), then
// keyEncipherment (RSA), then keyAgreement ((EC)DH), each tried only when the one before
// failed for an inadequate key usage; any failure of the last is an inadequate key usage.
Result BuildForServer(TrustDomainImpl &domain, Input leaf, Time time,
                      const CertPolicyId &policy) {
  const KeyUsage usages[] = {KeyUsage::digitalSignature, KeyUsage::keyEncipherment,
                             KeyUsage::keyAgreement};
  for (KeyUsage ku : usages) {
    domain.ResetAccumulatedState();
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
  auto &chain = *static_cast<Chain *>(chain_ptr);
  chain.accepted = false;
  chain.path.clear();  // keeps its capacity; `kept` keeps what VerifiedPath handed out
  chain.ct_last = false;
  chain.ct_verified_kept = false;
  try {
    // The test hook: "ev" throws here only; "verify" throws in both path-building calls, so
    // that an EV grant cannot step around it (this one falls back, then `verify` rejects).
    MaybeThrow("ev");
    MaybeThrow("verify");
    const auto &store = *static_cast<const Store *>(store_ptr);
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
        domain.KeepAccepted(chain);
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
  chain.accepted = false;
  chain.path.clear();  // keeps its capacity; `kept` keeps what VerifiedPath handed out
  chain.ct_last = false;
  chain.ct_verified_kept = false;
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
          domain.KeepAccepted(chain);
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

// The last rejection, rendered now (untimed): VerifyCt's when it was the last call, else
// Verify's.
void Explain(void *chain_ptr, char *reason, size_t cap) {
  Guarded(reason, cap, 0, [&]() -> int {
    const auto &chain = *static_cast<const Chain *>(chain_ptr);
    if (chain.ct_last) {
      const certbench_ct_counts &n = chain.ct_counts;
      std::string counts = " (" + std::to_string(n.scts) + " SCTs: " +
                           std::to_string(n.valid) + " valid, " +
                           std::to_string(n.unknown_log) + " from unknown logs, " +
                           std::to_string(n.invalid) + " invalid)";
      if (!chain.ct_failed) {
        Fail(reason, cap, "no rejection recorded");
      } else if (!chain.ct_error.empty()) {
        Fail(reason, cap, "CT: " + chain.ct_error);
      } else if (chain.ct_rejected == Result::ERROR_INSUFFICIENT_CERTIFICATE_TRANSPARENCY) {
        // Firefox's name for it (MapResultToPRErrorCode), with the policy's verdict.
        Fail(reason, cap,
             std::string("MOZILLA_PKIX_ERROR_INSUFFICIENT_CERTIFICATE_TRANSPARENCY: ") +
                 ComplianceName(chain.ct_compliance) + counts);
      } else {
        Fail(reason, cap, "CT: " + Name(chain.ct_rejected) + counts);
      }
      return 0;
    }
    if (!chain.error.empty()) {
      Fail(reason, cap, chain.error);
    } else {
      Fail(reason, cap,
           chain.rejected == Success ? std::string("no rejection recorded") : Name(chain.rejected));
    }
    return 0;
  });
}

// The path the last Verify or VerifyEv accepted (see the header): the built chain Gecko's
// revocation checks read (NSSCertDBTrustDomain's mBuiltChain, end entity first, the anchor
// last), which certbench's CRLite check reads. Views the chain owns (Chain::path); nothing
// here allocates or throws.
int VerifiedPath(void *chain_ptr, certbench_der *out, size_t cap) {
  const auto &chain = *static_cast<const Chain *>(chain_ptr);
  if (!chain.accepted || chain.path.empty() ||
      chain.path.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return -1;
  }
  size_t n = chain.path.size();
  if (n <= cap && out != nullptr) {
    std::copy(chain.path.begin(), chain.path.end(), out);
  }
  return static_cast<int>(n);
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

// ---------------------------------------------------------------------------------------------
// Certificate Transparency, as Gecko checks it for a TLS server certificate (see the header
// comment for the files read): the logs (CTLogVerifier::Init over the log list), the SCTs
// (MultiLogCTVerifier::Verify, CTObjectsExtractor, CTSerialization, CTLogVerifier::Verify) and
// the policy (CTPolicyEnforcer's CheckCTPolicyCompliance), run by VerifyCt as
// CertVerifier::VerifyCertificateTransparencyPolicy runs them after a chain is built.

// The size of Firefox's SCT signature cache: security.pki.sct_signature_cache_size (default
// 256 in StaticPrefList.yaml), the capacity MultiLogCTVerifier gives signature_cache_new.
constexpr size_t kSctSignatureCacheSize = 256;

// RFC 6962's DigitallySigned algorithm numbers, as Gecko's DigitallySigned enums hold them
// (SignedCertificateTimestamp.h): the values a decoded SCT may carry.
enum class CtHash : uint8_t { None = 0, MD5 = 1, SHA1 = 2, SHA224 = 3, SHA256 = 4, SHA384 = 5,
                              SHA512 = 6 };
enum class CtSignature : uint8_t { Anonymous = 0, RSA = 1, DSA = 2, ECDSA = 3 };

using Sha512 = std::array<uint8_t, 64>;

// Firefox's SCT signature cache (security/certverifier/signature_cache/src/lib.rs, the
// SignatureCache MultiLogCTVerifier owns): a least-recently-used set of SHA-512 hashes of
// signature parameters (HashSignatureParams), each one a signature that verified; a lookup
// that hits counts as a use; a full cache drops its least recently used entry. Locked, as
// there (a Mutex around hashlink's LruCache): one log set serves every thread.
class SctSignatureCache {
 public:
  explicit SctSignatureCache(size_t capacity) : capacity_(capacity) {}

  bool Get(const Sha512 &key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto hit = index_.find(key);
    if (hit == index_.end()) {
      return false;
    }
    order_.splice(order_.end(), order_, hit->second);  // now the most recently used
    return true;
  }

  void Insert(const Sha512 &key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto hit = index_.find(key);
    if (hit != index_.end()) {
      order_.splice(order_.end(), order_, hit->second);
      return;
    }
    if (capacity_ == 0) {
      return;
    }
    if (index_.size() >= capacity_) {
      index_.erase(order_.front());
      order_.pop_front();
    }
    order_.push_back(key);
    index_.emplace(key, std::prev(order_.end()));
  }

 private:
  struct KeyHash {
    size_t operator()(const Sha512 &key) const {
      size_t h;
      std::memcpy(&h, key.data(), sizeof h);  // a SHA-512 is uniform enough
      return h;
    }
  };
  std::mutex mutex_;
  size_t capacity_;
  std::list<Sha512> order_;  // least recently used first
  std::unordered_map<Sha512, std::list<Sha512>::iterator, KeyHash> index_;
};

// CertVerifier.cpp's HashSignatureParams: SHA-512 over data, signature and the key, each
// preceded by its length as an Input::size_type (native byte order), then the public key
// algorithm and the digest algorithm (their enums' bytes). With NSS's digest context, as
// Gecko's Digest class. False when NSS fails (then nothing is looked up or kept, as there).
bool HashSignatureParams(Input data, Input signature, Input spki, der::PublicKeyAlgorithm alg,
                         DigestAlgorithm digest, Sha512 *out) {
  PK11Context *context = PK11_CreateDigestContext(SEC_OID_SHA512);
  if (context == nullptr) {
    return false;
  }
  bool ok = PK11_DigestBegin(context) == SECSuccess;
  auto update = [&](const void *bytes, size_t len) {
    if (ok && len > 0) {
      ok = PK11_DigestOp(context, static_cast<const unsigned char *>(bytes),
                         static_cast<unsigned int>(len)) == SECSuccess;
    }
  };
  for (Input part : {data, signature, spki}) {
    Input::size_type len = part.GetLength();
    update(&len, sizeof len);
    update(part.UnsafeGetData(), len);
  }
  update(&alg, sizeof alg);
  update(&digest, sizeof digest);
  unsigned int len = 0;
  ok = ok && PK11_DigestFinal(context, out->data(), &len, out->size()) == SECSuccess &&
       len == out->size();
  PK11_DestroyContext(context, PR_TRUE);
  return ok;
}

// One known log, as CTLogVerifier holds it after Init.
struct CtLog {
  Sha256 key_id;          // SHA-256 of the key (mKeyId), equal to the list's log id
  Der spki;               // mSubjectPublicKeyInfo
  CtSignature algorithm;  // mSignatureAlgorithm: RSA or ECDSA
  uint16_t operator_id;   // mOperatorId: one per distinct operator name
  bool retired;           // mState: Retired, else Admissible
  uint64_t retired_at_ms; // mTimestamp of a retired log, in milliseconds as CTKnownLogs.h
  std::string description;
};

// A log set: MultiLogCTVerifier's logs and, when asked, its SCT signature cache. Unchanged after
// CtLogsNew but for the cache, which locks itself.
struct CtLogs {
  std::vector<CtLog> logs;
  std::unique_ptr<SctSignatureCache> cache;  // null: no cache (every signature checked)
};

// CTLogVerifier.cpp's SignatureParamsTrustDomain: CheckSubjectPublicKeyInfo over a log's key
// learns its algorithm; only ECDSA on P-256 and RSA of at least 2048 bits (RFC 6962 §2.1.4)
// pass. Every other hook fails.
class SignatureParamsDomain final : public TrustDomain {
 public:
  CtSignature algorithm = CtSignature::Anonymous;

  Result GetCertTrust(EndEntityOrCA, const CertPolicyId &, Input, TrustLevel &) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result FindIssuer(Input, IssuerChecker &, Time) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result IsChainValid(const DERArray &, Time, const CertPolicyId &) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result CheckRevocation(EndEntityOrCA, const CertID &, Time, Duration, const Input *,
                         const Input *, const Input *) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result CheckSignatureDigestAlgorithm(DigestAlgorithm, EndEntityOrCA, Time) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result CheckRSAPublicKeyModulusSizeInBits(EndEntityOrCA, unsigned int bits) override {
    if (bits < 2048) {
      return Result::ERROR_INADEQUATE_KEY_SIZE;
    }
    algorithm = CtSignature::RSA;
    return Success;
  }
  Result VerifyRSAPKCS1SignedData(Input, DigestAlgorithm, Input, Input) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result VerifyRSAPSSSignedData(Input, DigestAlgorithm, Input, Input) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result CheckECDSACurveIsAcceptable(EndEntityOrCA, NamedCurve curve) override {
    if (curve != NamedCurve::secp256r1) {
      return Result::ERROR_UNSUPPORTED_ELLIPTIC_CURVE;
    }
    algorithm = CtSignature::ECDSA;
    return Success;
  }
  Result VerifyECDSASignedData(Input, DigestAlgorithm, Input, Input) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result CheckValidityIsAcceptable(Time, Time, EndEntityOrCA, KeyPurposeId) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  Result NetscapeStepUpMatchesServerAuth(Time, bool &) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
  void NoteAuxiliaryExtension(AuxiliaryExtension, Input) override {}
  Result DigestBuf(Input, DigestAlgorithm, uint8_t *, size_t) override {
    return Result::FATAL_ERROR_LIBRARY_FAILURE;
  }
};

// The log list loaded once, before anything is timed, as CertVerifier::LoadKnownCTLogs loads
// kCTLogList: each key parsed once (CTLogVerifier::Init: its algorithm, then SHA-256 of it as
// the key id). A log whose key does not pass, whose given id is not that SHA-256, or whose
// state is neither admissible nor retired is skipped (LoadKnownCTLogs skips a log whose Init
// fails); its SCTs are then from an unknown log. Operators are told apart by name.
void *CtLogsNew(const certbench_ct_log *logs, size_t n, int cache_signatures, char *reason,
                size_t cap) {
  return Guarded<void *>(reason, cap, nullptr, [&]() -> void * {
    MaybeThrow("ct-logs");
    std::string why;
    if (!NssReady(&why)) {
      Fail(reason, cap, why);
      return nullptr;
    }
    if (n > 0 && logs == nullptr) {
      Fail(reason, cap, "no log array");
      return nullptr;
    }
    auto set = std::make_unique<CtLogs>();
    std::map<std::string, uint16_t> operators;
    for (size_t i = 0; i < n; i++) {
      const certbench_ct_log &given = logs[i];
      if (given.log_id == nullptr || given.key == nullptr || given.operator_name == nullptr) {
        continue;
      }
      bool retired = given.state == CERTBENCH_CT_LOG_RETIRED;
      if ((!retired && given.state != CERTBENCH_CT_LOG_ADMISSIBLE) ||
          (retired && (given.retired_at < 0 ||
                       given.retired_at > INT64_MAX / 1000))) {
        continue;
      }
      Input spki;
      if (spki.Init(given.key, given.key_len) != Success) {
        continue;
      }
      SignatureParamsDomain params;
      if (CheckSubjectPublicKeyInfo(spki, params, EndEntityOrCA::MustBeEndEntity) != Success ||
          params.algorithm == CtSignature::Anonymous) {
        continue;
      }
      CtLog log;
      if (DigestBufNSS(spki, DigestAlgorithm::sha256, log.key_id.data(), log.key_id.size()) !=
              Success ||
          std::memcmp(log.key_id.data(), given.log_id, log.key_id.size()) != 0) {
        continue;
      }
      log.spki.assign(given.key, given.key + given.key_len);
      log.algorithm = params.algorithm;
      log.operator_id =
          operators.emplace(given.operator_name, static_cast<uint16_t>(operators.size()))
              .first->second;
      log.retired = retired;
      log.retired_at_ms = retired ? static_cast<uint64_t>(given.retired_at) * 1000 : 0;
      log.description = given.description != nullptr ? given.description : "";
      set->logs.push_back(std::move(log));
    }
    if (cache_signatures != 0) {
      set->cache = std::make_unique<SctSignatureCache>(kSctSignatureCacheSize);
    }
    return set.release();
  });
}

void CtLogsFree(void *logs) { delete static_cast<CtLogs *>(logs); }

// CTUtils.h's readers: a big-endian unsigned integer of `n` bytes, and bytes preceded by
// their length in `prefix` bytes.
Result ReadUint(Reader &in, size_t n, uint64_t &out) {
  out = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t byte;
    Result rv = in.Read(byte);
    if (rv != Success) {
      return rv;
    }
    out = (out << 8) | byte;
  }
  return Success;
}

Result ReadVariableBytes(Reader &in, size_t prefix, Input &out) {
  uint64_t len;
  Result rv = ReadUint(in, prefix, len);
  if (rv != Success) {
    return rv;
  }
  if (len > std::numeric_limits<Input::size_type>::max()) {
    return Result::ERROR_BAD_DER;
  }
  return in.Skip(static_cast<Input::size_type>(len), out);
}

// CTSerialization.cpp's writers: an integer of `n` bytes, and bytes preceded by their length
// in `prefix` bytes (too long: FATAL_ERROR_INVALID_ARGS, as WriteVariableBytesPrefix).
void WriteUint(Der &out, size_t n, uint64_t value) {
  for (; n > 0; n--) {
    out.push_back(static_cast<uint8_t>(value >> ((n - 1) * 8)));
  }
}

Result WriteVariableBytes(Der &out, size_t prefix, const uint8_t *data, size_t len) {
  if (len > (size_t{1} << (prefix * 8)) - 1) {
    return Result::FATAL_ERROR_INVALID_ARGS;
  }
  WriteUint(out, prefix, len);
  out.insert(out.end(), data, data + len);
  return Success;
}

// A decoded SCT (SignedCertificateTimestamp): views into the list it came from.
struct Sct {
  Input log_id;        // 32 bytes
  uint64_t timestamp;  // milliseconds since the epoch
  Input extensions;
  uint64_t hash;       // CtHash
  uint64_t signature_algorithm;  // CtSignature
  Input signature;
};

// SignedCertificateTimestamp::DecodeExtensions: a sequence of (type, data<0..2^16-1>); the
// leaf_index extension (type 0, a 40-bit big-endian integer) at most once and exactly 5 bytes;
// other types ignored. The leaf index itself only matters for a tiled log (see VerifyCt).
Result DecodeSctExtensions(Input extensions) {
  Reader in(extensions);
  bool leaf_index = false;
  while (!in.AtEnd()) {
    uint64_t type;
    Input data;
    Result rv = ReadUint(in, 1, type);
    if (rv == Success) {
      rv = ReadVariableBytes(in, 2, data);
    }
    if (rv != Success) {
      return rv;
    }
    if (type == 0) {
      if (leaf_index) {
        return Result::ERROR_EXTENSION_VALUE_INVALID;
      }
      Reader index(data);
      uint64_t value;
      rv = ReadUint(index, 5, value);
      if (rv != Success) {
        return rv;
      }
      if (!index.AtEnd()) {
        return Result::ERROR_EXTENSION_VALUE_INVALID;
      }
      leaf_index = true;
    }
  }
  return Success;
}

// CTSerialization.cpp's DecodeSignedCertificateTimestamp: version v1 (0), the log id (32
// bytes), the timestamp (8), the extensions (2-byte length), then DigitallySigned: the hash
// (a known value, 0-6), the signature algorithm (0-3), the signature (2-byte length). Bytes
// after the signature are not checked, as there.
Result DecodeSct(Input encoded, Sct &sct) {
  Reader in(encoded);
  uint64_t version;
  Result rv = ReadUint(in, 1, version);
  if (rv != Success) {
    return rv;
  }
  if (version != 0) {
    return Result::ERROR_BAD_DER;
  }
  rv = in.Skip(32, sct.log_id);
  if (rv == Success) {
    rv = ReadUint(in, 8, sct.timestamp);
  }
  if (rv == Success) {
    rv = ReadVariableBytes(in, 2, sct.extensions);
  }
  if (rv == Success) {
    rv = ReadUint(in, 1, sct.hash);
  }
  if (rv == Success && sct.hash > static_cast<uint64_t>(CtHash::SHA512)) {
    rv = Result::ERROR_BAD_DER;
  }
  if (rv == Success) {
    rv = ReadUint(in, 1, sct.signature_algorithm);
  }
  if (rv == Success && sct.signature_algorithm > static_cast<uint64_t>(CtSignature::ECDSA)) {
    rv = Result::ERROR_BAD_DER;
  }
  if (rv == Success) {
    rv = ReadVariableBytes(in, 2, sct.signature);
  }
  if (rv != Success) {
    return rv;
  }
  return DecodeSctExtensions(sct.extensions);
}

// CTObjectsExtractor.cpp's PrecertTBSExtractor: the end entity's TBSCertificate with the
// embedded SCT list extension (1.3.6.1.4.1.11129.2.4.2) removed, the TLV headers rewritten
// (lengths below 65536: larger ones are FATAL_ERROR_INVALID_ARGS, as MakeTLVHeader); without
// any extension left, the extensions [3] field is dropped too. The extensions must be the
// TBSCertificate's last field.
constexpr uint8_t kEmbeddedSctListOid[] = {0x2b, 0x06, 0x01, 0x04, 0x01,
                                           0xd6, 0x79, 0x02, 0x04, 0x02};
constexpr uint8_t kExtensionsTag = der::CONTEXT_SPECIFIC | der::CONSTRUCTED | 3;

Result WriteTlvHeader(Der &out, uint8_t tag, size_t len) {
  out.push_back(tag);
  if (len < 128) {
    out.push_back(static_cast<uint8_t>(len));
  } else if (len < 256) {
    out.push_back(0x81);
    out.push_back(static_cast<uint8_t>(len));
  } else if (len < 65536) {
    out.push_back(0x82);
    out.push_back(static_cast<uint8_t>(len >> 8));
    out.push_back(static_cast<uint8_t>(len));
  } else {
    return Result::FATAL_ERROR_INVALID_ARGS;
  }
  return Success;
}

size_t TlvHeaderLength(size_t len) { return len < 128 ? 2 : len < 256 ? 3 : 4; }

Result PrecertTbs(Input certificate, Der &out) {
  Reader cert;
  Result rv = der::ExpectTagAndGetValueAtEnd(certificate, der::SEQUENCE, cert);
  if (rv != Success) {
    return rv;
  }
  Reader tbs;
  rv = der::ExpectTagAndGetValue(cert, der::SEQUENCE, tbs);
  if (rv != Success) {
    return rv;
  }
  Reader::Mark begin = tbs.GetMark();
  while (!tbs.AtEnd() && !tbs.Peek(kExtensionsTag)) {
    uint8_t tag;
    Input value;
    rv = der::ReadTagAndGetValue(tbs, tag, value);
    if (rv != Success) {
      return rv;
    }
  }
  Input before_extensions;
  rv = tbs.GetInput(begin, before_extensions);
  if (rv != Success) {
    return rv;
  }
  std::vector<Input> kept;
  if (tbs.Peek(kExtensionsTag)) {
    Reader context;
    rv = der::ExpectTagAndGetValueAtEnd(tbs, kExtensionsTag, context);
    if (rv != Success) {
      return rv;
    }
    Reader extensions;
    rv = der::ExpectTagAndGetValueAtEnd(context, der::SEQUENCE, extensions);
    if (rv != Success) {
      return rv;
    }
    while (!extensions.AtEnd()) {
      Reader::Mark extension_begin = extensions.GetMark();
      Reader extension;
      rv = der::ExpectTagAndGetValue(extensions, der::SEQUENCE, extension);
      if (rv != Success) {
        return rv;
      }
      Reader oid;
      rv = der::ExpectTagAndGetValue(extension, der::OIDTag, oid);
      if (rv != Success) {
        return rv;
      }
      if (!oid.MatchRest(kEmbeddedSctListOid)) {
        Input tlv;
        rv = extensions.GetInput(extension_begin, tlv);
        if (rv != Success) {
          return rv;
        }
        kept.push_back(tlv);
      }
    }
  }
  out.clear();
  out.reserve(certificate.GetLength());
  if (kept.empty()) {
    rv = WriteTlvHeader(out, der::SEQUENCE, before_extensions.GetLength());
    if (rv != Success) {
      return rv;
    }
    out.insert(out.end(), before_extensions.UnsafeGetData(),
               before_extensions.UnsafeGetData() + before_extensions.GetLength());
    return Success;
  }
  size_t extensions_len = 0;
  for (Input tlv : kept) {
    extensions_len += tlv.GetLength();
  }
  size_t context_len = TlvHeaderLength(extensions_len) + extensions_len;
  size_t tbs_len = before_extensions.GetLength() + TlvHeaderLength(context_len) + context_len;
  rv = WriteTlvHeader(out, der::SEQUENCE, tbs_len);
  if (rv != Success) {
    return rv;
  }
  out.insert(out.end(), before_extensions.UnsafeGetData(),
             before_extensions.UnsafeGetData() + before_extensions.GetLength());
  rv = WriteTlvHeader(out, kExtensionsTag, context_len);
  if (rv == Success) {
    rv = WriteTlvHeader(out, der::SEQUENCE, extensions_len);
  }
  if (rv != Success) {
    return rv;
  }
  for (Input tlv : kept) {
    out.insert(out.end(), tlv.UnsafeGetData(), tlv.UnsafeGetData() + tlv.GetLength());
  }
  return Success;
}

// A LogEntry (SignedCertificateTimestamp.h): the X.509 entry (the end entity as sent) for an
// SCT from TLS, the precertificate entry (the issuer's key hash and the precertificate's
// TBSCertificate) for an embedded one.
struct LogEntry {
  bool precert = false;
  Input leaf;          // X509
  Sha256 issuer_key_hash{};  // Precert: SHA-256 of the issuer's SubjectPublicKeyInfo
  Der tbs;             // Precert
};

// CTSerialization.cpp's EncodeLogEntry: the entry type (2 bytes), then the certificate
// (3-byte length), or the issuer key hash and the TBSCertificate (3-byte length).
Result EncodeLogEntry(const LogEntry &entry, Der &out) {
  out.clear();
  WriteUint(out, 2, entry.precert ? 1 : 0);
  if (entry.precert) {
    out.insert(out.end(), entry.issuer_key_hash.begin(), entry.issuer_key_hash.end());
    return WriteVariableBytes(out, 3, entry.tbs.data(), entry.tbs.size());
  }
  return WriteVariableBytes(out, 3, entry.leaf.UnsafeGetData(), entry.leaf.GetLength());
}

// CTSerialization.cpp's EncodeV1SCTSignedData: what the log signed: version v1, signature type
// certificate_timestamp, the timestamp, the encoded entry, the extensions (2-byte length).
Result EncodeV1SctSignedData(uint64_t timestamp, const Der &entry, Input extensions, Der &out) {
  out.clear();
  out.reserve(entry.size() + 16 + extensions.GetLength());
  WriteUint(out, 1, 0);  // Version::V1
  WriteUint(out, 1, 0);  // SignatureType::CertificateTimestamp
  WriteUint(out, 8, timestamp);
  out.insert(out.end(), entry.begin(), entry.end());
  return WriteVariableBytes(out, 2, extensions.UnsafeGetData(), extensions.GetLength());
}

enum class SctOrigin { Embedded, TLSExtension };

// VerifiedSCT: an SCT that passed, with what the policy reads of its log.
struct VerifiedSct {
  const CtLog *log;
  SctOrigin origin;
  uint64_t timestamp;
  // The log's state at the time of the check: a log whose retirement certbench's list dates
  // after the validation time was admissible then (Gecko's built-in list is the one of its
  // build; certbench checks each chain at its own time, see corpus/ct-logs/PROVENANCE.md).
  bool retired;
};

// One VerifyCt's work: MultiLogCTVerifier::Verify's, with CTVerifyResult's counters reduced to
// certbench's counts.
class CtVerification {
 public:
  CtVerification(const CtLogs &logs, uint64_t time) : logs_(logs), time_(time) {}

  certbench_ct_counts counts{};
  std::vector<VerifiedSct> verified;

  // MultiLogCTVerifier::VerifySCTs over DecodeSCTs: a list that does not decode, or an item
  // that does not (DecodeSCTList, ReadSCTListItem: an empty item too), stops the list with one
  // decoding error; an SCT that does not decode is one error and the next is read. A fatal
  // error (not a verdict on one SCT) stops everything.
  Result VerifyList(Input list, const LogEntry &entry, SctOrigin origin) {
    Reader in(list);
    Input items;
    if (ReadVariableBytes(in, 2, items) != Success) {
      DecodingError();
      return Success;
    }
    Reader reader(items);
    while (!reader.AtEnd()) {
      Input encoded;
      if (ReadVariableBytes(reader, 2, encoded) != Success || encoded.GetLength() == 0) {
        DecodingError();
        return Success;
      }
      Sct sct;
      if (DecodeSct(encoded, sct) != Success) {
        DecodingError();
        continue;
      }
      Result rv = VerifySingle(sct, entry, origin);
      if (rv != Success) {
        return rv;
      }
    }
    return Success;
  }

 private:
  void DecodingError() {
    counts.scts++;
    counts.invalid++;
  }

  // MultiLogCTVerifier::VerifySingleSCT: the log by id (a linear search, as there), the
  // signature's parameters against the log's (SHA-256 with its algorithm), the signature, then
  // the timestamp (an SCT from the future: InvalidTimestamp). Gecko's distrust-after check of
  // the SCT's timestamp (a root's CKA_NSS_SERVER_DISTRUST_AFTER) is left out with those dates.
  Result VerifySingle(const Sct &sct, const LogEntry &entry, SctOrigin origin) {
    counts.scts++;
    const CtLog *log = nullptr;
    for (const CtLog &candidate : logs_.logs) {
      if (std::memcmp(candidate.key_id.data(), sct.log_id.UnsafeGetData(), 32) == 0) {
        log = &candidate;
        break;
      }
    }
    if (log == nullptr) {
      counts.unknown_log++;  // UnknownLog
      return Success;
    }
    if (sct.hash != static_cast<uint64_t>(CtHash::SHA256) ||
        sct.signature_algorithm != static_cast<uint64_t>(log->algorithm)) {
      counts.invalid++;  // InvalidSignature: the parameters do not match the log's
      return Success;
    }
    Result rv = LogVerify(*log, entry, sct);
    if (rv == Result::ERROR_BAD_SIGNATURE) {
      counts.invalid++;  // InvalidSignature
      return Success;
    }
    if (rv != Success) {
      return rv;
    }
    // The SCT's milliseconds rounded down to seconds, as TimeFromEpochInSeconds(ts / 1000).
    if (sct.timestamp / 1000 > time_) {
      counts.invalid++;  // InvalidTimestamp
      return Success;
    }
    counts.valid++;
    verified.push_back(VerifiedSct{
        log, origin, sct.timestamp,
        log->retired && log->retired_at_ms <= time_ * 1000});
    return Success;
  }

  // CTLogVerifier::Verify: the entry encoded (for each SCT, as there), the signed data, then
  // VerifySignature: VerifySignedDataWithCache with the log's algorithm and SHA-256; a
  // non-fatal failure is ERROR_BAD_SIGNATURE.
  Result LogVerify(const CtLog &log, const LogEntry &entry, const Sct &sct) {
    Result rv = EncodeLogEntry(entry, entry_);
    if (rv == Success) {
      rv = EncodeV1SctSignedData(sct.timestamp, entry_, sct.extensions, data_);
    }
    if (rv != Success) {
      return rv;
    }
    Input data, spki;
    if (data.Init(data_.data(), data_.size()) != Success ||
        spki.Init(log.spki.data(), log.spki.size()) != Success) {
      return Result::FATAL_ERROR_INVALID_ARGS;
    }
    der::PublicKeyAlgorithm algorithm = log.algorithm == CtSignature::RSA
                                            ? der::PublicKeyAlgorithm::RSA_PKCS1
                                            : der::PublicKeyAlgorithm::ECDSA;
    rv = VerifySignedDataWithCache(algorithm, data, sct.signature, spki);
    if (rv != Success && !IsFatalError(rv)) {
      return Result::ERROR_BAD_SIGNATURE;
    }
    return rv;
  }

  // CertVerifier.cpp's VerifySignedDataWithCache, with the SCT cache: a hit is a success
  // without a check; a check that succeeds is kept. Without a cache, the check alone.
  Result VerifySignedDataWithCache(der::PublicKeyAlgorithm algorithm, Input data,
                                   Input signature, Input spki) {
    Sha512 key;
    bool hashed = false;
    if (logs_.cache) {
      hashed = HashSignatureParams(data, signature, spki, algorithm, DigestAlgorithm::sha256,
                                   &key);
      if (hashed && logs_.cache->Get(key)) {
        return Success;
      }
    }
    counts.checked++;
    Result rv = algorithm == der::PublicKeyAlgorithm::RSA_PKCS1
                    ? VerifyRSAPKCS1SignedDataNSS(data, DigestAlgorithm::sha256, signature,
                                                  spki, nullptr)
                    : VerifyECDSASignedDataNSS(data, DigestAlgorithm::sha256, signature, spki,
                                               nullptr);
    if (hashed && rv == Success) {
      logs_.cache->Insert(key);
    }
    return rv;
  }

  const CtLogs &logs_;
  uint64_t time_;  // seconds since the epoch
  Der entry_;      // scratch: the encoded entry
  Der data_;       // scratch: the signed data
};

// CTPolicyEnforcer.cpp, as of the Gecko read (see the header comment).

// GetEffectiveCertIssuanceTime: the earliest timestamp of an SCT from an admissible log.
uint64_t EffectiveIssuanceTime(const std::vector<VerifiedSct> &scts) {
  uint64_t earliest = UINT64_MAX;
  for (const VerifiedSct &sct : scts) {
    if (!sct.retired) {
      earliest = std::min(earliest, sct.timestamp);
    }
  }
  return earliest;
}

// LogWasQualifiedForSct: an admissible log's SCT, or a retired log's when both the effective
// issuance time and the SCT are before the log's retirement.
bool LogWasQualifiedForSct(const VerifiedSct &sct, uint64_t issuance_time) {
  if (!sct.retired) {
    return true;
  }
  return issuance_time < sct.log->retired_at_ms && sct.timestamp < sct.log->retired_at_ms;
}

// EmbeddedSCTsCompliant: among the embedded SCTs from once-qualified logs, at least one from an
// admissible log, and at least N of them (N = 2 for a lifetime of at most 180 days, else 3:
// GetRequiredEmbeddedSctsCount), else NotEnoughScts; then N distinct logs and 2 distinct
// operators, else NotDiverseScts.
CtCompliance EmbeddedSctsCompliant(const std::vector<VerifiedSct> &scts, uint64_t issuance_time,
                                   Duration lifetime) {
  size_t admissible = 0;
  size_t qualified = 0;
  std::set<const CtLog *> logs;
  std::set<uint16_t> operators;
  for (const VerifiedSct &sct : scts) {
    if (sct.origin != SctOrigin::Embedded || !LogWasQualifiedForSct(sct, issuance_time)) {
      continue;
    }
    if (!sct.retired) {
      admissible++;
    }
    qualified++;
    logs.insert(sct.log);
    operators.insert(sct.log->operator_id);
  }
  size_t required = Duration(180 * Time::ONE_DAY_IN_SECONDS) < lifetime ? 3 : 2;
  if (admissible < 1 || qualified < required) {
    return CtCompliance::NotEnoughScts;
  }
  if (logs.size() < required || operators.size() < 2) {
    return CtCompliance::NotDiverseScts;
  }
  return CtCompliance::Compliant;
}

// NonEmbeddedSCTsCompliant: SCTs from TLS (or a stapled OCSP response) from admissible logs: at
// least 2, else NotEnoughScts; from 2 distinct logs of 2 distinct operators, else
// NotDiverseScts.
CtCompliance NonEmbeddedSctsCompliant(const std::vector<VerifiedSct> &scts) {
  size_t admissible = 0;
  std::set<const CtLog *> logs;
  std::set<uint16_t> operators;
  for (const VerifiedSct &sct : scts) {
    if (sct.origin == SctOrigin::Embedded || sct.retired) {
      continue;
    }
    admissible++;
    logs.insert(sct.log);
    operators.insert(sct.log->operator_id);
  }
  if (admissible < 2) {
    return CtCompliance::NotEnoughScts;
  }
  if (logs.size() < 2 || operators.size() < 2) {
    return CtCompliance::NotDiverseScts;
  }
  return CtCompliance::Compliant;
}

// CheckCTPolicyCompliance: compliant by the non-embedded SCTs, else the embedded case's verdict.
CtCompliance CheckCtPolicyCompliance(const std::vector<VerifiedSct> &scts, Duration lifetime) {
  if (NonEmbeddedSctsCompliant(scts) == CtCompliance::Compliant) {
    return CtCompliance::Compliant;
  }
  return EmbeddedSctsCompliant(scts, EffectiveIssuanceTime(scts), lifetime);
}

// CertVerifier::VerifyCertificateTransparencyPolicy(Inner) after the accepted path (see the
// header comment): nothing rendered here; the verdict is kept for Explain.
int VerifyCt(const void *logs_ptr, void *chain_ptr, const uint8_t *tls_scts, size_t tls_len,
             int64_t time, certbench_ct_counts *out) {
  auto &chain = *static_cast<Chain *>(chain_ptr);
  chain.ct_last = true;
  chain.ct_failed = true;  // until the policy is met
  chain.ct_rejected = Success;
  chain.ct_compliance = 0;
  chain.ct_error.clear();
  chain.ct_counts = certbench_ct_counts{};
  chain.ct_verified.clear();
  chain.ct_verified_kept = true;
  int ok = 0;
  try {
    MaybeThrow("ct");
    if (logs_ptr == nullptr) {
      chain.ct_error = "no CT log set";
    } else if (!chain.accepted) {
      chain.ct_error = "no accepted path: the CT check follows an accepted verify or verify_ev";
    } else if (time < 0) {
      chain.ct_error = "a validation time before 1970";
    } else if (chain.issuer.empty()) {
      // A built chain of one certificate (the end entity is the anchor): no issuer, no SCT
      // verified; Gecko returns an empty result, NotEnoughScts and the CT error.
      chain.ct_rejected = Result::ERROR_INSUFFICIENT_CERTIFICATE_TRANSPARENCY;
      chain.ct_compliance = static_cast<int>(CtCompliance::NotEnoughScts);
    } else {
      const auto &logs = *static_cast<const CtLogs *>(logs_ptr);
      CtVerification verification(logs, static_cast<uint64_t>(time));
      Result rv = [&]() -> Result {
        Input leaf, issuer;
        if (!ToInput(chain.leaf, &leaf) || !ToInput(chain.issuer, &issuer)) {
          return Result::FATAL_ERROR_INVALID_ARGS;
        }
        BackCert issuer_cert(issuer, EndEntityOrCA::MustBeCA, nullptr);
        Result rv = issuer_cert.Init();
        if (rv != Success) {
          return rv;
        }
        Input issuer_spki = issuer_cert.GetSubjectPublicKeyInfo();
        // MultiLogCTVerifier::Verify: the embedded SCTs over the precertificate entry (when
        // there are an issuer key and a list), then those from TLS over the X.509 entry.
        Input embedded;
        if (!chain.embedded_scts.empty() && issuer_spki.GetLength() > 0 &&
            ToInput(chain.embedded_scts, &embedded)) {
          LogEntry precert;
          precert.precert = true;
          rv = PrecertTbs(leaf, precert.tbs);
          if (rv == Success) {
            rv = DigestBufNSS(issuer_spki, DigestAlgorithm::sha256,
                              precert.issuer_key_hash.data(), precert.issuer_key_hash.size());
          }
          if (rv == Success) {
            rv = verification.VerifyList(embedded, precert, SctOrigin::Embedded);
          }
          if (rv != Success) {
            return rv;
          }
        }
        // Gecko ignores a TLS list too long for an Input (CertVerifier::VerifyCert: a failed
        // Init leaves it empty); a TLS extension cannot carry one.
        Input from_tls;
        if (tls_scts != nullptr && tls_len > 0 && from_tls.Init(tls_scts, tls_len) == Success) {
          LogEntry x509;
          if (x509.leaf.Init(leaf) != Success) {
            return Result::FATAL_ERROR_INVALID_ARGS;
          }
          rv = verification.VerifyList(from_tls, x509, SctOrigin::TLSExtension);
          if (rv != Success) {
            return rv;
          }
        }
        BackCert end_entity(leaf, EndEntityOrCA::MustBeEndEntity, nullptr);
        rv = end_entity.Init();
        if (rv != Success) {
          return rv;
        }
        Time not_before(Time::uninitialized);
        Time not_after(Time::uninitialized);
        rv = ParseValidity(end_entity.GetValidity(), &not_before, &not_after);
        if (rv != Success) {
          return rv;
        }
        CtCompliance compliance =
            CheckCtPolicyCompliance(verification.verified, Duration(not_before, not_after));
        chain.ct_compliance = static_cast<int>(compliance);
        return compliance == CtCompliance::Compliant
                   ? Success
                   : Result::ERROR_INSUFFICIENT_CERTIFICATE_TRANSPARENCY;
      }();
      chain.ct_counts = verification.counts;
      chain.ct_rejected = rv;
      for (const VerifiedSct &sct : verification.verified) {
        certbench_verified_sct out{};
        std::memcpy(out.log_id, sct.log->key_id.data(), sizeof out.log_id);
        out.timestamp = sct.timestamp;
        chain.ct_verified.push_back(out);
      }
      if (rv == Success) {
        chain.ct_failed = false;
        ok = 1;
      }
    }
  } catch (const std::exception &e) {
    chain.ct_error = e.what();
    ok = 0;
  } catch (...) {
    chain.ct_error = "an unknown C++ exception";
    ok = 0;
  }
  if (out != nullptr) {
    *out = chain.ct_counts;
  }
  return ok;
}

// The SCTs the last VerifyCt found valid, as CheckRevocationByCRLite reads them from
// mCTVerifyResult (see the header).
int VerifiedScts(void *chain_ptr, certbench_verified_sct *out, size_t cap) {
  const auto &chain = *static_cast<const Chain *>(chain_ptr);
  if (!chain.ct_verified_kept) {
    return -1;
  }
  size_t n = chain.ct_verified.size();
  if (n <= cap && out != nullptr) {
    std::copy(chain.ct_verified.begin(), chain.ct_verified.end(), out);
  }
  return static_cast<int>(n);
}

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

}  // namespace

extern "C" __attribute__((visibility("default"))) const certbench_verifier_v4 *
certbench_verifier_v4_table(void) {
  return &kTable;
}
